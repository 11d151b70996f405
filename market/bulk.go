package market

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/rynek/rynek/market/internal/item"
	"github.com/rynek/rynek/market/internal/record"
	"github.com/rynek/rynek/market/internal/search"
	"github.com/rynek/rynek/market/playertext"
)

// Bulk prepares a data load: players, inventories, listings, mail and
// historical transactions. It is a data load, not market activity: it
// publishes no events and skips the sell rules (limits, cooldowns), but every
// item and price is validated like live input.
//
// A bulk load goes into an empty store (NewBulk), or merges into one that
// has data (NewMerge): a merge only adds, and never overwrites what is there.
//
// A load is all or nothing: it is one store transaction (Store.BeginBulk),
// which Finish commits. Rows are written into it in chunks as they are
// added, so a million listings do not sit in memory; none of them is part
// of the market before Finish. A load that fails, is abandoned (Abort, or
// the store closed) or whose process dies leaves the market as it was:
// empty, or with its previous contents.
type Bulk struct {
	store Store
	// tx is the load's transaction, open from the first chunk written;
	// failed is the write that ended it, which every later call returns
	// (a new transaction would hold only the rest of the load).
	tx     BulkTx
	failed error
	done   bool // committed or aborted
	b      Batch
	nextID int64
	fee    Money
	volume Money // completed historic sales, for the persisted counters
	sales  int64
	// opening is what the load puts into the market: the players'
	// balances, the fees, the items, and the newest creation time among
	// its listings and transactions (the opening account's share).
	opening Opening
	players map[uuid.UUID]*bulkPlayer
	order   []*bulkPlayer
	chunk   int

	// A merge's view of the store: the counters it had and the keys it
	// holds, which the merge leaves alone.
	base     MetaRow
	existing bulkKeys
	// written is what the flushed chunks added to the counters, and the
	// next listing id the store holds after them.
	written MetaRow
	summary BulkSummary

	// floor is the store's next listing id when the load began: ids below
	// it may be in use, so a kept id must not be below it.
	floor int64
	// What this load added with ids of their own: kept listing ids, mail
	// ids and the stacks of both, so that a source that names one twice
	// cannot duplicate it.
	keptIDs map[int64]bool
	mailIDs map[uuid.UUID]bool
	stacks  map[uuid.UUID]bool
	// handedOut is set once the load has given a new id (AddListing, or
	// AddTransaction without a ListingID): ids below nextID may be taken.
	handedOut bool
}

// bulkPlayer is a player row kept until Finish, so that its inventory is
// written once.
type bulkPlayer struct {
	row   PlayerRow
	inv   item.Inventory
	extra *playerExtra // favourites, alerts and outbid notices, nil for none
}

// BulkAlert is a price alert to load (SetPlayerData).
type BulkAlert struct {
	ID           uuid.UUID // uuid.Nil: a new one
	Query        string
	MaxUnitPrice Money
	Created      time.Time
}

// SetPlayerData gives a player this load adds favourites (listing ids, as
// the store will have them) and price alerts, each validated like AddAlert's
// (any number of them: a bulk load keeps what the source had, up to 1,000).
// Favourites are written as given; Load leaves out those whose listing is
// not on the market.
func (k *Bulk) SetPlayerData(player uuid.UUID, favorites []int, alerts []BulkAlert) error {
	bp := k.players[player]
	if bp == nil {
		return fmt.Errorf("bulk: player %s is not one this load adds", player)
	}
	if len(favorites) > maxFavorites || len(alerts) > 1000 {
		return fmt.Errorf("bulk: %d favourites and %d alerts: at most %d and 1000", len(favorites), len(alerts), maxFavorites)
	}
	x := &playerExtra{}
	for _, id := range favorites {
		if id <= 0 || id > math.MaxInt32 {
			return fmt.Errorf("bulk: favourite listing id %d is out of range", id)
		}
		if !slices.Contains(x.favorites, uint32(id)) {
			x.favorites = append(x.favorites, uint32(id))
		}
	}
	for _, a := range alerts {
		pq := search.ParseText(a.Query)
		switch {
		case len(a.Query) > MaxAlertQueryBytes:
			return fmt.Errorf("bulk: alert %q is over %d bytes", playertext.Excerpt(a.Query), MaxAlertQueryBytes)
		case len(pq.Words) == 0 || len(pq.IDs) > 0 || pq.Bad:
			return fmt.Errorf("bulk: alert %q has no words to look for", playertext.Excerpt(a.Query))
		case a.MaxUnitPrice <= 0:
			return fmt.Errorf("bulk: alert %q has a ceiling of %s", playertext.Excerpt(a.Query), FormatMoney(a.MaxUnitPrice))
		}
		if a.ID == uuid.Nil {
			a.ID = uuid.New()
		}
		x.alerts = append(x.alerts, alertRecord{id: a.ID, query: a.Query, maxUnit: a.MaxUnitPrice, created: a.Created.UnixMilli(), words: pq.Words})
	}
	if bp.extra != nil {
		x.outbids = bp.extra.outbids // the loaded auctions' notices (AddAuction) stay
	}
	bp.extra = x
	return nil
}

// bulkKeys are the keys a store held when a merge began.
type bulkKeys struct {
	players      map[uuid.UUID]bool
	transactions map[uuid.UUID]bool
	mail         map[uuid.UUID]bool
	// stacks are the ids of every item stack in the store: in
	// inventories, mailboxes, listings and transactions. A stack keeps its
	// id wherever it moves, so a loaded stack that is among them has been
	// loaded before.
	stacks map[uuid.UUID]bool
}

// BulkSummary counts what a bulk load added and what a merge skipped
// because the store already had it.
type BulkSummary struct {
	Players, Listings, Transactions, Mail, Orders                     int
	SkippedPlayers, SkippedTransactions, SkippedListings, SkippedMail int
}

// NewBulk starts a bulk load into store, which must be empty: a load that
// silently overwrote a player's balance or inventory would destroy real data.
func NewBulk(store Store) (*Bulk, error) {
	empty, err := storeEmpty(store)
	if err != nil {
		return nil, err
	}
	if !empty {
		return nil, ErrStoreNotEmpty
	}
	return newBulk(store), nil
}

func newBulk(store Store) *Bulk {
	return &Bulk{store: store, nextID: 1, floor: 1, players: map[uuid.UUID]*bulkPlayer{}, chunk: 50_000,
		keptIDs: map[int64]bool{}, mailIDs: map[uuid.UUID]bool{}, stacks: map[uuid.UUID]bool{}}
}

// Reserve makes room for n more rows when the caller knows how many it
// brings: the rows of a load wait in memory until their chunk is written
// (up to 50,000), and a batch that grows copies every row so far, holding
// both copies for a moment.
func (k *Bulk) Reserve(n int) { k.b.Ops = slices.Grow(k.b.Ops, min(n, k.chunk)) }

// SetNextListingID keeps the source's own id counter: the load hands out no
// new listing id below n (ids are never reused, even those of listings that
// are gone).
func (k *Bulk) SetNextListingID(n int64) { k.nextID = max(k.nextID, n) }

// NewMerge starts a bulk load that adds to what store holds and never
// overwrites it: a player, a transaction or a mailbox entry that the store
// has already is skipped (and counted in Summary), as is a listing or mail
// whose item stack the store holds; a new listing gets an id after every id
// the store ever gave, and the market's counters (fees, volume, sales) grow
// by what the load adds. Giving a player who already exists an inventory
// slot is refused. Merging the same data twice adds its players,
// transactions and mail once, and the listings of AddListingKeepingID once;
// listings added with AddListing have no identity of their own across
// loads, so a caller that must not repeat them keeps its own record.
func NewMerge(store Store) (*Bulk, error) {
	k := newBulk(store)
	k.existing = bulkKeys{players: map[uuid.UUID]bool{}, transactions: map[uuid.UUID]bool{},
		mail: map[uuid.UUID]bool{}, stacks: map[uuid.UUID]bool{}}
	keys := &keyLoader{k: k}
	if err := store.Load(keys); err != nil {
		return nil, fmt.Errorf("bulk merge: read the market: %w", err)
	}
	var after [16]byte
	for {
		n, err := store.LoadHistory(after, 50_000, func(t TxRow) error {
			after = t.ID
			return keys.Transaction(t)
		})
		if err != nil {
			return nil, fmt.Errorf("bulk merge: read the history: %w", err)
		}
		if n < 50_000 {
			break
		}
	}
	k.nextID = max(k.base.NextListingID, keys.maxListing+1, 1)
	k.floor = k.nextID
	return k, nil
}

// keyLoader collects the keys and counters of a store for a merge.
type keyLoader struct {
	k          *Bulk
	maxListing int64
}

func (l *keyLoader) Meta(m MetaRow) error { l.k.base = m; return nil }

func (l *keyLoader) Player(p PlayerRow) error {
	l.k.existing.players[p.ID] = true
	inv, err := item.DecodeInventory(p.Inventory)
	if err != nil {
		return fmt.Errorf("inventory of player %s: %w", p.ID, err)
	}
	for _, it := range inv {
		if it.Mat != 0 {
			l.k.existing.stacks[it.UID] = true
		}
	}
	return nil
}

func (l *keyLoader) Mail(m MailRow) error {
	l.k.existing.mail[m.ID] = true
	it, err := item.Decode(m.Item)
	if err != nil {
		return fmt.Errorf("mail %s: %w", m.ID, err)
	}
	l.k.existing.stacks[it.UID] = true
	return nil
}

func (l *keyLoader) Listing(row ListingRow) error {
	l.maxListing = max(l.maxListing, row.ID)
	var r listingRecord
	if _, err := decodeListing(row.Rec, &r); err != nil {
		return fmt.Errorf("listing #%d: %w", row.ID, err)
	}
	l.k.existing.stacks[r.it.UID] = true
	return nil
}

// Order counts an order's id, which the listings' ids give.
func (l *keyLoader) Order(row OrderRow) error {
	l.maxListing = max(l.maxListing, row.ID)
	return nil
}

func (l *keyLoader) Transaction(row TxRow) error {
	l.k.existing.transactions[row.ID] = true
	var t transactionRecord
	if _, _, err := decodeTx(row.Rec, &t); err != nil {
		return fmt.Errorf("transaction %s: %w", row.ID, err)
	}
	l.maxListing = max(l.maxListing, int64(t.listing))
	l.k.existing.stacks[t.it.UID] = true
	return nil
}

// storeEmpty reports whether store has no players and no listings.
func storeEmpty(store Store) (bool, error) {
	err := store.Load(emptinessLoader{})
	if errors.Is(err, errHasData) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("bulk load: read the market: %w", err)
	}
	return true, nil
}

var errHasData = errors.New("the store has data")

// emptinessLoader stops Load at the first row.
type emptinessLoader struct{}

func (emptinessLoader) Meta(MetaRow) error       { return nil }
func (emptinessLoader) Player(PlayerRow) error   { return errHasData }
func (emptinessLoader) Mail(MailRow) error       { return errHasData }
func (emptinessLoader) Listing(ListingRow) error { return errHasData }
func (emptinessLoader) Transaction(TxRow) error  { return errHasData }
func (emptinessLoader) Order(OrderRow) error     { return errHasData }

// Summary reports what the load added and skipped so far.
func (k *Bulk) Summary() BulkSummary { return k.summary }

// Err is the store's failure that ended the load (a chunk it refused, a
// transaction it could not open), nil while the load goes on. Nothing of
// the load is written then, and every later call returns it at once,
// holding nothing more in memory: a caller stops there, where an error of
// one row (a bad price, an unknown player) leaves the load going.
func (k *Bulk) Err() error { return k.failed }

func (k *Bulk) flushIfFull() error {
	if len(k.b.Ops) < k.chunk {
		return nil
	}
	return k.flush()
}

func (k *Bulk) flush() error {
	if len(k.b.Ops) == 0 {
		return nil
	}
	return k.write()
}

// errBulkDone is the answer of a load that was finished or aborted.
var errBulkDone = errors.New("bulk: the load has ended (finished or aborted)")

// write writes the batch into the load's transaction, opening it first,
// with the counters' change since the last chunk: the load's own sums are
// added (a merge keeps what the store had), and the next listing id moves
// past the ids the load used.
func (k *Bulk) write() error {
	switch {
	case k.failed != nil:
		return k.failed
	case k.done:
		return errBulkDone
	}
	if k.tx == nil {
		tx, err := k.store.BeginBulk()
		if err != nil {
			k.failed = fmt.Errorf("bulk load: %w", err)
			return k.failed
		}
		k.tx = tx
	}
	w := &k.written
	if w.NextListingID == 0 {
		w.NextListingID = max(k.base.NextListingID, 1)
	}
	add := MetaRow{FeeBalance: k.fee - w.FeeBalance, Volume: k.volume - w.Volume, Sales: k.sales - w.Sales}
	if add != (MetaRow{}) {
		k.b.add(Op{Kind: OpCounters, Meta: add})
	}
	opening := Opening{Money: k.opening.Money + k.fee - w.Opening.Money, Items: k.opening.Items - w.Opening.Items,
		LoadedThrough: k.opening.LoadedThrough}
	if opening.Money != 0 || opening.Items != 0 || opening.LoadedThrough > w.Opening.LoadedThrough {
		k.b.add(Op{Kind: OpLoaded, Meta: MetaRow{Opening: opening}})
	}
	if k.nextID > w.NextListingID {
		k.b.add(Op{Kind: OpListingIDs, Int: w.NextListingID, Meta: MetaRow{NextListingID: k.nextID}})
	}
	err := k.tx.Write(&k.b)
	k.b.Ops = k.b.Ops[:0]
	if err != nil {
		// The store has rolled the transaction back: nothing of the load
		// is written.
		k.failed = fmt.Errorf("bulk load: %w", err)
		return k.failed
	}
	*w = MetaRow{FeeBalance: k.fee, Volume: k.volume, Sales: k.sales, NextListingID: max(k.nextID, w.NextListingID),
		Opening: Opening{Money: k.opening.Money + k.fee, Items: k.opening.Items, LoadedThrough: k.opening.LoadedThrough}}
	return nil
}

// AddPlayer adds a player with a balance in minor units, zero or more. In
// a merge, a player the store already has is skipped: their balance and
// inventory stay as they are.
func (k *Bulk) AddPlayer(p Player, balance Money) error {
	if p.ID == uuid.Nil || p.Name == "" {
		return fmt.Errorf("bulk: player needs an id and a name")
	}
	if k.players[p.ID] != nil {
		return fmt.Errorf("bulk: player %s added twice", p.ID)
	}
	if k.existing.players[p.ID] {
		k.summary.SkippedPlayers++
		return nil
	}
	if err := item.ValidateText("player name", p.Name, 64); err != nil {
		return invalidItem(err)
	}
	if balance < 0 {
		return fmt.Errorf("bulk: player %s's balance is %s: a balance is never below zero", p.Name, FormatMoney(balance))
	}
	for _, perm := range p.Permissions {
		if strings.Contains(perm, ",") {
			return fmt.Errorf("bulk: permission %q contains a comma", perm)
		}
	}
	bp := &bulkPlayer{row: PlayerRow{ID: p.ID, Name: p.Name, Perms: strings.Join(p.Permissions, ","), Balance: balance}}
	k.players[p.ID] = bp
	k.order = append(k.order, bp)
	k.summary.Players++
	return nil
}

// known reports whether a player was added by this load or, in a merge, is
// in the store.
func (k *Bulk) known(id uuid.UUID) bool { return k.players[id] != nil || k.existing.players[id] }

// RenamePlayer gives a player this load adds another name: a source that
// names a player many times, in no useful order, gives each name as it
// reads it and keeps the newest. A player the store had already keeps
// theirs: a merge never overwrites.
func (k *Bulk) RenamePlayer(id uuid.UUID, name string) error {
	if k.existing.players[id] {
		return nil
	}
	bp := k.players[id]
	if bp == nil {
		return fmt.Errorf("bulk: unknown player %s", id)
	}
	if name == "" {
		return fmt.Errorf("bulk: player %s needs a name", id)
	}
	if err := item.ValidateText("player name", name, 64); err != nil {
		return invalidItem(err)
	}
	bp.row.Name = name
	return nil
}

// SetSlot puts an item into the inventory slot of a player this load adds.
func (k *Bulk) SetSlot(player uuid.UUID, slot int, s ItemStack) error {
	bp := k.players[player]
	if bp == nil {
		if k.existing.players[player] {
			return fmt.Errorf("bulk merge: player %s is already in the market; a merge never overwrites their inventory", player)
		}
		return fmt.Errorf("bulk: unknown player %s", player)
	}
	if slot < 0 || slot >= InventorySize {
		return fmt.Errorf("bulk: slot %d outside 0..%d", slot, InventorySize-1)
	}
	it, err := k.item(s)
	if err != nil {
		return err
	}
	bp.inv[slot] = it
	return nil
}

func (k *Bulk) item(s ItemStack) (item.Item, error) {
	if s.ID == uuid.Nil {
		s.ID = uuid.New()
	}
	return toItem(s)
}

// AddListing adds an active listing and returns its id.
func (k *Bulk) AddListing(seller uuid.UUID, s ItemStack, price Money, created, expires time.Time) (int, error) {
	if k.failed != nil {
		return 0, k.failed
	}
	if !k.known(seller) {
		return 0, fmt.Errorf("bulk: unknown seller %s", seller)
	}
	if price <= 0 {
		return 0, fmt.Errorf("bulk: price must be positive")
	}
	it, err := k.item(s)
	if err != nil {
		return 0, err
	}
	id := k.nextID
	k.nextID++
	k.handedOut = true
	r := &listingRecord{id: uint32(id), price: price, created: created.UnixMilli(), expires: expires.UnixMilli(), it: it}
	k.b.add(Op{Kind: OpAddListing, Listing: &ListingRow{ID: id, Rec: record.EncodeListing(nil, r.stored(seller))}})
	k.brought(it, r.created)
	k.summary.Listings++
	return int(id), k.flushIfFull()
}

// BulkListing is an active listing to load under an id of its own.
type BulkListing struct {
	ID               int
	Seller           uuid.UUID
	Item             ItemStack // Item.ID identifies the stack across loads
	Price            Money
	Created, Expires time.Time
}

// AddListingKeepingID adds an active listing under the id it had in the
// source, so that whatever names it there still finds it. An id the market
// may have given (one below the store's next id in a merge) or that this
// load has given is refused with ErrListingIDTaken: the caller can add the
// listing with AddListing, which gives it a new id. In a merge, a listing
// whose stack (Item.ID) the store already holds was loaded before: it is
// skipped, and added is false.
func (k *Bulk) AddListingKeepingID(l BulkListing) (added bool, err error) {
	if k.failed != nil {
		return false, k.failed
	}
	id := int64(l.ID)
	if id < 1 || id > math.MaxInt32 {
		return false, fmt.Errorf("bulk: listing id %d outside 1..%d", id, math.MaxInt32)
	}
	if !k.known(l.Seller) {
		return false, fmt.Errorf("bulk: unknown seller %s", l.Seller)
	}
	if l.Price <= 0 {
		return false, fmt.Errorf("bulk: price must be positive")
	}
	if k.existing.stacks[l.Item.ID] && l.Item.ID != uuid.Nil {
		k.summary.SkippedListings++
		return false, nil
	}
	if id < k.floor || k.keptIDs[id] || k.handedOut && id < k.nextID {
		return false, ErrListingIDTaken
	}
	it, err := k.newStack(l.Item)
	if err != nil {
		return false, err
	}
	k.keptIDs[id] = true
	k.nextID = max(k.nextID, id+1)
	r := &listingRecord{id: uint32(id), price: l.Price, created: l.Created.UnixMilli(), expires: l.Expires.UnixMilli(), it: it}
	k.b.add(Op{Kind: OpAddListing, Listing: &ListingRow{ID: id, Rec: record.EncodeListing(nil, r.stored(l.Seller))}})
	k.brought(it, r.created)
	k.summary.Listings++
	return true, k.flushIfFull()
}

// newStack validates a stack that a kept-id listing or a mailbox entry
// brings, refusing one this load has added already.
func (k *Bulk) newStack(s ItemStack) (item.Item, error) {
	if s.ID != uuid.Nil && k.stacks[s.ID] {
		return item.Item{}, fmt.Errorf("bulk: item stack %s added twice", s.ID)
	}
	it, err := k.item(s)
	if err != nil {
		return item.Item{}, err
	}
	k.stacks[it.UID] = true
	return it, nil
}

// BulkMail is a mailbox entry to load.
type BulkMail struct {
	Owner         uuid.UUID
	ID            uuid.UUID // uuid.Nil: a new one
	Item          ItemStack // Item.ID identifies the stack across loads
	Reason        string
	Created       time.Time
	PreviousPrice Money // the listing's price when the item came from one; 0 otherwise
}

// AddMail puts an item into the mailbox of a player. In a merge, an entry
// whose id or stack the store already holds was loaded before: it is
// skipped, and added is false.
func (k *Bulk) AddMail(m BulkMail) (added bool, err error) {
	if k.failed != nil {
		return false, k.failed
	}
	if !k.known(m.Owner) {
		return false, fmt.Errorf("bulk: unknown mailbox owner %s", m.Owner)
	}
	if m.Reason == "" {
		return false, fmt.Errorf("bulk: mail needs a reason")
	}
	if err := item.ValidateText("mail reason", m.Reason, 64); err != nil {
		return false, invalidItem(err)
	}
	if m.PreviousPrice < 0 {
		return false, fmt.Errorf("bulk: previous price %d is negative", m.PreviousPrice)
	}
	if k.existing.mail[m.ID] || k.existing.stacks[m.Item.ID] && m.Item.ID != uuid.Nil {
		k.summary.SkippedMail++
		return false, nil
	}
	if m.ID == uuid.Nil {
		m.ID = uuid.New()
	}
	if k.mailIDs[m.ID] {
		return false, fmt.Errorf("bulk: mail %s added twice", m.ID)
	}
	it, err := k.newStack(m.Item)
	if err != nil {
		return false, err
	}
	k.mailIDs[m.ID] = true
	k.b.add(Op{Kind: OpPutMail, Mail: &MailRow{ID: m.ID, Player: m.Owner, Item: item.Encode(nil, it), Reason: m.Reason,
		Created: m.Created.UnixMilli(), PrevPrice: m.PreviousPrice}})
	k.brought(it, 0)
	k.summary.Mail++
	return true, k.flushIfFull()
}

// brought counts a stack the load puts into the market, and the creation
// time of the listing that holds it (0: none), into the opening account.
func (k *Bulk) brought(it item.Item, created int64) {
	k.opening.Items += int64(it.Amount)
	k.opening.LoadedThrough = max(k.opening.LoadedThrough, created)
}

// Finish writes the players and what is left, and commits the load: only
// now does any of it become part of the market.
func (k *Bulk) Finish() error {
	for _, bp := range k.order {
		row := bp.row
		k.opening.Money += row.Balance
		for _, it := range bp.inv {
			if it.Mat != 0 {
				k.brought(it, 0)
			}
		}
		row.Inventory = item.EncodeInventory(nil, &bp.inv)
		if bp.extra != nil {
			row.Extra = encodeExtra(bp.extra)
		}
		k.b.add(Op{Kind: OpAddPlayer, Player: &row})
	}
	k.order = nil
	if err := k.write(); err != nil {
		return err
	}
	k.done = true
	if err := k.tx.Commit(); err != nil {
		k.failed = fmt.Errorf("bulk load: %w", err)
		return k.failed
	}
	return nil
}

// Abort drops the load: nothing of it becomes part of the market, and the
// store takes other writes again. It does nothing after Finish; a caller
// that may stop half-way defers it.
func (k *Bulk) Abort() error {
	if k.done {
		return nil
	}
	k.done = true
	if k.tx == nil {
		return nil
	}
	return k.tx.Rollback()
}

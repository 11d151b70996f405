package market

import (
	"bytes"
	"cmp"
	"fmt"
	"slices"

	"github.com/google/uuid"
	"github.com/rynek/rynek/market/internal/item"
	"github.com/rynek/rynek/market/internal/record"
)

// StoreContents is everything a market's store holds, in public form: what
// an export writes out.
type StoreContents struct {
	// NextListingID is the next id the market would give: no listing or
	// transaction has an id at or above it.
	NextListingID int
	Players       []Player
	// Listings are every listing, by id, also those whose expiry has passed
	// but that the sweep has not removed yet: their items are still there.
	Listings []Listing
	// Mail are every mailbox entry, by owner and then by time.
	Mail []OwnedMail
	// Transactions are every transaction, in creation order.
	Transactions []Transaction
	// PlayerData are the players' favourites (listings on the market) and
	// price alerts, for the players who have any.
	PlayerData map[uuid.UUID]PlayerData
	// Orders are every buy order, open and closed, by id.
	Orders []Order
}

// PlayerData is a player's favourites and price alerts.
type PlayerData struct {
	Favorites []int // listing ids, in the order added
	Alerts    []Alert
}

// OwnedMail is a mailbox entry and whose mailbox holds it.
type OwnedMail struct {
	Owner uuid.UUID
	MailboxEntry
}

// ReadStore reads the whole of store (a Snapshot, or a Store) without a
// Service: an export must not change the market, and a Service's Enable
// would (it recovers the purchases a crash left unfinished). Everything is
// held in memory.
func ReadStore(store Reader) (*StoreContents, error) {
	r := &contentsReader{c: &StoreContents{}, names: map[uuid.UUID]string{}}
	if err := store.Load(r); err != nil {
		return nil, fmt.Errorf("read the market: %w", err)
	}
	var after [16]byte
	for {
		n, err := store.LoadHistory(after, 50_000, func(row TxRow) error {
			after = row.ID
			return r.Transaction(row)
		})
		if err != nil {
			return nil, fmt.Errorf("read the history: %w", err)
		}
		if n < 50_000 {
			break
		}
	}
	c := r.c
	slices.SortFunc(c.Listings, func(a, b Listing) int { return cmp.Compare(a.ID, b.ID) })
	for id, d := range c.PlayerData { // favourites of listings no longer on the market are dropped
		d.Favorites = slices.DeleteFunc(d.Favorites, func(l int) bool {
			_, found := slices.BinarySearchFunc(c.Listings, l, func(x Listing, want int) int { return cmp.Compare(x.ID, want) })
			return !found
		})
		c.PlayerData[id] = d
	}
	slices.SortFunc(c.Mail, func(a, b OwnedMail) int {
		return cmp.Or(bytes.Compare(a.Owner[:], b.Owner[:]), a.CreatedAt.Compare(b.CreatedAt), bytes.Compare(a.ID[:], b.ID[:]))
	})
	slices.SortStableFunc(c.Transactions, func(a, b Transaction) int {
		return cmp.Or(a.CreatedAt().Compare(b.CreatedAt()), cmp.Compare(a.ID, b.ID))
	})
	for _, l := range c.Listings {
		c.NextListingID = max(c.NextListingID, l.ID+1)
	}
	for _, t := range c.Transactions {
		c.NextListingID = max(c.NextListingID, t.ListingID+1)
	}
	slices.SortFunc(c.Orders, func(a, b Order) int { return cmp.Compare(a.ID, b.ID) })
	for _, o := range c.Orders {
		c.NextListingID = max(c.NextListingID, o.ID+1)
	}
	return c, nil
}

// contentsReader turns the rows of a store into public values.
type contentsReader struct {
	c     *StoreContents
	names map[uuid.UUID]string
}

func (r *contentsReader) person(id uuid.UUID) (person, error) {
	name, ok := r.names[id]
	if !ok {
		return person{}, fmt.Errorf("unknown player %s", id)
	}
	return person{id, name}, nil
}

func (r *contentsReader) Meta(m MetaRow) error {
	r.c.NextListingID = int(max(m.NextListingID, 1))
	return nil
}

func (r *contentsReader) Player(p PlayerRow) error {
	r.names[p.ID] = p.Name
	pl := Player{ID: p.ID, Name: p.Name, Permissions: splitPerms(p.Perms)}
	r.c.Players = append(r.c.Players, pl)
	x, err := decodeExtra(p.Extra)
	if err != nil {
		return fmt.Errorf("market data of player %s: %w", p.ID, err)
	}
	if x != nil && (len(x.favorites) > 0 || len(x.alerts) > 0) {
		var d PlayerData
		for _, id := range x.favorites {
			d.Favorites = append(d.Favorites, int(id))
		}
		for _, a := range x.alerts {
			d.Alerts = append(d.Alerts, a.public())
		}
		if r.c.PlayerData == nil {
			r.c.PlayerData = map[uuid.UUID]PlayerData{}
		}
		r.c.PlayerData[p.ID] = d
	}
	return nil
}

func (r *contentsReader) Mail(m MailRow) error {
	if _, ok := r.names[m.Player]; !ok {
		return fmt.Errorf("mail %s of unknown player %s", m.ID, m.Player)
	}
	it, err := item.Decode(m.Item)
	if err != nil {
		return fmt.Errorf("mail %s: %w", m.ID, err)
	}
	r.c.Mail = append(r.c.Mail, OwnedMail{Owner: m.Player, MailboxEntry: MailboxEntry{ID: m.ID, Item: stackOf(it),
		Reason: m.Reason, CreatedAt: unixMilli(m.Created), PreviousPrice: m.PrevPrice.Float()}})
	return nil
}

func (r *contentsReader) Listing(row ListingRow) error {
	lr := listingRecord{id: uint32(row.ID)}
	seller, err := decodeListing(row.Rec, &lr)
	if err != nil {
		return fmt.Errorf("listing #%d: %w", row.ID, err)
	}
	p, err := r.person(seller)
	if err != nil {
		return fmt.Errorf("listing #%d: %w", row.ID, err)
	}
	r.c.Listings = append(r.c.Listings, publicListing(&lr, p, ""))
	return nil
}

func (r *contentsReader) Order(row OrderRow) error {
	o, err := record.DecodeOrder(row.Rec)
	if err != nil {
		return fmt.Errorf("order #%d: %w", row.ID, err)
	}
	p, err := r.person(o.Buyer)
	if err != nil {
		return fmt.Errorf("order #%d: %w", row.ID, err)
	}
	o.ID = uint32(row.ID)
	r.c.Orders = append(r.c.Orders, storedOrder(&o, p.name))
	return nil
}

func (r *contentsReader) Transaction(row TxRow) error {
	si := stateIndex(row.State)
	if si < 0 {
		return fmt.Errorf("transaction %s has unknown state %q", row.ID, row.State)
	}
	t := transactionRecord{id: row.ID, state: uint8(si)}
	buyer, seller, err := decodeTx(row.Rec, &t)
	if err != nil {
		return fmt.Errorf("transaction %s: %w", row.ID, err)
	}
	b, err := r.person(buyer)
	if err != nil {
		return fmt.Errorf("transaction %s: %w", row.ID, err)
	}
	s, err := r.person(seller)
	if err != nil {
		return fmt.Errorf("transaction %s: %w", row.ID, err)
	}
	r.c.Transactions = append(r.c.Transactions, publicTransaction(&t, b, s))
	return nil
}

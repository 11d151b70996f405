package grzybcio

import (
	"errors"
	"fmt"
	"maps"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/rynek/rynek/market"
)

// ImportOptions control an import.
type ImportOptions struct {
	// Dir is the plugin's data folder, holding listings.yml and
	// market-data.yml.
	Dir string
	// ExpiryDays is the plugin's listing-expiry-days: it stored no expiry,
	// and computed one from its creation time and this setting.
	ExpiryDays int
	// Now decides which listings have expired already (zero: the clock's
	// time).
	Now time.Time
	// DryRun reads, checks and reports everything and writes nothing.
	DryRun bool
	// Merge adds to a market that has data; without it such a market is
	// refused.
	Merge bool
	// Progress, if set, is told how many entries of the total are loaded.
	Progress func(done, total int)
}

// DefaultExpiryDays is the plugin's default listing-expiry-days.
const DefaultExpiryDays = 7

// unfinishedPrefix starts the error code of a transaction the plugin left in
// a state that is not final: it is kept as FAILED history, never replayed
// against money, and the code says which state it was in (and the plugin's
// own error, if it had one), so that an export can give it back.
const unfinishedPrefix = "IMPORTED_UNFINISHED:"

// stackSpace is the namespace of the stack ids an import makes: each is
// derived from what identifies its entry in the files, so that a second
// merge of the same files finds every stack it brought already there.
var stackSpace = uuid.MustParse("7b0c6a52-3f0e-4c83-9d55-2a1d9e6c4f10")

// ErrNotEmpty is returned for a market that has data when Merge is off.
var ErrNotEmpty = errors.New("the market is not empty: an import goes into an empty market; add --merge to add to this one (what it has is never overwritten, and merging the same files again adds nothing)")

// Import loads the plugin's files from o.Dir into store as one bulk
// transaction: all of it, or on any failure nothing. The report says what
// was loaded, skipped, rounded, expired and not imported. A store of nil is
// an empty market that does not exist yet (a dry run before the first
// import).
func Import(store market.Store, o ImportOptions) (*Report, error) {
	if o.ExpiryDays == 0 {
		o.ExpiryDays = DefaultExpiryDays
	}
	if o.Now.IsZero() {
		o.Now = time.Now()
	}
	if o.ExpiryDays < 1 || o.ExpiryDays > 36500 {
		return nil, fmt.Errorf("the expiry must be 1 to 36500 days, not %d", o.ExpiryDays)
	}
	if store == nil {
		if !o.DryRun {
			return nil, errors.New("an import that writes needs a market")
		}
		store = emptyStore{}
	}
	// An import builds a large heap of YAML nodes in one go; collecting at
	// the default 100% growth would mark it over and over (as for the
	// service's own load).
	defer debug.SetGCPercent(debug.SetGCPercent(400))
	src, err := read(o.Dir)
	if err != nil {
		return nil, err
	}
	var k *market.Bulk
	if o.Merge {
		k, err = market.NewMerge(store)
	} else {
		k, err = market.NewBulk(store)
		if errors.Is(err, market.ErrStoreNotEmpty) {
			return nil, ErrNotEmpty
		}
	}
	if err != nil {
		return nil, err
	}
	k.OneTransaction()
	l := &loading{o: o, src: src, k: k, r: &Report{Dir: o.Dir, DryRun: o.DryRun, Merge: o.Merge,
		ExpiryDays: o.ExpiryDays, NoMarketData: !src.hasMarketData, SaleNotices: src.saleNotices, Notes: src.notes}}
	l.total = len(src.listings) + len(src.outbox) + len(src.pendingReturns) + len(src.mail) + len(src.transactions)
	if err := l.run(); err != nil {
		return nil, err
	}
	sum := k.Summary()
	l.r.Players, l.r.KnownPlayers = sum.Players, sum.SkippedPlayers
	l.r.AlreadyThere = sum.SkippedListings + sum.SkippedMail + sum.SkippedTransactions
	if !o.DryRun {
		if err := k.Finish(); err != nil {
			return nil, fmt.Errorf("write the market: %w", err)
		}
	}
	return l.r, nil
}

// loading is one import's progress through the source.
type loading struct {
	o     ImportOptions
	src   *source
	k     *market.Bulk
	r     *Report
	ids   map[int64]int // the files' listing ids this load added, and the ids they got
	done  int
	total int
}

func (l *loading) step() {
	l.done++
	if l.o.Progress != nil && (l.done%4096 == 0 || l.done == l.total) {
		l.o.Progress(l.done, l.total)
	}
}

func (l *loading) note(kind NoteKind, where, format string, args ...any) {
	l.r.Notes = append(l.r.Notes, Note{Kind: kind, Where: where, Text: fmt.Sprintf(format, args...)})
}

// cents rounds a price of the files to cents, noting when that changed it.
func (l *loading) cents(where, what string, v float64) (market.Money, error) {
	m, err := market.RoundToCents(v)
	if err != nil {
		return 0, err
	}
	// Judged on the shortest decimal that is v, as market.PriceToMoney
	// judges a price: 19.99 has two decimals, although 19.99*100 is not
	// 1999 in binary.
	s := strconv.FormatFloat(v, 'f', -1, 64)
	if i := strings.IndexByte(s, '.'); i >= 0 && len(s)-i-1 > 2 {
		l.r.Rounded++
		l.note(NoteRounded, where, "%s %v rounded to %s", what, v, market.FormatMoney(m))
	}
	return m, nil
}

func (l *loading) run() error {
	if err := l.players(); err != nil {
		return err
	}
	if l.src.nextID > 0 {
		l.k.SetNextListingID(l.src.nextID)
	}
	if err := l.listings(); err != nil {
		return err
	}
	if err := l.playerData(); err != nil {
		return err
	}
	for _, group := range []struct {
		entries []mailEntry
		count   *int
	}{{l.src.outbox, &l.r.Outbox}, {l.src.pendingReturns, &l.r.PendingReturns}, {l.src.mail, &l.r.Mail}} {
		for _, m := range group.entries {
			added, err := l.mail(m)
			if err != nil {
				return err
			}
			if added {
				*group.count++
			}
			l.step()
		}
	}
	for _, t := range l.src.transactions {
		if err := l.transaction(t); err != nil {
			return err
		}
		l.step()
	}
	left := slices.Collect(maps.Keys(l.src.ratings))
	slices.SortFunc(left, func(a, b uuid.UUID) int { return strings.Compare(l.src.ratings[a].where, l.src.ratings[b].where) })
	for _, id := range left {
		l.note(NoteSkipped, l.src.ratings[id].where, "rating of transaction %s skipped: no such transaction in the files", id)
	}
	return nil
}

// players adds everyone the files name, under the newest name they give
// (a listing keeps its seller's name of the day it was made). Balances are
// not in the files: the economy was another plugin's.
func (l *loading) players() error {
	type seen struct {
		name string
		at   int64
	}
	names := map[uuid.UUID]*seen{}
	var order []uuid.UUID
	see := func(id uuid.UUID, name string, at int64) {
		s := names[id]
		if s == nil {
			s = &seen{at: at}
			names[id] = s
			order = append(order, id)
		}
		if name != "" && (s.name == "" || at >= s.at) {
			s.name, s.at = name, at
		}
	}
	for _, e := range l.src.listings {
		see(e.seller, e.sellerName, e.created)
	}
	for _, t := range l.src.transactions {
		see(t.buyer, t.buyerName, t.created)
		see(t.seller, t.sellerName, t.created)
	}
	for _, group := range [][]mailEntry{l.src.outbox, l.src.pendingReturns, l.src.mail} {
		for _, m := range group {
			see(m.owner, "", 0)
		}
	}
	for _, id := range order {
		name := names[id].name
		if name == "" {
			name = unknownName
		}
		if err := l.k.AddPlayer(market.Player{ID: id, Name: truncate(strings.ReplaceAll(name, "\x00", ""), 64)}, 0); err != nil {
			return fmt.Errorf("player %s: %w", id, err)
		}
	}
	return nil
}

// stackID is the id of the stack an entry brings, the same at every import
// of the same files.
func stackID(key string) uuid.UUID { return uuid.NewSHA1(stackSpace, []byte(key)) }

func (l *loading) listings() error {
	ttl := time.Duration(l.o.ExpiryDays) * 24 * time.Hour
	type first struct {
		where   string
		seller  uuid.UUID
		created int64
	}
	seen := map[int64]first{}
	l.ids = map[int64]int{}
	var renumber []market.BulkListing
	var renumberWhere []string
	for _, e := range l.src.listings {
		l.step()
		what := fmt.Sprintf("listing #%d", e.id)
		if f, ok := seen[e.id]; ok && f.seller == e.seller && f.created == e.created {
			l.note(NoteSkipped, e.where, "%s skipped: a repeat of the one at %s", what, f.where)
			continue
		}
		if _, ok := seen[e.id]; !ok {
			seen[e.id] = first{e.where, e.seller, e.created}
		}
		price, err := l.cents(e.where, what+": price", e.price)
		if err == nil && price <= 0 {
			err = fmt.Errorf("it is not above 0.00")
		}
		if err != nil {
			l.note(NoteSkipped, e.where, "%s skipped: price %v: %v", what, e.price, err)
			continue
		}
		created := time.UnixMilli(e.created)
		expires := created.Add(ttl)
		item := e.item
		item.ID = stackID(fmt.Sprintf("listing\x00%d\x00%s\x00%d", e.id, e.seller, e.created))
		if !l.o.Now.Before(expires) {
			added, err := l.k.AddMail(market.BulkMail{Owner: e.seller, ID: stackID("expired\x00" + item.ID.String()),
				Item: item, Reason: market.MailExpired, Created: expires, PreviousPrice: price})
			if err != nil {
				l.note(NoteSkipped, e.where, "%s skipped: %v", what, err)
				continue
			}
			if added {
				l.r.Expired++
				l.note(NoteExpired, e.where, "%s expired on %s (created %s + %d days): to its seller's mailbox",
					what, expires.UTC().Format("2006-01-02 15:04"), created.UTC().Format("2006-01-02 15:04"), l.o.ExpiryDays)
			}
			continue
		}
		bl := market.BulkListing{ID: int(e.id), Seller: e.seller, Item: item, Price: price, Created: created, Expires: expires}
		added, err := l.k.AddListingKeepingID(bl)
		switch {
		case errors.Is(err, market.ErrListingIDTaken):
			renumber = append(renumber, bl)
			renumberWhere = append(renumberWhere, e.where)
		case err != nil:
			l.note(NoteSkipped, e.where, "%s skipped: %v", what, err)
		case added:
			l.r.Listings++
			l.ids[e.id] = int(e.id)
		}
	}
	// New ids come after every kept one.
	for i, bl := range renumber {
		id, err := l.k.AddListing(bl.Seller, bl.Item, bl.Price, bl.Created, bl.Expires)
		if err != nil {
			l.note(NoteSkipped, renumberWhere[i], "listing #%d skipped: %v", bl.ID, err)
			continue
		}
		l.r.Listings++
		l.r.Renumbered++
		l.ids[int64(bl.ID)] = int(id)
		l.note(NoteRenumbered, renumberWhere[i], "listing #%d is #%d: its id was taken", bl.ID, id)
	}
	return nil
}

// playerData gives each player their favourites (the listings this load
// added, under the ids they got) and price alerts. The plugin compared an
// alert's maxPrice with a listing's total price; Rynek compares a ceiling
// per item, so an imported alert keeps its number as that ceiling, which
// fires for what fired before and more (a stack of many at a fair price).
func (l *loading) playerData() error {
	owners := slices.Collect(maps.Keys(l.src.favorites))
	for o := range l.src.alerts {
		if _, dup := l.src.favorites[o]; !dup {
			owners = append(owners, o)
		}
	}
	slices.SortFunc(owners, func(a, b uuid.UUID) int { return strings.Compare(a.String(), b.String()) })
	for _, o := range owners {
		var favs []int
		for _, id := range l.src.favorites[o] {
			if got, ok := l.ids[id]; ok {
				favs = append(favs, got)
			} else {
				l.r.FavoritesGone++
			}
		}
		var alerts []market.BulkAlert
		for _, a := range l.src.alerts[o] {
			ceiling, err := l.cents(a.where, "alert maxPrice", a.max)
			terms := market.ParseSearch(a.query)
			if err != nil || ceiling <= 0 || len(terms.Words) == 0 || len(terms.IDs) > 0 || terms.NoMatch || len(a.query) > market.MaxAlertQueryBytes {
				l.note(NoteSkipped, a.where, "an alert of %s skipped: query %q, maxPrice %v", o, truncate(a.query, 40), a.max)
				continue
			}
			alerts = append(alerts, market.BulkAlert{ID: a.id, Query: strings.TrimSpace(a.query), MaxUnitPrice: ceiling, Created: time.UnixMilli(a.created)})
		}
		if len(favs) == 0 && len(alerts) == 0 {
			continue
		}
		if err := l.k.SetPlayerData(o, favs, alerts); err != nil {
			l.note(NoteSkipped, "", "the favourites and alerts of %s skipped: %v", o, err)
			continue
		}
		l.r.Favorites += len(favs)
		l.r.Alerts += len(alerts)
	}
	return nil
}

func (l *loading) mail(m mailEntry) (bool, error) {
	item := m.item
	item.ID = stackID(m.key)
	var prev market.Money
	if m.prev != 0 {
		var err error
		if prev, err = l.cents(m.where, "previous price", m.prev); err != nil || prev < 0 {
			l.note(NoteShortened, m.where, "previous price %v is left out: not a price", m.prev)
			prev = 0
		}
	}
	created := time.UnixMilli(m.created)
	if m.created == 0 {
		created = l.o.Now
	}
	id := m.id
	if id == uuid.Nil {
		id = stackID("mail\x00" + m.key)
	}
	added, err := l.k.AddMail(market.BulkMail{Owner: m.owner, ID: id, Item: item, Reason: m.reason, Created: created, PreviousPrice: prev})
	if err != nil {
		l.note(NoteSkipped, m.where, "mail skipped: %v", err)
		return false, nil
	}
	return added, nil
}

func (l *loading) transaction(t txEntry) error {
	what := "transaction " + t.id.String()
	price, err := l.cents(t.where, what+": price", t.price)
	if err == nil && price <= 0 {
		err = fmt.Errorf("it is not above 0.00")
	}
	if err != nil {
		l.note(NoteSkipped, t.where, "%s skipped: price %v: %v", what, t.price, err)
		return nil
	}
	fee, err := l.cents(t.where, what+": fee", t.fee)
	if err != nil || fee < 0 || fee > price {
		l.note(NoteSkipped, t.where, "%s skipped: fee %v is not between 0 and the price", what, t.fee)
		return nil
	}
	if t.received != 0 {
		if got, err := market.RoundToCents(t.received); err == nil && got != price-fee {
			l.r.Rounded++
			l.note(NoteRounded, t.where, "%s: sellerReceived %v is %s (the price less the fee, each in cents)",
				what, t.received, market.FormatMoney(price-fee))
		}
	}
	state, code := t.state, t.errorCode
	if !state.Terminal() {
		code = unfinishedPrefix + string(state)
		if t.errorCode != "" {
			code += ":" + t.errorCode
		}
		state = market.StateFailed
	}
	item := t.item
	item.ID = stackID("tx\x00" + t.id.String())
	rating, rated := l.src.ratings[t.id]
	delete(l.src.ratings, t.id) // what is left at the end rated no transaction
	if rated && state != market.StateCompleted {
		l.note(NoteSkipped, rating.where, "rating of %s skipped: the transaction is %s, and only a COMPLETED sale is rated", what, state)
		rating.stars = 0
	}
	before := l.k.Summary().Transactions
	_, err = l.k.AddTransaction(market.HistoricSale{ID: t.id, ListingID: int(t.listingID), Buyer: t.buyer, Seller: t.seller,
		Item: item, Price: price, Fee: fee, State: state, ErrorCode: code, At: time.UnixMilli(t.created), Rating: rating.stars})
	if err != nil {
		l.note(NoteSkipped, t.where, "%s skipped: %v", what, err)
		return nil
	}
	if l.k.Summary().Transactions == before {
		return nil // a merge found it in the market already
	}
	l.r.Transactions++
	if rating.stars > 0 {
		l.r.Ratings++
	}
	if state != t.state {
		l.r.Flagged++
		l.note(NoteFlagged, t.where, "%s was left %s by the plugin: kept as FAILED history (%s), no money moved", what, t.state, code)
	}
	return nil
}

// emptyStore is a market that does not exist yet, for a dry run: it has
// nothing, and a dry run writes nothing to it.
type emptyStore struct{}

var errDryRun = errors.New("a dry run writes nothing")

func (emptyStore) Load(l market.Loader) error { return l.Meta(market.MetaRow{NextListingID: 1}) }
func (emptyStore) LoadHistory([16]byte, int, func(market.TxRow) error) (int, error) {
	return 0, nil
}
func (emptyStore) Commit(*market.Batch) error   { return errDryRun }
func (emptyStore) BulkLoad(*market.Batch) error { return errDryRun }
func (emptyStore) ReadEvents(uint64, int, func(market.EventRow) error) (int, error) {
	return 0, nil
}
func (emptyStore) TrimEvents(market.EventTrim) (uint64, error) { return 0, errDryRun }
func (emptyStore) ReserveListingIDs(int) (int64, error)        { return 0, errDryRun }
func (emptyStore) Close() error                                { return nil }

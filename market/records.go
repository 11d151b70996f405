package market

import (
	"github.com/google/uuid"
	"github.com/rynek/rynek/market/internal/item"
	"github.com/rynek/rynek/market/internal/record"
	"github.com/rynek/rynek/market/internal/search"
)

// playerRecord is a player of the embedded world.
type playerRecord struct {
	idx      int32
	id       uuid.UUID
	name     string
	perms    []string
	balance  Money
	lastSell int64
	inv      item.Inventory
	// stored is the inventory as the store holds it (encodeInventory), the
	// condition of the next write of it; version is the row's version as
	// this instance last saw it (PlayerRow.Version).
	stored  *dataBlob
	version int64
	// unsettled counts the writes of the row in batches not settled yet,
	// each of which will add one to the version: a write conditional on
	// the version expects version+unsettled.
	unsettled int
	mail      []mailEntry
	// extra is the player's own data (nil: none) and storedExtra its blob
	// as the store holds it, the condition of the next write of it.
	extra       *playerExtra
	storedExtra *dataBlob
	listings    int                  // active listings, for the per-player limit
	txs         []*transactionRecord // transactions as buyer or seller, in creation order
}

type mailEntry struct {
	id      uuid.UUID
	it      item.Item
	reason  string
	created int64
	prev    Money
}

// listingRecord is an active listing.
type listingRecord struct {
	id       uint32
	seller   int32
	price    Money
	fee      Money // the listing fee paid, refunded when it leaves unsold if the rules say so
	created  int64
	expires  int64
	it       item.Item
	reserved uuid.UUID
	// auction is the bidding of a listing sold by auction (price is its
	// starting bid, expires its end), nil for a fixed price. It is never
	// changed in place: a bid writes a new one, so that a record the store
	// holds (the condition of the next write) stays what it was.
	auction *record.Auction
}

// transactionRecord is a transaction.
type transactionRecord struct {
	id        uuid.UUID
	listing   uint32
	buyer     int32
	seller    int32
	it        item.Item
	price     Money
	fee       Money
	net       Money
	state     uint8 // index into States()
	toMailbox bool
	rating    uint8 // the buyer's stars, 1-5; 0 not rated
	// auction and escrowed: the purchase ends an auction, paid from its
	// escrow (record.Transaction's Auction and Escrowed); order: the buy
	// order whose fill it is, paid from that order's escrow.
	auction, escrowed bool
	order             uint32
	errCode           string
	tl                record.Timeline
	// created is tl[0].At, kept apart because the history load sorts by it
	// off the lock while the main thread appends to tl.
	created int64
	// unsettled counts the batches in flight that write t's row: while
	// one is, the store may not hold what memory shows (Pending).
	unsettled int
}

func (t *transactionRecord) State() State { return States()[t.state] }

// takeState gives t what the store's newer record of it (now) says: all of
// a transaction that changes after it is made.
func (t *transactionRecord) takeState(now *transactionRecord) {
	t.state, t.tl, t.errCode, t.toMailbox, t.rating = now.state, now.tl, now.errCode, now.toMailbox, now.rating
}

// person is a player's identity as a read or an event shows it.
type person struct {
	id   uuid.UUID
	name string
}

func (p *playerRecord) person() person { return person{p.id, p.name} }

func (p *playerRecord) public() Player {
	return Player{ID: p.id, Name: p.name, Permissions: append([]string(nil), p.perms...)}
}

// live reports whether r is on the market at nowMs: not expired. An expired
// listing is never listed or purchasable, even before the sweep removes it.
func (r *listingRecord) live(nowMs int64) bool { return nowMs < r.expires }

func (p *playerRecord) has(perm string) bool {
	for _, q := range p.perms {
		if q == perm {
			return true
		}
	}
	return false
}

func (p *playerRecord) freeSlot() int { return item.FreeSlot(&p.inv) }

// entry is what the search index files r under.
func (r *listingRecord) entry() *search.Listing {
	return &search.Listing{ID: r.id, Seller: r.seller, Item: r.it, Price: int64(r.current()), Expires: r.expires, Auction: r.auction != nil}
}

// current is what r costs now: its price, or an auction's leading bid
// (its starting bid before the first bid). Searches sort and filter by it.
func (r *listingRecord) current() Money {
	if a := r.auction; a != nil && a.Bids > 0 {
		return Money(a.Bid)
	}
	return r.price
}

package market

import (
	"runtime"
	"strconv"
	"time"

	"github.com/RoaringBitmap/roaring/v2"
	"github.com/google/uuid"
	"github.com/rynek/rynek/market/catalog"
	"github.com/rynek/rynek/market/internal/search"
	"github.com/rynek/rynek/market/playertext"
)

// SortMode orders query results.
type SortMode uint8

// Sort modes: the original plugin's six plus unit price.
const (
	SortNewest      SortMode = iota // creation time, newest first (default)
	SortOldest                      // creation time, oldest first
	SortCheapest                    // total price ascending
	SortExpensive                   // total price descending
	SortUnitPrice                   // price per item ascending
	SortAmount                      // stack amount descending
	SortLeastAmount                 // stack amount ascending
	SortEnding                      // expiry soonest first: auctions about to end
)

var sortNames = [...]string{"newest", "oldest", "cheapest", "most expensive", "unit price", "amount", "least amount", "ending"}

func (m SortMode) String() string {
	if int(m) < len(sortNames) {
		return sortNames[m]
	}
	return "sort(" + strconv.Itoa(int(m)) + ")"
}

// SortModes lists all modes in cycling order.
func SortModes() []SortMode {
	return []SortMode{SortNewest, SortOldest, SortCheapest, SortExpensive, SortUnitPrice, SortAmount, SortLeastAmount, SortEnding}
}

// MaxQueryTextBytes bounds query text; longer text is refused.
const MaxQueryTextBytes = 1024

// Query selects, orders and pages listings.
type Query struct {
	Text     string           // search text; empty = everything
	Category catalog.Category // CategoryAll = no filter
	Seller   uuid.UUID        // uuid.Nil = any seller; one the world lacks is UNKNOWN_PLAYER
	Sort     SortMode
	Offset   int
	Limit    int // 0 = 200; negative = all
	// Reverse reads the order from its other end: the page at Offset of the
	// reversed order. A console showing row r of n near the end asks for the
	// reversed page at n-1-r, which costs as little as a page near the start.
	Reverse bool
	// Material keeps only listings of this material key ("DIAMOND_SWORD",
	// "diamond_sword", "minecraft:diamond_sword"); "" = any. An unknown
	// material is refused.
	Material string
	// MinPrice and MaxPrice bound the total price, both inclusive; 0 = no
	// bound.
	MinPrice, MaxPrice Money
	// MinAmount and MaxAmount bound the stack's amount, both inclusive; 0 =
	// no bound.
	MinAmount, MaxAmount int
	// Kind keeps only auctions ("auction") or only fixed-price listings
	// ("fixed"); "" keeps both.
	Kind string
	// After continues a keyset page: the results start with the listing
	// that follows this position of the sort order. Unlike Offset, a
	// position does not move when listings before it come and go, so a
	// client paging through a changing market never skips or repeats a
	// listing that stayed on it. It must be a position of the same Sort,
	// and cannot be combined with Reverse.
	After *Cursor
}

// Cursor is a position in one sort order: a listing and its key in that
// order (Page.Next). The key lets a page continue after a listing that has
// meanwhile left the market.
type Cursor struct {
	Sort SortMode
	Key  int64 // the listing's sort key (cents, unit key or amount); 0 for newest and oldest
	ID   int
}

// DefaultPageSize is the page size when Query.Limit is 0.
const DefaultPageSize = 200

// Page is one page of query results.
type Page struct {
	Query    Query
	Listings []Listing
	Total    int           // matches in all pages
	Took     time.Duration // time spent answering
	// Next is the position of the page's last listing when more listings
	// follow it (nil at the end): Query{After: Next} reads the next page.
	Next *Cursor
	// Version is the market's version (Service.Version) the page was read
	// at: the page reflects every change up to it and none after it.
	Version uint64
}

// SearchTerms is search text as Query reads it: the folded words every
// match contains (sorted, each once; a Polish word of an item as its form,
// "diamentowy" as "diament") and the "#<id>" terms; NoMatch is set when the
// text can match nothing (#0, or text without a single word).
type SearchTerms struct {
	Words   []string
	IDs     []int
	NoMatch bool
}

// ParseSearch splits search text exactly as Query does, for whoever must
// answer with the same semantics (the comparison suite's contenders).
func ParseSearch(text string) SearchTerms {
	pq := search.ParseText(text)
	t := SearchTerms{Words: pq.Words, NoMatch: pq.Bad}
	for _, id := range pq.IDs {
		t.IDs = append(t.IDs, int(id))
	}
	return t
}

// Query answers a paged, sorted search. It is safe from any goroutine.
func (s *Service) Query(q Query) (Page, error) {
	start := time.Now()
	if err := s.readGuard(); err != nil {
		return Page{}, err
	}
	if len(q.Text) > MaxQueryTextBytes {
		return Page{}, errf(CodeInvalidQuery, "search text is %d bytes; at most %d allowed", len(q.Text), MaxQueryTextBytes)
	}
	if int(q.Category) >= catalog.NumCategories {
		return Page{}, errf(CodeInvalidQuery, "unknown category %d", q.Category)
	}
	if q.Kind != "" && q.Kind != "auction" && q.Kind != "fixed" {
		return Page{}, errf(CodeInvalidQuery, "unknown kind %q: auction or fixed", playertext.Excerpt(q.Kind))
	}
	if int(q.Sort) >= len(sortNames) {
		return Page{}, errf(CodeInvalidQuery, "unknown sort mode %d", q.Sort)
	}
	if q.Offset < 0 {
		q.Offset = 0
	}
	if q.Limit == 0 {
		q.Limit = DefaultPageSize
	}
	var mat uint16
	if q.Material != "" {
		id, err := materialOf(q.Material, CodeInvalidQuery)
		if err != nil {
			return Page{}, err
		}
		mat = id
	}
	if q.MinPrice < 0 || q.MaxPrice < 0 || (q.MaxPrice > 0 && q.MinPrice > q.MaxPrice) {
		return Page{}, errf(CodeInvalidQuery, "price range %s..%s is empty", FormatMoney(q.MinPrice), FormatMoney(q.MaxPrice))
	}
	if q.MinAmount < 0 || q.MaxAmount < 0 || q.MinAmount > catalog.MaxItemStack || (q.MaxAmount > 0 && q.MinAmount > q.MaxAmount) {
		return Page{}, errf(CodeInvalidQuery, "amount range %d..%d is empty (amounts are 1..%d)", q.MinAmount, q.MaxAmount, catalog.MaxItemStack)
	}
	if a := q.After; a != nil {
		switch {
		case a.Sort != q.Sort:
			return Page{}, errf(CodeInvalidQuery, "the position is one of the %s order, the query sorts by %s", a.Sort, q.Sort)
		case q.Reverse:
			return Page{}, errf(CodeInvalidQuery, "a position cannot be combined with a reversed order")
		case a.ID <= 0 || a.ID > 1<<31-1:
			return Page{}, errf(CodeInvalidQuery, "listing id %d of the position is out of range", a.ID)
		}
	}
	pq := search.ParseText(q.Text)

	s.mu.RLock()
	defer s.mu.RUnlock()
	if q.Seller != uuid.Nil {
		// A seller the world lacks is UNKNOWN_PLAYER, as a buyer of Orders
		// and a player of Transactions are, not an empty page.
		if _, err := s.player(q.Seller); err != nil {
			return Page{}, err
		}
	}
	nowMs := s.nowMs()
	version := s.log.head
	if page, ok := s.idLookupLocked(pq, q, nowMs); ok {
		page.Took = time.Since(start)
		page.Version = version
		return page, nil
	}
	y := s.yield()
	res := s.matchLocked(pq, q, mat, nowMs, y)
	total := int(res.GetCardinality())
	limit := q.Limit
	if q.After == nil {
		switch {
		case q.Offset >= total:
			limit = 0
		case limit < 0 || limit > total-q.Offset: // no addition: Offset+Limit may overflow
			limit = total - q.Offset
		}
	} else if limit < 0 || limit > total {
		limit = total
	}
	// One more than asked tells whether a next page exists.
	var keys []search.Key
	by, desc := sortOrder(q.Sort, q.Reverse)
	if limit > 0 {
		var after *search.Key
		if q.After != nil {
			after = &search.Key{K: q.After.Key, ID: uint32(q.After.ID)}
		}
		key := func(id uint32) (int64, bool) { return s.listingKey(id, by) }
		keys = s.ix.Page(res, by, desc, after, q.Offset, limit+1, key, y)
	}
	more := len(keys) > limit
	keys = keys[:min(len(keys), limit)]
	out := make([]Listing, 0, len(keys))
	for _, k := range keys {
		// A listing sold or removed while the query paused is left out.
		if r := s.listings.Get(k.ID); r != nil && r.live(nowMs) {
			out = append(out, s.listingOf(r))
		}
	}
	// The version the query began at: a change during a pause may or may
	// not be in the page, so it is not the answer of any later version.
	page := Page{Query: q, Listings: out, Total: total, Took: time.Since(start), Version: version}
	if more && len(keys) > 0 {
		last := keys[len(keys)-1]
		page.Next = &Cursor{Sort: q.Sort, Key: last.K, ID: int(last.ID)}
	}
	return page, nil
}

// readYield is how a long read holding s.mu's read lock gives way
// (search.Yield): it is due when a writer waits, and pauses by letting the
// lock go for a moment (a waiting writer gets in before any new reader),
// so that the main thread, whose write lock waits for every reader holding
// the read lock, never waits for more than a chunk. It is due too once the
// read has held the lock for readHold, and then lets its processor go: Go's
// scheduler stops a goroutine that has run for 10 ms to run another, and a
// reader stopped holding the lock held the main thread up until it ran
// again (up to 45 ms a tick while the history loaded on two busy cores).
// A reader that pauses sees the market as it is after the pause; what it
// gathered before may have changed, and it checks what it keeps.
type readYield struct {
	s     *Service
	since time.Time // when the read took the lock, or took it again
	// keeper marks the gram keeper's reads, which the tests' read hooks
	// leave alone: they count and pace the reads a test makes, and a
	// keeper left running by a service a test abandoned (a crash) ran them
	// meanwhile.
	keeper bool
}

// readHold is how long a read holds the lock before it lets it go
// whether or not a writer waits: a tenth of the scheduler's time slice,
// and a walk's cut costs it as much as a hundred entries. A variable only
// so that tests make small reads pause (SetReadHold).
var readHold = time.Millisecond

// yield is the giving way of a read that has just taken s.mu's read lock.
func (s *Service) yield() *readYield { return &readYield{s: s, since: time.Now()} }

// Due reports whether a writer waits for the lock, or the read has held
// it for readHold.
func (y *readYield) Due() bool {
	if !y.keeper && readHooks.chunkEnd != nil {
		readHooks.chunkEnd()
	}
	return y.s.mu.wanted() || time.Since(y.since) >= readHold
}

// Pause lets the read lock go for a moment, and the processor with it (a
// new time slice: RUnlock gives it up already when a writer waits), and
// takes the lock again.
func (y *readYield) Pause() {
	y.s.mu.RUnlock()
	if !y.keeper && readHooks.paused != nil {
		readHooks.paused()
	}
	if !y.s.mu.wanted() {
		runtime.Gosched()
	}
	y.s.mu.RLock()
	y.since = time.Now()
}

// readHooks, when set (by tests), run at the end of every chunk of a long
// read (the read lock held) and in every pause (the lock let go).
var readHooks struct{ chunkEnd, paused func() }

// sortOrder is the index's order for mode, and whether a page reads it
// descending.
func sortOrder(mode SortMode, reverse bool) (by search.By, desc bool) {
	switch mode {
	case SortNewest:
		by, desc = search.ByID, true
	case SortOldest:
		by = search.ByID
	case SortCheapest:
		by = search.ByPrice
	case SortExpensive:
		by, desc = search.ByPrice, true
	case SortUnitPrice:
		by = search.ByUnit
	case SortAmount:
		by, desc = search.ByAmount, true
	case SortEnding:
		by = search.ByExpiry
	default: // SortLeastAmount
		by = search.ByAmount
	}
	return by, desc != reverse
}

// idLookupLocked answers a query that is exactly one #id term with no
// other words or filters: one page-table lookup instead of the bitmap
// pipeline. ok is false for any other query.
func (s *Service) idLookupLocked(pq search.Terms, q Query, nowMs int64) (Page, bool) {
	if len(pq.IDs) != 1 || len(pq.Words) != 0 || pq.Bad || q.Category != catalog.CategoryAll || q.Seller != uuid.Nil ||
		q.Material != "" || q.MinPrice != 0 || q.MaxPrice != 0 || q.MinAmount != 0 || q.MaxAmount != 0 || q.Kind != "" || q.After != nil {
		return Page{}, false
	}
	page := Page{Query: q}
	r := s.listings.Get(pq.IDs[0])
	if r == nil || !r.live(nowMs) {
		return page, true
	}
	page.Total = 1
	if q.Offset == 0 && q.Limit != 0 {
		page.Listings = []Listing{s.listingOf(r)}
	}
	return page, true
}

// matchLocked returns the bitmap of live listings matching pq and q's
// filters (mat: the material's id, when q names one). The result is owned
// by the caller.
func (s *Service) matchLocked(pq search.Terms, q Query, mat uint16, nowMs int64, y search.Yield) *roaring.Bitmap {
	f := search.Filter{Category: q.Category, Seller: search.AnySeller, Material: search.AnyMaterial,
		MinPrice: int64(q.MinPrice), MaxPrice: int64(q.MaxPrice), MinAmount: int64(q.MinAmount), MaxAmount: int64(q.MaxAmount)}
	if q.Seller != uuid.Nil {
		p := s.playerByID[q.Seller]
		if p == nil {
			return roaring.New()
		}
		f.Seller = p.idx
	}
	if q.Material != "" {
		f.Material = int32(mat)
	}
	switch q.Kind {
	case "auction":
		f.Kind = search.Auctions
	case "fixed":
		f.Kind = search.FixedPrice
	}
	return s.ix.Match(pq, f, nowMs, s.listingKey, y)
}

// listingKey is listing id's key in the order by, false for a listing
// gone: for a query's few matches, which it sorts or filters by key rather
// than walk the index's order.
func (s *Service) listingKey(id uint32, by search.By) (int64, bool) {
	r := s.listings.Get(id)
	if r == nil {
		return 0, false
	}
	return r.entry().Key(by), true
}

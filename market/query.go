package market

import (
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/RoaringBitmap/roaring/v2"
	"github.com/google/uuid"
	"github.com/rynek/rynek/market/catalog"
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
)

var sortNames = [...]string{"newest", "oldest", "cheapest", "most expensive", "unit price", "amount", "least amount"}

func (m SortMode) String() string {
	if int(m) < len(sortNames) {
		return sortNames[m]
	}
	return "sort(" + strconv.Itoa(int(m)) + ")"
}

// SortModes lists all modes in cycling order.
func SortModes() []SortMode {
	return []SortMode{SortNewest, SortOldest, SortCheapest, SortExpensive, SortUnitPrice, SortAmount, SortLeastAmount}
}

// MaxQueryTextBytes bounds query text; longer text is refused.
const MaxQueryTextBytes = 1024

// Query selects, orders and pages listings.
type Query struct {
	Text     string           // search text; empty = everything
	Category catalog.Category // CategoryAll = no filter
	Seller   uuid.UUID        // uuid.Nil = any seller
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

// parsedQuery is the query text split into words and #id terms. Colour
// codes are stripped first, as the original plugin does: "§b" is no text.
// A word that begins with a Polish form of an item word is looked up as
// that form ("diamentowy" as "diament"; see polishForms).
type parsedQuery struct {
	words []string
	ids   []uint32
	bad   bool // an #id term that can never match
}

func parseQueryText(text string) parsedQuery {
	var pq parsedQuery
	for _, f := range strings.Fields(playertext.StripColors(text)) {
		if len(f) > 1 && f[0] == '#' {
			n, err := strconv.ParseUint(f[1:], 10, 32)
			if err == nil {
				if n == 0 {
					pq.bad = true
				}
				pq.ids = append(pq.ids, uint32(n))
				continue
			}
		}
		n := len(pq.words)
		pq.words = playertext.AppendWords(pq.words, f)
		for i := n; i < len(pq.words); i++ {
			pq.words[i] = catalog.PolishStem(pq.words[i])
		}
	}
	if len(pq.words) == 0 && len(pq.ids) == 0 && strings.TrimSpace(text) != "" {
		// Text that says something but leaves no word to look for (colour
		// codes alone, punctuation) matches nothing, not everything.
		pq.bad = true
	}
	slices.Sort(pq.words)
	pq.words = slices.Compact(pq.words)
	return pq
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
	pq := parseQueryText(text)
	t := SearchTerms{Words: pq.words, NoMatch: pq.bad}
	for _, id := range pq.ids {
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
		id, ok := catalog.MaterialID(strings.TrimSpace(q.Material))
		if !ok {
			return Page{}, errf(CodeInvalidQuery, "unknown material %q", playertext.Excerpt(q.Material))
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
	pq := parseQueryText(q.Text)

	s.mu.RLock()
	defer s.mu.RUnlock()
	nowMs := s.nowMs()
	if page, ok := s.idLookupLocked(pq, q, nowMs); ok {
		page.Took = time.Since(start)
		page.Version = s.log.head
		return page, nil
	}
	res := s.matchLocked(pq, q, mat, nowMs)
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
	var ids []uint32
	if limit > 0 {
		ids = s.pageLocked(res, q.Sort, q.Reverse, q.After, q.Offset, limit+1)
	}
	more := len(ids) > limit
	ids = ids[:min(len(ids), limit)]
	out := make([]Listing, len(ids))
	for i, id := range ids {
		out[i] = s.listingOf(s.listings.get(id))
	}
	page := Page{Query: q, Listings: out, Total: total, Took: time.Since(start), Version: s.log.head}
	if more && len(ids) > 0 {
		last := s.listings.get(ids[len(ids)-1])
		page.Next = &Cursor{Sort: q.Sort, Key: sortKeyOf(last, q.Sort), ID: int(last.id)}
	}
	return page, nil
}

// sortKeyOf is r's key in the order of mode (0 for newest and oldest, which
// are id order).
func sortKeyOf(r *listingRecord, mode SortMode) int64 {
	keys := r.sortKeys()
	switch mode {
	case SortCheapest, SortExpensive:
		return keys[0].k
	case SortUnitPrice:
		return keys[1].k
	case SortAmount, SortLeastAmount:
		return keys[2].k
	}
	return 0
}

// idLookupLocked answers a query that is exactly one #id term with no
// other words or filters: one page-table lookup instead of the bitmap
// pipeline. ok is false for any other query.
func (s *Service) idLookupLocked(pq parsedQuery, q Query, nowMs int64) (Page, bool) {
	if len(pq.ids) != 1 || len(pq.words) != 0 || pq.bad || q.Category != catalog.CategoryAll || q.Seller != uuid.Nil ||
		q.Material != "" || q.MinPrice != 0 || q.MaxPrice != 0 || q.MinAmount != 0 || q.MaxAmount != 0 || q.After != nil {
		return Page{}, false
	}
	page := Page{Query: q}
	r := s.listings.get(pq.ids[0])
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
// filters. The result is owned by the caller.
func (s *Service) matchLocked(pq parsedQuery, q Query, mat uint16, nowMs int64) *roaring.Bitmap {
	ix := s.ix
	if pq.bad {
		return roaring.New()
	}
	// Collect every constraint as a bitmap, then intersect smallest first.
	var parts []*roaring.Bitmap
	if len(pq.ids) > 0 {
		b := roaring.New()
		b.Add(pq.ids[0])
		for _, id := range pq.ids[1:] {
			if id != pq.ids[0] {
				return roaring.New() // two different exact ids never match one listing
			}
		}
		parts = append(parts, b)
	}
	for _, w := range pq.words {
		parts = append(parts, ix.wordBitmap(w))
	}
	if q.Category != catalog.CategoryAll {
		parts = append(parts, ix.cats[q.Category])
	}
	if q.Seller != uuid.Nil {
		p := s.playerByID[q.Seller]
		if p == nil || ix.sellers[p.idx] == nil {
			return roaring.New()
		}
		parts = append(parts, ix.sellers[p.idx])
	}
	if q.Material != "" {
		mb := ix.byMaterial[mat]
		if mb == nil {
			return roaring.New()
		}
		parts = append(parts, mb)
	}
	if q.MinPrice > 0 || q.MaxPrice > 0 {
		parts = append(parts, ix.byPrice.between(int64(q.MinPrice), int64(q.MaxPrice)))
	}
	if q.MinAmount > 0 || q.MaxAmount > 0 {
		parts = append(parts, ix.byAmount.between(int64(q.MinAmount), int64(q.MaxAmount)))
	}
	var res *roaring.Bitmap
	if len(parts) == 0 {
		res = ix.active.Clone()
	} else {
		slices.SortFunc(parts, func(a, b *roaring.Bitmap) int {
			return int(a.GetCardinality()) - int(b.GetCardinality())
		})
		res = parts[0].Clone()
		for _, p := range parts[1:] {
			if res.IsEmpty() {
				break
			}
			res.And(p)
		}
		res.And(ix.active)
	}
	// Drop listings past their expiry that the sweep has not removed yet.
	ix.byExpiry.ascend(func(k sortKey) bool {
		if k.k > nowMs {
			return false
		}
		res.Remove(k.id)
		return true
	})
	return res
}

// collectMax is the result size up to which a sorted page is built by
// collecting and selecting, and shortWalk the budget of the first, bitmap
// tested walk (see pageLocked). Variables only so that tests can drive every
// path with small data.
var (
	collectMax = 16384
	shortWalk  = 8192
)

// pageLocked returns limit ids of res in the given order, skipping offset.
// res belongs to the caller's query and may be modified.
func (s *Service) pageLocked(res *roaring.Bitmap, mode SortMode, reverse bool, after *Cursor, offset, limit int) []uint32 {
	if limit <= 0 {
		return nil
	}
	out := make([]uint32, 0, limit)
	if reverse && (mode == SortNewest || mode == SortOldest) {
		mode = SortNewest + SortOldest - mode
	}
	switch mode {
	case SortNewest:
		if after != nil {
			res.RemoveRange(uint64(after.ID), 1<<32)
		}
		total := int(res.GetCardinality())
		it := res.ReverseIterator()
		// Skip offset quickly: start from the element of rank total-1-offset.
		if offset > 0 {
			x, err := res.Select(uint32(total - 1 - offset))
			if err != nil {
				return nil
			}
			// res is this query's own bitmap: cut it at x instead of seeking
			// (roaring's reverse iterator cannot seek).
			res.RemoveRange(uint64(x)+1, 1<<32)
			it = res.ReverseIterator()
		}
		for it.HasNext() && len(out) < limit {
			out = append(out, it.Next())
		}
		return out
	case SortOldest:
		if after != nil {
			res.RemoveRange(0, uint64(after.ID)+1)
		}
		it := res.Iterator()
		if offset > 0 {
			x, err := res.Select(uint32(offset))
			if err != nil {
				return nil
			}
			it.AdvanceIfNeeded(x)
		}
		for it.HasNext() && len(out) < limit {
			out = append(out, it.Next())
		}
		return out
	}
	var tree *order
	var key func(*listingRecord) int64
	desc := false
	switch mode {
	case SortCheapest, SortExpensive:
		tree, key, desc = s.ix.byPrice, func(r *listingRecord) int64 { return int64(r.price) }, mode == SortExpensive
	case SortUnitPrice:
		tree, key = s.ix.byUnit, func(r *listingRecord) int64 { return unitKey(r.price, r.it.Amount) }
	default:
		tree, key, desc = s.ix.byAmount, func(r *listingRecord) int64 { return int64(r.it.Amount) }, mode == SortAmount
	}
	if reverse {
		desc = !desc
	}
	var from *sortKey
	if after != nil {
		from = &sortKey{after.Key, uint32(after.ID)}
	}
	n := int(res.GetCardinality())
	need := offset + limit
	// Two ways to a sorted page, chosen by the number of matches n:
	//   - few matches: collect their keys and select the first `need`
	//     (quickselect). Each match costs a record lookup, a cache miss, so
	//     this is for n up to collectMax.
	//   - many matches: walk the global order and keep the entries in the
	//     result. First a short walk testing the bitmap directly (enough when
	//     matches are spread over the order: the page fills in about
	//     need*all/n visits); if that does not fill the page, copy the result
	//     into a dense bitset (one bit per id, cache-resident) and walk again
	//     with bit tests. That walk reads memory in order; even a full walk
	//     of a million entries (matches correlated with the key, such as
	//     "most expensive oak") stays within a few milliseconds.
	if n > collectMax {
		if ids, ok := walkOrder(tree, desc, from, offset, limit, shortWalk, res.Contains); ok {
			return ids
		}
		bs := res.ToBitSet()
		ids, _ := walkOrder(tree, desc, from, offset, limit, -1, func(id uint32) bool { return bs.Test(uint(id)) })
		return ids
	}
	cmp := cmpKey
	if desc {
		cmp = func(a, b sortKey) int { return cmpKey(b, a) }
	}
	keys := make([]sortKey, 0, n)
	it := res.Iterator()
	for it.HasNext() {
		id := it.Next()
		k := sortKey{key(s.listings.get(id)), id}
		if from == nil || cmp(k, *from) > 0 {
			keys = append(keys, k)
		}
	}
	if need < len(keys) {
		selectFirst(keys, need, cmp)
		keys = keys[:need]
	}
	slices.SortFunc(keys, cmp)
	if offset >= len(keys) {
		return out
	}
	for _, k := range keys[offset:] {
		out = append(out, k.id)
	}
	return out
}

// walkOrder collects limit ids of o (after skipping offset) that match in,
// visiting at most budget entries (negative: no limit). With from, the walk
// starts after that entry. ok is false when the budget ran out before the
// page was full.
func walkOrder(o *order, desc bool, from *sortKey, offset, limit, budget int, in func(uint32) bool) (ids []uint32, ok bool) {
	ids = make([]uint32, 0, limit)
	skipped, visited := 0, 0
	ok = true
	visit := func(k sortKey) bool {
		if from != nil && k == *from {
			return true
		}
		if visited++; budget >= 0 && visited > budget {
			ok = false
			return false
		}
		if !in(k.id) {
			return true
		}
		if skipped < offset {
			skipped++
			return true
		}
		ids = append(ids, k.id)
		return len(ids) < limit
	}
	if desc {
		o.descendFrom(from, visit)
	} else {
		o.ascendFrom(from, visit)
	}
	return ids, ok
}

// between returns the listings whose key in o is within [lo, hi] (hi 0: no
// upper bound), walking only that stretch of the order.
func (o *order) between(lo, hi int64) *roaring.Bitmap {
	var ids []uint32
	o.ascendFrom(&sortKey{k: lo}, func(k sortKey) bool {
		if hi > 0 && k.k > hi {
			return false
		}
		ids = append(ids, k.id)
		return true
	})
	slices.Sort(ids)
	b := roaring.New()
	b.AddMany(ids)
	return b
}

// selectFirst reorders keys so that its first k elements are the k smallest
// under cmp (in no particular order): quickselect, O(len(keys)) on average.
func selectFirst(keys []sortKey, k int, cmp func(a, b sortKey) int) {
	lo, hi := 0, len(keys)-1
	for lo < hi {
		// Median of three as the pivot.
		mid := lo + (hi-lo)/2
		if cmp(keys[mid], keys[lo]) < 0 {
			keys[mid], keys[lo] = keys[lo], keys[mid]
		}
		if cmp(keys[hi], keys[lo]) < 0 {
			keys[hi], keys[lo] = keys[lo], keys[hi]
		}
		if cmp(keys[hi], keys[mid]) < 0 {
			keys[hi], keys[mid] = keys[mid], keys[hi]
		}
		pivot := keys[mid]
		i, j := lo, hi
		for i <= j {
			for cmp(keys[i], pivot) < 0 {
				i++
			}
			for cmp(pivot, keys[j]) < 0 {
				j--
			}
			if i <= j {
				keys[i], keys[j] = keys[j], keys[i]
				i++
				j--
			}
		}
		switch {
		case k-1 <= j:
			hi = j
		case k-1 >= i:
			lo = i
		default:
			return
		}
	}
}

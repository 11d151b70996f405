package market

import (
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/RoaringBitmap/roaring/v2"
	"github.com/google/uuid"
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
	Text     string    // search text; empty = everything
	Category Category  // CategoryAll = no filter
	Seller   uuid.UUID // uuid.Nil = any seller
	Sort     SortMode
	Offset   int
	Limit    int // 0 = 200; negative = all
	// Reverse reads the order from its other end: the page at Offset of the
	// reversed order. A console showing row r of n near the end asks for the
	// reversed page at n-1-r, which costs as little as a page near the start.
	Reverse bool
}

// DefaultPageSize is the page size when Query.Limit is 0.
const DefaultPageSize = 200

// Page is one page of query results.
type Page struct {
	Query    Query
	Listings []Listing
	Total    int           // matches in all pages
	Took     time.Duration // time spent answering
}

// parsedQuery is the query text split into words and #id terms. Colour
// codes are stripped first, as the original plugin does: "§b" is no text.
type parsedQuery struct {
	words []string
	ids   []uint32
	bad   bool // an #id term that can never match
}

func parseQueryText(text string) parsedQuery {
	var pq parsedQuery
	for _, f := range strings.Fields(StripColors(text)) {
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
		pq.words = appendTokens(pq.words, f)
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
// match contains (sorted, each once) and the "#<id>" terms; NoMatch is set
// when the text can match nothing (#0, or text without a single word).
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
	if int(q.Category) >= categoryCount {
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
	pq := parseQueryText(q.Text)

	s.mu.RLock()
	defer s.mu.RUnlock()
	nowMs := s.nowMs()
	if page, ok := s.idLookupLocked(pq, q, nowMs); ok {
		page.Took = time.Since(start)
		return page, nil
	}
	res := s.matchLocked(pq, q, nowMs)
	total := int(res.GetCardinality())
	limit := q.Limit
	switch {
	case q.Offset >= total:
		limit = 0
	case limit < 0 || limit > total-q.Offset: // no addition: Offset+Limit may overflow
		limit = total - q.Offset
	}
	ids := s.pageLocked(res, q.Sort, q.Reverse, q.Offset, limit)
	out := make([]Listing, len(ids))
	for i, id := range ids {
		out[i] = s.listingOf(s.listings.get(id))
	}
	return Page{Query: q, Listings: out, Total: total, Took: time.Since(start)}, nil
}

// idLookupLocked answers a query that is exactly one #id term with no
// other words or filters: one page-table lookup instead of the bitmap
// pipeline. ok is false for any other query.
func (s *Service) idLookupLocked(pq parsedQuery, q Query, nowMs int64) (Page, bool) {
	if len(pq.ids) != 1 || len(pq.words) != 0 || pq.bad || q.Category != CategoryAll || q.Seller != uuid.Nil {
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
func (s *Service) matchLocked(pq parsedQuery, q Query, nowMs int64) *roaring.Bitmap {
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
	if q.Category != CategoryAll {
		parts = append(parts, ix.cats[q.Category])
	}
	if q.Seller != uuid.Nil {
		p := s.playerByID[q.Seller]
		if p == nil || ix.sellers[p.idx] == nil {
			return roaring.New()
		}
		parts = append(parts, ix.sellers[p.idx])
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
func (s *Service) pageLocked(res *roaring.Bitmap, mode SortMode, reverse bool, offset, limit int) []uint32 {
	if limit <= 0 {
		return nil
	}
	out := make([]uint32, 0, limit)
	if reverse && (mode == SortNewest || mode == SortOldest) {
		mode = SortNewest + SortOldest - mode
	}
	switch mode {
	case SortNewest:
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
		tree, key = s.ix.byUnit, func(r *listingRecord) int64 { return unitKey(r.price, r.it.amount) }
	default:
		tree, key, desc = s.ix.byAmount, func(r *listingRecord) int64 { return int64(r.it.amount) }, mode == SortAmount
	}
	if reverse {
		desc = !desc
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
		if ids, ok := walkOrder(tree, desc, offset, limit, shortWalk, res.Contains); ok {
			return ids
		}
		bs := res.ToBitSet()
		ids, _ := walkOrder(tree, desc, offset, limit, -1, func(id uint32) bool { return bs.Test(uint(id)) })
		return ids
	}
	keys := make([]sortKey, 0, n)
	it := res.Iterator()
	for it.HasNext() {
		id := it.Next()
		keys = append(keys, sortKey{key(s.listings.get(id)), id})
	}
	cmp := cmpKey
	if desc {
		cmp = func(a, b sortKey) int { return cmpKey(b, a) }
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
// visiting at most budget entries (negative: no limit). ok is false when the
// budget ran out before the page was full.
func walkOrder(o *order, desc bool, offset, limit, budget int, in func(uint32) bool) (ids []uint32, ok bool) {
	ids = make([]uint32, 0, limit)
	skipped, visited := 0, 0
	ok = true
	visit := func(k sortKey) bool {
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
		o.descend(visit)
	} else {
		o.ascend(visit)
	}
	return ids, ok
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

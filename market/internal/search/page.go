package search

import (
	"math"
	"slices"

	"github.com/RoaringBitmap/roaring/v2"
	"github.com/bits-and-blooms/bitset"
)

// collectMax is the result size up to which a sorted page is built by
// collecting and selecting, and shortWalk the budget of the first, bitmap
// tested walk (see Page). Variables only so that tests can drive every
// path with small data (SetPagingThresholds).
var (
	collectMax = 16384
	shortWalk  = 8192
)

// SetPagingThresholds sets the result size up to which Page collects and
// selects, and the budget of its first walk, so that tests can drive every
// path with small data; it returns a function restoring the values.
func SetPagingThresholds(collect, walk int) (restore func()) {
	c, w := collectMax, shortWalk
	collectMax, shortWalk = collect, walk
	return func() { collectMax, shortWalk = c, w }
}

// Page returns the entries of limit listings of res in the order by
// (descending when desc is set; ByID descending is newest first; a ByID
// entry's K is 0), skipping offset, or after the entry *after when it is
// given (of which ByID reads only the id). key gives a listing's key in the
// order by, for a few matches that are collected and selected rather than
// walked; ok is false for a listing that is gone. res belongs to the
// caller's query and may be modified.
//
// A long page is made in chunks, giving way to a writer between two (y;
// nil: never), while the index may change (walkPaused): a listing of the
// page may be gone by its end, which the caller checks.
func (ix *Index) Page(res *roaring.Bitmap, by By, desc bool, after *Key, offset, limit int, key func(id uint32) (int64, bool), y Yield) []Key {
	if limit <= 0 {
		return nil
	}
	out := make([]Key, 0, limit)
	switch {
	case by == ByID && desc:
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
			out = append(out, Key{ID: it.Next()})
		}
		return out
	case by == ByID:
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
			out = append(out, Key{ID: it.Next()})
		}
		return out
	}
	tree := ix.order(by)
	from := after
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
		if keys, ok := walkOrder(tree, desc, from, offset, limit, shortWalk, res.Contains, y); ok {
			return keys
		}
		bs := res.ToBitSet()
		keys, _ := walkOrder(tree, desc, from, offset, limit, -1, func(id uint32) bool { return bs.Test(uint(id)) }, y)
		return keys
	}
	//   - fewer matches, but spread over an order so long that a short walk
	//     (need*all/n visits) costs under a quarter of their lookups: the
	//     walk first, with a budget of half the lookups, then collecting.
	//     The cheapest twenty of 15,000 swords took 2.5 ms to collect.
	if all := tree.size(); n > 0 && need*all/n < n/4 {
		if keys, ok := walkOrder(tree, desc, from, offset, limit, n/2, res.Contains, y); ok {
			return keys
		}
	}
	cmp := cmpKey
	if desc {
		cmp = func(a, b Key) int { return cmpKey(b, a) }
	}
	keys := make([]Key, 0, n)
	it := res.Iterator()
	for i := 1; it.HasNext(); i++ {
		if y != nil && i%collectChunk == 0 && y.Due() {
			y.Pause()
		}
		id := it.Next()
		k, ok := key(id)
		if !ok {
			continue
		}
		if kk := (Key{k, id}); from == nil || cmp(kk, *from) > 0 {
			keys = append(keys, kk)
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
	return append(out, keys[offset:]...)
}

// walkOrder collects the entries of limit listings of o (after skipping
// offset) that match in, visiting at most budget entries (negative: no
// limit), giving way as walkPaused does (y). With from, the walk
// starts after that entry. ok is false when the budget ran out before the
// page was full.
func walkOrder(o *Order, desc bool, from *Key, offset, limit, budget int, in func(uint32) bool, y Yield) (keys []Key, ok bool) {
	keys = make([]Key, 0, limit)
	skipped, visited := 0, 0
	ok = true
	visit := func(k Key) bool {
		if from != nil && k == *from {
			return true
		}
		if visited++; budget >= 0 && visited > budget {
			ok = false
			return false
		}
		if !in(k.ID) {
			return true
		}
		if skipped < offset {
			skipped++
			return true
		}
		keys = append(keys, k)
		return len(keys) < limit
	}
	o.walkPaused(desc, from, y, visit)
	return keys, ok
}

// size is about how many listings o holds: its base's and its delta's,
// the dead among them too.
func (o *Order) size() int { return len(o.base) + o.delta.Len() }

// span is about how many listings have a key in o within [lo, hi] (hi 0:
// no upper bound): the base's, found by two binary searches. The dead and
// the delta, each under an eighth of the base, leave it close enough to
// choose between walking the stretch and checking keys (Match).
func (o *Order) span(lo, hi int64) int {
	i, _ := slices.BinarySearchFunc(o.base, Key{K: lo}, cmpKey)
	j := len(o.base)
	if hi > 0 && hi < math.MaxInt64 {
		j, _ = slices.BinarySearchFunc(o.base, Key{K: hi + 1}, cmpKey)
	}
	return max(j-i, 0)
}

// between returns the listings whose key in o is within [lo, hi] (hi 0: no
// upper bound), walking only that stretch of the order, giving way between
// chunks of it (walkPaused). A wide stretch (a price range below the
// median: half a million listings) is gathered in a dense bitset, which
// takes a bit per id where sorting the ids took 60 ms.
func (o *Order) between(lo, hi int64, y Yield) *roaring.Bitmap {
	const sortMax = 1 << 16
	var ids []uint32
	var dense *bitset.BitSet
	o.walkPaused(false, &Key{K: lo}, y, func(k Key) bool {
		if hi > 0 && k.K > hi {
			return false
		}
		switch {
		case dense != nil:
			dense.Set(uint(k.ID))
		case len(ids) == sortMax:
			dense = bitset.New(0)
			for _, id := range ids {
				dense.Set(uint(id))
			}
			dense.Set(uint(k.ID))
		default:
			ids = append(ids, k.ID)
		}
		return true
	})
	if dense != nil {
		return roaring.FromBitSet(dense)
	}
	slices.Sort(ids)
	b := roaring.New()
	b.AddMany(ids)
	return b
}

// selectFirst reorders keys so that its first k elements are the k smallest
// under cmp (in no particular order): quickselect, O(len(keys)) on average.
func selectFirst(keys []Key, k int, cmp func(a, b Key) int) {
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

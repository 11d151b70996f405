package search

import (
	"slices"

	"github.com/RoaringBitmap/roaring/v2"
	"github.com/bits-and-blooms/bitset"
	"github.com/google/btree"
)

// An Order keeps listing ids sorted by a key (price, unit price, amount or
// expiry) for paged queries.
//
// Why not one B-tree: a million B-tree insertions cost about 3 s at load,
// while sorting a million keys once costs about 0.1 s. So an order is a sorted
// base array, built in one sort at load (and at each compaction), plus a small
// B-tree of the listings added since. Removing a listing that is in the base
// marks it dead in a bitmap instead of moving memory; iteration merges base
// and delta and skips the dead. When the delta or the dead set grows past a
// fraction of the base, a compaction merges everything into a new base:
// O(n), amortized over at least n/8 changes. It runs on a goroutine of its
// own over a copy, since on a million listings it takes tens of
// milliseconds the main thread does not have: the changes made meanwhile
// are kept and made again on the new base when it is installed.
//
// A listing re-added with the key it had (a purchase rolled back) revives
// its dead base entry; one re-added with another key (an auction's bid, the
// rest of a partial sale) goes to the delta, its old entry staying dead.
type Order struct {
	base  []Key
	ids   *roaring.Bitmap // ids present in base (alive or dead)
	dead  *roaring.Bitmap // ids in base that were removed
	delta *btree.BTreeG[Key]
	// first is where the base's live entries begin: every entry before
	// base[first] is dead. The expiry order loses its front to the sweep,
	// and until a compaction (n/8 removals later: 125,000 on a million
	// listings) a walk from the start, which every query and count makes
	// to leave out what has expired, would step over all of them.
	first int
	// compacting is the compaction under way, nil when none.
	compacting *compaction
}

// compaction is a compaction under way: what it will build, and the
// changes made to the order since it began, to be made again on that.
type compaction struct {
	done    chan compacted
	changes []change
}

// compacted is what a compaction built: the new base and its ids.
type compacted struct {
	base []Key
	ids  *roaring.Bitmap
}

type change struct {
	k      Key
	insert bool
}

func newOrder() *Order {
	return &Order{ids: roaring.New(), dead: roaring.New(), delta: btree.NewG(16, lessKey)}
}

func cmpKey(a, b Key) int {
	switch {
	case a.K < b.K:
		return -1
	case a.K > b.K:
		return 1
	case a.ID < b.ID:
		return -1
	case a.ID > b.ID:
		return 1
	}
	return 0
}

// load replaces the order's content with keys (any order; keys is kept).
func (o *Order) load(keys []Key) {
	sortKeys(keys)
	o.setBase(keys, idsOf(keys))
}

// idsOf returns the ids of keys. They are gathered in a dense bitset:
// sorting a million of them for the bitmap took 80 ms.
func idsOf(keys []Key) *roaring.Bitmap {
	var ids bitset.BitSet
	for _, k := range keys {
		ids.Set(uint(k.ID))
	}
	b := roaring.FromBitSet(&ids)
	b.RunOptimize()
	return b
}

// setBase makes keys, sorted, the order's base and ids their ids, with no
// delta and nothing dead.
func (o *Order) setBase(keys []Key, ids *roaring.Bitmap) {
	o.base = keys
	o.ids = ids
	o.dead = roaring.New()
	o.delta = btree.NewG(16, lessKey)
	o.first = 0
}

func (o *Order) insert(k Key) {
	if c := o.compacting; c != nil {
		c.changes = append(c.changes, change{k, true})
	}
	if i, ok := o.inBase(k); ok {
		o.dead.Remove(k.ID)
		if i < o.first {
			o.first = i // revived before the live front
		}
		return
	}
	o.delta.ReplaceOrInsert(k)
	o.maybeCompact()
}

func (o *Order) remove(k Key) {
	if c := o.compacting; c != nil {
		c.changes = append(c.changes, change{k, false})
	}
	if o.liveInBase(k.ID) {
		o.dead.Add(k.ID)
		for o.first < len(o.base) && o.dead.Contains(o.base[o.first].ID) {
			o.first++
		}
		o.maybeCompact()
		return
	}
	o.delta.Delete(k)
	o.maybeCompact()
}

// liveInBase reports whether listing id's live entry is the base's. A
// listing has one live entry, in the base or in the delta, and the base
// one entry at most for it, so the base's entry is the live one when it is
// there and not dead: removing the live entry needs no search by key (on
// a million listings, the binary search was 5% of the main thread's time,
// a cache miss at each of its last steps).
func (o *Order) liveInBase(id uint32) bool {
	return o.ids.Contains(id) && !o.dead.Contains(id)
}

// inBase finds entry k in the base, by its key and id both: a listing
// whose key changed (an auction's bid, a partial sale's rest) is removed
// under its old key and added under its new one, which goes to the delta
// while its old entry stays dead in the base.
func (o *Order) inBase(k Key) (int, bool) {
	if !o.ids.Contains(k.ID) {
		return 0, false
	}
	return slices.BinarySearchFunc(o.base, k, cmpKey)
}

// len is the number of live entries.
func (o *Order) len() int {
	return len(o.base) - int(o.dead.GetCardinality()) + o.delta.Len()
}

// maybeCompact installs a compaction that has finished, or starts one
// when the delta or the dead have grown past an eighth of the base.
func (o *Order) maybeCompact() {
	if c := o.compacting; c != nil {
		select {
		case r := <-c.done:
			o.install(r, c.changes)
		default:
		}
		return
	}
	limit := max(len(o.base)/8, 4096)
	if o.delta.Len() > limit || int(o.dead.GetCardinality()) > limit {
		o.startCompaction()
	}
}

// startCompaction merges the base (without the dead) and the delta into a
// new base on a goroutine of its own, from copies: the base array is never
// changed in place, the dead set is copied (an eighth of the base at most)
// and the delta cloned copy-on-write (the tree and its clone may be used at
// once), so the order goes on changing meanwhile. Compacting a million on
// the main thread held it 40-200 ms.
func (o *Order) startCompaction() {
	c := &compaction{done: make(chan compacted, 1)}
	o.compacting = c
	base, first, n := o.base, o.first, o.len()
	dead, delta := o.dead.Clone(), o.delta.Clone()
	go func() {
		merged := merge(base, first, dead, delta, n)
		c.done <- compacted{merged, idsOf(merged)}
	}()
}

// merge is a compaction's work: base[first:] without the dead, and delta,
// in order.
func merge(base []Key, first int, deadIDs *roaring.Bitmap, delta *btree.BTreeG[Key], n int) []Key {
	merged := make([]Key, 0, n)
	dead := deadIDs.ToBitSet() // a roaring lookup per entry is most of the work
	i := first
	delta.Ascend(func(d Key) bool {
		for ; i < len(base) && lessKey(base[i], d); i++ {
			if !dead.Test(uint(base[i].ID)) {
				merged = append(merged, base[i])
			}
		}
		merged = append(merged, d)
		return true
	})
	for ; i < len(base); i++ {
		if !dead.Test(uint(base[i].ID)) {
			merged = append(merged, base[i])
		}
	}
	return merged
}

// install makes a finished compaction's merge the base and makes the
// changes made since it began again on it.
func (o *Order) install(r compacted, changes []change) {
	o.compacting = nil
	o.setBase(r.base, r.ids)
	for _, ch := range changes {
		if ch.insert {
			o.insert(ch.k)
		} else {
			o.remove(ch.k)
		}
	}
}

// Ascend calls fn for live entries in ascending order until fn returns false.
func (o *Order) Ascend(fn func(Key) bool) { o.walk(false, nil, fn) }

// descend calls fn for live entries in descending order until fn returns false.
func (o *Order) descend(fn func(Key) bool) { o.walk(true, nil, fn) }

// Yield is how a long read under the market's read lock gives way to a
// writer (nil: it never does). Due is asked every walkChunk entries and
// must be cheap: whether a writer waits. Pause lets the lock go for a
// moment and takes it again, after which the index may have changed.
type Yield interface {
	Due() bool
	Pause()
}

// walkChunk is how many entries a paused walk visits between two asks
// whether it is due to give way (some 25 µs of work), and collectChunk
// how many matches Page collects between two (each a record lookup, a
// cache miss). A walk restarts after a pause at a search of the order,
// which costs as much as a hundred entries: so a walk asks often and cuts
// only when due (a chunk of 4,096 held the main thread up some 300 µs, a
// chunk of 64 that restarted each time made a price search 40% slower).
// Variables only so that tests can pause small data as often
// (SetReadChunk).
var (
	walkChunk    = 64
	collectChunk = 64
)

// SetReadChunk makes walks and collections ask every n entries, so that
// tests drive the pauses with small data; it returns a function restoring
// the chunks.
func SetReadChunk(n int) (restore func()) {
	w, c := walkChunk, collectChunk
	walkChunk, collectChunk = n, n
	return func() { walkChunk, collectChunk = w, c }
}

// walkPaused is walk in chunks of walkChunk entries, asking y between two
// whether to give way, and then pausing (nil: one unbroken walk). The
// market calls it under its read lock, and pauses by letting the lock go
// for a moment, so that the main thread never waits long behind a reader:
// the order may change during a pause. A walk that paused goes on as a
// walk of its own, started after the last entry visited (the order's
// iteration is not safe across a change), so an entry added behind the
// walk during a pause is not visited, and one removed ahead of it is not
// visited either.
func (o *Order) walkPaused(desc bool, from *Key, y Yield, fn func(Key) bool) {
	if y == nil {
		o.walk(desc, from, fn)
		return
	}
	var last Key
	resumed := false
	for {
		n, cut := 0, false
		o.walk(desc, from, func(k Key) bool {
			if resumed && k == *from {
				return true // where the walk paused: visited already
			}
			if n == walkChunk {
				n = 0
				if y.Due() {
					cut = true
					return false
				}
			}
			n++
			last = k
			return fn(k)
		})
		if !cut {
			return
		}
		y.Pause()
		resume := last
		from, resumed = &resume, true
	}
}

// walk calls fn for live entries in ascending order, or descending when desc
// is set, from *from on (the whole order when from is nil), until fn returns
// false: it merges the base array, skipping dead entries, with the delta
// B-tree, walking both in the same direction.
func (o *Order) walk(desc bool, from *Key, fn func(Key) bool) {
	i, step := o.first, 1
	if desc {
		i, step = len(o.base)-1, -1
	}
	if from != nil {
		j, found := slices.BinarySearchFunc(o.base, *from, cmpKey)
		i = j
		if desc && !found {
			i = j - 1
		}
		if !desc {
			i = max(i, o.first)
		}
	}
	deadEmpty := o.dead.IsEmpty()
	// emit calls fn for the base entries before limit in the walk's
	// direction (all that are left when limit is nil).
	emit := func(limit *Key) bool {
		for ; i >= o.first && i < len(o.base); i += step {
			k := o.base[i]
			if limit != nil {
				before := lessKey(k, *limit)
				if desc {
					before = lessKey(*limit, k)
				}
				if !before {
					return true
				}
			}
			if !deadEmpty && o.dead.Contains(k.ID) {
				continue
			}
			if !fn(k) {
				return false
			}
		}
		return true
	}
	ok := true
	visit := func(d Key) bool {
		if ok = emit(&d); !ok {
			return false
		}
		ok = fn(d)
		return ok
	}
	switch {
	case desc && from != nil:
		o.delta.DescendLessOrEqual(*from, visit)
	case desc:
		o.delta.Descend(visit)
	case from != nil:
		o.delta.AscendGreaterOrEqual(*from, visit)
	default:
		o.delta.Ascend(visit)
	}
	if ok {
		emit(nil)
	}
}

// sortKeys sorts by (k, id). Keys collected at load arrive in ascending id
// order (the store scans listings by id), so a stable sort on k alone gives
// (k, id) order: an LSD radix sort, about four times faster than a
// comparison sort on a million keys, skipping byte positions where all keys
// agree. Input not in id order falls back to the comparison sort.
func sortKeys(keys []Key) {
	for i := 1; i < len(keys); i++ {
		if keys[i].ID <= keys[i-1].ID {
			slices.SortFunc(keys, cmpKey)
			return
		}
	}
	if len(keys) < 256 {
		slices.SortStableFunc(keys, func(a, b Key) int { return cmpKey(a, b) })
		return
	}
	src, dst := keys, make([]Key, len(keys))
	for shift := uint(0); shift < 64; shift += 8 {
		var count [257]int
		for _, x := range src {
			count[radixByte(x.K, shift)+1]++
		}
		if count[radixByte(src[0].K, shift)+1] == len(src) {
			continue // every key has the same byte here
		}
		for i := 1; i < len(count); i++ {
			count[i] += count[i-1]
		}
		for _, x := range src {
			b := radixByte(x.K, shift)
			dst[count[b]] = x
			count[b]++
		}
		src, dst = dst, src
	}
	if &src[0] != &keys[0] {
		copy(keys, src)
	}
}

// radixByte is byte `shift/8` of k with the sign bit flipped, so that
// unsigned byte order is signed order.
func radixByte(k int64, shift uint) int { return int(byte((uint64(k) ^ 1<<63) >> shift)) }

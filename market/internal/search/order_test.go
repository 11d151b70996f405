package search

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
)

// TestOrderMatchesSortedSlice applies random inserts, removals and revivals
// to an order and to a plain sorted slice, and checks both iterations agree
// after every step, across compactions.
func TestOrderMatchesSortedSlice(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	keyOf := map[uint32]int64{}
	var initial []Key
	for id := uint32(1); id <= 5000; id++ {
		k := int64(rng.IntN(300))
		keyOf[id] = k
		initial = append(initial, Key{k, id})
	}
	o := newOrder()
	o.load(slices.Clone(initial))
	live := map[uint32]bool{}
	for _, k := range initial {
		live[k.ID] = true
	}
	next := uint32(5001)
	check := func(step int) {
		var want []Key
		for id := range live {
			want = append(want, Key{keyOf[id], id})
		}
		slices.SortFunc(want, cmpKey)
		var got []Key
		o.Ascend(func(k Key) bool { got = append(got, k); return true })
		if !slices.Equal(got, want) {
			t.Fatalf("step %d: ascend has %d entries, want %d", step, len(got), len(want))
		}
		var down []Key
		o.descend(func(k Key) bool { down = append(down, k); return true })
		slices.Reverse(down)
		if !slices.Equal(down, want) {
			t.Fatalf("step %d: descend differs", step)
		}
		if o.len() != len(want) {
			t.Fatalf("step %d: len %d, want %d", step, o.len(), len(want))
		}
		// Early stop works from both ends.
		n := 0
		o.Ascend(func(Key) bool { n++; return n < 3 })
		if len(want) >= 3 && n != 3 {
			t.Fatalf("step %d: ascend did not stop", step)
		}
	}
	var removed []uint32
	for step := 0; step < 20000; step++ {
		switch r := rng.IntN(11); {
		case r == 10:
			for id := range live { // an auction's bid, a partial sale's rest
				o.remove(Key{keyOf[id], id})
				keyOf[id] = int64(rng.IntN(300))
				o.insert(Key{keyOf[id], id})
				break
			}
		case r < 4:
			id := next
			next++
			keyOf[id] = int64(rng.IntN(300))
			o.insert(Key{keyOf[id], id})
			live[id] = true
		case r < 8:
			for id := range live {
				o.remove(Key{keyOf[id], id})
				delete(live, id)
				removed = append(removed, id)
				break
			}
		default:
			if len(removed) > 0 {
				i := rng.IntN(len(removed))
				id := removed[i]
				removed = slices.Delete(removed, i, i+1)
				o.insert(Key{keyOf[id], id}) // a rolled-back purchase restores a listing
				live[id] = true
			}
		}
		if step%997 == 0 {
			check(step)
		}
	}
	check(-1)
}

func TestSortKeysMatchesComparisonSort(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for _, n := range []int{0, 1, 100, 255, 256, 5000, 100000} {
		for _, spread := range []int64{1, 64, 1 << 20, 1 << 62} {
			keys := make([]Key, n)
			for i := range keys {
				keys[i] = Key{K: rng.Int64N(spread) - spread/2, ID: uint32(i + 1)}
			}
			want := slices.Clone(keys)
			slices.SortFunc(want, cmpKey)
			sortKeys(keys)
			if !slices.Equal(keys, want) {
				t.Fatalf("n=%d spread=%d: radix order differs", n, spread)
			}
		}
	}
	// Unordered ids fall back to the comparison sort.
	keys := []Key{{5, 9}, {5, 2}, {1, 7}}
	sortKeys(keys)
	if !slices.Equal(keys, []Key{{1, 7}, {5, 2}, {5, 9}}) {
		t.Fatalf("fallback %v", keys)
	}
}

// TestWalkPausedAcrossChanges walks an order in small chunks while every
// pause inserts and removes entries (compactions included), both ways:
// the walk is in order with no entry twice, and it visits every entry
// that was there from start to end. The market's readers walk this way while the main thread
// changes the order (the market's readYield).
func TestWalkPausedAcrossChanges(t *testing.T) {
	defer SetReadChunk(7)()
	for _, desc := range []bool{false, true} {
		rng := rand.New(rand.NewPCG(3, 4))
		o := newOrder()
		var initial []Key
		for id := uint32(1); id <= 3000; id++ {
			initial = append(initial, Key{int64(rng.IntN(500)), id})
		}
		o.load(slices.Clone(initial))
		always := map[Key]bool{} // there from the walk's start to its end
		for _, k := range initial {
			always[k] = true
		}
		removed := map[Key]bool{}
		next := uint32(3001)
		pauses := 0
		pause := func() {
			pauses++
			for range 40 {
				if rng.IntN(2) == 0 {
					k := Key{int64(rng.IntN(500)), next}
					next++
					o.insert(k)
					continue
				}
				k := initial[rng.IntN(len(initial))]
				if !removed[k] {
					o.remove(k)
					removed[k], always[k] = true, false
				}
			}
		}
		var got []Key
		o.walkPaused(desc, nil, everyChunk(pause), func(k Key) bool { got = append(got, k); return true })
		if pauses < 100 {
			t.Fatalf("desc %v: %d pauses; a chunk of 7 over 3,000 entries makes hundreds", desc, pauses)
		}
		seen := map[Key]bool{}
		for i, k := range got {
			if seen[k] {
				t.Fatalf("desc %v: %v visited twice", desc, k)
			}
			seen[k] = true
			if i > 0 && (cmpKey(got[i-1], k) >= 0) != desc {
				t.Fatalf("desc %v: %v after %v is out of order", desc, k, got[i-1])
			}
		}
		for k, there := range always {
			if there && !seen[k] {
				t.Fatalf("desc %v: %v, there all along, was not visited", desc, k)
			}
		}
	}
}

// TestBetweenWide: a range wider than the sorted path's limit goes
// through the dense bitset and gives the same listings.
func TestBetweenWide(t *testing.T) {
	o := newOrder()
	var keys []Key
	for id := uint32(1); id <= 100_000; id++ {
		keys = append(keys, Key{int64(id % 1000), id})
	}
	o.load(slices.Clone(keys))
	got := o.between(100, 899, nil)
	want := 0
	for _, k := range keys {
		if k.K >= 100 && k.K <= 899 {
			want++
			if !got.Contains(k.ID) {
				t.Fatalf("listing %d (key %d) is missing", k.ID, k.K)
			}
		}
	}
	if int(got.GetCardinality()) != want {
		t.Fatalf("%d listings in range, want %d", got.GetCardinality(), want)
	}
}

// TestOrderSkipsItsDeadFront: the sweep removes the expiry order's front,
// listing after listing; a walk from the start begins at the first live
// entry instead of stepping over every dead one until the next
// compaction, and a listing revived before that front (a purchase rolled
// back) is walked again.
func TestOrderSkipsItsDeadFront(t *testing.T) {
	o := newOrder()
	var keys []Key
	for id := uint32(1); id <= 50_000; id++ {
		keys = append(keys, Key{int64(id), id})
	}
	o.load(slices.Clone(keys))
	for _, k := range keys[:1000] {
		o.remove(k)
	}
	if o.first != 1000 {
		t.Fatalf("after the first 1,000 expired, the live front is at %d", o.first)
	}
	o.insert(keys[9])
	var got []Key
	o.Ascend(func(k Key) bool {
		got = append(got, k)
		return len(got) < 3
	})
	if want := []Key{keys[9], keys[1000], keys[1001]}; !slices.Equal(got, want) {
		t.Fatalf("the walk from the start gives %v, want %v", got, want)
	}
	got = got[:0]
	o.walk(false, &Key{K: 5}, func(k Key) bool {
		got = append(got, k)
		return len(got) < 2
	})
	if want := []Key{keys[9], keys[1000]}; !slices.Equal(got, want) {
		t.Fatalf("the walk from key 5 gives %v, want %v", got, want)
	}
	var down []Key
	o.descend(func(k Key) bool { down = append(down, k); return true })
	if len(down) != 49_001 || down[len(down)-1] != keys[9] {
		t.Fatalf("the walk down has %d entries ending at %v, want 49,001 ending at %v", len(down), down[len(down)-1], keys[9])
	}
}

// compact merges o into a new base at once: the compaction under way, or a
// new one, waited for and installed.
func (o *Order) compact() {
	if o.compacting == nil {
		o.startCompaction()
	}
	c := o.compacting
	o.install(<-c.done, c.changes)
}

// TestCompactionInTheBackground: a compaction runs on its own goroutine
// while the order goes on changing (each change is kept and made again on
// the new base when it is installed); the order is right before, during
// and after, whichever change finds the compaction finished.
func TestCompactionInTheBackground(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	o := newOrder()
	live := map[Key]bool{}
	var keys []Key
	for id := uint32(1); id <= 40_000; id++ {
		k := Key{int64(rng.IntN(2000)), id}
		keys = append(keys, k)
		live[k] = true
	}
	o.load(slices.Clone(keys))
	next := uint32(40_001)
	check := func(when string) {
		t.Helper()
		var want []Key
		for k, ok := range live {
			if ok {
				want = append(want, k)
			}
		}
		slices.SortFunc(want, cmpKey)
		var got []Key
		o.Ascend(func(k Key) bool { got = append(got, k); return true })
		if !slices.Equal(got, want) {
			t.Fatalf("%s: %d entries, want %d", when, len(got), len(want))
		}
	}
	started, installed := 0, 0
	for step := 0; step < 40_000; step++ {
		was := o.compacting
		if rng.IntN(2) == 0 {
			k := Key{int64(rng.IntN(2000)), next}
			next++
			o.insert(k)
			live[k] = true
		} else if k := keys[rng.IntN(len(keys))]; live[k] {
			o.remove(k)
			live[k] = false
		}
		switch {
		case was == nil && o.compacting != nil:
			started++
		case was != nil && o.compacting != was:
			installed++
		}
		if step%997 == 0 {
			check(fmt.Sprintf("step %d (compacting %v)", step, o.compacting != nil))
		}
	}
	o.compact()
	check("after the last compaction")
	if started < 2 || installed < 1 {
		t.Fatalf("%d compactions started, %d installed by a change; the test needs several", started, installed)
	}
}

// TestOrderTakesANewKey: a listing whose key changes (an auction's bid
// raises its price, a partial sale leaves a rest at another unit price) is
// removed under its old key and added under its new one; the order then
// holds it at the new key, not at the old one revived. It once revived the
// old: a bid on an auction loaded at start left it sorted at its starting
// price.
func TestOrderTakesANewKey(t *testing.T) {
	o := newOrder()
	o.load([]Key{{100, 1}, {200, 2}})
	o.remove(Key{100, 1})
	o.insert(Key{300, 1})
	var got []Key
	o.Ascend(func(k Key) bool { got = append(got, k); return true })
	if want := []Key{{200, 2}, {300, 1}}; !slices.Equal(got, want) {
		t.Fatalf("after the key change: %v, want %v", got, want)
	}
	o.remove(Key{300, 1})
	o.insert(Key{100, 1}) // back to the key it had: the base entry revives
	got = got[:0]
	o.Ascend(func(k Key) bool { got = append(got, k); return true })
	if want := []Key{{100, 1}, {200, 2}}; !slices.Equal(got, want) || o.delta.Len() != 0 {
		t.Fatalf("back at the old key: %v (delta %d), want %v and an empty delta", got, o.delta.Len(), want)
	}
}

// everyChunk is a Yield due at every chunk's end, pausing with pause.
type everyChunk func()

func (everyChunk) Due() bool { return true }
func (y everyChunk) Pause()  { y() }

// BenchmarkOrderRemove removes listings from an order of a million at
// random places (a purchase's share of the main thread's work, in each of
// the index's four orders), and puts each back 4,096 removals later (a
// rollback, long after), so that the dead stay too few to compact.
func BenchmarkOrderRemove(b *testing.B) {
	const n = 1_000_000
	rng := rand.New(rand.NewPCG(3, 4))
	keys := make([]Key, n)
	for i := range keys {
		keys[i] = Key{int64(rng.IntN(1_000_000)), uint32(i + 1)}
	}
	o := newOrder()
	o.load(slices.Clone(keys))
	b.ResetTimer()
	const back = 4096
	at := func(i int) Key { return keys[(i*7919)%n] }
	for i := range b.N {
		o.remove(at(i))
		if i >= back {
			o.insert(at(i - back))
		}
	}
}

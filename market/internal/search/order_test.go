package search

import (
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
		switch r := rng.IntN(10); {
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

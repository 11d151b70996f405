package search

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// TestTableMatchesAMap sets and deletes random ids over several pages and
// compares the table with a map after every step (Get, Len), then Each
// (every record, in id order), and that a page is freed once its last
// record goes.
func TestTableMatchesAMap(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	var tb Table[uint32]
	want := map[uint32]*uint32{}
	const span = 5 << pageBits // five pages' ids
	for step := range 20000 {
		id := uint32(rng.IntN(span))
		if rng.IntN(3) == 0 {
			tb.Delete(id)
			delete(want, id)
		} else {
			r := &id
			tb.Set(id, r)
			want[id] = r
		}
		if got, w := tb.Get(id), want[id]; got != w {
			t.Fatalf("step %d: Get(%d) = %v, want %v", step, id, got, w)
		}
		if tb.Len() != len(want) {
			t.Fatalf("step %d: Len %d, want %d", step, tb.Len(), len(want))
		}
	}
	var seen []uint32
	tb.Each(func(r *uint32) { seen = append(seen, *r) })
	ids := make([]uint32, 0, len(want))
	for id := range want {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	if !slices.Equal(seen, ids) {
		t.Fatalf("Each visited %d records, not the %d set in id order", len(seen), len(ids))
	}
	for _, id := range ids {
		tb.Delete(id)
	}
	for p, pg := range tb.pages {
		if pg != nil {
			t.Fatalf("page %d kept after its last record went", p)
		}
	}
}

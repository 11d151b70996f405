package search

import (
	"math/rand/v2"
	"testing"

	"github.com/rynek/rynek/market/catalog"
	"github.com/rynek/rynek/market/internal/item"
)

// TestExpiredIsWhatAWalkFinds: whatever the index's filing of expired
// listings has reached (AdvanceExpiry, a chunk at a time, or not at all),
// the counts and sets of what has expired at a read's now, and the first
// expiry ahead, are what a walk of the expiry order from its start finds,
// through listings added and removed, filed and unfiled, and a clock set
// back.
func TestExpiredIsWhatAWalkFinds(t *testing.T) {
	diamond, _ := catalog.MaterialID("DIAMOND")
	rng := rand.New(rand.NewPCG(7, 8))
	ix := New()
	live := map[uint32]*Listing{}
	next := uint32(1)
	add := func() {
		r := &Listing{ID: next, Item: item.Item{Mat: diamond, Amount: 1}, Price: 100, Expires: int64(rng.IntN(2000))}
		next++
		ix.Add(r, ix.TokenIDs(nil, r, "Seller"))
		live[r.ID] = r
	}
	for range 800 {
		add()
	}
	walked := func(now int64) (n int, first int64, ok bool) {
		ix.byExpiry.Ascend(func(k Key) bool {
			if k.K > now {
				first, ok = k.K, true
				return false
			}
			n++
			return true
		})
		return n, first, ok
	}
	for step := range 400 {
		now := int64(rng.IntN(2100))
		if step%50 == 49 {
			now = int64(rng.IntN(300)) // the clock set back
		}
		switch rng.IntN(3) {
		case 0:
			ix.AdvanceExpiry(now, 50)
		case 1:
			add()
		default:
			for id, r := range live {
				ix.Remove(r, ix.TokenIDs(nil, r, "Seller"))
				delete(live, id)
				break
			}
		}
		read := int64(rng.IntN(2100))
		want, first, ahead := walked(read)
		if got := ix.ExpiredCount(read); got != want {
			t.Fatalf("step %d (filed to %d), now %d: ExpiredCount %d, a walk finds %d", step, ix.expiredTo, read, got, want)
		}
		if got := ix.Expired(read); int(got.GetCardinality()) != want {
			t.Fatalf("step %d, now %d: Expired holds %d, a walk finds %d", step, read, got.GetCardinality(), want)
		}
		res := ix.active.Clone()
		ix.leaveOutExpired(res, read, nil)
		if int(res.GetCardinality()) != len(live)-want {
			t.Fatalf("step %d, now %d: %d left after leaving out the expired, want %d", step, read, res.GetCardinality(), len(live)-want)
		}
		if at, ok := ix.FirstExpiryAfter(read); ok != ahead || at != first {
			t.Fatalf("step %d, now %d: first expiry after %d %v, want %d %v", step, read, at, ok, first, ahead)
		}
	}
}

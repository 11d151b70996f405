package market_test

import (
	"slices"
	"testing"
	"time"

	"github.com/rynek/rynek/market"
	"github.com/rynek/rynek/seed"
)

// TestSweepSizesItsBatchByTime: a backlog of expired listings is swept in
// batches sized by time. Before, one call took up to 2,000 (45-220 ms of
// a tick at 1M listings). With a budget no batch can meet, spent before
// the batch begins, every batch is the least, 16, and the backlog still
// goes, every listing to its seller's mailbox once; with a budget every
// batch meets, the first takes 64 and the next grows.
func TestSweepSizesItsBatchByTime(t *testing.T) {
	open := func() *market.Service {
		t.Helper()
		st := testStore(t)()
		now := time.Date(2026, 11, 1, 12, 0, 0, 0, time.UTC)
		if _, err := seed.Load(st, seed.Options{Players: 10, Listings: 300, Days: -1, Auctions: -1, Orders: -1, Now: now, Rand: 3}); err != nil {
			t.Fatal(err)
		}
		clock := market.NewManualClock(now)
		svc := market.New(st, market.Config{Clock: clock})
		must(t, svc.BindMainThread())
		must(t, svc.Enable())
		t.Cleanup(func() { svc.Close() })
		clock.Advance(60 * 24 * time.Hour) // every listing has expired
		return svc
	}
	defer market.SetSweepBudget(time.Nanosecond)()
	svc := open()
	var got []int
	for {
		n, more, err := svc.SweepExpired()
		must(t, err)
		got = append(got, n)
		if !more {
			break
		}
	}
	var want []int
	for total := 0; total < 300; total += 16 {
		want = append(want, min(16, 300-total))
	}
	if !slices.Equal(got, want) {
		t.Fatalf("batches %v, want %v", got, want)
	}
	if n, _ := svc.GetActiveListingsCount(); n != 0 {
		t.Fatalf("%d listings left", n)
	}
	a, err := svc.Audit()
	must(t, err)
	if len(a.Problems) > 0 {
		t.Fatalf("audit: %v", a.Problems)
	}

	market.SetSweepBudget(time.Second)
	svc = open()
	first, _, err := svc.SweepExpired()
	must(t, err)
	second, _, err := svc.SweepExpired()
	must(t, err)
	if first != 64 || second != 300-64 {
		t.Fatalf("with time to spare: batches %d, %d; want 64, then the rest", first, second)
	}
}

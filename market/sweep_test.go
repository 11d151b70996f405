package market_test

import (
	"slices"
	"testing"
	"time"

	"github.com/rynek/rynek/internal/pgtest"
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

// TestAuctionsWithoutBidsEndOnceAndOnTime: 500 auctions nobody bid on,
// their ends spread over one second, swept a tick every 50 ms of the
// market's clock in the least batches (16): after every tick each auction
// whose end has not come is still on sale, none has ended early (reads
// hide one whose end has passed until the sweep reaches it), none
// ends twice, every stack goes back to its seller's mailbox once, and the
// audit and the integrity check find the money and items all there (the
// checks of BenchmarkAuctionEndings's bids=none cases).
func TestAuctionsWithoutBidsEndOnceAndOnTime(t *testing.T) {
	m := seedEndings(t, pgtest.Store(t), 500, false)
	st, err := openSpecAs(m.spec, "test")
	must(t, err)
	first := m.end.Add(-time.Second)
	clock := market.NewManualClock(first.Add(-100 * time.Millisecond))
	m.svc = market.New(st, market.Config{Clock: clock, ListingCooldown: -1})
	t.Cleanup(func() { m.svc.Close() })
	must(t, m.svc.BindMainThread())
	must(t, m.svc.Enable())
	m.svc.Subscribe(func(e market.Event) {
		ae, ok := e.(market.AuctionEndedEvent)
		if !ok {
			return
		}
		if _, again := m.ended[ae.ListingID()]; again {
			t.Errorf("auction #%d ended twice", ae.ListingID())
		}
		if end := m.ends[ae.ListingID()]; end.After(clock.Now()) {
			t.Errorf("auction #%d ended at %s, before its end %s", ae.ListingID(), clock.Now().Format(time.StampMilli), end.Format(time.StampMilli))
		}
		m.ended[ae.ListingID()] = ae
	})
	m.before = mustAudit(t, m.svc)
	defer market.SetSweepBudget(time.Nanosecond)()
	ticks := 0
	for more := true; more || !clock.Now().After(m.end); ticks++ {
		if ticks > 1000 {
			t.Fatalf("%d of %d ended after %d ticks", len(m.ended), len(m.sellers), ticks)
		}
		clock.Advance(50 * time.Millisecond)
		var n int
		n, more, err = m.svc.SweepExpired()
		must(t, err)
		if n > 16 {
			t.Fatalf("tick %d ended %d auctions, more than the least batch of 16", ticks, n)
		}
		now := clock.Now()
		for id, end := range m.ends {
			_, err := m.svc.GetListing(id)
			if end.After(now) && err != nil {
				t.Fatalf("tick %d at %s: auction #%d, ending at %s, is gone: %v", ticks,
					now.Format(time.StampMilli), id, end.Format(time.StampMilli), err)
			}
			if _, ended := m.ended[id]; ended && err == nil {
				t.Fatalf("tick %d: auction #%d ended and is still on sale", ticks, id)
			}
		}
	}
	if ticks < 500/16 {
		t.Fatalf("500 endings in %d ticks: not spread in batches of 16", ticks)
	}
	m.verify(t)
}

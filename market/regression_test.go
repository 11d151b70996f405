package market_test

import (
	"math"
	"testing"
	"time"

	"github.com/rynek/rynek/market"
	"github.com/rynek/rynek/market/sqlite"
)

// Regressions found in review.

func TestQueryHugeOffsetAndLimit(t *testing.T) {
	w := newWorld(t)
	w.sell(w.alice, 0, 10)
	for _, q := range []market.Query{
		{Offset: 1, Limit: math.MaxInt},
		{Offset: math.MaxInt},
		{Offset: math.MaxInt, Sort: market.SortCheapest},
		{Offset: math.MaxInt - 5, Limit: 10, Sort: market.SortUnitPrice, Reverse: true},
	} {
		p, err := w.svc.Query(q)
		must(t, err)
		if len(p.Listings) > 1 || p.Total != 1 {
			t.Fatalf("%+v: %d listings of %d", q, len(p.Listings), p.Total)
		}
	}
}

// stuckPurchase starts a purchase whose commits number k and k+1 (counted
// from the Buy) fail, on a service over a counting store; it returns the
// service and the transaction id.
func stuckPurchase(t *testing.T, w *world, k int) (*market.Service, *countingStore, string) {
	t.Helper()
	l := w.sell(w.alice, 1, 200)
	must(t, w.svc.Close())
	st, err := sqlite.Open(w.path, sqlite.Options{})
	must(t, err)
	cs := &countingStore{Store: st, fail: map[int]bool{k: true, k + 1: true}}
	svc := market.New(cs, market.Config{Clock: w.clock, ListingCooldown: -1})
	svc.BindMainThread()
	must(t, svc.Enable())
	t.Cleanup(func() { svc.Close() })
	tx, err := svc.Buy(w.bob, l.ID)
	if err == nil {
		t.Fatal("purchase succeeded")
	}
	return svc, cs, tx.ID
}

func TestRecoveryDoesNotBuyExpiredListing(t *testing.T) {
	w := newWorld(t)
	svc, _, id := stuckPurchase(t, w, 2) // the reserve step and its compensation fail
	got, _ := svc.GetTransaction(id)
	if got.State != market.StateCreated {
		t.Fatalf("state %s", got.State)
	}
	w.clock.Advance(8 * 24 * time.Hour)
	must(t, svc.Recover())
	got, _ = svc.GetTransaction(id)
	if got.State != market.StateFailed || got.ErrorCode != "LISTING_RESERVED_FAILED:LISTING_EXPIRED" {
		t.Fatalf("recovered to %s %s", got.State, got.ErrorCode)
	}
}

func TestPriceHistoryStampsCompletionLikeAReload(t *testing.T) {
	w := newWorld(t)
	svc, _, id := stuckPurchase(t, w, 6) // COMPLETED and its compensation fail
	got, _ := svc.GetTransaction(id)
	if got.State != market.StateItemDelivered {
		t.Fatalf("state %s", got.State)
	}
	w.clock.Advance(25 * time.Hour)
	must(t, svc.Recover())
	live, err := svc.PriceHistory("DIAMOND_SWORD", 0, 0)
	must(t, err)
	must(t, svc.Close())
	w.reopen()
	reloaded, err := w.svc.PriceHistory("DIAMOND_SWORD", 0, 0)
	must(t, err)
	if live.Windows[0].Sales != 1 || reloaded.Windows[0].Sales != 1 {
		t.Fatalf("24h sales live %d, after reload %d; want 1 and 1", live.Windows[0].Sales, reloaded.Windows[0].Sales)
	}
}

func TestPlayerCompletedPageIsInCompletionOrder(t *testing.T) {
	w := newWorld(t)
	svc, cs, stuck := stuckPurchase(t, w, 6) // A: stuck at ITEM_DELIVERED
	cs.fail = nil
	alice, err := svc.GetPlayer(w.alice.ID) // w.svc is closed; svc is the service now
	must(t, err)
	d := *alice.Inventory[0]
	d.Amount = 1
	l, err := svc.SellItem(w.alice, d, 5)
	must(t, err)
	w.clock.Advance(time.Minute)
	b, err := svc.Buy(w.bob, l.ID) // B completes
	must(t, err)
	w.clock.Advance(time.Minute)
	must(t, svc.Recover()) // A completes now, after B
	global, _ := svc.Transactions(market.TxQuery{})
	bob, _ := svc.Transactions(market.TxQuery{Player: w.bob.ID})
	if len(global.Transactions) != 2 || len(bob.Transactions) != 2 {
		t.Fatalf("pages %d and %d", len(global.Transactions), len(bob.Transactions))
	}
	for i := range global.Transactions {
		if global.Transactions[i].ID != bob.Transactions[i].ID {
			t.Fatalf("global order %s,%s but Bob's %s,%s", global.Transactions[0].ID, global.Transactions[1].ID,
				bob.Transactions[0].ID, bob.Transactions[1].ID)
		}
	}
	if global.Transactions[0].ID != stuck || global.Transactions[1].ID != b.ID {
		t.Fatal("newest completion is not first")
	}
}

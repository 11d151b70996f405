package market_test

import (
	"testing"
	"time"

	"github.com/rynek/rynek/market"
)

// stuckPurchase starts a purchase that fails when it tries to enter state
// at and whose compensation cannot be saved either, on a service over a
// counting store: the purchase is left in the state before at. It returns
// the service and the transaction id.
func stuckPurchase(t *testing.T, w *world, at market.State) (*market.Service, *countingStore, string) {
	t.Helper()
	l := w.sell(w.alice, 1, 200)
	must(t, w.svc.Close())
	st := w.openStore()
	// Commit 1 holds the steps before at, commit 2 the compensation.
	cs := &countingStore{Store: st, fail: map[int]bool{2: true}}
	svc := market.New(cs, market.Config{Clock: w.clock, ListingCooldown: -1})
	svc.BindMainThread()
	must(t, svc.Enable())
	t.Cleanup(func() { svc.Close() })
	must(t, svc.ArmFailure(at))
	tx, err := svc.Buy(w.bob, l.ID)
	if err == nil {
		t.Fatal("purchase succeeded")
	}
	return svc, cs, tx.ID
}

func TestRecoveryDoesNotBuyExpiredListing(t *testing.T) {
	w := newWorld(t)
	svc, _, id := stuckPurchase(t, w, market.StateListingReserved) // left at CREATED
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

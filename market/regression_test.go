package market_test

import (
	"fmt"
	"math"
	"path/filepath"
	"testing"
	"time"

	"github.com/google/uuid"
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

func TestPriceHistoryStampsCompletionLikeAReload(t *testing.T) {
	w := newWorld(t)
	svc, _, id := stuckPurchase(t, w, market.StateCompleted) // left at ITEM_DELIVERED
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
	svc, cs, stuck := stuckPurchase(t, w, market.StateCompleted) // A: stuck at ITEM_DELIVERED
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

// Defects found by an independent run against the public API.

func TestListenersAndCallerGetTheirOwnCopies(t *testing.T) {
	w := newWorld(t)
	var seen []market.Listing
	for i := 0; i < 2; i++ {
		w.svc.Subscribe(func(e market.Event) {
			l := e.(market.ListingCreatedEvent).Listing()
			seen = append(seen, l.Clone())
			// A rude listener scribbles on everything it was handed.
			l.Item.Lore[0] = "changed by a listener"
			l.Item.Enchantments[0].Level = 99
			l.Categories[0] = market.CategoryOther
		})
	}
	got := w.sell(w.alice, 1, 50) // the sword: lore, enchantments, categories
	for i, l := range append(seen, got) {
		if l.Item.Lore[0] != "Wykuty w Krakowie" || l.Item.Enchantments[0].Level != 5 || l.Categories[0] == market.CategoryOther {
			t.Fatalf("copy %d was changed by another listener: %+v", i, l)
		}
	}
	tx, err := w.svc.Buy(w.bob, got.ID)
	must(t, err)
	w.svc.Subscribe(func(e market.Event) {
		if c, ok := e.(market.TransactionCompletedEvent); ok {
			c.Transaction().Timeline[0].State = market.StateFailed
		}
	})
	l2 := w.sell(w.alice, 0, 10)
	tx2, err := w.svc.Buy(w.bob, l2.ID)
	must(t, err)
	for _, x := range []market.Transaction{tx, tx2} {
		if x.Timeline[0].State != market.StateCreated {
			t.Fatalf("the caller's timeline was changed by a listener: %+v", x.Timeline)
		}
	}
}

func TestListingsBySellerNilIsEmpty(t *testing.T) {
	w := newWorld(t)
	w.sell(w.alice, 0, 10)
	ls, err := w.svc.GetListingsBySeller(uuid.Nil)
	must(t, err)
	if len(ls) != 0 {
		t.Fatalf("GetListingsBySeller(uuid.Nil) returned %d listings", len(ls))
	}
}

func TestExpiredUnsweptAnswersExpiredAndOwnerTakesItBack(t *testing.T) {
	w := newWorld(t, func(c *market.Config) { c.ListingTTL = time.Hour })
	l := w.sell(w.alice, 0, 10)
	other := w.sell(w.alice, 1, 10)
	w.clock.Advance(time.Hour)
	want := fmt.Sprintf("listing #%d has expired", l.ID)
	_, err := w.svc.GetListing(l.ID)
	errText(t, err, want)
	_, err = w.svc.Buy(w.bob, l.ID)
	errText(t, err, want)
	errText(t, w.svc.ForceExpire(l.ID, w.admin), want)
	errText(t, w.svc.RemoveListing(l.ID, w.bob), fmt.Sprintf("Bob does not own listing #%d and lacks market.admin", l.ID))
	w.events = nil
	must(t, w.svc.RemoveListing(l.ID, w.alice))
	must(t, w.svc.RemoveListing(other.ID, w.admin))
	if len(w.events) != 2 || w.events[0].(market.ListingRemovedEvent).Reason() != market.ReasonRemoved ||
		w.events[1].(market.ListingRemovedEvent).Reason() != market.ReasonAdminRemoved {
		t.Fatalf("events %v", w.events)
	}
	_, err = w.svc.GetListing(l.ID)
	errText(t, err, fmt.Sprintf("listing #%d does not exist", l.ID))
	if st := w.stack(w.alice, 0); st.ID != l.Item.ID {
		t.Fatalf("the item did not come back: %+v", st)
	}
	w.audit()
}

func TestWaitHistoryBeforeEnableIsNotReady(t *testing.T) {
	st, err := sqlite.Open(filepath.Join(t.TempDir(), "m.db"), sqlite.Options{})
	must(t, err)
	svc := market.New(st, market.Config{Name: "Rynek"})
	t.Cleanup(func() { svc.Close() })
	done := make(chan error, 1)
	go func() { done <- svc.WaitHistory() }()
	select {
	case err := <-done:
		errText(t, err, "Rynek API nie jest gotowe")
	case <-time.After(5 * time.Second):
		t.Fatal("WaitHistory before Enable blocked")
	}
}

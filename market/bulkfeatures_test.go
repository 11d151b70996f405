package market_test

import (
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/rynek/rynek/market"
)

// openLoaded starts a service on a store a bulk load filled, at t0.
func openLoaded(t *testing.T, st market.Store) *market.Service {
	t.Helper()
	svc := market.New(st, market.Config{Clock: market.NewManualClock(t0)})
	svc.BindMainThread()
	must(t, svc.Enable())
	must(t, svc.WaitHistory())
	t.Cleanup(func() { svc.Close() })
	return svc
}

func states(tx market.Transaction) []market.State {
	var out []market.State
	for _, s := range tx.Timeline {
		out = append(out, s.State)
	}
	return out
}

// TestBulkRefundedSale: a sale loaded as refunded is what Refund leaves
// — every state to COMPLETED, then ROLLED_BACK at the refund's time with
// its error code — and is out of the market's figures; what cannot be a
// refund is refused.
func TestBulkRefundedSale(t *testing.T) {
	// What a live refund leaves, to compare with.
	w := newWorld(t)
	l := w.sell(w.alice, 0, 10)
	bought, err := w.svc.Buy(w.bob, l.ID)
	must(t, err)
	w.clock.Advance(time.Hour)
	live, err := w.svc.Refund(bought.ID, w.admin, market.RefundWithItem)
	must(t, err)

	st := testStore(t)()
	b := newBulk(t, st)
	alice, bob := market.Player{ID: uuid.New(), Name: "Alice"}, market.Player{ID: uuid.New(), Name: "Bob"}
	must(t, b.AddPlayer(alice, 100_00))
	must(t, b.AddPlayer(bob, 100_00))
	sale := func(id uuid.UUID) market.HistoricSale {
		return market.HistoricSale{ID: id, Buyer: bob.ID, Seller: alice.ID, Item: market.ItemStack{Material: "DIAMOND", Amount: 4},
			Price: 40_00, Fee: 2_00, State: market.StateCompleted, At: t0.Add(-48 * time.Hour)}
	}
	kept := sale(uuid.New())
	_, err = b.AddTransaction(kept)
	must(t, err)
	withItem, moneyOnly := sale(uuid.New()), sale(uuid.New())
	for i, h := range []*market.HistoricSale{&withItem, &moneyOnly} {
		h.State, h.Refunded, h.ItemReturned = market.StateRolledBack, t0.Add(-time.Duration(i+1)*time.Hour), i == 0
		_, err = b.AddTransaction(*h)
		must(t, err)
	}
	for _, c := range []struct {
		name string
		edit func(*market.HistoricSale)
		want string
	}{
		{"completed", func(h *market.HistoricSale) { h.Refunded = t0 },
			"bulk: a COMPLETED transaction refunded at " + t0.String() + ": a refund leaves a sale ROLLED_BACK"},
		{"an error code of its own", func(h *market.HistoricSale) {
			h.State, h.Refunded, h.ErrorCode = market.StateRolledBack, t0, "REFUND:1"
		}, `bulk: a refunded sale with error code "REFUND:1": the refund writes its own`},
		{"before it completed", func(h *market.HistoricSale) { h.State, h.Refunded = market.StateRolledBack, h.At },
			"bulk: a sale of " + t0.Add(-48*time.Hour).String() + " refunded at " + t0.Add(-48*time.Hour).String() + ", before it completed"},
		{"an item returned without a refund", func(h *market.HistoricSale) { h.ItemReturned = true },
			"bulk: an item returned by a sale that was not refunded"},
	} {
		h := sale(uuid.New())
		c.edit(&h)
		_, err := b.AddTransaction(h)
		if err == nil || err.Error() != c.want {
			t.Errorf("%s: got %v, want %q", c.name, err, c.want)
		}
	}
	must(t, b.Finish())

	svc := openLoaded(t, st)
	for _, c := range []struct {
		h        market.HistoricSale
		returned bool
	}{{withItem, true}, {moneyOnly, false}} {
		tx, err := svc.GetTransaction(c.h.ID.String())
		must(t, err)
		code := "REFUND:" + strconv.FormatInt(c.h.Refunded.UnixMilli(), 10)
		if !c.returned {
			code += ":MONEY_ONLY"
		}
		at, returned, ok := tx.Refunded()
		if tx.State != market.StateRolledBack || tx.ErrorCode != code || !ok || !at.Equal(c.h.Refunded) || returned != c.returned {
			t.Errorf("loaded refund: %s %q, Refunded() = %v %v %v", tx.State, tx.ErrorCode, at, returned, ok)
		}
		if got, want := states(tx), states(live); !slices.Equal(got, want) {
			t.Errorf("loaded refund's states %v, a live refund's %v", got, want)
		}
		if last := tx.Timeline[len(tx.Timeline)-1]; !last.At.Equal(c.h.Refunded) {
			t.Errorf("ROLLED_BACK at %v, want the refund's time %v", last.At, c.h.Refunded)
		}
	}
	// Only the sale that stands counts.
	done, err := svc.GetCompletedTransactions()
	must(t, err)
	volume, err := svc.GetMarketVolume()
	must(t, err)
	profile, err := svc.Profile(alice.ID)
	must(t, err)
	if len(done) != 1 || done[0].ID != kept.ID.String() || volume != 40 || profile.Sales != 1 {
		t.Fatalf("completed %d, volume %v, Alice's sales %d: the refunds count", len(done), volume, profile.Sales)
	}
	// A refunded sale is refunded once.
	admin := market.Player{ID: uuid.New(), Name: "Admin", Permissions: []string{market.PermAdmin}}
	_, _, err = svc.Join(admin.ID, admin.Name, admin.Permissions)
	must(t, err)
	_, err = svc.Refund(withItem.ID.String(), admin, market.RefundMoneyOnly)
	errText(t, err, "transaction "+withItem.ID.String()+" was refunded already (REFUND:"+strconv.FormatInt(withItem.Refunded.UnixMilli(), 10)+")")
}

// TestBulkAlertHits: a player's loaded alerts come with what they found,
// which Notifications shows as a live alert's finds; a find the alert
// could not have made is refused, with the rest of its call.
func TestBulkAlertHits(t *testing.T) {
	st := testStore(t)()
	b := newBulk(t, st)
	zosia, steve := market.Player{ID: uuid.New(), Name: "Zosia"}, market.Player{ID: uuid.New(), Name: "Steve"}
	must(t, b.AddPlayer(zosia, 100_00))
	must(t, b.AddPlayer(steve, 100_00))
	sword := market.ItemStack{Material: "DIAMOND_SWORD", Amount: 1}
	id, err := b.AddListing(steve.ID, sword, 150_00, t0.Add(-2*time.Hour), t0.Add(5*24*time.Hour))
	must(t, err)
	alert := market.BulkAlert{ID: uuid.New(), Query: "diamond sword", MaxUnitPrice: 200_00, Created: t0.Add(-3 * time.Hour)}
	hit := market.BulkAlertHit{Alert: alert.ID, Listing: id, At: t0.Add(-2 * time.Hour), Material: "diamond_sword", Amount: 1, Price: 150_00}
	err = b.AddAlertHits(zosia.ID, []market.BulkAlertHit{hit})
	errText(t, err, "bulk: player "+zosia.ID.String()+" has no price alerts to have found anything")
	must(t, b.SetPlayerData(zosia.ID, []int{id}, []market.BulkAlert{alert}))
	for _, c := range []struct {
		name string
		edit func(*market.BulkAlertHit)
		want string
	}{
		{"another's alert", func(h *market.BulkAlertHit) { h.Alert = uuid.Nil },
			"bulk: alert 00000000-0000-0000-0000-000000000000 is not one of player " + zosia.ID.String() + "'s"},
		{"over the ceiling", func(h *market.BulkAlertHit) { h.Price = 200_01 },
			`bulk: alert "diamond sword" (at most 200.00 each) found 1 for 200.01`},
		{"before the alert", func(h *market.BulkAlertHit) { h.At = t0.Add(-4 * time.Hour) },
			`bulk: alert "diamond sword" made ` + t0.Add(-3*time.Hour).String() + " found a listing at " + t0.Add(-4*time.Hour).String() + ", before it"},
		{"no such material", func(h *market.BulkAlertHit) { h.Material = "DIAMOND_SPOON" },
			`bulk: alert hit on unknown material "DIAMOND_SPOON"`},
		{"an amount over a stack", func(h *market.BulkAlertHit) { h.Amount = 2 },
			"bulk: alert hit on 2 DIAMOND_SWORD: a stack holds 1 to 1"},
		{"no listing", func(h *market.BulkAlertHit) { h.Listing = 0 },
			"bulk: alert hit on listing id 0, out of range"},
	} {
		h := hit
		c.edit(&h)
		// After a good find: a refused call adds none of its finds.
		if err := b.AddAlertHits(zosia.ID, []market.BulkAlertHit{hit, h}); err == nil || err.Error() != c.want {
			t.Errorf("%s: got %v, want %q", c.name, err, c.want)
		}
	}
	older := hit
	older.At, older.Listing, older.Price = t0.Add(-150*time.Minute), id+1000, 99_00
	must(t, b.AddAlertHits(zosia.ID, []market.BulkAlertHit{hit, older}))
	must(t, b.Finish())

	svc := openLoaded(t, st)
	page, err := svc.Notifications(zosia.ID, 10)
	must(t, err)
	if len(page.Notifications) != 2 || page.Unread != 2 {
		t.Fatalf("notifications %+v", page)
	}
	for i, want := range []market.BulkAlertHit{hit, older} { // newest first
		n := page.Notifications[i]
		if n.Kind != market.NotifyAlert || n.Alert != alert.ID || n.Query != "diamond sword" || n.ListingID != want.Listing ||
			!n.At.Equal(want.At) || n.Item.Material != "DIAMOND_SWORD" || n.Item.Amount != 1 || n.Price != want.Price.Float() {
			t.Errorf("notification %d: %+v, want the find %+v", i, n, want)
		}
	}
	// The alert stays armed: a new matching listing fires it as any alert.
	alerts, err := svc.Alerts(zosia.ID)
	must(t, err)
	if len(alerts) != 1 || alerts[0].ID != alert.ID {
		t.Fatalf("alerts %+v", alerts)
	}
}

package market_test

import (
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/rynek/rynek/market"
)

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

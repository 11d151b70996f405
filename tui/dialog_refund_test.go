package tui

import (
	"strings"
	"testing"

	"github.com/rynek/rynek/market"
)

// TestRefundFromTheTransactionsPane: U on a completed purchase asks, says
// whether the stack goes back, and refunds; the purchase leaves the
// completed list. A purchase whose stack was sold on offers the money only.
func TestRefundFromTheTransactionsPane(t *testing.T) {
	e := newEnv(t, 160, 48)
	e.key("5")
	sel, ok := e.m.panes[4].(*transactionsPane).selected()
	if !ok || sel.State != market.StateCompleted {
		t.Fatalf("no completed purchase selected: %+v", sel)
	}
	before, err := e.svc.GetCompletedTransactions()
	must(t, err)
	buyer, err := e.svc.GetPlayer(sel.Buyer)
	must(t, err)
	held := holds(buyer, sel.Item)

	e.key("U")
	if _, ok := e.m.dialog.(*confirmDialog); !ok {
		t.Fatalf("U opened %T (status %q)", e.m.dialog, e.status())
	}
	e.mustContain("Refund as admin")
	if held {
		e.mustContain("still holds the stack: it goes back to")
	} else {
		e.mustContain("no longer holds the stack: y refunds the money only")
	}
	e.confirm()
	if e.m.dialog != nil || !strings.HasPrefix(e.status(), "refunded "+shortID(sel.ID)+": ") {
		t.Fatalf("dialog %T, status %q", e.m.dialog, e.status())
	}
	got, err := e.svc.GetTransaction(sel.ID)
	must(t, err)
	if _, returned, ok := got.Refunded(); !ok || returned != held {
		t.Fatalf("%s %q: refunded %v, item returned %v (held %v)", got.State, got.ErrorCode, ok, returned, held)
	}
	after, err := e.svc.GetCompletedTransactions()
	must(t, err)
	if len(after) != len(before)-1 {
		t.Fatalf("%d completed, were %d", len(after), len(before))
	}
	// The refund's time as the console writes times, not the code's unix
	// milliseconds.
	e.mustContain("→ ROLLED_BACK at 2026-11-01 12:00:00 UTC")
	if strings.Contains(e.view(), "REFUND:") {
		t.Fatalf("the status quotes the code's milliseconds:\n%s", e.view())
	}

	// The refunded purchase is not refundable again.
	e.key("a")
	e.key("a")
	e.key("a") // ROLLED_BACK
	p := e.m.panes[4].(*transactionsPane)
	for i := 0; i < 200; i++ {
		if t2, ok := p.selected(); ok && t2.ID == sel.ID {
			break
		}
		e.key("down")
	}
	e.key("U")
	if e.m.dialog != nil || !strings.Contains(e.status(), "only a COMPLETED purchase can be refunded; "+shortID(sel.ID)+" is ROLLED_BACK") {
		t.Fatalf("dialog %T, status %q", e.m.dialog, e.status())
	}
	// Its details say when it was refunded, beside the plugin's code.
	e.key("enter")
	e.mustContain("error " + got.ErrorCode)
	if held {
		e.mustContain(got.ErrorCode + " (refunded at 2026-11-01 12:00:00 UTC)")
	} else {
		e.mustContain(got.ErrorCode + " (refunded, money only, at 2026-11-01 12:00:00 UTC)")
	}
	e.key("esc")

	// A purchase made now: the buyer holds the stack, which goes back.
	listings, err := e.svc.Query(market.Query{Sort: market.SortCheapest, Limit: 50})
	must(t, err)
	var bought market.Transaction
	for _, l := range listings.Listings {
		if l.Seller != e.m.c.Actor.ID {
			bought, err = e.svc.Buy(e.m.c.Actor, l.ID)
			must(t, err)
			break
		}
	}
	e.key("a") // completed again, newest first
	e.key("home")
	if sel, _ := p.selected(); sel.ID != bought.ID {
		t.Fatalf("selected %s, want the new purchase %s", sel.ID, bought.ID)
	}
	e.key("U")
	e.mustContain("still holds the stack: it goes back to " + bought.SellerName)
	e.confirm()
	if !strings.Contains(e.status(), "the stack went back to "+bought.SellerName) {
		t.Fatalf("status %q", e.status())
	}
	seller, err := e.svc.GetPlayer(bought.Seller)
	must(t, err)
	if !holds(seller, bought.Item) {
		t.Fatal("the seller did not get the stack back")
	}
}

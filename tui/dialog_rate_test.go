package tui

import (
	"strings"
	"testing"
)

// TestRateFromTheTransactionsPane: * rates the selected purchase as its
// buyer, once; the detail view and the seller's pane show it.
func TestRateFromTheTransactionsPane(t *testing.T) {
	e := newEnv(t, 160, 48)
	e.key("5")
	p := e.m.panes[4].(*transactionsPane)
	sel, ok := p.selected()
	if !ok || sel.Rating != 0 {
		t.Fatalf("selected %+v", sel)
	}
	e.key("*")
	if _, ok := e.m.dialog.(*rateDialog); !ok {
		t.Fatalf("* opened %T (status %q)", e.m.dialog, e.status())
	}
	e.mustContain("Rate as the buyer " + sel.BuyerName)
	e.key("4")
	if e.m.dialog != nil || e.status() != sel.BuyerName+" rated "+shortID(sel.ID)+" ★★★★ (seller "+sel.SellerName+")" {
		t.Fatalf("dialog %T, status %q", e.m.dialog, e.status())
	}
	got, err := e.svc.GetTransaction(sel.ID)
	must(t, err)
	if got.Rating != 4 {
		t.Fatalf("rating %d", got.Rating)
	}
	e.key("enter")
	e.mustContain("4 of 5, by the buyer")
	e.key("esc")
	e.key("*")
	if e.m.dialog != nil || !strings.Contains(e.status(), "rated "+shortID(sel.ID)+" already") {
		t.Fatalf("a second rating: dialog %T, status %q", e.m.dialog, e.status())
	}
}

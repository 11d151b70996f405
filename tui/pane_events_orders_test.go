package tui

import (
	"strings"
	"testing"

	"github.com/rynek/rynek/market"
)

// TestEventsShowBuyOrders: an order's placing, its fill from an inventory
// and its closing are kinds of their own in the Events pane (not counted as
// purchases), each row says what happened, f reaches each kind, enter on a
// fill opens its purchase and on a closing the order, and y copies the
// purchase's id or the order's #id.
func TestEventsShowBuyOrders(t *testing.T) {
	e := envWithSeller(t, 200, 48, market.ItemStack{Material: "OAK_LOG", Amount: 64})
	seller := e.m.c.Actor
	buyer, err := e.svc.AddPlayer(market.NewPlayer{Name: "Kupiec", Balance: 500})
	must(t, err)
	o, err := e.svc.PlaceOrder(buyer, "OAK_LOG", 100, 2.5, 0)
	must(t, err)
	st, err := e.svc.GetPlayer(seller.ID)
	must(t, err)
	tx, err := e.svc.SellToOrder(seller, *st.Inventory[0], o.ID)
	must(t, err)
	must(t, e.svc.CancelOrder(o.ID, buyer))
	e.tick()
	e.key("6")
	p := e.m.panes[5].(*eventsPane)
	e.mustContain("completed 1 · orders placed 1 · fills 1 · closed 1")
	e.mustContain("BuyOrderPlacedEvent        order #" + itoa(o.ID) + " Oak Log ×100 by Kupiec at 2.50 each · escrow 250.00 · ends 11-08 12:00")
	e.mustContain("BuyOrderFilledEvent        order #" + itoa(o.ID) + " Oak Log ×64 at 2.50 each  Sprzedawca → Kupiec  160.00 · from the inventory · 64/100 filled · " + shortID(tx.ID))
	e.mustContain("BuyOrderClosedEvent        reason=cancelled order #" + itoa(o.ID) + " Oak Log 64 of 100 filled by Kupiec · refund 90.00")
	for _, f := range []struct {
		show string
		n    int
	}{
		{"ListingCreatedEvent", 0}, {"ListingRemovedEvent", 0}, {"ListingRemovedEvent reason=removed", 0},
		{"ListingRemovedEvent reason=admin-removed", 0}, {"ListingRemovedEvent reason=force-expire", 0},
		{"TransactionCompletedEvent", 1}, {"BidPlacedEvent", 0}, {"AuctionEndedEvent", 0},
		{"BuyOrderPlacedEvent", 1}, {"BuyOrderFilledEvent", 1}, {"BuyOrderClosedEvent", 1},
	} {
		e.key("f")
		if p.visible() != f.n || f.n > 0 && p.at(0).EventName() != f.show {
			t.Fatalf("filter %s: %d visible", f.show, p.visible())
		}
		e.mustContain("showing " + f.show)
	}
	e.key("f") // all kinds again, the cursor on the newest: the closing
	e.key("y")
	if !strings.HasPrefix(e.status(), "copied #"+itoa(o.ID)+" ") {
		t.Fatalf("y on an order's closing: %q", e.status())
	}
	e.key("enter")
	e.mustContain("Buy order #" + itoa(o.ID))
	e.mustContain("cancelled  at 2026-11-01 12:00:00")
	e.key("esc")
	e.key("down") // newest first: the fill is below the closing
	e.key("y")
	if !strings.HasPrefix(e.status(), "copied "+tx.ID+" ") {
		t.Fatalf("y on a fill: %q", e.status())
	}
	e.key("enter")
	if e.m.dialog == nil || !strings.Contains(e.view(), shortID(tx.ID)) {
		t.Fatalf("enter on a fill: dialog %T, status %q", e.m.dialog, e.status())
	}
}

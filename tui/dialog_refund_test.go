package tui

import (
	"fmt"
	"slices"
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
	e.mustContain("→ ROLLED_BACK REFUND:")

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

// TestRelistFromTheConsole: M lists the acting player's relistable mailbox
// entries; enter puts the chosen one back at its price. An empty choice is
// said, not shown as an empty dialog.
func TestRelistFromTheConsole(t *testing.T) {
	e := newEnv(t, 120, 40)
	actor := e.m.c.Actor
	e.key("M")
	if e.m.dialog != nil || !strings.HasPrefix(e.status(), "nothing in "+actor.Name+"'s mailbox was listed before") {
		// The seeded actor may have expired listings already; then the
		// picker is right to open.
		if _, ok := e.m.dialog.(*relistPicker); !ok {
			t.Fatalf("M: dialog %T, status %q", e.m.dialog, e.status())
		}
		e.key("esc")
	}
	l, err := e.svc.SellItem(actor, firstStack(t, e, actor), 77.7)
	must(t, err)
	e.key("}") // a day
	for range 7 {
		e.key("}")
	}
	e.key("M")
	d, ok := e.m.dialog.(*relistPicker)
	if !ok {
		t.Fatalf("M after an expiry: dialog %T, status %q", e.m.dialog, e.status())
	}
	for range d.entries {
		if d.entries[d.cursor].Item.ID == l.Item.ID {
			break
		}
		e.key("down")
	}
	e.mustContain("Relist from the mailbox")
	e.mustContain("77.70")
	e.key("enter")
	if e.m.dialog != nil || !strings.HasPrefix(e.status(), "relisted #") || !strings.Contains(e.status(), "for 77.70") {
		t.Fatalf("dialog %T, status %q", e.m.dialog, e.status())
	}
}

// firstStack is p's first inventory stack.
func firstStack(t *testing.T, e *testEnv, p market.Player) market.ItemStack {
	t.Helper()
	st, err := e.svc.GetPlayer(p.ID)
	must(t, err)
	for _, it := range st.Inventory {
		if it != nil {
			return *it
		}
	}
	t.Fatalf("%s has an empty inventory", p.Name)
	return market.ItemStack{}
}

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

// TestFavoritesAlertsAndNotificationsInTheConsole: h favours the selected
// listing, P adds a price alert, and the Seller pane's fourth view shows
// them with the notifications, and reads those.
func TestFavoritesAlertsAndNotificationsInTheConsole(t *testing.T) {
	e := newEnv(t, 160, 48)
	actor := e.m.c.Actor
	// The seeded player has favourites and alerts of their own already.
	favs, err := e.svc.Favorites(actor.ID)
	must(t, err)
	alerts, err := e.svc.Alerts(actor.ID)
	must(t, err)
	var other market.Listing
	page, err := e.svc.Query(market.Query{Limit: 50})
	must(t, err)
	for _, l := range page.Listings {
		if l.Seller != actor.ID && !slices.ContainsFunc(favs, func(f market.Listing) bool { return f.ID == l.ID }) {
			other = l
			break
		}
	}
	p := e.m.panes[0].(*listingsPane)
	for i := 0; i < 50; i++ {
		if l, _ := p.Selected(); l.ID == other.ID {
			break
		}
		e.key("down")
	}
	e.key("h")
	if want := fmt.Sprintf("♥ #%d is one of %s's favourites (Seller pane, v)", other.ID, actor.Name); e.status() != want {
		t.Fatalf("status %q, want %q", e.status(), want)
	}

	e.key("P")
	d, ok := e.m.dialog.(*alertsDialog)
	if !ok {
		t.Fatalf("P opened %T", e.m.dialog)
	}
	e.typeText("diamond")
	e.key("enter")
	if e.m.dialog != d || !strings.HasPrefix(d.err, "type the words to look for") {
		t.Fatalf("an alert without a price: dialog %T, error %q", e.m.dialog, d.err)
	}
	e.typeText(" 0.001")
	e.key("enter")
	if e.m.dialog != d || d.err != "maximum unit price 0.001 has more than 2 decimals [INVALID_PRICE]" {
		t.Fatalf("a bad price: error %q", d.err)
	}
	for range len(" 0.001") {
		e.key("backspace")
	}
	e.typeText(" 999999")
	e.key("enter")
	if e.m.dialog != nil || !strings.Contains(e.status(), `is told of new listings of "diamond"`) {
		t.Fatalf("dialog %T, status %q", e.m.dialog, e.status())
	}
	e.key("3")
	e.key("v")
	e.key("v")
	e.key("v")
	e.mustContain(fmt.Sprintf("Favourites (%d)", len(favs)+1))
	e.mustContain(fmt.Sprintf("#%-7d", other.ID))
	e.mustContain(fmt.Sprintf("Price alerts (%d) · P manages them", len(alerts)+1))
	e.mustContain(`"diamond" at most 999`)
	e.mustContain("Notifications (")
	np, err := e.svc.Notifications(actor.ID, 0)
	must(t, err)
	if np.Unread != 0 {
		t.Fatalf("opening the view left %d unread", np.Unread)
	}
}

package tui

import (
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/rynek/rynek/market"
)

// actAs picks the acting player with the picker, as a user does: p, the
// name, enter.
// auctionOfEight is a console whose acting player, Sprzedawca, auctions
// eight diamonds from 10.00 for an hour, with buyNow as the buy-now price
// (0: none).
func auctionOfEight(t *testing.T, buyNow float64) (*testEnv, market.Listing) {
	t.Helper()
	e := envWithSeller(t, 160, 48, market.ItemStack{Material: "DIAMOND", Amount: 8})
	st, err := e.svc.GetPlayer(e.m.c.Actor.ID)
	must(t, err)
	a, err := e.svc.StartAuction(e.m.c.Actor, *st.Inventory[0], 10, buyNow, time.Hour)
	must(t, err)
	return e, a
}

func (e *testEnv) actAs(name string) {
	e.t.Helper()
	e.key("p")
	e.typeText(name)
	e.key("enter")
	if e.m.c.Actor.Name != name {
		e.t.Fatalf("acting as %q after picking %q (status %q)", e.m.c.Actor.Name, name, e.status())
	}
}

// selectedRow is the screen's selected row (▶) with its runs of spaces
// made one, or "" when there is none.
func (e *testEnv) selectedRow() string {
	for _, line := range strings.Split(e.view(), "\n") {
		if strings.HasPrefix(line, "▶") {
			return strings.Join(strings.Fields(line), " ")
		}
	}
	return ""
}

// mustSelect checks the selected row, its columns one space apart.
func (e *testEnv) mustSelect(want string) {
	e.t.Helper()
	if got := e.selectedRow(); got != want {
		e.t.Fatalf("selected row\n got %q\nwant %q\n%s", got, want, e.view())
	}
}

// TestSellerBidsShowOutbid: the Seller pane's bids view lists the acting
// player's auction as "leading" after their bid and as "outbid" once
// another player outbids them, with the current bid, their last bid, the
// minimum and the time left ticking, and the view's name counting the
// outbid; enter opens the bid dialog on it and the new bid leads again. The notifications view shows the outbid notice.
func TestSellerBidsShowOutbid(t *testing.T) {
	e, a := auctionOfEight(t, 0)
	for _, name := range []string{"Licytant", "Rywal"} {
		_, err := e.svc.AddPlayer(market.NewPlayer{Name: name, Balance: 500})
		must(t, err)
	}
	id := "#" + itoa(a.ID)
	header := "         id item" + strings.Repeat(" ", 79) + "state             current       last bid        minimum      ends"

	e.actAs("Licytant")
	e.key("3")
	for range 4 {
		e.key("v")
	}
	e.mustContain(header)
	e.mustContain("No bids on live auctions: b on an auction (⚑) in Listings or Search bids as Licytant.")

	e.key("1")
	e.key("b")
	e.key("enter") // the minimum, 10.00
	e.key("3")
	e.mustSelect("▶ " + id + " Diamond ×8 · 1 bid leading 10.00 10.00 11.00 1h 0m")

	e.actAs("Rywal")
	e.key("1")
	e.key("b")
	e.key("enter") // the minimum, 11.00
	e.actAs("Licytant")
	e.key("3")
	e.clock.Advance(90 * time.Second)
	e.wall.advance(90 * time.Second)
	e.tick()
	e.mustSelect("▶ " + id + " Diamond ×8 · 2 bids outbid 11.00 10.00 12.00 58m 30s")
	e.mustContain("v: listings inventory & mailbox sales & purchases favourites, alerts & notifications bids 1, 1 outbid ")
	e.send(tea.WindowSizeMsg{Width: 80, Height: 24}) // the short names, the row whole but the item
	checkScreen(t, e.m.View().Content, 80, 24)
	e.mustContain("v: listings inventory history notifications bids 1, 1 outbid ")
	e.mustSelect("▶ " + id + " Diamond ×8 · … outbid 11.00 10.00 12.00 58m 30s")
	e.send(tea.WindowSizeMsg{Width: 160, Height: 48})

	e.key("?")
	e.key("/")
	e.typeText("selected auction")
	e.mustContain(" enter        bid on the selected auction")
	e.key("esc")
	e.key("esc")

	e.key("enter")
	if _, ok := e.m.dialog.(*bidDialog); !ok {
		t.Fatalf("enter on the bids view opened %T (status %q)", e.m.dialog, e.status())
	}
	e.mustContain("Bid as Licytant")
	e.mustContain("Rywal leads with 11.00 after 2 bids")
	e.key("enter") // the minimum, 12.00
	if e.m.dialog != nil || !strings.HasPrefix(e.status(), "bid 12.00 on "+id+" as Licytant: leads after 3 bids") {
		t.Fatalf("dialog %T, status %q", e.m.dialog, e.status())
	}
	e.mustSelect("▶ " + id + " Diamond ×8 · 3 bids leading 12.00 12.00 13.00 58m 30s")
	e.mustContain("favourites, alerts & notifications bids 1 ")

	e.key("v") // back to the listings
	for range 3 {
		e.key("v")
	}
	e.mustContain("outbid on " + id + " Diamond ×8: the bid is 11.00 now, your 10.00 is back in the balance")
}

// TestBoughtNowLeavesTheBids: another player buying the acting player's
// auction now takes it off their bids and tells them so among the
// notifications.
func TestBoughtNowLeavesTheBids(t *testing.T) {
	e, a := auctionOfEight(t, 50)
	for _, name := range []string{"Licytant", "Rywal"} {
		_, err := e.svc.AddPlayer(market.NewPlayer{Name: name, Balance: 500})
		must(t, err)
	}
	id := "#" + itoa(a.ID)
	e.actAs("Licytant")
	e.key("1")
	e.key("b")
	e.key("enter") // 10.00
	e.key("3")
	for range 4 {
		e.key("v")
	}
	e.mustSelect("▶ " + id + " Diamond ×8 · 1 bid leading 10.00 10.00 11.00 1h 0m")

	e.actAs("Rywal")
	e.key("1")
	e.key("b")
	e.send(tea.KeyPressMsg{Code: 'b', Mod: tea.ModCtrl}) // buy it now
	e.confirm()
	if !strings.HasPrefix(e.status(), "bought "+id+" now") {
		t.Fatalf("status %q", e.status())
	}
	e.actAs("Licytant")
	e.key("3")
	e.mustContain("No bids on live auctions: b on an auction (⚑) in Listings or Search bids as Licytant.")
	e.key("v")
	for range 3 {
		e.key("v")
	}
	e.mustContain("outbid on " + id + " Diamond ×8: bought now for 50.00, your 10.00 is back in the balance")
}

// TestTakedownTellsTheLeader: an admin taking down an auction the acting
// player leads gives their bid back and tells them so among the
// notifications.
func TestTakedownTellsTheLeader(t *testing.T) {
	e, a := auctionOfEight(t, 50)
	_, err := e.svc.AddPlayer(market.NewPlayer{Name: "Licytant", Balance: 500})
	must(t, err)
	e.m.c.Admin, err = e.svc.AddPlayer(market.NewPlayer{Name: "Moderator", Permissions: []string{market.PermAdmin}})
	must(t, err)
	id := "#" + itoa(a.ID)
	e.actAs("Licytant")
	e.key("1")
	e.key("b")
	e.key("enter") // 10.00
	e.key("X")     // remove as the console's admin, Moderator
	e.confirm()
	if _, err := e.svc.GetListing(a.ID); err == nil {
		t.Fatalf("the auction is still on sale after the admin's X (status %q)", e.status())
	}
	e.actAs("Licytant")
	e.key("3")
	for range 3 { // to the notifications
		e.key("v")
	}
	e.mustContain("outbid on " + id + " Diamond ×8: taken down by an admin, your 10.00 is back in the balance")
}

package tui

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/rynek/rynek/market"
)

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

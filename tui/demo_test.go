package tui

import (
	"regexp"
	"testing"

	"github.com/rynek/rynek/market"
	"github.com/rynek/rynek/seed"
)

// TestDemoShowsEveryFeatureAtOnce: on the default demo (--seed 3000
// --seed-rand 1) the player the console acts as at start has something in
// every feature the Seller pane shows: their sales' rating, an expired item
// in the mailbox, a refunded purchase in their history, favourites, price
// alerts and notifications of each kind.
func TestDemoShowsEveryFeatureAtOnce(t *testing.T) {
	e := envOn(t, seededStore(t, seed.Options{Listings: 3000, Rand: 1}), 160, 48)
	actor := e.m.c.Actor
	e.key("3")
	e.mustContain(playerName(actor))
	if !regexp.MustCompile(`rated \d\.\d★ by \d+`).MatchString(e.view()) {
		t.Fatalf("no rating of %s's sales:\n%s", actor.Name, e.view())
	}
	e.key("v")
	e.mustContain("Mailbox (")
	e.mustContain("expired (was ")
	e.key("v")
	// The refund the player took part in, among their transactions.
	page, err := e.svc.Transactions(market.TxQuery{Player: actor.ID, AllStates: true, Limit: 1000})
	must(t, err)
	refunded := ""
	for _, tx := range page.Transactions {
		if _, _, ok := tx.Refunded(); ok {
			refunded = shortID(tx.ID)
		}
	}
	if refunded == "" {
		t.Fatalf("%s took part in no refund", actor.Name)
	}
	e.mustContain(refunded)
	e.mustContain("ROLLED_BACK")
	e.key("v")
	for _, none := range []string{"Favourites (0)", "Price alerts (0)", "Notifications (0 unread"} {
		if v := e.view(); regexp.MustCompile(regexp.QuoteMeta(none)).MatchString(v) {
			t.Fatalf("the fourth view shows %q:\n%s", none, v)
		}
	}
	for _, some := range []string{"Favourites (", "Price alerts (", "Notifications (", `alert "`, "mailbox: ", "sold "} {
		e.mustContain(some)
	}
	t.Logf("acting as %s", actor.Name)
}

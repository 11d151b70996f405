package tui

import (
	"path/filepath"
	"reflect"
	"regexp"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/rynek/rynek/internal/traffic"
	"github.com/rynek/rynek/market"
	"github.com/rynek/rynek/market/sqlite"
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

// TestBotsStopNamesTheRefusals: stopping the bots says what was refused,
// by code, and the last refusal's text.
func TestBotsStopNamesTheRefusals(t *testing.T) {
	e := newEnv(t, 160, 48)
	e.key("R")
	if !e.m.bots.on {
		t.Fatalf("R: %q", e.status())
	}
	last := &market.Error{Code: market.CodeCooldown, Msg: "Alex must wait 3s before listing again"}
	e.m.bots.total = traffic.Result{OK: 5, Refused: 3, LastErr: last,
		Refusals: map[market.Code]int{market.CodeCooldown: 2, market.CodePurchaseCap: 1}}
	e.key("R")
	want := "traffic bots stopped after 5 ok, 3 refused (R starts them again); refused COOLDOWN 2, PURCHASE_CAP 1, the last: Alex must wait 3s before listing again"
	if e.status() != want {
		t.Fatalf("status %q\nwant   %q", e.status(), want)
	}
}

// TestStartActsAsASellerWithATier: a seller over the market's limit with a
// market.limit.<n> tier of their own can still sell, so the console may act
// as them at start (it skipped every seller over the market's limit).
func TestStartActsAsASellerWithATier(t *testing.T) {
	st, err := sqlite.Open(filepath.Join(t.TempDir(), "m.db"), sqlite.Options{})
	must(t, err)
	b, err := market.NewBulk(st)
	must(t, err)
	aaron := market.Player{ID: uuid.New(), Name: "Aaron", Permissions: []string{market.PermListingLimit + "50"}}
	bob := market.Player{ID: uuid.New(), Name: "Bob"}
	for _, p := range []market.Player{aaron, bob} {
		must(t, b.AddPlayer(p, 100_00))
		must(t, b.SetSlot(p.ID, 0, market.ItemStack{Material: "DIAMOND", Amount: 64}))
	}
	for range 25 {
		_, err := b.AddListing(aaron.ID, market.ItemStack{Material: "OAK_LOG", Amount: 1}, 100, fixedNow.Add(-time.Hour), fixedNow.Add(6*24*time.Hour))
		must(t, err)
	}
	must(t, b.Finish())
	e := envOn(t, st, 120, 40)
	if e.m.c.Actor.Name != "Aaron" {
		t.Fatalf("acting as %q, not Aaron (25 listings of the 50 his tier allows)", e.m.c.Actor.Name)
	}
}

// TestBotsLeaveTheActingPlayerAlone: the bots act as every player but the
// one the console acts as, so a demo's own sell is never refused with a
// cooldown the bots started, nor its inventory changed under it (others
// may buy the player's listings, as in any market).
func TestBotsLeaveTheActingPlayerAlone(t *testing.T) {
	e := newEnv(t, 120, 40)
	must(t, e.svc.SetRules(market.Config{})) // the 5 s cooldown of a real market
	actor := e.m.c.Actor
	before, err := e.svc.GetPlayer(actor.ID)
	must(t, err)
	bought := func() int {
		page, err := e.svc.Transactions(market.TxQuery{Player: actor.ID, AllStates: true, Limit: 10_000})
		must(t, err)
		n := 0
		for _, tx := range page.Transactions {
			if tx.Buyer == actor.ID {
				n++
			}
		}
		return n
	}
	purchases := bought()
	e.key("R")
	for range 4 {
		e.key("+") // 320 a second
	}
	for range 30 {
		e.tick()
	}
	if e.m.bots.total.OK == 0 {
		t.Fatalf("the bots did nothing: %s", e.m.bots.total.ActionText())
	}
	after, err := e.svc.GetPlayer(actor.ID)
	must(t, err)
	room, err := e.svc.ListingRoom(actor.ID)
	must(t, err)
	if !reflect.DeepEqual(after.Inventory, before.Inventory) || !reflect.DeepEqual(after.Mailbox, before.Mailbox) ||
		bought() != purchases || !room.NextListing.IsZero() {
		t.Fatalf("the bots acted as %s: %d purchases, then %d; next listing at %v", actor.Name, purchases, bought(), room.NextListing)
	}
}

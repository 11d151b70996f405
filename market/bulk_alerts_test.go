package market_test

import (
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/rynek/rynek/market"
)

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

package seed_test

import (
	"testing"

	"github.com/rynek/rynek/market"
	"github.com/rynek/rynek/seed"
)

// TestSeededPlayersShowEveryFeature: whichever player a demo acts as, the
// first screen has something in every feature: favourites on the market,
// price alerts of which one has fired, notifications of each kind (a sale,
// an alert's find, an expired item), sales rated by their buyers, and a
// refunded purchase they took part in; and the seeded auctions' outbid
// bidders have their notices.
func TestSeededPlayersShowEveryFeature(t *testing.T) {
	opts := seed.Options{Rand: 1, Now: now}
	svc, res := load(t, opts)
	if err := svc.WaitHistory(); err != nil {
		t.Fatal(err)
	}
	t.Logf("%+v", res)
	players, err := svc.Players()
	must(t, err)
	page, err := svc.Transactions(market.TxQuery{AllStates: true, Limit: 10_000_000})
	must(t, err)
	type part struct{ rated, refunded bool }
	parts := map[string]*part{}
	for _, p := range players {
		parts[p.ID.String()] = &part{}
	}
	refunds := 0
	for _, tx := range page.Transactions {
		if tx.Rating > 0 {
			parts[tx.Seller.String()].rated = true
		}
		if _, _, ok := tx.Refunded(); ok {
			refunds++
			parts[tx.Buyer.String()].refunded = true
			parts[tx.Seller.String()].refunded = true
		}
	}
	if refunds == 0 || refunds != res.Refunded {
		t.Fatalf("%d refunded purchases, the result says %d", refunds, res.Refunded)
	}
	outbid := 0 // players whom a seeded auction's next bid beat
	for _, p := range players {
		favs, err := svc.Favorites(p.ID)
		must(t, err)
		alerts, err := svc.Alerts(p.ID)
		must(t, err)
		notes, err := svc.Notifications(p.ID, market.MaxNotificationsPage)
		must(t, err)
		kinds := map[market.NotificationKind]int{}
		for _, n := range notes.Notifications {
			kinds[n.Kind]++
		}
		switch {
		case len(favs) == 0:
			t.Errorf("%s has no favourite on the market", p.Name)
		case len(alerts) == 0:
			t.Errorf("%s has no price alert", p.Name)
		case kinds[market.NotifySale] == 0 || kinds[market.NotifyAlert] == 0 || kinds[market.NotifyMail] == 0:
			t.Errorf("%s's notifications: %v", p.Name, kinds)
		case notes.Unread == 0:
			t.Errorf("%s has read everything already", p.Name)
		case !parts[p.ID.String()].rated:
			t.Errorf("%s has no sale rated by its buyer", p.Name)
		case !parts[p.ID.String()].refunded:
			t.Errorf("%s took part in no refunded purchase", p.Name)
		}
		for _, n := range notes.Notifications {
			if n.Kind == market.NotifyMail && n.Reason != market.MailExpired {
				t.Errorf("%s's mail %+v", p.Name, n)
			}
		}
		if kinds[market.NotifyOutbid] > 0 {
			outbid++
		}
	}
	if outbid == 0 {
		t.Error("no player was outbid on a seeded auction, or none was told")
	}
}

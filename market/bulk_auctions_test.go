package market_test

import (
	"reflect"
	"testing"
	"time"

	"github.com/rynek/rynek/market"
)

// TestBulkAuctionNotifiesTheOutbid: a loaded auction's bids leave each
// bidder whom the next bid beat the outbid notice a live bid would have
// (a leader raising their own bid none), kept when the player's
// favourites and alerts are set after the auction; their bids read as the
// live market's do.
func TestBulkAuctionNotifiesTheOutbid(t *testing.T) {
	st := testStore(t)()
	k := newBulk(t, st)
	seller, ala, ola := market.Player{ID: uid(1), Name: "Sprzedawca"}, market.Player{ID: uid(2), Name: "Ala"}, market.Player{ID: uid(3), Name: "Ola"}
	for _, p := range []market.Player{seller, ala, ola} {
		must(t, k.AddPlayer(p, 100_00))
	}
	at := func(m int) time.Time { return t0.Add(time.Duration(m) * time.Minute) }
	id, err := k.AddAuction(market.BulkAuction{Seller: seller.ID, Item: market.ItemStack{Material: "DIAMOND", Amount: 3},
		StartingBid: 10_00, Created: at(-60), Ends: at(60), Bids: []market.BulkBid{
			{Bidder: ala.ID, Amount: 10_00, At: at(-50)}, {Bidder: ola.ID, Amount: 12_00, At: at(-40)},
			{Bidder: ala.ID, Amount: 15_00, At: at(-30)}, {Bidder: ala.ID, Amount: 16_00, At: at(-20)}}})
	must(t, err)
	must(t, k.SetPlayerData(ala.ID, nil, []market.BulkAlert{{Query: "diament", MaxUnitPrice: 5_00, Created: at(-90)}}))
	must(t, k.Finish())
	svc := openLoaded(t, st)
	diamond := market.ItemStack{Material: "DIAMOND", Amount: 3}
	for _, c := range []struct {
		who  market.Player
		want []market.Notification
	}{
		{ala, []market.Notification{{Kind: market.NotifyOutbid, At: at(-40), ListingID: id, Item: diamond, Price: 12, Refunded: 10}}},
		{ola, []market.Notification{{Kind: market.NotifyOutbid, At: at(-30), ListingID: id, Item: diamond, Price: 15, Refunded: 12}}},
		{seller, nil},
	} {
		page, err := svc.Notifications(c.who.ID, 0)
		must(t, err)
		var got []market.Notification
		for _, n := range page.Notifications {
			if n.Kind == market.NotifyOutbid {
				got = append(got, n)
			}
		}
		if !reflect.DeepEqual(got, c.want) {
			t.Errorf("%s's outbid notices:\n got %+v\nwant %+v", c.who.Name, got, c.want)
		}
	}
	if alerts, _ := svc.Alerts(ala.ID); len(alerts) != 1 {
		t.Errorf("Ala has %d alerts, want the one loaded", len(alerts))
	}
	for _, c := range []struct {
		who     market.Player
		leading bool
		last    float64
	}{{ala, true, 16}, {ola, false, 12}} {
		bids, err := svc.PlayerBids(c.who.ID)
		must(t, err)
		if len(bids) != 1 || bids[0].Listing.ID != id || bids[0].Leading != c.leading || bids[0].LastBid != c.last {
			t.Errorf("%s's bids: %+v, want #%d leading %v, last bid %.2f", c.who.Name, bids, id, c.leading, c.last)
		}
	}
}

package market_test

import (
	"reflect"
	"testing"
	"time"

	"github.com/rynek/rynek/internal/pgtest"
	"github.com/rynek/rynek/market"
)

// TestNetworkOutbidNotice: a bid on server b beats a leader who bid on
// server a; a reads the leader's row again and shows the outbid notice b
// stored, and their bids; a's next write of the leader's data succeeds.
// Then the leader's data changes on a while b has not read it yet: b's bid
// meets the conflict on that row, catches up and goes through on the
// second try, keeping both the change and the notice.
func TestNetworkOutbidNotice(t *testing.T) {
	dsn := pgtest.Database(t)
	np := seedNetwork(t, dsn, 1, 2, 0)
	a, b := networkOpen(t, dsn, "a"), networkOpen(t, dsn, "b")
	seller, first, second := np.sellers[0], np.buyers[0], np.buyers[1]
	stack, _, err := a.GiveItem(seller.ID, market.ItemStack{Material: "NETHERITE_SWORD", Amount: 1})
	must(t, err)
	auc, err := a.StartAuction(seller, stack, 100, 0, time.Hour)
	must(t, err)
	leads := func(svc *market.Service, p market.Player, bid float64) func() bool {
		return func() bool {
			l, err := svc.GetListing(auc.ID)
			return err == nil && l.Auction.Leader == p.ID && l.Auction.CurrentBid == bid
		}
	}
	_, err = a.Bid(first, auc.ID, 100)
	must(t, err)
	networkWait(t, b, "b sees the first bid", leads(b, first, 100))
	_, err = b.Bid(second, auc.ID, 150)
	must(t, err)
	networkWait(t, a, "a sees the second bid", leads(a, second, 150))
	notice := func(svc *market.Service, p market.Player) []market.Notification {
		t.Helper()
		page, err := svc.Notifications(p.ID, 0)
		must(t, err)
		var out []market.Notification
		for _, n := range page.Notifications {
			if n.Kind == market.NotifyOutbid {
				out = append(out, n)
			}
		}
		return out
	}
	sword := market.ItemStack{Material: "NETHERITE_SWORD", Amount: 1}
	want := []market.Notification{{Kind: market.NotifyOutbid, At: t0, ListingID: auc.ID, Item: sword, Price: 150, Refunded: 100}}
	if got := notice(a, first); !reflect.DeepEqual(got, want) {
		t.Fatalf("a: the first bidder's outbid notices:\n got %+v\nwant %+v", got, want)
	}
	bids, err := a.PlayerBids(first.ID)
	must(t, err)
	if len(bids) != 1 || bids[0].Leading || bids[0].LastBid != 100 || bids[0].Listing.Auction.CurrentBid != 150 {
		t.Fatalf("a: the first bidder's bids: %+v", bids)
	}
	_, err = a.AddAlert(first.ID, "miecz", 500) // a holds the row b wrote: no conflict
	must(t, err)

	// The first bidder leads again from a; b reads that, but not the
	// alert that a adds next: b's bid expects the data it has, meets the
	// conflict, catches up and is placed on the second try.
	_, err = a.Bid(first, auc.ID, 200)
	must(t, err)
	networkWait(t, b, "b sees the third bid", leads(b, first, 200))
	_, err = a.AddAlert(first.ID, "netherite", 600)
	must(t, err)
	_, err = b.Bid(second, auc.ID, 250)
	must(t, err)
	networkWait(t, a, "a sees the fourth bid", leads(a, second, 250))
	want = append([]market.Notification{{Kind: market.NotifyOutbid, At: t0, ListingID: auc.ID, Item: sword, Price: 250, Refunded: 200}}, want...)
	for _, svc := range []*market.Service{a, b} {
		if got := notice(svc, first); !reflect.DeepEqual(got, want) {
			t.Errorf("the first bidder's outbid notices:\n got %+v\nwant %+v", got, want)
		}
		alerts, err := svc.Alerts(first.ID)
		must(t, err)
		if len(alerts) != 2 {
			t.Errorf("the first bidder has %d alerts, want both", len(alerts))
		}
		if got := notice(svc, second); len(got) != 1 || got[0].Price != 200 || got[0].Refunded != 150 {
			t.Errorf("the second bidder's outbid notices: %+v", got)
		}
		if au := mustAudit(t, svc); au.Money != np.money {
			t.Errorf("the market holds %d, want %d", au.Money, np.money)
		}
	}
}

// TestNetworkBuyNowNotifiesTheLeader: a buy-now on server b takes the
// auction from a leader whose data a changed a moment before, which b has
// not read: the reservation meets the conflict on the leader's row, b
// catches up and buys on the second try; the leader has their bid back
// and a bought-now notice, with the change a made.
func TestNetworkBuyNowNotifiesTheLeader(t *testing.T) {
	dsn := pgtest.Database(t)
	np := seedNetwork(t, dsn, 1, 2, 0)
	a, b := networkOpen(t, dsn, "a"), networkOpen(t, dsn, "b")
	seller, leader, buyer := np.sellers[0], np.buyers[0], np.buyers[1]
	stack, _, err := a.GiveItem(seller.ID, market.ItemStack{Material: "ELYTRA", Amount: 1})
	must(t, err)
	auc, err := a.StartAuction(seller, stack, 100, 300, time.Hour)
	must(t, err)
	_, err = a.Bid(leader, auc.ID, 120)
	must(t, err)
	networkWait(t, b, "b sees the bid", func() bool {
		l, err := b.GetListing(auc.ID)
		return err == nil && l.Auction.Leader == leader.ID
	})
	_, err = a.AddAlert(leader.ID, "elytra", 500)
	must(t, err)
	tx, err := b.BuyNow(buyer, auc.ID)
	if err != nil {
		t.Fatalf("buy-now on b: %v", err)
	}
	if tx.State != market.StateCompleted || tx.Price != 300 {
		t.Fatalf("buy-now: %s at %.2f", tx.State, tx.Price)
	}
	networkWait(t, a, "a sees the sale", func() bool { _, err := a.GetListing(auc.ID); return err != nil })
	want := []market.Notification{{Kind: market.NotifyOutbid, At: t0, ListingID: auc.ID, Reason: market.OutbidBoughtNow,
		Item: market.ItemStack{Material: "ELYTRA", Amount: 1}, Price: 300, Refunded: 120}}
	for name, svc := range map[string]*market.Service{"a": a, "b": b} {
		page, err := svc.Notifications(leader.ID, 0)
		must(t, err)
		var got []market.Notification
		for _, n := range page.Notifications {
			if n.Kind == market.NotifyOutbid {
				got = append(got, n)
			}
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s: the leader's outbid notices:\n got %+v\nwant %+v", name, got, want)
		}
		if alerts, _ := svc.Alerts(leader.ID); len(alerts) != 1 {
			t.Errorf("%s: the leader has %d alerts, want the one a added", name, len(alerts))
		}
		if au := mustAudit(t, svc); au.Money != np.money {
			t.Errorf("%s: the market holds %d, want %d", name, au.Money, np.money)
		}
	}
}

package market_test

import (
	"reflect"
	"testing"
	"time"

	"github.com/rynek/rynek/market"
)

// outbids are p's outbid notifications.
func (w *world) outbids(p market.Player) []market.Notification {
	w.t.Helper()
	page, err := w.svc.Notifications(p.ID, 0)
	must(w.t, err)
	var out []market.Notification
	for _, n := range page.Notifications {
		if n.Kind == market.NotifyOutbid {
			out = append(out, n)
		}
	}
	return out
}

// TestOutbidNotice: the leader a bid beats gets their bid back and an
// outbid notice in the same commit — the bid is the one entry in the log —
// which a crash right after it keeps; a leader raising their own bid
// notifies nobody.
func TestOutbidNotice(t *testing.T) {
	w := newWorld(t)
	a := w.auction(w.alice, 0, 100, 0)
	_, err := w.svc.Bid(w.bob, a.ID, 100)
	must(t, err)
	_, err = w.svc.Bid(w.bob, a.ID, 120) // Bob raising his own: no notice
	must(t, err)
	if got := w.outbids(w.bob); len(got) != 0 {
		t.Fatalf("Bob's own raise notified him: %+v", got)
	}
	w.clock.Advance(time.Minute)
	rows := len(logRows(t, w.store))
	_, err = w.svc.Bid(w.admin, a.ID, 150)
	must(t, err)
	log := logRows(t, w.store)
	if len(log) != rows+1 || log[rows].Kind != market.KindBidPlaced {
		t.Fatalf("the bid wrote %d log entries, want the one BidPlacedEvent: %+v", len(log)-rows, log[rows:])
	}
	want := []market.Notification{{Kind: market.NotifyOutbid, At: t0.Add(time.Minute), ListingID: a.ID,
		Item: market.ItemStack{Material: "DIAMOND", Amount: 64}, Price: 150, Refunded: 120}}
	if got := w.outbids(w.bob); !reflect.DeepEqual(got, want) {
		t.Fatalf("Bob's outbid notices:\n got %+v\nwant %+v", got, want)
	}
	if page, _ := w.svc.Notifications(w.bob.ID, 0); page.Unread != 1 {
		t.Errorf("Bob has %d unread, want the outbid notice", page.Unread)
	}
	if got := w.balance(w.bob); got != 1000 {
		t.Errorf("Bob's balance %.2f, want all 1000.00 back", got)
	}
	w.crashAndRestart()
	if got := w.outbids(w.bob); !reflect.DeepEqual(got, want) {
		t.Fatalf("after a crash, Bob's outbid notices:\n got %+v\nwant %+v", got, want)
	}
	// Bob's data is one blob: his next own write keeps the notice.
	_, err = w.svc.AddAlert(w.bob.ID, "diament", 10)
	must(t, err)
	w.clock.Advance(time.Minute)
	_, err = w.svc.Bid(w.bob, a.ID, 200)
	must(t, err)
	want2 := market.Notification{Kind: market.NotifyOutbid, At: t0.Add(2 * time.Minute), ListingID: a.ID,
		Item: market.ItemStack{Material: "DIAMOND", Amount: 64}, Price: 200, Refunded: 150}
	w.reopen()
	if got := w.outbids(w.bob); !reflect.DeepEqual(got, want) {
		t.Errorf("after his alert and a restart, Bob's outbid notices:\n got %+v\nwant %+v", got, want)
	}
	if got := w.outbids(w.admin); !reflect.DeepEqual(got, []market.Notification{want2}) {
		t.Errorf("Admin's outbid notices:\n got %+v\nwant %+v", got, []market.Notification{want2})
	}
	w.audit()
}

// TestOutbidNoticesKeepTheNewest: a player keeps the newest
// MaxOutbidNotices outbid notices; the oldest go first.
func TestOutbidNoticesKeepTheNewest(t *testing.T) {
	w := newWorld(t, func(c *market.Config) { c.Auctions.MinIncrement, c.Auctions.IncrementBasisPoints = -1, -1 })
	a := w.auction(w.alice, 0, 1, 0)
	n := market.MaxOutbidNotices + 3
	for i := range n {
		_, err := w.svc.Bid(w.bob, a.ID, float64(100+2*i)/100)
		must(t, err)
		_, err = w.svc.Bid(w.admin, a.ID, float64(101+2*i)/100)
		must(t, err)
		w.clock.Advance(time.Second)
	}
	page, err := w.svc.Notifications(w.bob.ID, market.MaxNotificationsPage)
	must(t, err)
	got := page.Notifications
	if len(got) != market.MaxOutbidNotices {
		t.Fatalf("%d notices, want %d", len(got), market.MaxOutbidNotices)
	}
	newest, oldest := got[0], got[len(got)-1]
	if newest.Refunded != float64(100+2*(n-1))/100 || oldest.Refunded != float64(100+2*3)/100 {
		t.Errorf("newest refunded %.2f, oldest %.2f; want %.2f and %.2f", newest.Refunded, oldest.Refunded,
			float64(100+2*(n-1))/100, float64(100+2*3)/100)
	}
}

// TestBuyNowNotifiesTheLeader: a buy-now takes the auction from its leader
// with their bid back and a bought-now notice, in the reservation's commit
// (kept through a restart); a leader who buys it now themselves is told
// nothing.
func TestBuyNowNotifiesTheLeader(t *testing.T) {
	w := newWorld(t)
	a := w.auction(w.alice, 0, 100, 300)
	_, err := w.svc.Bid(w.bob, a.ID, 120)
	must(t, err)
	w.clock.Advance(time.Minute)
	tx, err := w.svc.BuyNow(w.admin, a.ID)
	must(t, err)
	if tx.State != market.StateCompleted {
		t.Fatalf("buy-now ended %s", tx.State)
	}
	w.bobTold([]market.Notification{{Kind: market.NotifyOutbid, At: t0.Add(time.Minute), ListingID: a.ID,
		Reason: market.OutbidBoughtNow, Item: market.ItemStack{Material: "DIAMOND", Amount: 64}, Price: 300, Refunded: 120}})

	own := w.auction(w.alice, 1, 100, 300)
	_, err = w.svc.Bid(w.admin, own.ID, 120)
	must(t, err)
	_, err = w.svc.BuyNow(w.admin, own.ID)
	must(t, err)
	if got := w.outbids(w.admin); len(got) != 0 {
		t.Errorf("the leader buying it now was told: %+v", got)
	}
	w.audit()
}

// bobTold checks that Bob, who led an auction with a bid of 120.00, has
// all of his 1,000.00 back and exactly the notices want, before and after
// a crash.
func (w *world) bobTold(want []market.Notification) {
	w.t.Helper()
	if got := w.outbids(w.bob); !reflect.DeepEqual(got, want) {
		w.t.Fatalf("Bob's notices:\n got %+v\nwant %+v", got, want)
	}
	if got := w.balance(w.bob); got != 1000 {
		w.t.Errorf("Bob's balance %.2f, want all 1000.00 back", got)
	}
	w.crashAndRestart()
	if got := w.outbids(w.bob); !reflect.DeepEqual(got, want) {
		w.t.Fatalf("after a crash, Bob's notices:\n got %+v\nwant %+v", got, want)
	}
}

// TestTakedownNotifiesTheLeader: an admin taking down an auction with a
// leader, by removing it or forcing its expiry, gives the leader their bid
// back with a taken-down notice, in the takedown's commit (kept through a
// restart).
func TestTakedownNotifiesTheLeader(t *testing.T) {
	for name, takeDown := range map[string]func(w *world, id int) error{
		"removal":       func(w *world, id int) error { return w.svc.RemoveListing(id, w.admin) },
		"forced expiry": func(w *world, id int) error { return w.svc.ForceExpire(id, w.admin) },
	} {
		t.Run(name, func(t *testing.T) {
			w := newWorld(t)
			a := w.auction(w.alice, 0, 100, 300)
			_, err := w.svc.Bid(w.bob, a.ID, 120)
			must(t, err)
			w.clock.Advance(time.Minute)
			must(t, takeDown(w, a.ID))
			w.bobTold([]market.Notification{{Kind: market.NotifyOutbid, At: t0.Add(time.Minute), ListingID: a.ID,
				Reason: market.OutbidTakenDown, Item: market.ItemStack{Material: "DIAMOND", Amount: 64}, Price: 120, Refunded: 120}})
			w.audit()
		})
	}
}

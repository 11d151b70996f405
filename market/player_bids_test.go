package market_test

import (
	"fmt"
	"reflect"
	"testing"
	"time"

	"github.com/rynek/rynek/market"
)

// bidSummary is a PlayerBid in the exact terms a test compares.
type bidSummary struct {
	ID                  int
	Leading             bool
	LastBid, CurrentBid float64
	MinimumBid          float64
	Leader              string
	EndsIn              time.Duration
}

// playerBids reads p's bids as bidSummaries, the end as time from now.
func (w *world) playerBids(p market.Player) []bidSummary {
	w.t.Helper()
	bids, err := w.svc.PlayerBids(p.ID)
	must(w.t, err)
	out := []bidSummary{}
	for _, b := range bids {
		a := b.Listing.Auction
		out = append(out, bidSummary{ID: b.Listing.ID, Leading: b.Leading, LastBid: b.LastBid, CurrentBid: a.CurrentBid,
			MinimumBid: a.MinimumBid, Leader: a.LeaderName, EndsIn: b.Listing.ExpiresAt.Sub(w.clock.Now())})
	}
	return out
}

// TestPlayerBids: each player's live auctions, led or outbid, with their
// last bid and the auction as it is now, soonest end first; the same after
// a restart (rebuilt from the auctions' records); an ended auction leaves
// them all.
func TestPlayerBids(t *testing.T) {
	w := newWorld(t)
	long := w.auction(w.alice, 0, 100, 0) // a day
	short, err := w.svc.StartAuction(w.alice, w.stack(w.alice, 1), 50, 0, time.Hour)
	must(t, err)
	w.clock.Advance(time.Minute)
	for _, b := range []struct {
		who    market.Player
		id     int
		amount float64
	}{
		{w.bob, long.ID, 100}, {w.admin, long.ID, 150}, {w.bob, short.ID, 60}, {w.admin, short.ID, 70}, {w.bob, short.ID, 80},
	} {
		_, err := w.svc.Bid(b.who, b.id, b.amount)
		must(t, err)
	}
	day, hour := 24*time.Hour-time.Minute, time.Hour-time.Minute
	want := map[string][]bidSummary{
		"Bob": {
			{ID: short.ID, Leading: true, LastBid: 80, CurrentBid: 80, MinimumBid: 84, Leader: "Bob", EndsIn: hour},
			{ID: long.ID, Leading: false, LastBid: 100, CurrentBid: 150, MinimumBid: 157.5, Leader: "Admin", EndsIn: day},
		},
		"Admin": {
			{ID: short.ID, Leading: false, LastBid: 70, CurrentBid: 80, MinimumBid: 84, Leader: "Bob", EndsIn: hour},
			{ID: long.ID, Leading: true, LastBid: 150, CurrentBid: 150, MinimumBid: 157.5, Leader: "Admin", EndsIn: day},
		},
		"Alice": {}, // the seller bids on neither
	}
	check := func(when string) {
		t.Helper()
		for _, p := range []market.Player{w.bob, w.admin, w.alice} {
			if got := w.playerBids(p); !reflect.DeepEqual(got, want[p.Name]) {
				t.Errorf("%s, %s's bids:\n got %+v\nwant %+v", when, p.Name, got, want[p.Name])
			}
		}
	}
	check("after the bids")
	w.reopen()
	check("after a restart")

	w.clock.Advance(hour)
	want["Bob"], want["Admin"] = want["Bob"][1:], want["Admin"][1:]
	for _, name := range []string{"Bob", "Admin"} {
		want[name][0].EndsIn = day - hour
	}
	check("past the short one's end, before the sweep")
	if _, _, err := w.svc.SweepExpired(); err != nil {
		t.Fatal(err)
	}
	check("after the short one is settled")
	if _, err := w.svc.PlayerBids(market.Player{ID: uid(99)}.ID); err == nil || err.Error() != "player 00000000-0000-4000-8000-000000000063 does not exist" {
		t.Errorf("an unknown player's bids: %v", err)
	}
}

// TestPlayerBidsPastTheHistory: a bidder whose bid has left the auction's
// history (more than MaxBidHistory bids since) still finds the auction
// among their bids, outbid, through their outbid notice, with the bid that
// came back to them.
func TestPlayerBidsPastTheHistory(t *testing.T) {
	w := newWorld(t, func(c *market.Config) { c.Auctions.MinIncrement, c.Auctions.IncrementBasisPoints = -1, -1 })
	a := w.auction(w.alice, 0, 1, 0)
	_, err := w.svc.Bid(w.bob, a.ID, 2)
	must(t, err)
	for i := range market.MaxBidHistory {
		_, err := w.svc.Bid(w.admin, a.ID, float64(300+i)/100) // the leader raising, a cent at a time
		must(t, err)
	}
	bids, err := w.svc.AuctionBids(a.ID)
	must(t, err)
	for _, b := range bids {
		if b.Bidder == w.bob.ID {
			t.Fatalf("Bob's bid is still in the history of %d", len(bids))
		}
	}
	want := []bidSummary{{ID: a.ID, LastBid: 2, CurrentBid: 3.99, MinimumBid: 4, Leader: "Admin", EndsIn: 24 * time.Hour}}
	if got := w.playerBids(w.bob); !reflect.DeepEqual(got, want) {
		t.Errorf("Bob's bids:\n got %+v\nwant %+v", got, want)
	}
	w.reopen()
	if got := w.playerBids(w.bob); !reflect.DeepEqual(got, want) {
		t.Errorf("Bob's bids after a restart:\n got %+v\nwant %+v", got, want)
	}
}

// TestPlayerBidsWhileBidding: PlayerBids is read from another goroutine
// while the main thread bids (run with -race): every read sees each
// auction whole, one leader's bid as the current one.
func TestPlayerBidsWhileBidding(t *testing.T) {
	w := newWorld(t, func(c *market.Config) { c.Auctions.MinIncrement, c.Auctions.IncrementBasisPoints = -1, -1 })
	a := w.auction(w.alice, 0, 1, 0)
	stop := make(chan struct{})
	done := make(chan error)
	go func() {
		var bad error
		for {
			select {
			case <-stop:
				done <- bad
				return
			default:
			}
			bids, err := w.svc.PlayerBids(w.bob.ID)
			if err != nil {
				bad = err
				continue
			}
			for _, b := range bids {
				if b.Leading && b.LastBid != b.Listing.Auction.CurrentBid {
					bad = fmt.Errorf("Bob leads with %.2f but the auction's bid is %.2f", b.LastBid, b.Listing.Auction.CurrentBid)
				}
			}
		}
	}()
	for i := range 60 {
		who := w.bob
		if i%2 == 1 {
			who = w.admin
		}
		_, err := w.svc.Bid(who, a.ID, float64(1+i))
		must(t, err)
	}
	close(stop)
	must(t, <-done)
}

package httpapi

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/rynek/rynek/internal/wire"
	"github.com/rynek/rynek/market"
	"github.com/rynek/rynek/seed"
)

// TestAuctionsOverHTTP: an auction's listing carries its kind and bidding,
// kind= keeps auctions or fixed prices, sort=ending puts the soonest end
// first, /bids pages its bids newest first, and the stream carries each bid
// and the end; every answer matches the served document.
func TestAuctionsOverHTTP(t *testing.T) {
	e := newEnv(t, seed.Options{Listings: 60, Auctions: -1}, Options{})
	c := loadContract(t, e)
	players, err := e.svc.Players()
	if err != nil {
		t.Fatal(err)
	}
	var seller market.PlayerState
	for _, p := range players {
		if ps, _ := e.svc.GetPlayer(p.ID); ps.Inventory[0] != nil && seller.Name == "" {
			seller = ps
		}
	}
	var bidders []market.Player
	for _, p := range players {
		if ps, _ := e.svc.GetPlayer(p.ID); p.ID != seller.ID && ps.Balance > 100 && len(bidders) < 2 {
			bidders = append(bidders, p)
		}
	}
	from := e.svc.Version()
	a, err := e.svc.StartAuction(seller.Player, *seller.Inventory[0], 10, 40, time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	for i, amount := range []float64{10, 11, 12.5} {
		if _, err := e.svc.Bid(bidders[i%2], a.ID, amount); err != nil {
			t.Fatal(err)
		}
	}

	var l wire.Listing
	e.getJSON(fmt.Sprintf("/api/listings/%d", a.ID), &l)
	c.check(t, e, 200, fmt.Sprintf("/api/listings/%d", a.ID))
	if l.Kind != "auction" || l.Price != "12.50" || l.Auction == nil || l.Auction.StartingBid != "10.00" || *l.Auction.CurrentBid != "12.50" ||
		l.Auction.MinimumBid != "13.50" || l.Auction.Bids != 3 || l.Auction.Leader.Name != bidders[0].Name || *l.Auction.BuyNow != "40.00" {
		t.Fatalf("the auction: %+v %+v", l, l.Auction)
	}
	var page wire.ListingPage
	e.getJSON("/api/listings?kind=auction", &page)
	if len(page.Items) != 1 || page.Items[0].ID != a.ID {
		t.Fatalf("kind=auction: %d listings", len(page.Items))
	}
	var inQ wire.ListingPage
	e.getJSON("/api/listings?q=kind:auction", &inQ)
	if len(inQ.Items) != 1 || inQ.Items[0].ID != a.ID {
		t.Fatalf("q=kind:auction: %d listings", len(inQ.Items))
	}
	var fixedPage wire.ListingPage // decoded afresh: a reused page keeps what a key left out
	e.getJSON("/api/listings?kind=fixed&limit=500", &fixedPage)
	for _, x := range fixedPage.Items {
		if x.Kind != "fixed" || x.Auction != nil {
			t.Fatalf("kind=fixed holds %+v", x)
		}
	}
	page = wire.ListingPage{}
	e.getJSON("/api/listings?sort=ending&limit=2", &page)
	if page.Items[0].ID != a.ID || page.Items[1].ExpiresAt.Time.Before(page.Items[0].ExpiresAt.Time) {
		t.Fatalf("sort=ending: %d first, ending %v then %v", page.Items[0].ID, page.Items[0].ExpiresAt, page.Items[1].ExpiresAt)
	}
	for _, path := range []string{"/api/listings?kind=auction", "/api/listings?sort=ending&limit=3&kind=fixed"} {
		c.check(t, e, 200, path)
	}

	var bids wire.BidPage
	e.getJSON(fmt.Sprintf("/api/listings/%d/bids?limit=2", a.ID), &bids)
	if bids.Total != 3 || len(bids.Items) != 2 || bids.Items[0].Amount != "12.50" || bids.Items[1].Amount != "11.00" || bids.NextCursor == "" {
		t.Fatalf("the first page of bids: %+v", bids)
	}
	c.check(t, e, 200, fmt.Sprintf("/api/listings/%d/bids?limit=2", a.ID))
	if _, err := e.svc.Bid(bidders[1], a.ID, 20); err != nil { // a bid on top changes nothing below
		t.Fatal(err)
	}
	next := fmt.Sprintf("/api/listings/%d/bids?limit=2&cursor=%s", a.ID, bids.NextCursor)
	bids = wire.BidPage{}
	e.getJSON(next, &bids)
	if bids.Total != 4 || len(bids.Items) != 1 || bids.Items[0].Amount != "10.00" || bids.Items[0].Bidder.Name != bidders[0].Name || bids.NextCursor != "" {
		t.Fatalf("the second page of bids: %+v", bids)
	}
	c.check(t, e, 200, next)
	fixed := fixedPage.Items[0].ID
	for _, x := range []struct {
		status int
		path   string
		code   string
	}{
		{404, fmt.Sprintf("/api/listings/%d/bids", fixed), CodeNotAnAuction},
		{404, "/api/listings/999999/bids", CodeListingNotFound},
		{400, fmt.Sprintf("/api/listings/%d/bids?cursor=zz", a.ID), CodeBadCursor},
		{400, "/api/listings?kind=barter", CodeBadParameter},
		{400, "/api/listings?q=kind:auction&kind=fixed", CodeBadParameter},
		{400, "/api/listings?q=kind:barter", CodeBadParameter},
	} {
		if p := c.check(t, e, x.status, x.path).problem(t); p.Code != x.code {
			t.Errorf("%s: %s, want %s", x.path, p.Code, x.code)
		}
	}

	e.clock.Advance(2 * time.Minute)
	if n, _, err := e.svc.SweepExpired(); err != nil || n != 1 {
		t.Fatalf("swept %d (%v)", n, err)
	}
	s := e.stream(fmt.Sprintf("/api/events?since=%d", from))
	var bidEvents int
	for {
		ev := s.next(t)
		if ev.event == "" {
			continue
		}
		var w wire.Event
		if err := json.Unmarshal([]byte(ev.data), &w); err != nil {
			t.Fatal(err)
		}
		switch w.Event {
		case "BidPlacedEvent":
			bidEvents++
			if w.Bid == nil || w.Listing == nil || w.Listing.Auction == nil || w.Bid.Amount != *w.Listing.Auction.CurrentBid {
				t.Fatalf("a bid's event: %s", ev.data)
			}
			if bidEvents == 2 && (w.Bid.PreviousLeader == nil || w.Bid.PreviousLeader.Name != bidders[0].Name) {
				t.Fatalf("the second bid outbid no one: %s", ev.data)
			}
		case "AuctionEndedEvent":
			if bidEvents != 4 || w.Ended == nil || w.Ended.ListingID != a.ID || w.Ended.Winner.Name != bidders[1].Name ||
				*w.Ended.Price != "20.00" || w.Ended.TransactionID == nil {
				t.Fatalf("after %d bids, the end: %s", bidEvents, ev.data)
			}
			return
		}
	}
}

// TestAuctionsSortByCurrentBid: sort=price (and price_desc, unit_price)
// orders an auction by what it costs now: its starting bid before the
// first bid, its current bid after, moved in the order by the bid.
func TestAuctionsSortByCurrentBid(t *testing.T) {
	e := newEnv(t, seed.Options{Listings: 10, Auctions: -1}, Options{})
	players, err := e.svc.Players()
	if err != nil {
		t.Fatal(err)
	}
	seller, bidder := players[1], players[2]
	if _, err := e.svc.Deposit(bidder.ID, 100); err != nil {
		t.Fatal(err)
	}
	start := func(startingBid float64) market.Listing {
		t.Helper()
		stack, _, err := e.svc.GiveItem(seller.ID, market.ItemStack{ID: uuid.New(), Material: "DIAMOND", Amount: 1})
		if err != nil {
			t.Fatal(err)
		}
		l, err := e.svc.StartAuction(seller, stack, startingBid, 0, time.Hour)
		if err != nil {
			t.Fatal(err)
		}
		return l
	}
	low, high := start(10), start(20)
	order := func(sort string) string {
		t.Helper()
		var page wire.ListingPage
		e.getJSON("/api/listings?kind=auction&sort="+sort, &page)
		var ids []string
		for _, l := range page.Items {
			ids = append(ids, fmt.Sprintf("#%d %s", l.ID, l.Price))
		}
		return strings.Join(ids, ", ")
	}
	if got, want := order("price"), fmt.Sprintf("#%d 10.00, #%d 20.00", low.ID, high.ID); got != want {
		t.Fatalf("sort=price before the bid: %s, want %s", got, want)
	}
	if _, err := e.svc.Bid(bidder, low.ID, 25); err != nil {
		t.Fatal(err)
	}
	for sort, want := range map[string]string{
		"price":      fmt.Sprintf("#%d 20.00, #%d 25.00", high.ID, low.ID),
		"price_desc": fmt.Sprintf("#%d 25.00, #%d 20.00", low.ID, high.ID),
		"unit_price": fmt.Sprintf("#%d 20.00, #%d 25.00", high.ID, low.ID),
	} {
		if got := order(sort); got != want {
			t.Errorf("sort=%s after a bid of 25.00 on #%d: %s, want %s", sort, low.ID, got, want)
		}
	}
}

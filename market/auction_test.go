package market_test

import (
	"errors"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/rynek/rynek/market"
)

// auction starts an auction of p's stack in slot: bids from start, for a
// day, with a buy-now price (0: none).
func (w *world) auction(p market.Player, slot int, start, buyNow float64) market.Listing {
	w.t.Helper()
	l, err := w.svc.StartAuction(p, w.stack(p, slot), start, buyNow, 24*time.Hour)
	must(w.t, err)
	return l
}

// balance is p's balance now.
func (w *world) balance(p market.Player) float64 {
	w.t.Helper()
	st, err := w.svc.GetPlayer(p.ID)
	must(w.t, err)
	return st.Balance
}

// escrow is what the audit counts in the auctions' escrow.
func escrow(a market.Audit) market.Money {
	for _, acc := range a.Accounts {
		if acc.Name == "bids held by auctions" {
			return acc.Money
		}
	}
	return -1
}

// TestAuctionRefusals: every refusal of a start, a bid and a buy-now, with
// its code and exact text, changes nothing.
func TestAuctionRefusals(t *testing.T) {
	w := newWorld(t)
	fixed := w.sell(w.bob, 0, 50)
	a := w.auction(w.alice, 1, 100, 300)
	must2 := func(_ market.Listing, err error) { must(t, err) }
	must2(w.svc.Bid(w.bob, a.ID, 100))
	before := w.audit()
	for _, c := range []struct {
		name string
		err  error
		code market.Code
		text string
	}{
		{"too short", second(w.svc.StartAuction(w.alice, w.stack(w.alice, 2), 10, 0, 30*time.Second)),
			market.CodeInvalidQuery, "an auction lasts 1m to 7d, not 30s"},
		{"buy-now at the start", second(w.svc.StartAuction(w.alice, w.stack(w.alice, 2), 10, 10, 0)),
			market.CodeInvalidPrice, "the buy-now price 10.00 is not above the starting bid 10.00"},
		{"a bid on a fixed price", second(w.svc.Bid(w.alice, fixed.ID, 60)),
			market.CodeNotAnAuction, "listing #1 is sold at a fixed price, not by auction"},
		{"one's own", second(w.svc.Bid(w.alice, a.ID, 200)),
			market.CodeOwnAuction, "Alice cannot bid on their own auction #2"},
		{"below the minimum", second(w.svc.Bid(w.admin, a.ID, 104.99)),
			market.CodeBidTooLow, "a bid on #2 is at least 105.00, not 104.99"},
		{"more than the balance", second(w.svc.Bid(w.admin, a.ID, 1000.01)),
			market.CodeInsufficientFunds, "a bid of 1000.01 on #2 needs 1000.01 but Admin has 1000.00"},
		{"buying an auction", second(w.svc.Buy(w.admin, a.ID)),
			market.CodeIsAnAuction, "listing #2 is an auction: bid on it, or buy it now"},
		{"buy-now on a fixed price", second(w.svc.BuyNow(w.admin, fixed.ID)),
			market.CodeNotAnAuction, "listing #1 is sold at a fixed price, not by auction"},
		{"the seller taking it back", w.svc.RemoveListing(a.ID, w.alice),
			market.CodeAuctionHasBids, "auction #2 has 1 bid: only an admin may take it down now"},
	} {
		var e *market.Error
		if !errors.As(c.err, &e) || e.Code != c.code || e.Msg != c.text {
			t.Errorf("%s: %v, want %s %q", c.name, c.err, c.code, c.text)
		}
	}
	w.clock.Advance(25 * time.Hour)
	errText(t, second(w.svc.Bid(w.admin, a.ID, 200)), "the auction of listing #2 has ended")
	if after := w.audit(); after.Money != before.Money || escrow(after) != escrow(before) || after.Items != before.Items {
		t.Fatalf("refusals changed the market: money %d → %d, escrow %d → %d", before.Money, after.Money, escrow(before), escrow(after))
	}
}

func second[T any](_ T, err error) error { return err }

// TestBiddingWar: each bid moves the bidder's money into the escrow and
// gives the leader it outbids theirs back in the same commit; the leader
// raises their own bid by the difference; a late bid moves the end; every
// bid is a BidPlacedEvent; money is conserved throughout, also across a
// restart.
func TestBiddingWar(t *testing.T) {
	w := newWorld(t)
	a := w.auction(w.alice, 0, 100, 0)
	if a.Kind() != "auction" || a.Auction.MinimumBid != 100 || a.Auction.CurrentBid != 0 || a.Price != 100 {
		t.Fatalf("the new auction: %+v %+v", a, a.Auction)
	}
	money := w.audit().Money
	for _, b := range []struct {
		who    market.Player
		amount float64
		leader market.Player
		escrow market.Money
		bob    float64 // Bob's balance after the bid
		admin  float64 // Admin's
	}{
		{w.bob, 100, w.bob, 100_00, 900, 1000},
		{w.admin, 150, w.admin, 150_00, 1000, 850},
		{w.admin, 200, w.admin, 200_00, 1000, 800},
		{w.bob, 210, w.bob, 210_00, 790, 1000},
	} {
		l, err := w.svc.Bid(b.who, a.ID, b.amount)
		must(t, err)
		if l.Auction.Leader != b.leader.ID || l.Auction.LeaderName != b.leader.Name || l.Auction.CurrentBid != b.amount || l.Price != b.amount {
			t.Fatalf("after %s's %.2f: %+v", b.who.Name, b.amount, l.Auction)
		}
		au := w.audit()
		if au.Money != money || escrow(au) != b.escrow {
			t.Fatalf("after %s's %.2f: money %d (was %d), escrow %d", b.who.Name, b.amount, au.Money, money, escrow(au))
		}
		if bob, admin := w.balance(w.bob), w.balance(w.admin); bob != b.bob || admin != b.admin {
			t.Fatalf("after %s's %.2f: Bob has %.2f and Admin %.2f, want %.2f and %.2f", b.who.Name, b.amount, bob, admin, b.bob, b.admin)
		}
		ev, ok := w.events[len(w.events)-1].(market.BidPlacedEvent)
		if !ok || ev.Bidder() != b.who.ID || ev.Amount() != b.amount || ev.Listing().ID != a.ID {
			t.Fatalf("after %s's %.2f: the last event is %#v", b.who.Name, b.amount, w.events[len(w.events)-1])
		}
	}
	bids, err := w.svc.AuctionBids(a.ID)
	must(t, err)
	if len(bids) != 4 || bids[0].BidderName != "Bob" || bids[0].Amount != 210 || bids[3].Bidder != w.bob.ID || bids[3].Amount != 100 || !bids[0].At.Equal(w.clock.Now()) {
		t.Fatalf("the bids, newest first: %+v", bids)
	}
	if l, _ := w.svc.GetListing(a.ID); l.Auction.Bids != 4 || l.Auction.MinimumBid != 220.5 {
		t.Fatalf("bids %d, minimum %.2f; want 4 and 220.50 (5%% over 210.00)", l.Auction.Bids, l.Auction.MinimumBid)
	}
	if l, _ := w.svc.GetListing(a.ID); !l.ExpiresAt.Equal(a.ExpiresAt) {
		t.Fatalf("an early bid moved the end from %v to %v", a.ExpiresAt, l.ExpiresAt)
	}
	w.clock.Advance(24*time.Hour - 30*time.Second)
	l, err := w.svc.Bid(w.admin, a.ID, 250)
	must(t, err)
	if want := w.clock.Now().Add(time.Minute); !l.ExpiresAt.Equal(want) {
		t.Fatalf("a bid 30 s before the end: it ends at %v, want %v", l.ExpiresAt, want)
	}
	w.reopen()
	if au := w.audit(); au.Money != money || escrow(au) != 250_00 {
		t.Fatalf("after a restart: money %d (was %d), escrow %d", au.Money, money, escrow(au))
	}
	if got, _ := w.svc.GetListing(a.ID); got.Auction.LeaderName != "Admin" || got.Auction.Bids != 5 || !got.ExpiresAt.Equal(l.ExpiresAt) {
		t.Fatalf("after a restart: %+v, ends %v", got.Auction, got.ExpiresAt)
	}
}

// TestAuctionEnds: at its end an auction with a leader is sold to them
// through the saga, paid from the escrow (the seller gets the bid less the
// fee, the winner the stack); one without bids goes to its seller's
// mailbox. Each publishes AuctionEndedEvent; the market keeps its money.
func TestAuctionEnds(t *testing.T) {
	w := newWorld(t)
	sold := w.auction(w.alice, 0, 100, 0)
	unsold := w.auction(w.alice, 2, 10, 0)
	_, err := w.svc.Bid(w.bob, sold.ID, 120)
	must(t, err)
	before := w.audit()
	w.clock.Advance(25 * time.Hour)
	w.events = nil
	n, more, err := w.svc.SweepExpired()
	if err != nil || n != 2 || more {
		t.Fatalf("swept %d, more %v (%v)", n, more, err)
	}
	after := w.audit()
	if after.Money != before.Money || escrow(after) != 0 || after.Items != before.Items || after.Listings != 0 || after.OpenTx != 0 {
		t.Fatalf("after the end: %+v", after)
	}
	if got := w.balance(w.alice); got != 1000+114 {
		t.Fatalf("the seller has %.2f, want 1114.00 (120.00 less the 5%% fee)", got)
	}
	bob, err := w.svc.GetPlayer(w.bob.ID)
	must(t, err)
	if bob.Balance != 880 || bob.Inventory[3] == nil || bob.Inventory[3].Material != "DIAMOND" || bob.Inventory[3].Amount != 64 {
		t.Fatalf("the winner: %.2f, slot 4 %+v", bob.Balance, bob.Inventory[3])
	}
	alice, err := w.svc.GetPlayer(w.alice.ID)
	must(t, err)
	if len(alice.Mailbox) != 1 || alice.Mailbox[0].Reason != market.MailExpired || alice.Mailbox[0].Item.Material != "OAK_LOG" {
		t.Fatalf("the seller's mailbox: %+v", alice.Mailbox)
	}
	var names []string
	var ended []market.AuctionEndedEvent
	for _, e := range w.events {
		names = append(names, e.EventName())
		if e, ok := e.(market.AuctionEndedEvent); ok {
			ended = append(ended, e)
		}
	}
	if len(ended) != 2 {
		t.Fatalf("events %v, want an AuctionEndedEvent for each", names)
	}
	for _, e := range ended {
		switch e.ListingID() {
		case sold.ID:
			tx, err := w.svc.GetTransaction(e.TransactionID())
			must(t, err)
			if e.Winner() != w.bob.ID || e.Price() != 120 || tx.State != market.StateCompleted || tx.Buyer != w.bob.ID {
				t.Fatalf("the sold auction's end: winner %v price %.2f, %+v", e.Winner(), e.Price(), tx)
			}
		case unsold.ID:
			if e.Winner() != uuid.Nil || e.Price() != 0 || e.TransactionID() != "" {
				t.Fatalf("the unsold auction's end: winner %v price %.2f tx %q", e.Winner(), e.Price(), e.TransactionID())
			}
		}
	}
	if names[0] != "AuctionEndedEvent" && names[0] != "TransactionCompletedEvent" {
		t.Fatalf("events %v", names)
	}
}

// TestBuyNow: a buy-now while the leading bid is below its price buys the
// auction through the saga; the leader's bid goes back to them; a leader
// buying pays the difference only.
func TestBuyNow(t *testing.T) {
	w := newWorld(t)
	a := w.auction(w.alice, 0, 100, 300)
	_, err := w.svc.Bid(w.bob, a.ID, 150)
	must(t, err)
	money := w.audit().Money
	tx, err := w.svc.BuyNow(w.admin, a.ID)
	must(t, err)
	if tx.State != market.StateCompleted || tx.Price != 300 {
		t.Fatalf("buy-now: %+v", tx)
	}
	if got := w.balance(w.bob); got != 1000 {
		t.Fatalf("the outbid leader has %.2f, want their 1000.00 back", got)
	}
	if got := w.balance(w.admin); got != 700 {
		t.Fatalf("the buyer has %.2f, want 700.00", got)
	}
	if au := w.audit(); au.Money != money || escrow(au) != 0 {
		t.Fatalf("money %d (was %d), escrow %d", au.Money, money, escrow(au))
	}
	if e, ok := w.events[len(w.events)-1].(market.AuctionEndedEvent); !ok || e.Winner() != w.admin.ID || e.Price() != 300 {
		t.Fatalf("the last event: %#v", w.events[len(w.events)-1])
	}

	b := w.auction(w.alice, 1, 100, 300)
	_, err = w.svc.Bid(w.bob, b.ID, 250)
	must(t, err)
	if _, err := w.svc.BuyNow(w.bob, b.ID); err != nil {
		t.Fatal(err)
	}
	if got := w.balance(w.bob); got != 700 {
		t.Fatalf("the leader who bought now has %.2f, want 700.00", got)
	}
	c := w.auction(w.alice, 2, 10, 20)
	_, err = w.svc.Bid(w.bob, c.ID, 25)
	must(t, err)
	errText(t, second(w.svc.BuyNow(w.admin, c.ID)), "the leading bid on #3, 25.00, has reached its buy-now price 20.00")
}

// TestAdminTakesDownAnAuction: an admin's removal and a forced expiry give
// the leader their bid back in the same commit; the seller gets the stack.
func TestAdminTakesDownAnAuction(t *testing.T) {
	w := newWorld(t)
	for _, take := range []func(id int) error{
		func(id int) error { return w.svc.RemoveListing(id, w.admin) },
		func(id int) error { return w.svc.ForceExpire(id, w.admin) },
	} {
		a := w.auction(w.alice, 0, 100, 0)
		_, err := w.svc.Bid(w.bob, a.ID, 100)
		must(t, err)
		money := w.audit().Money
		must(t, take(a.ID))
		if got := w.balance(w.bob); got != 1000 {
			t.Fatalf("the leader has %.2f, want their 1000.00 back", got)
		}
		if au := w.audit(); au.Money != money || escrow(au) != 0 || au.Listings != 0 {
			t.Fatalf("money %d (was %d), escrow %d, %d listings", au.Money, money, escrow(au), au.Listings)
		}
		if st, _ := w.svc.GetPlayer(w.alice.ID); st.Inventory[0] == nil || st.Inventory[0].Material != "DIAMOND" {
			t.Fatalf("the seller's slot 1: %+v", st.Inventory[0])
		}
	}
}

// TestAuctionEndsAtTheNextStart: an auction whose end passed while no
// server ran ends at the first sweep after the start, before any bid is
// taken; a settlement whose commit fails changes nothing and the next sweep
// settles it.
func TestAuctionEndsAtTheNextStart(t *testing.T) {
	w := newWorld(t)
	a := w.auction(w.alice, 0, 100, 0)
	_, err := w.svc.Bid(w.bob, a.ID, 100)
	must(t, err)
	money := w.audit().Money
	w.clock.Advance(25 * time.Hour)
	w.crashAndRestart()
	errText(t, second(w.svc.Bid(w.admin, a.ID, 500)), "the auction of listing #1 has ended")

	must(t, w.svc.Close())
	st := &failingCommits{Store: w.openStore(), left: 1}
	w.store = st
	w.svc = market.New(st, market.Config{Clock: w.clock, ListingCooldown: -1})
	w.svc.BindMainThread()
	must(t, w.svc.Enable())
	t.Cleanup(func() { w.svc.Close() })
	if n, _, err := w.svc.SweepExpired(); !errors.Is(err, market.ErrStore) || n != 0 {
		t.Fatalf("a sweep whose settlement cannot commit: %d, %v", n, err)
	}
	if au := w.audit(); au.Money != money || escrow(au) != 100_00 || au.Listings != 1 || au.OpenTx != 0 {
		t.Fatalf("after the failed commit: money %d (was %d), escrow %d, %d listings, %d in flight", au.Money, money, escrow(au), au.Listings, au.OpenTx)
	}
	if n, _, err := w.svc.SweepExpired(); err != nil || n != 1 {
		t.Fatalf("swept %d (%v)", n, err)
	}
	if au := w.audit(); au.Money != money || escrow(au) != 0 || au.Listings != 0 {
		t.Fatalf("money %d (was %d), escrow %d, %d listings", au.Money, money, escrow(au), au.Listings)
	}
	if st, _ := w.svc.GetPlayer(w.bob.ID); st.Balance != 900 || st.Inventory[3] == nil {
		t.Fatalf("the winner: %.2f, %+v", st.Balance, st.Inventory[3])
	}
}

// failingCommits is a store whose next left commits fail, writing nothing.
type failingCommits struct {
	market.Store
	left int
}

func (f *failingCommits) Commit(b *market.Batch) error {
	if f.left > 0 {
		f.left--
		return errors.New("injected store failure")
	}
	return f.Store.Commit(b)
}

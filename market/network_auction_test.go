package market_test

import (
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/rynek/rynek/internal/pgtest"
	"github.com/rynek/rynek/market"
	"github.com/rynek/rynek/market/postgres"
)

// TestNetworkBiddingWar: three servers on one PostgreSQL market, two
// bidders each, bid on one auction as fast as they can. A bid meeting
// another server's first is judged again and refused with the new minimum
// (BID_TOO_LOW) or placed; no escrow is doubled: at the end the market holds
// exactly its money, one leader's bid is in the escrow and everyone else
// has all of theirs. Then the auction ends and
// is settled once, on the server with the network's duty.
func TestNetworkBiddingWar(t *testing.T) {
	dsn := pgtest.Database(t)
	const instances, biddersEach, rounds = 3, 2, 40
	np := seedNetwork(t, dsn, 1, instances*biddersEach, 0)
	clock := market.NewManualClock(t0)
	open := func(name string) *market.Service {
		st, err := postgres.Open(dsn, postgres.Options{Instance: name})
		must(t, err)
		svc := market.New(st, market.Config{Clock: clock, ListingCooldown: -1})
		svc.BindMainThread()
		must(t, svc.Enable())
		return svc
	}
	seller := np.sellers[0]
	first := open("setup")
	_, _, err := first.GiveItem(seller.ID, market.ItemStack{Material: "NETHERITE_SWORD", Amount: 1})
	must(t, err)
	ps, err := first.GetPlayer(seller.ID)
	must(t, err)
	a, err := first.StartAuction(seller, *ps.Inventory[0], 10, 0, time.Hour)
	must(t, err)
	money := mustAudit(t, first).Money
	must(t, first.Close())

	type result struct {
		placed, tooLow int
		failures       []string
	}
	results := make([]result, instances)
	var ready, wg sync.WaitGroup
	ready.Add(instances)
	for i := range instances {
		wg.Add(1)
		go func() {
			defer wg.Done()
			res := &results[i]
			fail := func(format string, args ...any) { res.failures = append(res.failures, fmt.Sprintf(format, args...)) }
			st, err := postgres.Open(dsn, postgres.Options{Instance: fmt.Sprintf("server-%c", 'a'+i)})
			if err != nil {
				fail("open: %v", err)
				ready.Done()
				return
			}
			svc := market.New(st, market.Config{Clock: clock, ListingCooldown: -1})
			defer svc.Close()
			svc.BindMainThread()
			err = svc.Enable()
			ready.Done()
			if err != nil {
				fail("enable: %v", err)
				return
			}
			ready.Wait()
			bidders := np.buyers[i*biddersEach : (i+1)*biddersEach]
			for r := range rounds {
				if _, err := svc.Follow(); err != nil {
					fail("follow: %v", err)
				}
				l, err := svc.GetListing(a.ID)
				if err != nil {
					fail("read #%d: %v", a.ID, err)
					return
				}
				bidder := bidders[r%len(bidders)]
				if l.Auction.Leader == bidder.ID {
					bidder = bidders[(r+1)%len(bidders)]
				}
				_, err = svc.Bid(bidder, a.ID, l.Auction.MinimumBid)
				switch {
				case err == nil:
					res.placed++
				case errors.Is(err, &market.Error{Code: market.CodeBidTooLow}):
					res.tooLow++ // another server's bid came first
				default:
					fail("bid %.2f: %v", l.Auction.MinimumBid, err)
				}
			}
		}()
	}
	wg.Wait()
	placed, tooLow := 0, 0
	for i, r := range results {
		for _, f := range r.failures {
			t.Errorf("server-%c: %s", 'a'+i, f)
		}
		placed, tooLow = placed+r.placed, tooLow+r.tooLow
	}
	t.Logf("%d bids placed, %d refused with the new minimum", placed, tooLow)

	truth := open("truth")
	defer truth.Close()
	l, err := truth.GetListing(a.ID)
	must(t, err)
	au := mustAudit(t, truth)
	if l.Auction.Bids != placed || au.Money != money || escrow(au) != market.Money(l.Auction.CurrentBid*100+0.5) {
		t.Fatalf("after the war: %d bids (placed %d), money %d (want %d), escrow %d for a leading bid of %.2f",
			l.Auction.Bids, placed, au.Money, money, escrow(au), l.Auction.CurrentBid)
	}
	for _, b := range np.buyers {
		want := 1_000_000.0
		if b.ID == l.Auction.Leader {
			want -= l.Auction.CurrentBid
		}
		if ps, _ := truth.GetPlayer(b.ID); ps.Balance != want {
			t.Fatalf("%s has %.2f, want %.2f", b.Name, ps.Balance, want)
		}
	}

	// Both sweep, on and on: only the one with the network's duty settles.
	clock.Advance(2 * time.Hour)
	other := open("other")
	defer other.Close()
	var done []market.Transaction
	for deadline := time.Now().Add(10 * time.Second); len(done) == 0; time.Sleep(5 * time.Millisecond) {
		for _, svc := range []*market.Service{truth, other, truth} {
			if _, _, err := svc.SweepExpired(); err != nil {
				t.Fatal(err)
			}
			if _, err := svc.Follow(); err != nil {
				t.Fatal(err)
			}
		}
		if done, err = other.GetCompletedTransactions(); err != nil || time.Now().After(deadline) {
			t.Fatalf("no settlement (%v)", err)
		}
	}
	if len(done) != 1 || done[0].Buyer != l.Auction.Leader || done[0].Price != l.Auction.CurrentBid {
		t.Fatalf("settled %d times: %+v", len(done), done)
	}
	// other reaches the end of the log: the settlement's every entry.
	for deadline := time.Now().Add(10 * time.Second); other.Version() < truth.Version(); time.Sleep(5 * time.Millisecond) {
		if _, err := other.Follow(); err != nil || time.Now().After(deadline) {
			t.Fatalf("other never reached %d (%v)", truth.Version(), err)
		}
	}
	if au := mustAudit(t, other); au.Money != money || escrow(au) != 0 || au.Listings != 0 {
		t.Fatalf("after the end: money %d (want %d), escrow %d, %d listings", au.Money, money, escrow(au), au.Listings)
	}
	if ps, _ := other.GetPlayer(l.Auction.Leader); ps.Inventory[0] == nil || ps.Inventory[0].Material != "NETHERITE_SWORD" {
		t.Fatalf("the winner's inventory: %+v", ps.Inventory[0])
	}
}

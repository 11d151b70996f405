package market_test

import (
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/rynek/rynek/internal/pgtest"
	"github.com/rynek/rynek/market"
	"github.com/rynek/rynek/market/postgres"
)

// endingTogether is a market of 20 auctions ending in the same second, one
// bid each: bidders 0 to 18 win one each, and bidder 0 a second one.
type endingTogether struct {
	open    func() market.Store // the same market again
	store   *countingStore
	svc     *market.Service
	clock   *market.ManualClock
	winners map[int]uuid.UUID // auction -> its leader
	events  []market.Event
}

func newEndingTogether(t *testing.T) *endingTogether {
	t.Helper()
	open := testStore(t)
	st := open()
	e := &endingTogether{open: open, winners: seedEndingTogether(t, st), clock: market.NewManualClock(t0)}
	e.store = &countingStore{Store: st, fail: map[int]bool{}}
	e.svc = market.New(e.store, market.Config{Clock: e.clock, ListingCooldown: -1})
	e.svc.BindMainThread()
	must(t, e.svc.Enable())
	must(t, e.svc.WaitHistory())
	e.svc.Subscribe(func(ev market.Event) { e.events = append(e.events, ev) })
	t.Cleanup(func() { e.svc.Close() })
	return e
}

// seedEndingTogether loads endingTogether's auctions into st and returns
// each auction's leader.
func seedEndingTogether(t *testing.T, st market.Store) map[int]uuid.UUID {
	t.Helper()
	k := newBulk(t, st)
	seller := market.Player{ID: uuid.New(), Name: "Seller"}
	must(t, k.AddPlayer(seller, 0))
	bidders := make([]market.Player, 19)
	for i := range bidders {
		bidders[i] = market.Player{ID: uuid.New(), Name: fmt.Sprintf("Bidder%d", i)}
		must(t, k.AddPlayer(bidders[i], 100_00))
	}
	winners := map[int]uuid.UUID{}
	for i := range 20 {
		who := bidders[i%len(bidders)].ID
		id, err := k.AddAuction(market.BulkAuction{Seller: seller.ID, Item: market.ItemStack{ID: uuid.New(), Material: "DIAMOND", Amount: 1 + i},
			StartingBid: 10_00, Created: t0, Ends: t0.Add(time.Hour + time.Duration(i)*time.Second/20),
			Bids: []market.BulkBid{{Bidder: who, Amount: market.Money(10_00 + i), At: t0.Add(time.Minute)}}})
		must(t, err)
		winners[id] = who
	}
	must(t, k.Finish())
	return winners
}

// TestAuctionEndingsShareCommits: auctions that end together are settled
// SettleBatch to a commit, not a commit each, and each settlement is still
// whole: its sale (TransactionCompletedEvent) and its end
// (AuctionEndedEvent), one after the other, to its leader. A winner of two
// wins them in different sweeps (their rows could not share a commit). The
// market keeps its money and items, and a restart finds what the sweeps
// left.
func TestAuctionEndingsShareCommits(t *testing.T) {
	e := newEndingTogether(t)
	before := mustAudit(t, e.svc)
	e.clock.Advance(time.Hour + time.Second)
	swept, calls := 0, 0
	endedIn := map[uuid.UUID][]int{} // a winner's wins, by the sweep that settled them
	for more := true; more; calls++ {
		commits, events := e.store.n, len(e.events)
		var n int
		var err error
		n, more, err = e.svc.SweepExpired()
		must(t, err)
		if want := (n + market.SettleBatch - 1) / market.SettleBatch; e.store.n-commits != want {
			t.Fatalf("sweep %d settled %d auctions in %d commits, want %d (%d to a commit)", calls+1, n, e.store.n-commits, want, market.SettleBatch)
		}
		got := e.events[events:]
		if len(got) != 2*n {
			t.Fatalf("sweep %d settled %d auctions and published %d events, want %d", calls+1, n, len(got), 2*n)
		}
		for i := 0; i < len(got); i += 2 {
			done, ok1 := got[i].(market.TransactionCompletedEvent)
			end, ok2 := got[i+1].(market.AuctionEndedEvent)
			if !ok1 || !ok2 || end.TransactionID() != done.Transaction().ID || end.Winner() != e.winners[end.ListingID()] {
				t.Fatalf("sweep %d, events %d and %d: %s and %s, want the sale and the end of one auction to its leader",
					calls+1, i, i+1, got[i].EventName(), got[i+1].EventName())
			}
			endedIn[end.Winner()] = append(endedIn[end.Winner()], calls)
		}
		swept += n
	}
	if swept != 20 || calls < 2 {
		t.Fatalf("%d auctions settled in %d sweeps, want 20 in two at least", swept, calls)
	}
	for who, sweeps := range endedIn {
		if len(sweeps) == 2 && sweeps[0] == sweeps[1] {
			t.Fatalf("%s won two auctions in sweep %d", who, sweeps[0]+1)
		}
	}
	after := mustAudit(t, e.svc)
	if after.Money != before.Money || after.Items != before.Items || escrow(after) != 0 || after.Listings != 0 || len(after.Problems) > 0 {
		t.Fatalf("after the endings: %+v (before: %+v)", after, before)
	}
	must(t, e.svc.Close())
	svc := market.New(e.open(), market.Config{Clock: e.clock, ListingCooldown: -1})
	svc.BindMainThread()
	must(t, svc.Enable())
	must(t, svc.WaitHistory())
	defer svc.Close()
	done, err := svc.GetCompletedTransactions()
	must(t, err)
	if again := mustAudit(t, svc); len(done) != 20 || again.Money != before.Money || again.Listings != 0 || len(again.Problems) > 0 {
		t.Fatalf("after a restart: %d sales, %+v", len(done), again)
	}
}

// TestAuctionEndingsCommitFails: when the commit of a sweep's settlements
// fails, none of them happened: the auctions are still due, with their
// escrow, nothing is published, and the next sweep settles them.
func TestAuctionEndingsCommitFails(t *testing.T) {
	e := newEndingTogether(t)
	before := mustAudit(t, e.svc)
	e.clock.Advance(time.Hour + time.Second)
	e.store.fail[e.store.n+1] = true
	if n, _, err := e.svc.SweepExpired(); !errors.Is(err, market.ErrStore) || n != 0 {
		t.Fatalf("a sweep whose commit fails: %d settled, %v; want none and ErrStore", n, err)
	}
	if au := mustAudit(t, e.svc); au.Money != before.Money || escrow(au) != escrow(before) || au.Listings != 20 || au.OpenTx != 0 || len(e.events) != 0 {
		t.Fatalf("after the failed commit: %+v, %d events", au, len(e.events))
	}
	swept := 0
	for more := true; more; {
		n, m, err := e.svc.SweepExpired()
		must(t, err)
		swept, more = swept+n, m
	}
	if au := mustAudit(t, e.svc); swept != 20 || au.Money != before.Money || au.Listings != 0 || escrow(au) != 0 || len(au.Problems) > 0 {
		t.Fatalf("then: %d settled, %+v", swept, au)
	}
}

// TestNetworkAuctionEndingsShareCommits: two servers on one PostgreSQL
// market both run the expiry timer over the 20 auctions: the one with the
// network's duty settles them, SettleBatch to a commit, and the other learns of
// them by following the log. Each auction ends once, to its leader, and
// each server's listeners hear of each end once; both end with the same
// audit, the market's money and items, no listing and 20 sales.
func TestNetworkAuctionEndingsShareCommits(t *testing.T) {
	dsn := pgtest.Database(t)
	seed, err := postgres.Open(dsn, postgres.Options{Instance: "seed", Tool: true})
	must(t, err)
	winners := seedEndingTogether(t, seed)
	must(t, seed.Close())
	clock := market.NewManualClock(t0)
	type server struct {
		svc   *market.Service
		ended map[int]int // auction -> the AuctionEndedEvents heard
	}
	var servers []*server
	for _, name := range []string{"server-a", "server-b"} {
		st, err := postgres.Open(dsn, postgres.Options{Instance: name})
		must(t, err)
		svc := market.New(st, market.Config{Clock: clock, ListingCooldown: -1})
		svc.BindMainThread()
		must(t, svc.Enable())
		t.Cleanup(func() { svc.Close() })
		s := &server{svc: svc, ended: map[int]int{}}
		svc.Subscribe(func(e market.Event) {
			if end, ok := e.(market.AuctionEndedEvent); ok {
				if end.Winner() != winners[end.ListingID()] {
					t.Errorf("%s: auction #%d ended to %s, want %s", name, end.ListingID(), end.Winner(), winners[end.ListingID()])
				}
				s.ended[end.ListingID()]++
			}
		})
		servers = append(servers, s)
	}
	before := mustAudit(t, servers[0].svc)
	clock.Advance(time.Hour + time.Second)
	done := func() bool {
		for _, s := range servers {
			if len(s.ended) < len(winners) {
				return false
			}
		}
		return true
	}
	for deadline := time.Now().Add(20 * time.Second); !done(); time.Sleep(5 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("the servers heard of %d and %d of %d ends", len(servers[0].ended), len(servers[1].ended), len(winners))
		}
		for _, s := range servers {
			if _, _, err := s.svc.SweepExpired(); err != nil {
				t.Fatal(err)
			}
			if _, err := s.svc.Follow(); err != nil {
				t.Fatal(err)
			}
		}
	}
	for _, s := range servers {
		for id, n := range s.ended {
			if n != 1 {
				t.Fatalf("auction #%d ended %d times", id, n)
			}
		}
		sales, err := s.svc.GetCompletedTransactions()
		must(t, err)
		au := mustAudit(t, s.svc)
		if len(sales) != len(winners) || au.Money != before.Money || au.Items != before.Items || au.Listings != 0 || escrow(au) != 0 || len(au.Problems) > 0 {
			t.Fatalf("after the endings: %d sales, %+v (before: %+v)", len(sales), au, before)
		}
	}
}

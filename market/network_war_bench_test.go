package market_test

import (
	"errors"
	"fmt"
	"os"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/rynek/rynek/internal/pgtest"
	"github.com/rynek/rynek/market"
	"github.com/rynek/rynek/market/postgres"
)

// warLength is how long BenchmarkNetworkBiddingWar's servers bid: 3 s, or
// RYNEK_BENCH_WAR (a Go duration).
func warLength(tb testing.TB) time.Duration {
	d := 3 * time.Second
	if v := os.Getenv("RYNEK_BENCH_WAR"); v != "" {
		var err error
		if d, err = time.ParseDuration(v); err != nil || d <= 0 {
			tb.Fatalf("RYNEK_BENCH_WAR=%q: want a duration such as 30s", v)
		}
	}
	return d
}

// warConfig is every server's configuration in the war: a bid beats the
// leader by a cent, so that thousands of bids stay within the bidders'
// money (the default 5% would multiply the price by 1.05 a bid).
func warConfig() market.Config {
	cfg := networkConfig()
	cfg.Auctions = market.AuctionRules{MinIncrement: 1, IncrementBasisPoints: -1}
	return cfg
}

// conflictCounter is a server's PostgreSQL store that counts the commits
// it refused because another server changed the rows first (ErrConflict):
// the service retries a bid once after such a refusal, so its caller never
// sees most of them.
type conflictCounter struct {
	*postgres.Store
	conflicts atomic.Int64
}

func (c *conflictCounter) Commit(b *market.Batch) error {
	err := c.Store.Commit(b)
	if errors.Is(err, market.ErrConflict) {
		c.conflicts.Add(1)
	}
	return err
}

// warServer is one server's side of the war: what its bidders did.
type warServer struct {
	placed, tooLow, conflicted int // bids placed; refused with the new minimum; refused twice by conflicts
	conflicts                  int64
	took                       []time.Duration // each Bid call
	failures                   []string
}

// BenchmarkNetworkBiddingWar: three servers on one PostgreSQL market, two
// bidders on each, raise one auction as fast as they can for 3 seconds
// (RYNEK_BENCH_WAR): each server follows the others' bids, reads the
// auction's minimum and bids it. It reports the bids placed a second, the
// commits refused because another server's bid came first (conflicts/s:
// the service then catches up and judges the bid again) and the bids
// refused with the new minimum after such a conflict (too-low/s), and a
// Bid call's time. Afterwards, on every server: only the leader's bid is
// held, every other bidder has all their money, the audit balances, and
// the log holds every bid, each above the one before and outbidding its
// leader. One iteration is one war on a new market: run it with
// -benchtime 1x and -count.
func BenchmarkNetworkBiddingWar(b *testing.B) {
	length := warLength(b)
	var servers []warServer
	var spent time.Duration
	b.StopTimer()
	for range b.N {
		got, d := biddingWar(b, length)
		servers, spent = append(servers, got...), spent+d
	}
	var all warServer
	for _, s := range servers {
		all.placed, all.tooLow, all.conflicted = all.placed+s.placed, all.tooLow+s.tooLow, all.conflicted+s.conflicted
		all.conflicts += s.conflicts
		all.took = append(all.took, s.took...)
	}
	per := func(n int) float64 { return float64(n) / spent.Seconds() }
	b.ReportMetric(per(all.placed), "bids/s")
	b.ReportMetric(per(int(all.conflicts)), "conflicts/s")
	b.ReportMetric(per(all.tooLow), "too-low/s")
	b.ReportMetric(per(all.conflicted), "conflict-refused/s")
	b.ReportMetric(float64(percentile(all.took, 0.5).Microseconds()), "bid-p50-µs")
	b.ReportMetric(float64(percentile(all.took, 0.99).Microseconds()), "bid-p99-µs")
}

// biddingWar runs one war of length on a new market and checks what it
// left; it returns each server's side and how long the bidding took.
func biddingWar(b *testing.B, length time.Duration) ([]warServer, time.Duration) {
	const servers, biddersEach = 3, 2
	dsn := pgtest.Database(b)
	np := seedNetwork(b, dsn, 1, servers*biddersEach, 0)
	seller := np.sellers[0]
	auction, money := startWarAuction(b, dsn, seller)

	results := make([]warServer, servers)
	var opened, started, bidding, stopped sync.WaitGroup
	opened.Add(servers)
	started.Add(1)
	bidding.Add(servers)
	stopped.Add(servers)
	versions := make([]uint64, servers) // each server's after its last bid
	var began time.Time
	for i := range servers {
		go func() {
			defer bidding.Done()
			var stop sync.Once
			defer stop.Do(stopped.Done)
			runtime.LockOSThread()
			res := &results[i]
			fail := func(format string, args ...any) { res.failures = append(res.failures, fmt.Sprintf(format, args...)) }
			svc, st, err := openWarServer(dsn, fmt.Sprintf("server-%c", 'a'+i))
			opened.Done()
			if err != nil {
				fail("open: %v", err)
				return
			}
			defer svc.Close()
			started.Wait()
			bidders := np.buyers[i*biddersEach : (i+1)*biddersEach]
			for r := 0; time.Since(began) < length; r++ {
				if _, err := svc.Follow(); err != nil {
					fail("follow: %v", err)
					return
				}
				l, err := svc.GetListing(auction)
				if err != nil {
					fail("read #%d: %v", auction, err)
					return
				}
				bidder := bidders[r%len(bidders)]
				if l.Auction.Leader == bidder.ID {
					bidder = bidders[(r+1)%len(bidders)]
				}
				t := time.Now()
				_, err = svc.Bid(bidder, auction, l.Auction.MinimumBid)
				res.took = append(res.took, time.Since(t))
				switch {
				case err == nil:
					res.placed++
				case errors.Is(err, &market.Error{Code: market.CodeBidTooLow}):
					res.tooLow++
				case errors.Is(err, &market.Error{Code: market.CodeConflict}):
					res.conflicted++
				default:
					fail("bid %.2f: %v", l.Auction.MinimumBid, err)
					return
				}
			}
			res.conflicts = st.conflicts.Load()
			// Once every server has stopped, the newest of their versions
			// is the log's head (each one's last commit is in its own).
			// This server reaches it, then its audit must balance: the
			// market's money, only the leader's bid held.
			versions[i] = svc.Version()
			stop.Do(stopped.Done)
			stopped.Wait()
			if err := followAll(svc, slices.Max(versions)); err != nil {
				fail("%v", err)
				return
			}
			checkWarEscrow(svc, auction, np.buyers, money, fail)
		}()
	}
	opened.Wait()
	b.StartTimer()
	began = time.Now()
	started.Done()
	stopped.Wait()
	spent := time.Since(began)
	b.StopTimer()
	bidding.Wait()
	placed := 0
	for i, r := range results {
		for _, f := range r.failures {
			b.Errorf("server-%c: %s", 'a'+i, f)
		}
		placed += r.placed
	}
	if b.Failed() {
		b.FailNow()
	}
	checkWarHistory(b, dsn, auction, placed)
	var conflicts int64
	tooLow := 0
	for _, r := range results {
		conflicts, tooLow = conflicts+r.conflicts, tooLow+r.tooLow
	}
	b.Logf("%d bids placed in %s, %d commits refused by a conflict, %d bids refused with the new minimum; every server's audit balances and the log holds every bid",
		placed, spent.Round(time.Millisecond), conflicts, tooLow)
	return results, spent
}

// startWarAuction puts the seller's one sword up for auction, from 10.00,
// for a day, and returns the auction and the market's money.
func startWarAuction(tb testing.TB, dsn string, seller market.Player) (int, market.Money) {
	tb.Helper()
	svc, _, err := openWarServer(dsn, "setup")
	must(tb, err)
	defer svc.Close()
	_, _, err = svc.GiveItem(seller.ID, market.ItemStack{Material: "NETHERITE_SWORD", Amount: 1})
	must(tb, err)
	ps, err := svc.GetPlayer(seller.ID)
	must(tb, err)
	a, err := svc.StartAuction(seller, *ps.Inventory[0], 10, 0, 24*time.Hour)
	must(tb, err)
	return a.ID, mustAudit(tb, svc).Money
}

// openWarServer opens a server of the war, bound to the calling
// goroutine's thread, on a store that counts its conflicts.
func openWarServer(dsn, name string) (*market.Service, *conflictCounter, error) {
	pg, err := postgres.Open(dsn, postgres.Options{Instance: name})
	if err != nil {
		return nil, nil, err
	}
	st := &conflictCounter{Store: pg}
	svc := market.New(st, warConfig())
	if err := svc.BindMainThread(); err != nil {
		pg.Close()
		return nil, nil, err
	}
	if err := svc.Enable(); err != nil {
		pg.Close()
		return nil, nil, err
	}
	return svc, st, nil
}

// followAll follows the log until svc has every entry up to head.
func followAll(svc *market.Service, head uint64) error {
	for deadline := time.Now().Add(30 * time.Second); svc.Version() < head; time.Sleep(5 * time.Millisecond) {
		if _, err := svc.Follow(); err != nil {
			return fmt.Errorf("follow: %w", err)
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("at version %d, never reached %d", svc.Version(), head)
		}
	}
	return nil
}

// checkWarEscrow checks what svc holds after the war: the market's money,
// in the escrow exactly the leading bid, every bidder but the leader with
// all of their money, and the leader with all of it less their bid.
func checkWarEscrow(svc *market.Service, auction int, bidders []market.Player, money market.Money, fail func(string, ...any)) {
	l, err := svc.GetListing(auction)
	if err != nil {
		fail("read #%d: %v", auction, err)
		return
	}
	a, err := svc.Audit()
	bid := market.Money(l.Auction.CurrentBid*100 + 0.5)
	if err != nil || len(a.Problems) > 0 || a.Money != money || escrow(a) != bid {
		fail("the audit after the war: money %d (want %d), escrow %d for a leading bid of %d, problems %v, %v",
			a.Money, money, escrow(a), bid, a.Problems, err)
	}
	for _, p := range bidders {
		want := 1_000_000.0
		if p.ID == l.Auction.Leader {
			want -= l.Auction.CurrentBid
		}
		if ps, err := svc.GetPlayer(p.ID); err != nil || ps.Balance != want {
			fail("%s has %.2f, want %.2f (%v)", p.Name, ps.Balance, want, err)
		}
	}
}

// checkWarHistory reads the market's log on a server opened after the war:
// it holds a BidPlacedEvent for each of the placed bids, each above the one
// before and outbidding the leader the one before made, and the auction
// counts them all, its newest bids the log's newest.
func checkWarHistory(tb testing.TB, dsn string, auction, placed int) {
	tb.Helper()
	svc, _, err := openWarServer(dsn, "truth")
	must(tb, err)
	defer svc.Close()
	var bids []market.BidPlacedEvent
	for after := uint64(0); ; {
		page, err := svc.EventsSince(after, market.MaxEventsPage)
		must(tb, err)
		for _, e := range page.Events {
			if bp, ok := e.(market.BidPlacedEvent); ok && bp.Listing().ID == auction {
				bids = append(bids, bp)
			}
			after = e.Seq()
		}
		if len(page.Events) == 0 {
			break
		}
	}
	l, err := svc.GetListing(auction)
	must(tb, err)
	if len(bids) != placed || l.Auction.Bids != placed {
		tb.Fatalf("%d bids placed; the log holds %d, the auction counts %d", placed, len(bids), l.Auction.Bids)
	}
	prevAmount, prevLeader := 0.0, uuid.Nil
	for i, bp := range bids {
		if bp.Amount() <= prevAmount || bp.PreviousLeader() != prevLeader {
			tb.Fatalf("bid %d: %.2f by %s over %s; the bid before: %.2f by %s", i+1, bp.Amount(), bp.Bidder(),
				bp.PreviousLeader(), prevAmount, prevLeader)
		}
		prevAmount, prevLeader = bp.Amount(), bp.Bidder()
	}
	if placed > 0 && (l.Auction.CurrentBid != prevAmount || l.Auction.Leader != prevLeader) {
		tb.Fatalf("the auction's leading bid %.2f by %s; the log's last %.2f by %s", l.Auction.CurrentBid, l.Auction.Leader, prevAmount, prevLeader)
	}
	newest, err := svc.AuctionBids(auction)
	must(tb, err)
	for i, h := range newest {
		if e := bids[len(bids)-1-i]; h.Bidder != e.Bidder() || h.Amount != e.Amount() {
			tb.Fatalf("the auction's bid %d from the newest: %.2f by %s; the log's: %.2f by %s", i+1, h.Amount, h.Bidder, e.Amount(), e.Bidder())
		}
	}
}

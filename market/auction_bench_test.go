package market_test

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	"golang.org/x/sys/unix"

	"github.com/rynek/rynek/internal/pgtest"
	"github.com/rynek/rynek/market"
	"github.com/rynek/rynek/market/postgres"
	"github.com/rynek/rynek/market/sqlite"
)

// endingsTotal is how many auctions BenchmarkAuctionEndings ends at once:
// the 10,000, or RYNEK_BENCH_AUCTIONS.
func endingsTotal(tb testing.TB) int {
	n := 10_000
	if v := os.Getenv("RYNEK_BENCH_AUCTIONS"); v != "" {
		var err error
		if n, err = strconv.Atoi(v); err != nil || n < 1 {
			tb.Fatalf("RYNEK_BENCH_AUCTIONS=%q: want a positive number", v)
		}
	}
	return n
}

// endingsPace is the pace of BenchmarkAuctionEndings's ticks: back to back
// (0), or RYNEK_BENCH_TICK (a Go duration: 50ms is `rynek serve`'s tick,
// 100ms the console's), which leaves the store's background work (SQLite's
// WAL checkpoints) the time between ticks that it has in a server.
func endingsPace(tb testing.TB) time.Duration {
	v := os.Getenv("RYNEK_BENCH_TICK")
	if v == "" {
		return 0
	}
	d, err := time.ParseDuration(v)
	if err != nil || d < 0 {
		tb.Fatalf("RYNEK_BENCH_TICK=%q: want a duration such as 50ms", v)
	}
	return d
}

// BenchmarkAuctionEndings ends 10,000 auctions, each with a leader, in one
// second and runs the server's expiry timer (SweepExpired, the call the
// console and `rynek serve` make every tick) back to back (or at the pace
// RYNEK_BENCH_TICK sets) until every one has settled, measuring each tick by the wall clock and by the main
// thread's CPU time. The target: no tick over 5 ms. One iteration is one
// whole drain of a new market; run it with -benchtime 1x and -count.
// Afterwards each auction has ended exactly once, to its leader at the
// leading bid, and the audit and the integrity check find the money and the
// items all there: the benchmark fails otherwise. The bids=none cases end
// 10,000 auctions nobody bid on (issue 40): each goes back to its seller's
// mailbox, in the sweep's batches of expired listings, once.
func BenchmarkAuctionEndings(b *testing.B) {
	sqliteSpec := func(tb testing.TB) string { return "sqlite:" + filepath.Join(tb.TempDir(), "market.db") }
	b.Run("store=sqlite", func(b *testing.B) { benchAuctionEndings(b, sqliteSpec, true) })
	b.Run("store=postgres", func(b *testing.B) { benchAuctionEndings(b, pgtest.Database, true) })
	b.Run("store=sqlite/bids=none", func(b *testing.B) { benchAuctionEndings(b, sqliteSpec, false) })
	b.Run("store=postgres/bids=none", func(b *testing.B) { benchAuctionEndings(b, pgtest.Database, false) })
}

// endingsMarket is a market of auctions all ending in the same second, as
// BenchmarkAuctionEndings seeds it.
type endingsMarket struct {
	spec    string
	end     time.Time              // the last auction's end
	bids    bool                   // the auctions have bids
	ends    map[int]time.Time      // each auction's end
	leaders map[int]market.BulkBid // each auction's leading bid (none without bids)
	sellers map[int]uuid.UUID      // each auction's seller
	items   map[int]uuid.UUID      // each auction's stack
	ended   map[int]market.AuctionEndedEvent
	svc     *market.Service
	before  market.Audit
}

func benchAuctionEndings(b *testing.B, database func(testing.TB) string, bids bool) {
	n := endingsTotal(b)
	runtime.LockOSThread() // the thread the service binds; its CPU time is measured
	defer runtime.UnlockOSThread()
	pace := endingsPace(b)
	var ticks []tickCost
	settled, spent, draining := 0, time.Duration(0), time.Duration(0)
	b.StopTimer()
	for range b.N {
		m := seedEndings(b, database(b), n, bids)
		m.open(b)
		start := time.Now()
		got := m.drain(b, pace)
		b.StopTimer()
		draining += time.Since(start)
		m.verify(b)
		ticks = append(ticks, got...)
		settled += len(m.ended)
		for _, t := range got {
			spent += t.wall
		}
	}
	var wall, cpu, own []time.Duration // own: the ticks the scheduler let run
	for _, t := range ticks {
		wall, cpu = append(wall, t.wall), append(cpu, t.cpu)
		if !t.preempted {
			own = append(own, t.wall)
		}
	}
	report := func(ds []time.Duration, name string) {
		slices.Sort(ds)
		at := func(q float64) float64 { return float64(ds[int(q*float64(len(ds)-1))].Microseconds()) }
		b.ReportMetric(at(1), name+"-max-µs")
		b.ReportMetric(at(0.99), name+"-p99-µs")
		b.ReportMetric(at(0.5), name+"-p50-µs")
	}
	report(wall, "tick")
	report(cpu, "tick-cpu")
	if len(own) > 0 {
		report(own, "tick-unpreempted")
	}
	b.ReportMetric(100*float64(len(wall)-len(own))/float64(len(wall)), "preempted-%")
	b.ReportMetric(float64(len(ticks))/float64(b.N), "ticks-to-drain")
	b.ReportMetric(float64(settled)/spent.Seconds(), "settlements/s")
	b.ReportMetric(draining.Seconds()/float64(b.N), "drain-s")
}

// seedEndings loads n auctions into a new market at spec: 1,000 sellers
// (ten auctions each) and 1,000 bidders, every auction with one to three
// bids whose leading one the market holds in escrow (with bids; else none),
// all ending within one second, an hour after they started.
func seedEndings(tb testing.TB, spec string, n int, withBids bool) *endingsMarket {
	tb.Helper()
	st, err := openSpecAs(spec, "seed")
	must(tb, err)
	defer st.Close()
	k, err := market.NewBulk(st)
	must(tb, err)
	players := max(3, min(1000, n)) // three bidders at least: an auction's bids are by three
	sellers, bidders := make([]uuid.UUID, players), make([]uuid.UUID, players)
	for i := range players {
		sellers[i], bidders[i] = uuid.New(), uuid.New()
		must(tb, k.AddPlayer(market.Player{ID: sellers[i], Name: fmt.Sprintf("Seller%d", i)}, 0))
		must(tb, k.AddPlayer(market.Player{ID: bidders[i], Name: fmt.Sprintf("Bidder%d", i)}, 1_000_00))
	}
	m := &endingsMarket{spec: spec, end: t0.Add(time.Hour + time.Second), bids: withBids, ends: map[int]time.Time{},
		leaders: map[int]market.BulkBid{}, sellers: map[int]uuid.UUID{}, items: map[int]uuid.UUID{},
		ended: map[int]market.AuctionEndedEvent{}}
	for i := range n {
		bids := make([]market.BulkBid, 1+i%3)
		if !withBids {
			bids = nil
		}
		for j := range bids {
			// The leader (the last bid) goes round the bidders, so that a
			// bidder wins about n/1,000 auctions; the bids before it are by
			// the bidders just before.
			who := (i + j + players - len(bids) + 1) % players
			bids[j] = market.BulkBid{Bidder: bidders[who], Amount: market.Money(1000 + 100*j), At: t0.Add(time.Minute)}
		}
		seller := sellers[(i/10)%players]
		// Every auction ends in the same second: the first at the hour, the
		// last just before the next second.
		ends := t0.Add(time.Hour + time.Duration(i)*time.Second/time.Duration(n))
		stack := uuid.New()
		id, err := k.AddAuction(market.BulkAuction{Seller: seller, Item: market.ItemStack{ID: stack,
			Material: "DIAMOND_SWORD", Amount: 1}, StartingBid: 1000, Created: t0, Ends: ends, Bids: bids})
		must(tb, err)
		m.sellers[id], m.items[id], m.ends[id] = seller, stack, ends
		if withBids {
			m.leaders[id] = bids[len(bids)-1]
		}
	}
	must(tb, k.Finish())
	return m
}

// open starts the market's service a minute before the auctions end, bound
// to the calling goroutine's thread, with a listener that records each
// AuctionEndedEvent.
func (m *endingsMarket) open(tb testing.TB) {
	tb.Helper()
	st, err := openSpecAs(m.spec, "bench")
	must(tb, err)
	clock := market.NewManualClock(m.end.Add(-time.Minute))
	m.svc = market.New(st, market.Config{Clock: clock, ListingCooldown: -1})
	tb.Cleanup(func() { m.svc.Close() })
	must(tb, m.svc.BindMainThread())
	must(tb, m.svc.Enable())
	must(tb, m.svc.WaitHistory())
	m.svc.Subscribe(func(e market.Event) {
		if ae, ok := e.(market.AuctionEndedEvent); ok {
			if prev, again := m.ended[ae.ListingID()]; again {
				tb.Errorf("auction #%d ended twice: %s and %s", ae.ListingID(), prev.TransactionID(), ae.TransactionID())
			}
			m.ended[ae.ListingID()] = ae
		}
	})
	m.before = mustAudit(tb, m.svc)
	if len(m.before.Problems) > 0 || (escrow(m.before) == 0) == m.bids {
		tb.Fatalf("the seeded market: escrow %d, problems %v", escrow(m.before), m.before.Problems)
	}
	clock.Advance(time.Minute + time.Millisecond) // every auction's end has passed
}

// tickCost is what one tick cost: its wall-clock time, the main
// thread's CPU time, and whether the scheduler took the CPU away from the
// thread meanwhile (an involuntary context switch: on a shared machine,
// someone else's work, which the wall clock counts and the CPU time does
// not).
type tickCost struct {
	wall, cpu time.Duration
	preempted bool
}

// drain runs the expiry timer back to back, or a call each pace, timing
// each call with the benchmark's timer running, until a call finds no more
// due, and returns each tick's cost.
func (m *endingsMarket) drain(b *testing.B, pace time.Duration) []tickCost {
	b.StartTimer()
	var ticks []tickCost
	next := time.Now()
	for more := true; more; {
		if pace > 0 {
			next = next.Add(pace)
			time.Sleep(time.Until(next))
		}
		s0, c0, w0 := threadSwitches(b), threadCPU(b), time.Now()
		var err error
		_, more, err = m.svc.SweepExpired()
		ticks = append(ticks, tickCost{wall: time.Since(w0), cpu: threadCPU(b) - c0, preempted: threadSwitches(b) != s0})
		if err != nil {
			b.Fatalf("tick %d: %v", len(ticks), err)
		}
	}
	return ticks
}

// verify checks that every auction ended once, to its leader at the
// leading bid (without bids: to its seller's mailbox, once), that no
// listing is left, and that the money and items are what the market held
// before: by the service's audit and by the integrity check `rynek check`
// runs on the store.
func (m *endingsMarket) verify(tb testing.TB) {
	tb.Helper()
	if len(m.ended) != len(m.sellers) {
		tb.Fatalf("%d of %d auctions ended", len(m.ended), len(m.sellers))
	}
	for id, lead := range m.leaders {
		e := m.ended[id]
		if e.Winner() != lead.Bidder || e.Price() != lead.Amount.Float() || e.TransactionID() == "" {
			tb.Fatalf("auction #%d ended to %s at %.2f (tx %q), want %s at %.2f", id, e.Winner(), e.Price(),
				e.TransactionID(), lead.Bidder, lead.Amount.Float())
		}
	}
	if !m.bids {
		m.verifyReturned(tb)
	}
	done, err := m.svc.GetCompletedTransactions()
	must(tb, err)
	after := mustAudit(tb, m.svc)
	if len(done) != len(m.leaders) || after.Listings != 0 || after.OpenTx != 0 || len(after.Problems) > 0 ||
		after.Money != m.before.Money || after.Items != m.before.Items || escrow(after) != 0 {
		tb.Fatalf("after the endings: %d sales of %d auctions, %d listings, %d open, money %d (was %d), items %d (was %d), escrow %d, problems %v",
			len(done), len(m.sellers), after.Listings, after.OpenTx, after.Money, m.before.Money, after.Items,
			m.before.Items, escrow(after), after.Problems)
	}
	must(tb, m.svc.Close())
	snap, err := openSnapshotSpec(m.spec)
	must(tb, err)
	defer snap.Close()
	r, err := market.Check(snap, nil)
	must(tb, err)
	if !r.Sound() {
		tb.Fatalf("the integrity check: %v", r.Problems)
	}
}

// verifyReturned checks that every auction nobody bid on ended without a
// winner and its stack is in its seller's mailbox exactly once.
func (m *endingsMarket) verifyReturned(tb testing.TB) {
	tb.Helper()
	mailed := map[uuid.UUID]int{} // stack: times in a mailbox
	seen := map[uuid.UUID]bool{}
	for _, seller := range m.sellers {
		if seen[seller] {
			continue
		}
		seen[seller] = true
		st, err := m.svc.GetPlayer(seller)
		must(tb, err)
		for _, e := range st.Mailbox {
			mailed[e.Item.ID]++
		}
	}
	for id, stack := range m.items {
		if e := m.ended[id]; e.Winner() != uuid.Nil || e.TransactionID() != "" {
			tb.Fatalf("auction #%d without bids ended to %s (tx %q)", id, e.Winner(), e.TransactionID())
		}
		if mailed[stack] != 1 {
			tb.Fatalf("auction #%d's stack is in its seller's mailbox %d times, want once", id, mailed[stack])
		}
	}
}

// openSnapshotSpec opens the market spec names to be read at one instant,
// as `rynek check` does.
func openSnapshotSpec(spec string) (market.Snapshot, error) {
	if path, ok := strings.CutPrefix(spec, "sqlite:"); ok {
		return sqlite.OpenSnapshot(path)
	}
	return postgres.OpenSnapshot(spec, "check")
}

// threadCPU is the CPU time of the calling OS thread so far.
func threadCPU(tb testing.TB) time.Duration {
	var ts unix.Timespec
	if err := unix.ClockGettime(unix.CLOCK_THREAD_CPUTIME_ID, &ts); err != nil {
		tb.Fatal(err)
	}
	return time.Duration(ts.Nano())
}

// threadSwitches counts the involuntary context switches of the calling
// OS thread so far.
func threadSwitches(tb testing.TB) int64 {
	var ru unix.Rusage
	if err := unix.Getrusage(unix.RUSAGE_THREAD, &ru); err != nil {
		tb.Fatal(err)
	}
	return ru.Nivcsw
}

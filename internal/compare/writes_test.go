package compare_test

// Durable writes: Rynek's SellItem and full purchase saga against their
// floors — one raw SQLite transaction that writes the rows a sell writes
// (the seller's inventory, the listing, the event log entry), and one that
// writes a purchase's (rawPurchase), with the sizes of a real sell and
// purchase, on a copy of the same market, through the same driver with
// exactly the same pragmas (sqlite.DSN).

import (
	"context"
	"database/sql"
	"fmt"
	"golang.org/x/sys/unix"
	"math"
	"os"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/rynek/rynek/internal/benchdata"
	"github.com/rynek/rynek/market"
	"github.com/rynek/rynek/market/sqlite"
)

// writesOpen opens a market of n listings with limits that never stop a
// benchmark (cooldown off, no listing cap).
func writesOpen(tb testing.TB, n int, opts sqlite.Options) (*market.Service, *sqlite.Store) {
	return writesOpenWith(tb, n, opts, benchdata.Unlimited)
}

// writesOpenBehind is writesOpen's market committing behind the tick, as
// the console and rynek serve run it.
func writesOpenBehind(tb testing.TB, n int, opts sqlite.Options) (*market.Service, *sqlite.Store) {
	cfg := benchdata.Unlimited
	cfg.CommitBehind = true
	return writesOpenWith(tb, n, opts, cfg)
}

func writesOpenWith(tb testing.TB, n int, opts sqlite.Options, cfg market.Config) (*market.Service, *sqlite.Store) {
	tb.Helper()
	svc, st := benchdata.Open(tb, benchdata.Path(tb, n, -1), opts, cfg)
	tb.Cleanup(func() { svc.Close() })
	return svc, st
}

// behindLoop runs n of do as a server's main thread runs changes committed
// behind it: it takes the outcomes as it goes (Settle, each tick's work),
// waits for the committer only when it is a whole group behind, and ends
// when the last change is durable (Flush), so that the rate counts durable
// changes. A refusal fails the benchmark.
func behindLoop(b *testing.B, svc *market.Service, n int, do func(i int) error) {
	const ahead = 1024 // well under the 4,096 at which a change is refused
	for i := 0; i < n; i++ {
		if err := do(i); err != nil {
			b.Fatal(err)
		}
		if r := svc.Settle(); len(r) > 0 {
			b.Fatalf("refused: %v", r[0].Err)
		}
		if svc.InFlight() > ahead {
			if r := svc.Flush(); len(r) > 0 {
				b.Fatalf("refused: %v", r[0].Err)
			}
		}
	}
	if r := svc.Flush(); len(r) > 0 {
		b.Fatalf("refused: %v", r[0].Err)
	}
}

type writesSource struct {
	p market.Player
	s market.ItemStack
}

// writesSources lists one-item sells that the players' inventories allow.
func writesSources(tb testing.TB, svc *market.Service) []writesSource {
	players, err := svc.Players()
	if err != nil {
		tb.Fatal(err)
	}
	var out []writesSource
	for _, p := range players {
		// The demo gives its busy sellers a listing tier of their own
		// (market.limit.<n>), which beats the benchmark's unlimited rules:
		// a seller's items are offered only up to the listings their tier
		// still allows.
		room := math.MaxInt
		for _, perm := range p.Permissions {
			rest, tier := strings.CutPrefix(perm, market.PermListingLimit)
			if n, err := strconv.Atoi(rest); tier && err == nil {
				listed, err := svc.GetListingsBySeller(p.ID)
				if err != nil {
					tb.Fatal(err)
				}
				room = n - len(listed)
			}
		}
		st, _ := svc.GetPlayer(p.ID)
		for _, x := range st.Inventory {
			if x == nil {
				continue
			}
			one := *x
			one.Amount = 1
			for k := 0; k < x.Amount && room > 0; k++ {
				out = append(out, writesSource{p, one})
				room--
			}
		}
	}
	return out
}

// rawSell is the floor: BEGIN IMMEDIATE; the seller's inventory, the
// listing and the log entry; COMMIT — on one connection with the store's
// pragmas, rotating over the market's players as the sells do.
type rawSell struct {
	db                                    *sql.DB
	begin, player, listing, event, commit *sql.Stmt
	players                               [][]byte
	inventory, rec, body                  []byte
	nextListing, nextSeq                  int64
}

// checkpointLikeTheStore runs the WAL checkpoints the store runs on its own
// goroutine (a passive one every 200 ms, a restart past 64 MiB), so that the
// raw contender's commits append to a WAL of the same size as the store's:
// a WAL left to grow makes every synced commit also sync the file's new size.
func checkpointLikeTheStore(tb testing.TB, path string, opts sqlite.Options) {
	db, err := sql.Open("sqlite", sqlite.DSN(path, opts))
	if err != nil {
		tb.Fatal(err)
	}
	db.SetMaxOpenConns(1)
	stop, done := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(done)
		tick := time.NewTicker(200 * time.Millisecond)
		defer tick.Stop()
		for {
			select {
			case <-stop:
				return
			case <-tick.C:
				db.Exec("PRAGMA wal_checkpoint(PASSIVE)")
				if fi, err := os.Stat(path + "-wal"); err == nil && fi.Size() > 64<<20 {
					db.Exec("PRAGMA wal_checkpoint(TRUNCATE)")
				}
			}
		}
	}()
	tb.Cleanup(func() { close(stop); <-done; db.Close() })
}

// newRawSell prepares the floor on a copy of the market of n listings. The
// row sizes come from one real sell on that copy: the seller's inventory
// after it, its listing record and its log entry.
func newRawSell(tb testing.TB, n int, opts sqlite.Options) *rawSell {
	tb.Helper()
	path := benchdata.Path(tb, n, -1)
	svc, st := benchdata.Open(tb, path, opts, benchdata.Unlimited)
	src := writesSources(tb, svc)[0]
	l, err := svc.SellItem(src.p, src.s, 10)
	if err != nil {
		tb.Fatal(err)
	}
	r := &rawSell{}
	if _, err := st.ReadEvents(svc.Version()-1, 1, func(e market.EventRow) error {
		r.body = append([]byte(nil), e.Body...)
		return nil
	}); err != nil || r.body == nil {
		tb.Fatalf("the sell's log entry: %v", err)
	}
	if err := svc.Close(); err != nil {
		tb.Fatal(err)
	}
	if r.db, err = sql.Open("sqlite", sqlite.DSN(path, opts)); err != nil {
		tb.Fatal(err)
	}
	r.db.SetMaxOpenConns(1)
	tb.Cleanup(func() { r.db.Close() })
	checkpointLikeTheStore(tb, path, opts)
	q := func(query string, args []any, dest ...any) {
		if err := r.db.QueryRow(query, args...).Scan(dest...); err != nil {
			tb.Fatal(err)
		}
	}
	q("SELECT inventory FROM players WHERE id = ?", []any{src.p.ID[:]}, &r.inventory)
	q("SELECT rec FROM listings WHERE id = ?", []any{l.ID}, &r.rec)
	q("SELECT max(id) + 1 FROM listings", nil, &r.nextListing)
	q("SELECT max(seq) + 1 FROM events", nil, &r.nextSeq)
	rows, err := r.db.Query("SELECT id FROM players")
	if err != nil {
		tb.Fatal(err)
	}
	for rows.Next() {
		var id []byte
		rows.Scan(&id)
		r.players = append(r.players, id)
	}
	rows.Close()
	ctx := context.Background()
	for _, s := range []struct {
		st **sql.Stmt
		q  string
	}{{&r.begin, "BEGIN IMMEDIATE"},
		{&r.player, "UPDATE players SET balance = ?, last_sell = ?, inventory = ? WHERE id = ?"},
		{&r.listing, "INSERT INTO listings (id, rec) VALUES (?, ?)"},
		{&r.event, "INSERT INTO events (seq, kind, at, body, published) VALUES (?, ?, ?, ?, ?)"},
		{&r.commit, "COMMIT"}} {
		if *s.st, err = r.db.PrepareContext(ctx, s.q); err != nil {
			tb.Fatal(err)
		}
	}
	return r
}

func (r *rawSell) one() error {
	if _, err := r.begin.Exec(); err != nil {
		return err
	}
	p := r.players[int(r.nextSeq)%len(r.players)]
	if _, err := r.player.Exec(1000, r.nextSeq, r.inventory, p); err != nil {
		return err
	}
	if _, err := r.listing.Exec(r.nextListing, r.rec); err != nil {
		return err
	}
	if _, err := r.event.Exec(r.nextSeq, "ListingCreatedEvent", r.nextSeq, r.body, r.nextSeq-1); err != nil {
		return err
	}
	r.nextListing++
	r.nextSeq++
	_, err := r.commit.Exec()
	return err
}

// meter measures a run of writes by the wall clock and by the CPU time of
// the whole process (every thread: SQLite's, the checkpointer's, the GC's).
// The wall-clock rate is what a user gets; the CPU time per operation is
// what the work costs, and it stays comparable on a shared machine whose
// hypervisor takes the CPU away for part of the run (steal time), which
// slows the wall clock but not the CPU time.
type meter struct {
	wall time.Time
	cpu  time.Duration
}

// startMeter collects the previous run's million-listing market (garbage
// now) outside the measured time, then starts the clocks.
func startMeter(b *testing.B) meter {
	runtime.GC()
	b.ResetTimer()
	return meter{wall: time.Now(), cpu: processCPU(b)}
}

// report records n operations: ops/s by the wall clock and CPU µs per
// operation.
func (m meter) report(b *testing.B, n int) rate {
	wall, cpu := time.Since(m.wall), processCPU(b)-m.cpu
	r := rate{perSecond: float64(n) / wall.Seconds(), cpuPerOp: float64(cpu.Microseconds()) / float64(n)}
	b.ReportMetric(r.perSecond, "ops/s")
	b.ReportMetric(r.cpuPerOp, "cpu-µs/op")
	return r
}

// rate is a run's throughput: operations a second by the wall clock, and
// the process's CPU µs per operation.
type rate struct{ perSecond, cpuPerOp float64 }

// processCPU is the user and system time of the process so far.
func processCPU(b *testing.B) time.Duration {
	var u syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &u); err != nil {
		b.Fatal(err)
	}
	return time.Duration(u.Utime.Nano() + u.Stime.Nano())
}

// benchRawSells measures the floor under opts.
func benchRawSells(b *testing.B, opts sqlite.Options) rate {
	return benchRaw(b, newRawSell(b, 1_000_000, opts).one)
}

// benchRaw measures b.N of a floor's transactions, one.
func benchRaw(b *testing.B, one func() error) rate {
	b.ReportAllocs()
	m := startMeter(b)
	for i := 0; i < b.N; i++ {
		if err := one(); err != nil {
			b.Fatal(err)
		}
	}
	return m.report(b, b.N)
}

// benchSells measures durable sells under opts, committed one by one or,
// with behind, behind the tick (behindLoop): the rate of durable sells, the
// committer's group commits included.
func benchSells(b *testing.B, opts sqlite.Options, behind bool) rate {
	open := writesOpen
	if behind {
		open = writesOpenBehind
	}
	svc, _ := open(b, 1_000_000, opts)
	src := writesSources(b, svc)
	if len(src) < b.N {
		b.Skipf("only %d sellable items", len(src))
	}
	b.ReportAllocs()
	m := startMeter(b)
	sell := func(i int) error {
		_, err := svc.SellItem(src[i].p, src[i].s, 10)
		return err
	}
	if behind {
		behindLoop(b, svc, b.N, sell)
		return m.report(b, b.N)
	}
	for i := 0; i < b.N; i++ {
		if err := sell(i); err != nil {
			b.Fatal(err)
		}
	}
	return m.report(b, b.N)
}

// purchase is one planned purchase: a listing and a buyer who is not its
// seller.
type purchase struct {
	buyer   market.Player
	listing int
}

// planPurchases picks candidates for n purchases among the cheapest
// listings (four per purchase: a buyer short of money is refused), so that
// choosing them stays outside the measured time.
func planPurchases(tb testing.TB, svc *market.Service, n int) []purchase {
	players, _ := svc.Players()
	page, err := svc.Query(market.Query{Sort: market.SortCheapest, Limit: 4 * n})
	if err != nil {
		tb.Fatal(err)
	}
	plan := make([]purchase, len(page.Listings))
	for i, l := range page.Listings {
		buyer := players[i%len(players)]
		if buyer.ID == l.Seller {
			buyer = players[(i+1)%len(players)]
		}
		plan[i] = purchase{buyer: buyer, listing: l.ID}
	}
	return plan
}

// purchases makes n of the planned purchases and returns what each cost the
// main thread (a refused purchase, a buyer short of money, is not counted).
func purchases(tb testing.TB, svc *market.Service, plan []purchase, n int) []sample {
	var took []sample
	for i := 0; len(took) < n && i < len(plan); i++ {
		var tx market.Transaction
		one, err := measure(tb, func() (err error) {
			tx, err = svc.Buy(plan[i].buyer, plan[i].listing)
			return err
		})
		if err != nil {
			continue
		}
		took = append(took, one)
		if tx.State != market.StateCompleted {
			tb.Fatal(tx.State)
		}
	}
	if len(took) < n {
		tb.Fatalf("only %d purchases possible", len(took))
	}
	return took
}

// sample is what one mutation cost the main thread: by the wall clock, and
// in the thread's CPU time, which leaves out the time a shared machine's
// hypervisor gives the CPU to someone else (steal) but also any wait.
type sample struct{ wall, cpu time.Duration }

// measure runs f on the calling goroutine, which must be the main thread
// (locked to its OS thread), and returns its sample.
// measureSettled is measure, plus, when the service commits behind, the
// main thread's taking of the outcome (Settle) once the committer has it:
// what a mutation costs the tick, its commit's wait aside. A refusal is
// returned as the error.
func measureSettled(tb testing.TB, svc *market.Service, f func() error) (sample, error) {
	s, err := measure(tb, f)
	for err == nil && svc.InFlight() > 0 {
		<-svc.Committed()
		var refused []market.Refusal
		settle, _ := measure(tb, func() error { refused = svc.Settle(); return nil })
		s.wall, s.cpu = s.wall+settle.wall, s.cpu+settle.cpu
		if len(refused) > 0 {
			err = refused[0].Err
		}
	}
	return s, err
}

func measure(tb testing.TB, f func() error) (sample, error) {
	cpu0, wall0 := threadCPU(tb), time.Now()
	err := f()
	return sample{wall: time.Since(wall0), cpu: threadCPU(tb) - cpu0}, err
}

// threadCPU is the CPU time of the calling OS thread so far.
func threadCPU(tb testing.TB) time.Duration {
	var ts unix.Timespec
	if err := unix.ClockGettime(unix.CLOCK_THREAD_CPUTIME_ID, &ts); err != nil {
		tb.Fatal(err)
	}
	return time.Duration(ts.Nano())
}

// BenchmarkCompareWrites: the raw transaction of a sell's rows, a durable
// sell, the raw transaction of a purchase's rows, a durable purchase (one
// commit of six saga steps), each in operations per second, with
// allocations per operation; each of Rynek's against its floor's run of the
// same round (sell-ratio, target ≥ 0.7; purchase-ratio, ≥ 0.5).
func BenchmarkCompareWrites(b *testing.B) {
	var rawSell, rawBuy floor
	b.Run("rawsell", func(b *testing.B) { rawSell.add(b, benchRawSells(b, sqlite.Options{})) })
	b.Run("rynek-sell", func(b *testing.B) { reportRatio(b, "sell", benchSells(b, sqlite.Options{}, false), &rawSell) })
	b.Run("rawpurchase", func(b *testing.B) {
		rawBuy.add(b, benchRaw(b, newRawPurchase(b, 1_000_000, sqlite.Options{}).one))
	})
	b.Run("rynek-purchase", func(b *testing.B) {
		svc, _ := writesOpen(b, 1_000_000, sqlite.Options{})
		plan := planPurchases(b, svc, b.N)
		b.ReportAllocs()
		m := startMeter(b)
		done := len(purchases(b, svc, plan, b.N))
		reportRatio(b, "purchase", m.report(b, done), &rawBuy)
	})
	// As the console and rynek serve commit: behind the tick, in groups.
	b.Run("rynek-sell-behind", func(b *testing.B) {
		reportRatio(b, "sell", benchSells(b, sqlite.Options{}, true), &rawSell)
	})
	b.Run("rynek-purchase-behind", func(b *testing.B) {
		svc, _ := writesOpenBehind(b, 1_000_000, sqlite.Options{})
		plan := planPurchases(b, svc, b.N)
		b.ReportAllocs()
		m := startMeter(b)
		done := 0
		behindLoop(b, svc, b.N, func(i int) error {
			// A buyer short of money is refused at once, as in purchases.
			if _, err := svc.Buy(plan[i].buyer, plan[i].listing); err == nil {
				done++
			}
			return nil
		})
		reportRatio(b, "purchase", m.report(b, done), &rawBuy)
	})
}

// BenchmarkCompareSyncWrites is the same comparison with Options.Sync: an
// fsync per raw transaction against an fsync per sell.
func BenchmarkCompareSyncWrites(b *testing.B) {
	sync := sqlite.Options{Sync: true}
	var raw floor
	b.Run("rawsell", func(b *testing.B) { raw.add(b, benchRawSells(b, sync)) })
	b.Run("rynek-sell", func(b *testing.B) { reportRatio(b, "sell", benchSells(b, sync, false), &raw) })
}

// BenchmarkMutationLatency measures the main thread's time per mutation on
// a million-listing market: b.N sells, then b.N/6 purchases (one commit
// each), b.N/12 auctions bid on twice, and b.N/6 fills (a new listing that
// a resting buy order buys at once), with the store's WAL checkpoints
// running as they do in use. It reports the distribution; a purchase
// counts as one mutation. fill-ratio is a fill's p50 against a sell's,
// both by the wall clock (issue 40's target: at most 1.5).
func BenchmarkMutationLatency(b *testing.B) {
	svc, _ := writesOpen(b, 1_000_000, sqlite.Options{})
	src := writesSources(b, svc)
	nFills := max(b.N/6, 1)
	if len(src) < b.N+max(b.N/12, 1)+nFills {
		b.Skipf("only %d sellable items", len(src))
	}
	startMeter(b)
	sells := make([]sample, b.N)
	for i := range sells {
		var err error
		if sells[i], err = measure(b, func() error {
			_, err := svc.SellItem(src[i].p, src[i].s, 10)
			return err
		}); err != nil {
			b.Fatal(err)
		}
	}
	buys := purchases(b, svc, planPurchases(b, svc, max(b.N/6, 1)), max(b.N/6, 1))
	bids := auctionBids(b, svc, src[b.N:], max(b.N/12, 1))
	fills := listingFills(b, svc, src[b.N+max(b.N/12, 1):], nFills, measure)
	b.StopTimer()
	reportSamples(b, "sell", sells)
	reportSamples(b, "purchase", buys)
	reportSamples(b, "bid", bids)
	reportSamples(b, "fill", fills)
	reportSamples(b, "mutation", append(slices.Clone(sells), buys...))
	b.ReportMetric(p50Wall(fills)/p50Wall(sells), "fill-ratio")
}

// p50Wall is the median of samples by the wall clock, in nanoseconds.
func p50Wall(samples []sample) float64 {
	d := make([]time.Duration, len(samples))
	for i, s := range samples {
		d[i] = s.wall
	}
	slices.Sort(d)
	return float64(d[len(d)/2])
}

// listingFills measures up to n sells of one plain item from src that a
// resting buy order buys at once: before each (not measured) a player
// other than the seller places an order for 64 of the item's material at
// 1.00 an item (the market's least price), which rests (materials with a
// listing that cheap are passed over); the sell at 1.00 crosses it, and
// the sample is the whole SellItem call: the listing's commit and the
// fill's. Each fill is checked: the listing is gone. measure takes each
// call (the setup's too, unreported): measureSettled where the market
// commits behind.
func listingFills(tb testing.TB, svc *market.Service, src []writesSource, n int,
	measure func(testing.TB, func() error) (sample, error)) []sample {
	tb.Helper()
	var out []sample
	for i := 0; len(out) < n && i < len(src); i++ {
		f := src[i]
		if f.s.DisplayName != "" || len(f.s.Lore) > 0 || len(f.s.Enchantments) > 0 || f.s.MaxStack != 0 {
			continue // orders buy plain stacks only
		}
		if book, err := svc.GetOrderBook(f.s.Material, 1); err != nil {
			tb.Fatal(err)
		} else if len(book.Sell) > 0 && book.Sell[0].UnitPrice <= 1 {
			continue // an order at 1.00 would buy that listing, not rest
		}
		buyer := src[(i+1)%len(src)].p
		for j := 2; buyer.ID == f.p.ID; j++ {
			buyer = src[(i+j)%len(src)].p
		}
		var o market.Order
		if _, err := measure(tb, func() error {
			if _, err := svc.Deposit(buyer.ID, 64); err != nil { // the order's escrow, whatever the buyer spent
				return err
			}
			var err error
			o, err = svc.PlaceOrder(buyer, f.s.Material, 64, 1, 0)
			return err
		}); err != nil {
			tb.Fatal(err)
		}
		if !o.Open() || o.Filled != 0 {
			tb.Fatalf("the order did not rest: %+v", o)
		}
		var l market.Listing
		s, err := measure(tb, func() error { var err error; l, err = svc.SellItem(f.p, f.s, 1); return err })
		if err != nil {
			tb.Fatal(err)
		}
		// The oldest order at 1.00 of the material buys it: this one, or
		// what is left of one placed before.
		if _, err := svc.GetListing(l.ID); err == nil {
			tb.Fatalf("listing #%d of %s at 1.00 is on sale: no order bought it", l.ID, f.s.Material)
		}
		out = append(out, s)
	}
	if len(out) == 0 {
		tb.Fatal("no plain item to sell into an order")
	}
	return out
}

// reportSamples reports the distribution of samples by the wall clock and
// by the thread's CPU time: name-p50-µs, name-cpu-p50-µs, and p99, p99.9,
// max.
func reportSamples(b *testing.B, name string, samples []sample) {
	for _, clock := range []struct {
		suffix string
		of     func(sample) time.Duration
	}{{"", func(s sample) time.Duration { return s.wall }}, {"-cpu", func(s sample) time.Duration { return s.cpu }}} {
		d := make([]time.Duration, len(samples))
		for i, s := range samples {
			d[i] = clock.of(s)
		}
		slices.Sort(d)
		at := func(q float64) float64 { return float64(d[int(q*float64(len(d)-1))].Microseconds()) }
		b.ReportMetric(at(0.5), name+clock.suffix+"-p50-µs")
		b.ReportMetric(at(0.99), name+clock.suffix+"-p99-µs")
		b.ReportMetric(at(0.999), name+clock.suffix+"-p99.9-µs")
		b.ReportMetric(float64(d[len(d)-1].Microseconds()), name+clock.suffix+"-max-µs")
	}
}

// auctionBids starts up to n auctions from src and bids on each twice, a
// first bid and one that outbids it (which gives the first bidder their
// money back in the same commit), measuring each bid.
func auctionBids(tb testing.TB, svc *market.Service, src []writesSource, n int) []sample {
	tb.Helper()
	var out []sample
	for i := 0; i < n && i < len(src); i++ {
		seller := src[i].p
		l, err := svc.StartAuction(seller, src[i].s, 10, 0, 24*time.Hour)
		if err != nil {
			tb.Fatal(err)
		}
		for k, amount := range []float64{10, 20} {
			bidder := src[(i+1+k*7)%len(src)].p
			for j := 2; bidder.ID == seller.ID; j++ {
				bidder = src[(i+j+k*7)%len(src)].p
			}
			if _, err := svc.Deposit(bidder.ID, amount); err != nil { // the bidder can pay, whatever they spent
				tb.Fatal(err)
			}
			s, err := measure(tb, func() error { _, err := svc.Bid(bidder, l.ID, amount); return err })
			if err != nil {
				tb.Fatal(err)
			}
			out = append(out, s)
		}
	}
	return out
}

// TestCompareWritesAgree checks, at small size, that each contender's write
// is durable and writes what it claims: the raw transaction's rows are
// there, a sell and a purchase are in the market after it reopens.
func TestCompareWritesAgree(t *testing.T) {
	r := newRawSell(t, 1_000, sqlite.Options{})
	first := r.nextListing
	for i := 0; i < 10; i++ {
		if err := r.one(); err != nil {
			t.Fatal(err)
		}
	}
	var listings, events int
	if err := r.db.QueryRow("SELECT count(*) FROM listings WHERE id >= ?", first).Scan(&listings); err != nil || listings != 10 {
		t.Fatalf("raw listings %d, %v", listings, err)
	}
	if err := r.db.QueryRow("SELECT count(*) FROM events WHERE length(body) = ?", len(r.body)).Scan(&events); err != nil || events < 10 {
		t.Fatalf("raw log entries %d, %v", events, err)
	}
	svc, _ := writesOpen(t, 1_000, sqlite.Options{})
	src := writesSources(t, svc)
	l, err := svc.SellItem(src[0].p, src[0].s, 10)
	if err != nil {
		t.Fatal(err)
	}
	took := purchases(t, svc, planPurchases(t, svc, 1), 1)
	if len(took) != 1 {
		t.Fatal("no purchase")
	}
	if _, err := svc.GetListing(l.ID); err != nil {
		t.Fatal(err)
	}
	page, err := svc.EventsSince(0, market.MaxEventsPage)
	if err != nil || len(page.Events) != 2 {
		t.Fatalf("the log holds %d events (%v), want the sell's and the purchase's", len(page.Events), err)
	}
	if fmt.Sprint(page.Events[1].EventName()) != "TransactionCompletedEvent" {
		t.Fatalf("second event %s", page.Events[1].EventName())
	}
}

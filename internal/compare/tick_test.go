package compare_test

// The game tick: `rynek serve`'s main loop (headless.Run itself, not a copy)
// at 20 ticks a second over the million-listing market with a million
// finished transactions, under a big server's load: the traffic bots at 100
// actions a second (sells, purchases, removals, auctions and bids, buy
// orders and their fills), listings expiring, a website reading 200
// requests a second over real HTTP, 100 clients on the event stream, the
// store's own WAL checkpoints, and the history loading in the background
// after ready. Each tick's work is measured by the wall clock and by the
// main thread's CPU time, which other processes on a shared machine do not
// inflate.

import (
	"bytes"
	"cmp"
	"context"
	"fmt"
	"net"
	"net/url"
	"os"
	"path/filepath"
	"runtime"
	"runtime/pprof"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/rynek/rynek/internal/benchdata"
	"github.com/rynek/rynek/internal/headless"
	"github.com/rynek/rynek/internal/httpapi"
	"github.com/rynek/rynek/internal/pgtest"
	"github.com/rynek/rynek/market"
	"github.com/rynek/rynek/market/postgres"
	"github.com/rynek/rynek/market/sqlite"
	"github.com/rynek/rynek/seed"
)

func TestMain(m *testing.M) { os.Exit(pgtest.Main(m)) }

// The load of BenchmarkServerTick.
const (
	tickBots     = 100 // the bots' actions a second
	tickReads    = 200 // the website's requests a second
	tickStreams  = 100 // clients on the event stream
	tickCut      = 10 * time.Second
	tickResume   = 10 * time.Second // how soon after the cut the market must write again
	tickListings = 1_000_000
)

// tickSeconds is how long each run lasts: RYNEK_TICK_SECONDS, 60 by default.
func tickSeconds(tb testing.TB) time.Duration {
	return time.Duration(envPositive(tb, "RYNEK_TICK_SECONDS", 60)) * time.Second
}

// envPositive reads a positive integer from the environment variable name,
// def when it is unset.
func envPositive(tb testing.TB, name string, def int) int {
	v := os.Getenv(name)
	if v == "" {
		return def
	}
	n, err := strconv.Atoi(v)
	if err != nil || n <= 0 {
		tb.Fatalf("%s=%q: want a positive whole number", name, v)
	}
	return n
}

// tickAddr is where a run's listener number i (0: the API, 1: the link to
// PostgreSQL) listens: RYNEK_TICK_PORT and the port after it, or free
// ports when it is unset.
func tickAddr(tb testing.TB, i int) string {
	if os.Getenv("RYNEK_TICK_PORT") == "" {
		return "127.0.0.1:0"
	}
	return fmt.Sprintf("127.0.0.1:%d", envPositive(tb, "RYNEK_TICK_PORT", 0)+i)
}

// BenchmarkServerTick runs the serve loop for RYNEK_TICK_SECONDS (60 by
// default) on SQLite, on SQLite with a second instance of the market on the
// same file following and acting beside it (beside_test.go), on PostgreSQL,
// and on PostgreSQL with the link to the server cut for 10 s a third of the
// way in. Run it once: -benchtime 1x.
func BenchmarkServerTick(b *testing.B) {
	b.Run("sqlite", func(b *testing.B) {
		svc, st := openTickSQLite(b)
		runTick(b, svc, st, nil, nil)
	})
	b.Run("sqlite-beside", func(b *testing.B) {
		svc, st, other := openTickBeside(b)
		runTick(b, svc, st, nil, other)
	})
	b.Run("postgres", func(b *testing.B) {
		svc, st := openTickPostgres(b, pgtest.Clone(b, seededPostgres(b)))
		runTick(b, svc, st, nil, nil)
	})
	b.Run("postgres-cut", func(b *testing.B) {
		if tickSeconds(b) < 3*tickCut {
			b.Fatalf("the cut run needs RYNEK_TICK_SECONDS of at least %d: a %s cut a third of the way in, and time to resume after it", int(3*tickCut/time.Second), tickCut)
		}
		dsn := pgtest.Clone(b, seededPostgres(b))
		u, err := url.Parse(dsn)
		if err != nil || u.Scheme != "postgres" {
			b.Fatalf("the cut needs the server as a postgres:// URL to route through the link, got %q", dsn)
		}
		l, err := newLink(tickAddr(b, 1), u.Host)
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(l.close)
		u.Host = l.addr
		svc, st := openTickPostgres(b, u.String())
		runTick(b, svc, st, l, nil)
	})
}

// tickListingsWanted is the market's size: RYNEK_TICK_LISTINGS (for a
// quick check), a million by default.
func tickListingsWanted(tb testing.TB) int {
	return envPositive(tb, "RYNEK_TICK_LISTINGS", tickListings)
}

// tickConfig is the market's rules in the run: serve's defaults (commits
// behind the tick, as open.go sets for serve and the console), on a
// clock that runs with the wall clock from an hour after the data set's
// "now", when its oldest listings begin to expire (seed creates them over
// the listing lifetime less an hour).
func tickConfig() market.Config {
	clock := market.NewOffsetClock()
	clock.Advance(benchdata.Now.Add(time.Hour).Sub(time.Now()))
	return market.Config{Clock: clock, CommitBehind: true}
}

// openTickSQLite opens a copy of the data set (its listings and loadDays
// of history) as serve would, bound to the calling goroutine.
func openTickSQLite(b *testing.B) (*market.Service, market.Store) {
	svc, st := benchdata.Open(b, benchdata.Path(b, tickListingsWanted(b), loadDays), sqlite.Options{}, tickConfig())
	b.Cleanup(func() { svc.Close() })
	return svc, st
}

// seededPostgres is a PostgreSQL database holding the same data set as
// the SQLite one (seed is deterministic), seeded once per test binary.
func seededPostgres(b *testing.B) string {
	n := tickListingsWanted(b)
	return pgtest.Template(b, fmt.Sprintf("tick-%d-%d", n, loadDays), func(dsn string) error {
		start := time.Now()
		st, err := postgres.Open(dsn, postgres.Options{Instance: "seed", Tool: true})
		if err != nil {
			return err
		}
		if _, err := seed.Load(st, seed.Options{Listings: n, Days: loadDays, Rand: 1, Now: benchdata.Now, Orders: -1}); err != nil {
			st.Close()
			return err
		}
		b.Logf("seeded PostgreSQL with %d listings and %d days of history in %s", n, loadDays, time.Since(start).Round(time.Second))
		return st.Close()
	})
}

// tickInstance is the run's name as an instance of the network.
const tickInstance = "tick"

// openTickPostgres opens the market at dsn as an instance of a network,
// bound to the calling goroutine.
func openTickPostgres(b *testing.B, dsn string) (*market.Service, market.Store) {
	st, err := postgres.Open(dsn, postgres.Options{Instance: tickInstance})
	if err != nil {
		b.Fatal(err)
	}
	svc := market.New(st, tickConfig())
	if err := svc.BindMainThread(); err != nil {
		st.Close()
		b.Fatal(err)
	}
	start := time.Now()
	if err := svc.Enable(); err != nil {
		st.Close()
		b.Fatal(err)
	}
	b.Logf("opened the PostgreSQL market to ready in %s", time.Since(start).Round(time.Millisecond))
	b.Cleanup(func() { svc.Close() })
	return svc, st
}

// tickSample is one tick: when it ended, and its work by the wall clock
// and in the main thread's CPU time.
type tickSample struct {
	at        time.Time
	wall, cpu time.Duration
}

// runTick runs the serve loop on svc (bound to the calling goroutine; st
// is its store) with the whole load for tickSeconds, cutting cut a third
// of the way in when it is set, with other, when it is set, running the
// serve loop of a second instance on the same market meanwhile, and
// reports the figures.
func runTick(b *testing.B, svc *market.Service, st market.Store, cut *link, other *beside) {
	if b.N > 1 {
		b.Fatalf("each run is the serve loop for %s: run it once (-benchtime 1x); RYNEK_TICK_SECONDS sets how long", tickSeconds(b))
	}
	d := tickSeconds(b)
	ln, err := net.Listen("tcp", tickAddr(b, 0))
	if err != nil {
		b.Fatalf("the API's address: %v", err)
	}
	var apiErrors strings.Builder
	api := httpapi.Start(svc, ln, httpapi.Options{}, &lockedWriter{w: &apiErrors})
	base := "http://" + api.Addr
	catchUp(b, svc)
	runtime.GC() // the data set's loading is garbage now: not the loop's to collect
	from := svc.Version()
	ctx, stop := context.WithTimeout(context.Background(), d)
	defer stop()
	site := startWebsite(ctx, b, svc, base, tickReads)
	streams := startStreams(ctx, base, tickStreams, from)
	if other != nil {
		other.start(ctx)
	}

	var cutAt, restoredAt atomic.Int64 // unix ns; 0: not yet
	var restoredMarket atomic.Int64    // the market's clock then, unix ms
	if cut != nil {
		// A third of the way in, the link breaks as a request is on its
		// way (most of them are the main thread's commits), and stays
		// down for tickCut.
		timer := time.AfterFunc(d/3, func() {
			select {
			case <-cut.cutMidRequest():
			case <-ctx.Done():
				return
			}
			cutAt.Store(time.Now().UnixNano())
			time.Sleep(tickCut)
			if err := cut.restore(); err != nil {
				b.Error(err)
			}
			restoredAt.Store(time.Now().UnixNano())
			restoredMarket.Store(svc.Now().UnixMilli())
		})
		defer timer.Stop()
	}
	samples := make([]tickSample, 0, int(d/(time.Second/headless.TicksPerSecond))+16)
	start := time.Now()
	var lastTick atomic.Int64 // unix ns of the newest tick's end
	lastTick.Store(start.UnixNano())
	watching := watchStalls(ctx, b, &lastTick)
	recorder := startFlight(b)
	var historyAt time.Duration
	var sum headless.Summary
	// The loop's samples carry the label loop=main in a CPU profile
	// (-cpuprofile; go tool pprof -tagfocus loop=main): the main thread's
	// own work apart from the readers'.
	pprof.Do(context.Background(), pprof.Labels("loop", "main"), func(context.Context) {
		sum, err = headless.Run(ctx, svc, headless.Options{BotsRate: tickBots, Seed: 1, Realtime: true,
			Report: func(line string) { b.Logf("%.1fs: %s", time.Since(start).Seconds(), line) },
			Observe: func(wall, cpu time.Duration) {
				now := time.Now()
				lastTick.Store(now.UnixNano())
				samples = append(samples, tickSample{at: now, wall: wall, cpu: cpu})
				recorder.observe(wall)
				if historyAt == 0 && svc.HistoryLoaded() {
					historyAt = time.Since(start)
				}
			}})
	})
	elapsed := time.Since(start)
	if err != nil {
		b.Fatal(err)
	}
	<-watching
	if other != nil {
		other.finish(b, svc, st, from)
	}
	reads := site.wait()
	events := streams.wait()
	shutdown, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	api.Shutdown(shutdown)
	cancel()
	b.StopTimer()

	reportTicks(b, "tick", samples)
	b.ReportMetric(float64(sum.Ticks), "ticks")
	// Ticks that found the market's lock held past market.HoldWait, and
	// left their changes to the next.
	b.ReportMetric(float64(svc.TickWorkSince(start).PutOff), "put-off")
	b.ReportMetric(float64(sum.Bots.OK), "mutations")
	b.ReportMetric(float64(sum.Bots.Refused), "refused")
	kinds := logKinds(b, st, from)
	b.ReportMetric(float64(kinds[market.KindListingExpired]), "expired")
	b.ReportMetric(float64(reads.ok)/elapsed.Seconds(), "reads/s")
	b.ReportMetric(float64(reads.failed), "read-errors")
	b.ReportMetric(float64(reads.p99().Microseconds())/1000, "read-p99-ms")
	b.ReportMetric(float64(events)/tickStreams, "stream-events/client")
	if historyAt > 0 {
		b.ReportMetric(historyAt.Seconds(), "history-s")
		// The ticks while the history loads and once it is in, apart: the
		// load's garbage and its work on the other processor weigh on the
		// first; the second is what a server that has run for a while sees.
		var loading, steady []tickSample
		for _, s := range samples {
			if s.at.Sub(start) > historyAt {
				steady = append(steady, s)
			} else {
				loading = append(loading, s)
			}
		}
		if len(loading) > 0 {
			reportTicks(b, "loading-tick", loading)
		}
		if len(steady) > 0 {
			reportTicks(b, "steady-tick", steady)
		}
	} else {
		b.Log("the history was still loading when the run ended")
	}
	b.ReportMetric(loadAverage(), "loadavg")
	b.Logf("%s", sum)
	b.Logf("log entries by kind: %s", kindText(kinds))
	b.Logf("website: %s", reads)
	if s := apiErrors.String(); s != "" {
		b.Logf("the API's error log: %s", s)
	}
	if cut != nil {
		reportCut(b, svc, st, from, samples, time.Unix(0, cutAt.Load()), time.Unix(0, restoredAt.Load()), restoredMarket.Load())
	}
}

// tickStall is how long the main loop may go without finishing a tick
// before watchStalls says where it is.
const tickStall = time.Second

// watchStalls says, the first time the loop has not finished a tick for
// tickStall, what the main thread is doing (its goroutine's stack), and
// writes every goroutine's stack to a file beside it: a tick's wall time
// far above its CPU time is a wait, and this says on what. The returned
// channel closes when ctx ends.
func watchStalls(ctx context.Context, b *testing.B, lastTick *atomic.Int64) <-chan struct{} {
	done := make(chan struct{})
	go func() {
		defer close(done)
		every := time.NewTicker(tickStall / 8)
		defer every.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case now := <-every.C:
				stalled := now.Sub(time.Unix(0, lastTick.Load()))
				if stalled < tickStall {
					continue
				}
				var all bytes.Buffer
				pprof.Lookup("goroutine").WriteTo(&all, 2)
				path := filepath.Join(os.TempDir(), fmt.Sprintf("rynek-tick-stall-%d.txt", time.Now().UnixNano()))
				os.WriteFile(path, all.Bytes(), 0o600)
				for _, g := range strings.Split(all.String(), "\n\n") {
					if strings.Contains(g, "headless.Run") {
						b.Logf("no tick has ended for %s; the main thread: %s\n(every goroutine: %s)", stalled.Round(time.Millisecond), g, path)
					}
				}
				return
			}
		}
	}()
	return done
}

// catchUp settles what came due between the data set's "now" and the
// run's start (the auctions that ended in that hour), as a server does after
// a pause, before the run measures the steady state. It waits for each
// sweep's commits before the next: sweeping back to back, without a tick's
// pace, it queued some 2,000 settlements at once, and on PostgreSQL, with
// the history loading, the oldest waited over a second, which the run met
// as a store failure in its first second (one run in five), or the sweep
// itself as the market refusing changes while it waits (once, with the
// machine busy).
func catchUp(b *testing.B, svc *market.Service) {
	start, total := time.Now(), 0
	for more := true; more; {
		n, m, err := svc.SweepExpired()
		if err != nil {
			b.Fatalf("settle what came due before the run: %v", err)
		}
		if refused := svc.Flush(); len(refused) > 0 {
			b.Fatalf("the store refused %d of the settlements due before the run, the first: %v", len(refused), refused[0].Err)
		}
		total, more = total+n, m
	}
	b.Logf("settled %d listings and auctions due before the run in %s", total, time.Since(start).Round(time.Millisecond))
}

// reportTicks reports samples' p50, p99 and max by the wall clock
// (name-p50-µs…) and by the main thread's CPU time (name-cpu-p50-µs…).
func reportTicks(b *testing.B, name string, samples []tickSample) {
	if len(samples) == 0 {
		b.Fatalf("no %s samples", name)
	}
	// Said in the log too: a failed benchmark's metrics are not printed.
	line := fmt.Sprintf("%s work over %d ticks:", name, len(samples))
	for _, clock := range []struct {
		suffix string
		of     func(tickSample) time.Duration
	}{{"", func(s tickSample) time.Duration { return s.wall }}, {"-cpu", func(s tickSample) time.Duration { return s.cpu }}} {
		d := make([]time.Duration, len(samples))
		for i, s := range samples {
			d[i] = clock.of(s)
		}
		slices.Sort(d)
		at := func(q float64) time.Duration { return d[min(len(d)-1, int(q*float64(len(d))))] }
		p50, p99, top := at(0.5), at(0.99), d[len(d)-1]
		b.ReportMetric(float64(p50.Microseconds()), name+clock.suffix+"-p50-µs")
		b.ReportMetric(float64(p99.Microseconds()), name+clock.suffix+"-p99-µs")
		b.ReportMetric(float64(top.Microseconds()), name+clock.suffix+"-max-µs")
		clockName := " wall"
		if clock.suffix != "" {
			clockName = "; main thread's CPU"
		}
		line += fmt.Sprintf("%s p50 %s, p99 %s, max %s", clockName, p50, p99, top)
	}
	b.Log(line)
	slowest := slices.Clone(samples)
	slices.SortFunc(slowest, func(x, y tickSample) int { return cmp.Compare(y.wall, x.wall) })
	var top []string
	for _, s := range slowest[:min(5, len(slowest))] {
		top = append(top, fmt.Sprintf("%s (CPU %s) at %.1fs", s.wall.Round(time.Microsecond), s.cpu.Round(time.Microsecond), s.at.Sub(samples[0].at).Seconds()))
	}
	b.Logf("the slowest %s ticks: %s", name, strings.Join(top, ", "))
}

// reportCut reports the ticks during the cut and whether, and how soon
// after the link came back (at restoredMs by the market's clock), the
// market saved changes of its own again by itself; it fails the benchmark
// when it did not within tickResume. Only this instance's log entries made
// after the return count: following the log brings back, among others, the
// entries of the commit the cut interrupted.
func reportCut(b *testing.B, svc *market.Service, st market.Store, from uint64, samples []tickSample, cutAt, restoredAt time.Time, restoredMs int64) {
	if cutAt.UnixNano() == 0 || restoredAt.Before(cutAt) {
		b.Fatal("the run ended before the link was cut and restored")
	}
	var during []tickSample
	for _, s := range samples {
		if s.at.After(cutAt) && !s.at.After(restoredAt) {
			during = append(during, s)
		}
	}
	if len(during) > 0 {
		reportTicks(b, "cut-tick", during)
	}
	own, first := 0, int64(-1)
	for after := from; ; {
		n, err := st.ReadEvents(after, 10_000, func(e market.EventRow) error {
			after = e.Seq
			if e.Origin == tickInstance && e.At > restoredMs {
				own++
				if first < 0 {
					first = e.At
				}
			}
			return nil
		})
		if err != nil {
			b.Fatalf("read the log after %d: %v", after, err)
		}
		if n == 0 {
			break
		}
	}
	resumed := time.Duration(-1)
	if first >= 0 {
		resumed = time.Duration(first-restoredMs) * time.Millisecond
	}
	b.ReportMetric(float64(resumed.Milliseconds()), "resumed-after-ms")
	b.ReportMetric(float64(own), "entries-after-cut")
	h := svc.StoreHealth()
	b.Logf("the link was cut %s after the start, as a request was on its way, for %s; %d ticks during the cut; the store's failures: %d in run %d, failing now: %t, last cause: %s",
		cutAt.Sub(samples[0].at).Round(time.Millisecond), restoredAt.Sub(cutAt).Round(time.Millisecond), len(during), h.Failures, h.Runs, h.Failing, h.LastCause)
	if resumed < 0 || resumed > tickResume {
		b.Errorf("the market did not resume saving changes by itself within %s of the link's return (%d entries of its own after it; the store failing: %t, last cause: %s)",
			tickResume, own, h.Failing, h.LastCause)
	}
}

// logKinds counts the log entries after seq from by kind: what the run
// committed, the expiry timer's removals included (which publish no event).
func logKinds(b *testing.B, st market.Store, from uint64) map[market.EventKind]int {
	kinds := map[market.EventKind]int{}
	for after := from; ; {
		n, err := st.ReadEvents(after, 10_000, func(e market.EventRow) error {
			kinds[e.Kind]++
			after = e.Seq
			return nil
		})
		if err != nil {
			b.Fatalf("read the log after %d: %v", after, err)
		}
		if n == 0 {
			return kinds
		}
	}
}

// kindText lists kinds by count, most first: "ListingCreated 2400, …".
func kindText(kinds map[market.EventKind]int) string {
	var ks []market.EventKind
	for k := range kinds {
		ks = append(ks, k)
	}
	slices.SortFunc(ks, func(x, y market.EventKind) int { return kinds[y] - kinds[x] })
	parts := make([]string, len(ks))
	for i, k := range ks {
		parts[i] = fmt.Sprintf("%s %d", k, kinds[k])
	}
	return strings.Join(parts, ", ")
}

// loadAverage is the machine's load average over the last minute, which
// says how much of the two cores other work took.
func loadAverage() float64 {
	raw, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return -1
	}
	f := strings.Fields(string(raw))
	if len(f) == 0 {
		return -1
	}
	v, err := strconv.ParseFloat(f[0], 64)
	if err != nil {
		return -1
	}
	return v
}

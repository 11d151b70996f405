package market_test

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"slices"
	"testing"
	"time"

	"github.com/rynek/rynek/internal/benchdata"
	"github.com/rynek/rynek/market"
	"github.com/rynek/rynek/market/sqlite"
)

// benchNow is the "now" of every benchmark data set.
var benchNow = benchdata.Now

// fixture returns a private copy of a generated market (internal/benchdata).
func fixture(tb testing.TB, listings, days int) string { return benchdata.Path(tb, listings, days) }

// openMarket opens a service on path with the bench clock.
func openMarket(tb testing.TB, path string, cfg market.Config) *market.Service {
	tb.Helper()
	svc, _ := benchdata.Open(tb, path, sqlite.Options{}, cfg)
	return svc
}

func heapInUse() uint64 {
	runtime.GC()
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return ms.HeapAlloc
}

// BenchmarkEnable measures opening a store to ready (load + index) and the
// heap the loaded market holds per active listing.
func BenchmarkEnable(b *testing.B) {
	for _, n := range []int{100_000, 1_000_000} {
		b.Run(fmt.Sprintf("listings=%d", n), func(b *testing.B) {
			path := fixture(b, n, -1)
			var perListing float64
			for i := 0; i < b.N; i++ {
				before := heapInUse()
				svc := openMarket(b, path, market.Config{})
				b.StopTimer()
				after := heapInUse()
				perListing = float64(after-before) / float64(n)
				count, _ := svc.GetActiveListingsCount()
				if count != n {
					b.Fatalf("%d listings loaded", count)
				}
				runtime.KeepAlive(svc)
				svc.Close()
				debug.FreeOSMemory()
				b.StartTimer()
			}
			b.ReportMetric(perListing, "heapB/listing")
		})
	}
}

// shared1M is one loaded 1M-listing market, shared by the read benchmarks
// (they do not mutate it).
var shared1M struct {
	svc *market.Service
}

func market1M(b *testing.B) *market.Service {
	if shared1M.svc == nil {
		path := fixture(b, 1_000_000, -1)
		shared1M.svc = openMarket(b, path, market.Config{})
	}
	return shared1M.svc
}

// benchQueries go from selective to broad. Every one is answered as a page
// of 200 in every sort mode.
var benchQueries = []string{
	"swift sneak",      // a rare enchantment
	"#777777",          // an exact id
	"legendarny miecz", // a two-word display name
	"kowalski",         // a seller name
	"diamond",          // a material
	"netherite sword",  // two words, material
	"oak",              // a common word
	"a",                // a single common letter
}

func percentile(ds []time.Duration, p float64) time.Duration {
	s := slices.Clone(ds)
	slices.Sort(s)
	return s[min(len(s)-1, int(float64(len(s))*p))]
}

// BenchmarkSearch1M runs the query mix in every sort mode against 1M
// listings and reports p50 and p99 latency of a page of 200.
func BenchmarkSearch1M(b *testing.B) {
	svc := market1M(b)
	modes := market.SortModes()
	var ds []time.Duration
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		q := market.Query{Text: benchQueries[i%len(benchQueries)], Sort: modes[(i/len(benchQueries))%len(modes)], Limit: 200}
		t := time.Now()
		if _, err := svc.Query(q); err != nil {
			b.Fatal(err)
		}
		ds = append(ds, time.Since(t))
	}
	b.ReportMetric(float64(percentile(ds, 0.5).Microseconds())/1000, "p50-ms")
	b.ReportMetric(float64(percentile(ds, 0.99).Microseconds())/1000, "p99-ms")
}

// BenchmarkSearchQuery1M measures each query on its own (newest first).
func BenchmarkSearchQuery1M(b *testing.B) {
	svc := market1M(b)
	for _, q := range benchQueries {
		b.Run(q, func(b *testing.B) {
			var total int
			for i := 0; i < b.N; i++ {
				p, err := svc.Query(market.Query{Text: q, Limit: 200})
				if err != nil {
					b.Fatal(err)
				}
				total = p.Total
			}
			b.ReportMetric(float64(total), "matches")
		})
	}
}

// BenchmarkGetListing1M reads single listings by id.
func BenchmarkGetListing1M(b *testing.B) {
	svc := market1M(b)
	for i := 0; i < b.N; i++ {
		if _, err := svc.GetListing(1 + (i*7919)%1_000_000); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkMainThreadCheck is the cost every mutation pays to verify it runs
// on the main thread.
func BenchmarkMainThreadCheck(b *testing.B) {
	svc := market.New(nil, market.Config{})
	svc.BindMainThread()
	for i := 0; i < b.N; i++ {
		if !svc.IsMainThread() {
			b.Fatal("not main")
		}
	}
}

// eventMarket makes a small market (40 players, no listings, so opening it
// costs next to nothing) and sells sells single items on it, for the event
// log's benchmarks. hook runs before each delivery, as SetBeforeDelivery.
func eventMarket(b *testing.B, sells int, hook func(market.Event)) (*market.Service, *sqlite.Store, string) {
	b.Helper()
	path := filepath.Join(b.TempDir(), "events.db")
	st, err := sqlite.Open(path, sqlite.Options{})
	must(b, err)
	bulk := newBulk(b, st)
	players := seedPlayers(b, bulk, 40, 3)
	must(b, bulk.Finish())
	svc := market.New(st, market.Config{Clock: market.NewManualClock(benchNow), ListingCooldown: -1, MaxListingsPerPlayer: 1 << 30})
	must(b, svc.BindMainThread())
	must(b, svc.Enable())
	market.SetBeforeDelivery(svc, hook)
	made := 0
	for _, p := range players {
		ps, _ := svc.GetPlayer(p.ID)
		for _, x := range ps.Inventory {
			for x != nil && x.Amount > 0 && made < sells {
				one := *x
				one.Amount = 1
				func() {
					defer func() { recover() }() // the hook's "crash" stops the delivery only
					if _, err := svc.SellItem(p, one, 10); err != nil {
						b.Fatal(err)
					}
				}()
				x.Amount--
				made++
			}
		}
	}
	if made < sells {
		b.Fatalf("only %d sells possible", made)
	}
	market.SetBeforeDelivery(svc, nil)
	return svc, st, path
}

// BenchmarkEventsSince reads 1,000 events after a seq: from memory (the
// newest entries) and from the store (after a restart).
func BenchmarkEventsSince(b *testing.B) {
	svc, _, path := eventMarket(b, 3000, nil)
	head := svc.Version()
	read := func(b *testing.B, svc *market.Service) {
		b.ResetTimer()
		for i := 0; i < b.N; i++ {
			page, err := svc.EventsSince(head-1000, 1000)
			if err != nil || len(page.Events) != 1000 {
				b.Fatalf("%d events, %v", len(page.Events), err)
			}
		}
	}
	b.Run("memory", func(b *testing.B) { read(b, svc) })
	must(b, svc.Close())
	restarted := openMarket(b, path, market.Config{})
	defer restarted.Close()
	b.Run("store", func(b *testing.B) { read(b, restarted) })
}

// BenchmarkEnableBacklog measures Enable of a market whose last 10,000
// events were committed but never delivered (a crash between the commits
// and their listeners), on a market that costs next to nothing to load:
// the time is the delivery of the backlog.
func BenchmarkEnableBacklog(b *testing.B) {
	_, st, path := eventMarket(b, 10_000, func(market.Event) { panic("crash") })
	must(b, st.Close()) // the process dies: nothing more is recorded
	crashed, err := os.ReadFile(path)
	must(b, err)
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		copied := filepath.Join(b.TempDir(), "backlog.db")
		must(b, os.WriteFile(copied, crashed, 0o600))
		st, err := sqlite.Open(copied, sqlite.Options{})
		must(b, err)
		svc := market.New(st, market.Config{Clock: market.NewManualClock(benchNow)})
		delivered := 0
		svc.Subscribe(func(market.Event) { delivered++ })
		must(b, svc.BindMainThread())
		b.StartTimer()
		must(b, svc.Enable())
		b.StopTimer()
		if delivered != 10_000 {
			b.Fatalf("%d events delivered at Enable, want 10,000", delivered)
		}
		svc.Close()
		b.StartTimer()
	}
}

package market_test

import (
	"fmt"
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
	st, err := sqlite.Open(path, sqlite.Options{})
	must(tb, err)
	if cfg.Clock == nil {
		cfg.Clock = market.NewManualClock(benchNow)
	}
	svc := market.New(st, cfg)
	svc.BindMainThread()
	must(tb, svc.Enable())
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

// sellSources returns one-item stacks players can sell, many per player.
func sellSources(b *testing.B, svc *market.Service) []struct {
	p market.Player
	s market.ItemStack
} {
	var out []struct {
		p market.Player
		s market.ItemStack
	}
	players, err := svc.Players()
	must(b, err)
	for _, p := range players {
		st, _ := svc.GetPlayer(p.ID)
		for _, x := range st.Inventory {
			if x != nil {
				one := *x
				one.Amount = 1
				for k := 0; k < x.Amount; k++ {
					out = append(out, struct {
						p market.Player
						s market.ItemStack
					}{p, one})
				}
			}
		}
	}
	return out
}

// BenchmarkDurableSell1M lists items, each sell durably committed, on a
// market that already has a million listings.
func BenchmarkDurableSell1M(b *testing.B) {
	svc := openMarket(b, fixture(b, 1_000_000, -1), market.Config{ListingCooldown: -1, MaxListingsPerPlayer: 1 << 30})
	defer svc.Close()
	src := sellSources(b, svc)
	if len(src) < b.N {
		b.Skipf("only %d sellable items for b.N=%d", len(src), b.N)
	}
	b.ResetTimer()
	start := time.Now()
	for i := 0; i < b.N; i++ {
		if _, err := svc.SellItem(src[i].p, src[i].s, 10); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.N)/time.Since(start).Seconds(), "sells/s")
}

// BenchmarkDurablePurchase1M runs the full six-commit purchase saga against
// a million listings.
func BenchmarkDurablePurchase1M(b *testing.B) {
	svc := openMarket(b, fixture(b, 1_000_000, -1), market.Config{})
	defer svc.Close()
	players, err := svc.Players()
	must(b, err)
	page, err := svc.Query(market.Query{Sort: market.SortCheapest, Limit: b.N * 2})
	must(b, err)
	b.ResetTimer()
	start := time.Now()
	done := 0
	for i := 0; done < b.N && i < len(page.Listings); i++ {
		l := page.Listings[i]
		buyer := players[i%len(players)]
		if buyer.ID == l.Seller {
			buyer = players[(i+1)%len(players)]
		}
		tx, err := svc.Buy(buyer, l.ID)
		if err != nil {
			continue // a buyer without funds: skip, it is not a purchase
		}
		if tx.State != market.StateCompleted {
			b.Fatal(tx.State)
		}
		done++
	}
	if done < b.N {
		b.Fatalf("only %d purchases possible", done)
	}
	b.ReportMetric(float64(done)/time.Since(start).Seconds(), "purchases/s")
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

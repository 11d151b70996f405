package market_test

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"testing"
	"time"

	"github.com/rynek/rynek/market"
	"github.com/rynek/rynek/market/sqlite"
	"github.com/rynek/rynek/seed"
)

// benchNow is the "now" of every benchmark data set.
var benchNow = time.Date(2026, 11, 1, 12, 0, 0, 0, time.UTC)

// fixture returns a database with the given numbers of listings and days of
// history, generated once by seed (deterministic) and cached in
// $RYNEK_BENCH_DIR (default: the system temp dir), then copied so that each
// benchmark gets a private file.
func fixture(tb testing.TB, listings, days int) string {
	tb.Helper()
	dir := os.Getenv("RYNEK_BENCH_DIR")
	if dir == "" {
		dir = os.TempDir()
	}
	cached := filepath.Join(dir, fmt.Sprintf("rynek-bench-v2-%d-%d.db", listings, days))
	if _, err := os.Stat(cached); err != nil {
		tmp := cached + ".tmp"
		os.Remove(tmp)
		st, err := sqlite.Open(tmp, sqlite.Options{})
		must(tb, err)
		if _, err := seed.Load(st, seed.Options{Listings: listings, Days: days, Rand: 1, Now: benchNow}); err != nil {
			tb.Fatal(err)
		}
		must(tb, st.Close())
		must(tb, os.Rename(tmp, cached))
	}
	dst := filepath.Join(tb.TempDir(), "bench.db")
	copyFile(tb, cached, dst)
	return dst
}

func copyFile(tb testing.TB, src, dst string) {
	in, err := os.Open(src)
	must(tb, err)
	defer in.Close()
	out, err := os.OpenFile(dst, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o600)
	must(tb, err)
	_, err = io.Copy(out, in)
	must(tb, err)
	must(tb, out.Close())
}

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

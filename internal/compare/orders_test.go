package compare_test

import (
	"slices"
	"testing"
	"time"

	"github.com/rynek/rynek/internal/benchdata"
	"github.com/rynek/rynek/market"
	"github.com/rynek/rynek/market/sqlite"
)

// BenchmarkOrderLatency measures the main thread's time to place a buy
// order that rests and to fill one (a sale of one item into it from an
// inventory), beside a sell, on the million-listing market of
// BenchmarkMutationLatency, interleaved: b.N of each. The target:
// each at most 1.5x a sell (order-ratio, fill-ratio at p50). Then b.N/6
// new listings that a resting order buys at once (listfill, listfill-ratio:
// BenchmarkMutationLatency's fills, here in both modes).
//
// sync: the mutation commits before it returns. behind: the committer
// commits (market.Config.CommitBehind); a sample is the call plus the
// main thread's taking of its outcome (Settle), not the wait between.
func BenchmarkOrderLatency(b *testing.B) {
	for _, behind := range []bool{false, true} {
		name := "sync"
		if behind {
			name = "behind"
		}
		b.Run(name, func(b *testing.B) { orderLatency(b, behind) })
	}
}

func orderLatency(b *testing.B, behind bool) {
	cfg := benchdata.Unlimited
	cfg.CommitBehind = behind
	svc, _ := benchdata.Open(b, benchdata.Path(b, 1_000_000, -1), sqlite.Options{}, cfg)
	b.Cleanup(func() { svc.Close() })
	measure := func(tb testing.TB, f func() error) (sample, error) { return measureSettled(tb, svc, f) }
	src := writesSources(b, svc)
	// Sells from the first half of the players' stacks, fills from plain
	// stacks of the second: no stack is sold twice.
	half := len(src) / 2
	var plain []writesSource
	for _, x := range src[half:] {
		if x.s.DisplayName == "" && len(x.s.Lore) == 0 && len(x.s.Enchantments) == 0 && x.s.MaxStack == 0 {
			plain = append(plain, x)
		}
	}
	nFills := max(b.N/6, 1)
	if half < b.N || len(plain) < b.N+nFills {
		b.Skipf("only %d sellable and %d plain items", half, len(plain))
	}
	startMeter(b)
	sells, orders, fills := make([]sample, b.N), make([]sample, b.N), make([]sample, b.N)
	for i := range b.N {
		var err error
		if sells[i], err = measure(b, func() error { _, err := svc.SellItem(src[i].p, src[i].s, 10); return err }); err != nil {
			b.Fatal(err)
		}
		f := plain[i]
		buyer := src[(i*7+half/3)%half].p
		if buyer.ID == f.p.ID {
			buyer = src[(i*7+half/3+1)%half].p
		}
		// A cent an item rests: no listing is that cheap (1.00 at the
		// least, for at most 64 items).
		var o market.Order
		if orders[i], err = measure(b, func() error {
			o, err = svc.PlaceOrder(buyer, f.s.Material, 64, 0.01, 0)
			return err
		}); err != nil {
			b.Fatal(err)
		}
		if !o.Open() || o.Filled != 0 {
			b.Fatalf("the order did not rest: %+v", o)
		}
		if fills[i], err = measure(b, func() error { _, err := svc.SellToOrder(f.p, f.s, o.ID); return err }); err != nil {
			b.Fatal(err)
		}
	}
	listFills := listingFills(b, svc, plain[b.N:], nFills, measure)
	b.StopTimer()
	reportSamples(b, "sell", sells)
	reportSamples(b, "order", orders)
	reportSamples(b, "fill", fills)
	reportSamples(b, "listfill", listFills)
	p50 := func(s []sample) float64 {
		d := make([]time.Duration, len(s))
		for i, x := range s {
			d[i] = x.wall
		}
		slices.Sort(d)
		return float64(d[len(d)/2])
	}
	b.ReportMetric(p50(orders)/p50(sells), "order-ratio")
	b.ReportMetric(p50(fills)/p50(sells), "fill-ratio")
	b.ReportMetric(p50(listFills)/p50(sells), "listfill-ratio")
}

package httpapi

import (
	"math"
	"testing"

	"github.com/rynek/rynek/internal/wire"
	"github.com/rynek/rynek/market"
	"github.com/rynek/rynek/seed"
)

// TestVolumeHistory: the market's volume over a span is every sale of the
// span, in the buckets of a price history, summed exactly.
func TestVolumeHistory(t *testing.T) {
	e := newEnv(t, seed.Options{Listings: 100, Days: 3}, Options{})
	all, err := e.svc.Transactions(market.TxQuery{Limit: 1 << 20})
	if err != nil {
		t.Fatal(err)
	}
	for _, span := range []string{"24h", "7d", "30d"} {
		var vh wire.VolumeHistory
		if a := e.getJSON("/api/volume-history?span="+span, &vh); a.status != 200 {
			t.Fatalf("%s: %d %s", span, a.status, a.body)
		}
		want := map[string]int{"24h": 24, "7d": 28, "30d": 30}[span]
		if len(vh.Buckets) != want || vh.Span != span {
			t.Fatalf("%s: %d buckets, want %d", span, len(vh.Buckets), want)
		}
		first := vh.Buckets[0].Start.Time
		var count int
		var sum market.Money
		for _, tx := range all.Transactions {
			if !tx.Timeline[len(tx.Timeline)-1].At.Before(first) {
				count++
				sum += market.Money(cents(tx.Price))
			}
		}
		var gotCount int
		var gotCents market.Money
		for _, b := range vh.Buckets {
			gotCount += b.Count
			m, err := market.ParsePrice(b.Volume, 0, 1<<62)
			if err != nil && b.Volume != "0.00" {
				t.Fatal(err)
			}
			gotCents += m
		}
		if gotCount != count || gotCents != sum {
			t.Errorf("%s: %d sales worth %s, want %d worth %s", span, gotCount, market.FormatMoney(gotCents), count, market.FormatMoney(sum))
		}
	}
	if a := e.get("/api/volume-history?span=1y"); a.status != 400 || a.problem(t).Parameter != "span" {
		t.Errorf("span=1y: %d %s", a.status, a.body)
	}
}

// cents is a contract price (a float of major units) in cents.
func cents(v float64) int64 { return int64(math.Round(v * 100)) }

package market_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/rynek/rynek/market"
)

func TestStatsAndPriceHistory(t *testing.T) {
	w := newWorld(t)
	buy := func(seller, buyer market.Player, amount int, price float64) market.Transaction {
		t.Helper()
		d := w.stack(seller, 0)
		d.Amount = amount
		l, err := w.svc.SellItem(seller, d, price)
		must(t, err)
		tx, err := w.svc.Buy(buyer, l.ID)
		must(t, err)
		return tx
	}
	// Diamonds: unit prices 2, 3 and 10 at different times.
	buy(w.alice, w.bob, 10, 20) // unit 2.00, 30 days ago (clock moves below)
	w.clock.Advance(20 * 24 * time.Hour)
	buy(w.alice, w.admin, 5, 15) // unit 3.00, 10 days ago
	w.clock.Advance(9*24*time.Hour + 12*time.Hour)
	buy(w.bob, w.admin, 1, 10) // unit 10.00, 12 hours ago
	w.clock.Advance(12 * time.Hour)
	// A failed purchase counts nowhere.
	must(t, w.svc.ArmFailure(market.StateSellerPaid))
	d := w.stack(w.bob, 0)
	d.Amount = 1
	l, err := w.svc.SellItem(w.bob, d, 999)
	must(t, err)
	if _, err := w.svc.Buy(w.alice, l.ID); err == nil {
		t.Fatal("armed purchase succeeded")
	}

	st, err := w.svc.Stats(10)
	must(t, err)
	if st.TotalSales != 3 || st.MarketVolume != 45 || st.ActiveListings != 1 {
		t.Fatalf("stats %+v", st)
	}
	// Fees: 5% of 20, 15, 10 = 1.00 + 0.75 + 0.50.
	if st.FeeBalance != 2.25 {
		t.Fatalf("fee balance %v", st.FeeBalance)
	}
	if len(st.TopSellers) != 2 || st.TopSellers[0].Name != "Alice" || st.TopSellers[0].Earned != 33.25 || st.TopSellers[0].Sales != 2 ||
		st.TopSellers[1].Name != "Bob" || st.TopSellers[1].Earned != 9.5 {
		t.Fatalf("top sellers %+v", st.TopSellers)
	}
	if len(st.TopItems) != 1 || st.TopItems[0].Material != "DIAMOND" || st.TopItems[0].Amount != 16 || st.TopItems[0].Sales != 3 {
		t.Fatalf("top items %+v", st.TopItems)
	}
	if len(st.MostExpensive) != 3 || st.MostExpensive[0].Price != 20 || st.MostExpensive[2].Price != 10 {
		t.Fatalf("most expensive %+v", st.MostExpensive)
	}

	ph, err := w.svc.PriceHistory("diamond", 30*24*time.Hour, 24*time.Hour)
	must(t, err)
	want := []struct {
		sales            int
		min, median, max float64
	}{
		{1, 10, 10, 10}, // 24 h
		{1, 10, 10, 10}, // 7 d
		{3, 2, 3, 10},   // 30 d: the first sale is exactly 30 days old; windows include their start
	}
	for i, w := range want {
		got := ph.Windows[i]
		if got.Sales != w.sales || got.Min != w.min || got.Median != w.median || got.Max != w.max {
			t.Errorf("window %v: %+v, want %+v", got.Window, got, w)
		}
	}
	if len(ph.Points) != 30 {
		t.Fatalf("%d points", len(ph.Points))
	}
	sales := 0
	for _, p := range ph.Points {
		sales += p.Sales
	}
	// The chart's 30 daily buckets begin at midnight 29 days ago: the sale
	// of 30 days ago at noon is in the window, not on the chart.
	if sales != 2 || !ph.Points[0].Start.Equal(t0.Add(12*time.Hour)) {
		t.Fatalf("chart from %s holds %d sales, want 2", ph.Points[0].Start, sales)
	}
	// A key no test gives an item: the market has never met that material.
	if _, err := w.svc.PriceHistory("NEVER_MET_BY_THE_MARKET", 0, 0); err == nil {
		t.Fatal("unknown material accepted")
	}
	// Stats survive a restart (rebuilt from transactions).
	w.reopen()
	st2, _ := w.svc.Stats(10)
	if st2.TotalSales != 3 || st2.MarketVolume != 45 || st2.TopSellers[0].Earned != 33.25 {
		t.Fatalf("after reopen %+v", st2)
	}
}

// TestProfileAndCategoryCounts checks both against the one-read queries
// they summarize.
func TestProfileAndCategoryCounts(t *testing.T) {
	svc := seeded(t, 2_000)
	counts, v, err := svc.CategoryCounts()
	must(t, err)
	if v != svc.Version() || len(counts) != 12 {
		t.Fatalf("version %d (market %d), %d categories", v, svc.Version(), len(counts))
	}
	for _, c := range counts {
		p, err := svc.Query(market.Query{Category: c.Category, Limit: 1})
		must(t, err)
		if p.Total != c.Active {
			t.Errorf("%s: %d active, a query finds %d", c.Category, c.Active, p.Total)
		}
	}
	players, err := svc.Players()
	must(t, err)
	all, err := svc.GetCompletedTransactions()
	must(t, err)
	for _, pl := range players[:10] {
		pr, err := svc.Profile(pl.ID)
		must(t, err)
		mine, err := svc.GetListingsBySeller(pl.ID)
		must(t, err)
		var sales, purchases int64
		var earned market.Money
		for _, tx := range all {
			if tx.Seller == pl.ID {
				sales++
				earned += market.Money(tx.SellerNet*100 + 0.5)
			}
			if tx.Buyer == pl.ID {
				purchases++
			}
		}
		got := fmt.Sprintf("%s %d %d %d %.2f", pr.Name, pr.ActiveListings, pr.Sales, pr.Purchases, pr.Earned)
		want := fmt.Sprintf("%s %d %d %d %.2f", pl.Name, len(mine), sales, purchases, earned.Float())
		if got != want {
			t.Errorf("profile %q, want %q", got, want)
		}
	}
	if _, err := svc.Profile(uid(99)); !errorsIsCode(err, market.CodeUnknownPlayer) {
		t.Errorf("unknown player: %v", err)
	}
}

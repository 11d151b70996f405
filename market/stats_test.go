package market_test

import (
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

func TestTransactionsPages(t *testing.T) {
	w := newWorld(t)
	var ids []string
	for i := 0; i < 3; i++ {
		d := w.stack(w.alice, 0)
		d.Amount = 1
		l, err := w.svc.SellItem(w.alice, d, 5)
		must(t, err)
		if i == 1 {
			must(t, w.svc.ArmFailure(market.StateSellerPaid))
		}
		w.clock.Advance(time.Minute)
		tx, _ := w.svc.Buy(w.bob, l.ID)
		ids = append(ids, tx.ID)
	}
	done, err := w.svc.Transactions(market.TxQuery{})
	must(t, err)
	if done.Total != 2 || done.Transactions[0].ID != ids[2] || done.Transactions[1].ID != ids[0] {
		t.Fatalf("completed page %+v", done)
	}
	all, err := w.svc.Transactions(market.TxQuery{AllStates: true})
	must(t, err)
	if all.Total != 3 || all.Transactions[1].ID != ids[1] || all.Transactions[1].State != market.StateRolledBack {
		t.Fatalf("all page %+v", all)
	}
	bob, err := w.svc.Transactions(market.TxQuery{Player: w.bob.ID, AllStates: true, Offset: 1, Limit: 1})
	must(t, err)
	if bob.Total != 3 || len(bob.Transactions) != 1 || bob.Transactions[0].ID != ids[1] {
		t.Fatalf("bob page %+v", bob)
	}
	admin, err := w.svc.Transactions(market.TxQuery{Player: w.admin.ID})
	must(t, err)
	if admin.Total != 0 {
		t.Fatalf("admin page %+v", admin)
	}
	w.reopen()
	again, _ := w.svc.Transactions(market.TxQuery{Player: w.bob.ID, AllStates: true})
	if again.Total != 3 || again.Transactions[0].ID != ids[2] {
		t.Fatalf("after reopen %+v", again)
	}
}

// TestPriceHistoryBucketsMeetUTCBoundaries: a chart's buckets are exactly
// as wide as asked (1 h, 6 h, a day: not a millisecond more, which made
// them drift 1 ms a bucket), each starts on a multiple of its width since
// the Unix epoch, the last holds now, and a sale lands in the bucket its
// time falls in, edges included.
func TestPriceHistoryBucketsMeetUTCBoundaries(t *testing.T) {
	w := newWorld(t)
	// 2026-11-01 12:00 + 4 h 40 m 4.760 s: an hour, a 6-hour mark and a
	// day are all under way.
	w.clock.Advance(4*time.Hour + 40*time.Minute + 4760*time.Millisecond)
	sell := func(amount int, price float64) {
		t.Helper()
		d := w.stack(w.alice, 0)
		d.Amount = amount
		l, err := w.svc.SellItem(w.alice, d, price)
		must(t, err)
		_, err = w.svc.Buy(w.bob, l.ID)
		must(t, err)
	}
	// One sale at 16:40:04.760, one exactly at 16:00:00.000 and one a
	// millisecond before it.
	sell(1, 5)
	back := 40*time.Minute + 4760*time.Millisecond
	w.clock.Advance(-back)
	sell(1, 6)
	w.clock.Advance(-time.Millisecond)
	sell(1, 7)
	w.clock.Advance(back + time.Millisecond)
	now := w.clock.Now()

	for _, c := range []struct {
		span, width time.Duration
		buckets     int
		last        string
	}{
		{24 * time.Hour, time.Hour, 24, "2026-11-01T16:00:00Z"},
		{7 * 24 * time.Hour, 6 * time.Hour, 28, "2026-11-01T12:00:00Z"},
		{30 * 24 * time.Hour, 24 * time.Hour, 30, "2026-11-01T00:00:00Z"},
	} {
		ph, err := w.svc.PriceHistory("DIAMOND", c.span, c.width)
		must(t, err)
		if ph.Width != c.width || len(ph.Points) != c.buckets {
			t.Fatalf("%s: width %s, %d buckets; want %s and %d", c.span, ph.Width, len(ph.Points), c.width, c.buckets)
		}
		for i, p := range ph.Points {
			if p.Start.UnixMilli()%c.width.Milliseconds() != 0 || p.Start.Location() != time.UTC {
				t.Errorf("%s: bucket %d starts at %s, off the %s boundaries", c.span, i, p.Start, c.width)
			}
			if i > 0 && p.Start.Sub(ph.Points[i-1].Start) != c.width {
				t.Errorf("%s: bucket %d starts %s after the one before", c.span, i, p.Start.Sub(ph.Points[i-1].Start))
			}
		}
		last := ph.Points[len(ph.Points)-1]
		if got := last.Start.Format(time.RFC3339); got != c.last || now.Before(last.Start) || !now.Before(last.Start.Add(c.width)) {
			t.Errorf("%s: the last bucket starts at %s, want %s holding now (%s)", c.span, got, c.last, now)
		}
	}
	// Hourly: 16:00 holds the sales at 16:00:00.000 (6.00) and 16:40 (5.00);
	// 15:00 the one at 15:59:59.999 (7.00).
	ph, err := w.svc.PriceHistory("DIAMOND", 24*time.Hour, time.Hour)
	must(t, err)
	p15, p16 := ph.Points[22], ph.Points[23]
	if p16.Sales != 2 || p16.Min != 5 || p16.Max != 6 || p16.Volume != 11_00 || p15.Sales != 1 || p15.Min != 7 {
		t.Errorf("15:00 %+v, 16:00 %+v", p15, p16)
	}

	for _, c := range []struct {
		span, width time.Duration
		err         string
	}{
		{24 * time.Hour, 7 * time.Hour, "a price chart's bucket width divides a day or is whole days (1h, 6h, 24h…), not 7h0m0s"},
		{24 * time.Hour, 36 * time.Hour, "a price chart's bucket width divides a day or is whole days (1h, 6h, 24h…), not 36h0m0s"},
		{24 * time.Hour, time.Microsecond, "a price chart's bucket width divides a day or is whole days (1h, 6h, 24h…), not 1µs"},
		{30 * 24 * time.Hour, time.Minute, "720h0m0s in buckets of 1m0s is more than 1000 buckets"},
		{-time.Hour, time.Hour, "a price chart's span and bucket width are positive, not -1h0m0s and 1h0m0s"},
	} {
		_, err := w.svc.PriceHistory("DIAMOND", c.span, c.width)
		errText(t, err, c.err)
	}
}

// TestPriceVolumeIsExact: a window's and a bucket's volume is the sum of
// its sales' prices to the cent, where stacks whose price does not divide
// by their amount used to count their rounded-down unit price times the
// amount (3 diamonds for 10.00 counted 9.99999).
func TestPriceVolumeIsExact(t *testing.T) {
	w := newWorld(t)
	var sum market.Money
	for _, s := range []struct {
		amount int
		price  float64
	}{{3, 10}, {7, 1}, {6, 2.05}, {9, 100}, {11, 1.13}} {
		d := w.stack(w.alice, 0)
		d.Amount = s.amount
		l, err := w.svc.SellItem(w.alice, d, s.price)
		must(t, err)
		tx, err := w.svc.Buy(w.bob, l.ID)
		must(t, err)
		sum += market.Money(tx.Price*100 + 0.5)
		w.clock.Advance(5 * time.Hour)
	}
	ph, err := w.svc.PriceHistory("DIAMOND", 30*24*time.Hour, 24*time.Hour)
	must(t, err)
	var buckets market.Money
	for _, p := range ph.Points {
		buckets += p.Volume
	}
	if ph.Windows[2].Volume != sum || buckets != sum {
		t.Errorf("30-day volume %s, buckets %s; the transactions' prices sum to %s",
			market.FormatMoney(ph.Windows[2].Volume), market.FormatMoney(buckets), market.FormatMoney(sum))
	}
	sumup, err := w.svc.PriceSummary("DIAMOND")
	must(t, err)
	if sumup.Week.Volume != sum {
		t.Errorf("the week's volume %s, want %s", market.FormatMoney(sumup.Week.Volume), market.FormatMoney(sum))
	}
}

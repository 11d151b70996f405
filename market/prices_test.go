package market_test

import (
	"testing"
	"time"

	"github.com/rynek/rynek/market"
)

func TestPriceHistoryStampsCompletionLikeAReload(t *testing.T) {
	w := newWorld(t)
	svc, _, id := stuckPurchase(t, w, market.StateCompleted) // left at ITEM_DELIVERED
	got, _ := svc.GetTransaction(id)
	if got.State != market.StateItemDelivered {
		t.Fatalf("state %s", got.State)
	}
	w.clock.Advance(25 * time.Hour)
	must(t, svc.Recover())
	live, err := svc.PriceHistory("DIAMOND_SWORD", 0, 0)
	must(t, err)
	must(t, svc.Close())
	w.reopen()
	reloaded, err := w.svc.PriceHistory("DIAMOND_SWORD", 0, 0)
	must(t, err)
	if live.Windows[0].Sales != 1 || reloaded.Windows[0].Sales != 1 {
		t.Fatalf("24h sales live %d, after reload %d; want 1 and 1", live.Windows[0].Sales, reloaded.Windows[0].Sales)
	}
}

// TestPriceSummary: the last 7 days' unit prices of a material and its
// cheapest live listing, as a seller sees them before typing a price.
func TestPriceSummary(t *testing.T) {
	w := newWorld(t)
	sum, err := w.svc.PriceSummary("diamond")
	must(t, err)
	if sum.Material != "DIAMOND" || sum.Week.Sales != 0 || sum.Cheapest != nil {
		t.Fatalf("an untraded material: %+v", sum)
	}
	// Bob buys 8 diamonds at 2.00 each and 16 at 1.50; Alice lists 8 more at 2.50.
	for _, c := range []struct {
		amount int
		price  float64
	}{{8, 16}, {16, 24}} {
		st := w.stack(w.alice, 0)
		st.Amount = c.amount
		l, err := w.svc.SellItem(w.alice, st, c.price)
		must(t, err)
		_, err = w.svc.Buy(w.bob, l.ID)
		must(t, err)
	}
	st := w.stack(w.alice, 0)
	st.Amount = 8
	_, err = w.svc.SellItem(w.alice, st, 20) // expires before the summary
	must(t, err)
	w.clock.Advance(8 * 24 * time.Hour) // an old sale leaves the week
	st = w.stack(w.admin, 0)
	st.Amount = 4
	l, err := w.svc.SellItem(w.admin, st, 12)
	must(t, err)
	_, err = w.svc.Buy(w.bob, l.ID)
	must(t, err)
	if _, _, err := w.svc.SweepExpired(); err != nil {
		t.Fatal(err)
	}
	sum, err = w.svc.PriceSummary("minecraft:diamond")
	must(t, err)
	if sum.Week.Sales != 1 || sum.Week.Min != 3 || sum.Week.Median != 3 || sum.Week.Max != 3 {
		t.Fatalf("the week: %+v", sum.Week)
	}
	if sum.Cheapest != nil {
		t.Fatalf("the 8-day-old listing #%d is still the cheapest", sum.Cheapest.ID)
	}
	st = w.stack(w.admin, 0)
	st.Amount = 10
	cheap, err := w.svc.SellItem(w.admin, st, 15)
	must(t, err)
	st = w.stack(w.admin, 0)
	st.Amount = 2
	_, err = w.svc.SellItem(w.admin, st, 4) // 2.00 each: dearer by the unit
	must(t, err)
	sum, err = w.svc.PriceSummary("DIAMOND")
	must(t, err)
	if sum.Cheapest == nil || sum.Cheapest.ID != cheap.ID {
		t.Fatalf("cheapest %+v, want #%d at 1.50 each", sum.Cheapest, cheap.ID)
	}
	if _, err := w.svc.PriceSummary("NO_SUCH_THING"); err == nil || err.Error() != `unknown material "NO_SUCH_THING"` {
		t.Fatalf("an unknown material: %v", err)
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

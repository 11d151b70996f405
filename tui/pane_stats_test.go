package tui

import (
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
	"github.com/rynek/rynek/market"
	"github.com/rynek/rynek/market/playertext"
	"github.com/rynek/rynek/seed"
)

// statsCommon is a Common over a seeded market with 30 days of sales.
func statsCommon(t *testing.T) *Common {
	return paneCommon(t, seed.Options{Players: 30, Listings: 300, Days: 30, Rand: 1})
}

// statsView refreshes p for a screen w×(h+4) and renders it at w×h, checking
// the exact size.
func statsView(t *testing.T, c *Common, p *statsPane, w, h int) string {
	t.Helper()
	c.W, c.H = w, h+4
	p.Refresh(c)
	v := p.View(c, w, h)
	checkStatsSize(t, v, w, h)
	return v
}

func checkStatsSize(t *testing.T, v string, w, h int) {
	t.Helper()
	lines := strings.Split(v, "\n")
	if len(lines) != h {
		t.Fatalf("%d×%d: got %d lines", w, h, len(lines))
	}
	for i, l := range lines {
		if got := ansi.StringWidth(l); got != w {
			t.Errorf("%d×%d: line %d is %d cells wide: %q", w, h, i, got, ansi.Strip(l))
		}
	}
}

func TestStatsLayout(t *testing.T) {
	c := statsCommon(t)
	st, err := c.Svc.Stats(10)
	if err != nil {
		t.Fatal(err)
	}
	if len(st.TopSellers) == 0 || len(st.TopItems) == 0 || st.MarketVolume <= 0 {
		t.Fatalf("seeded market has no sales: %+v", st)
	}
	for _, size := range [][2]int{{80, 20}, {160, 44}, {100, 30}, {140, 20}, {40, 10}} {
		p := newStatsPane()
		v := statsView(t, c, p, size[0], size[1])
		if size[0] < 80 {
			continue
		}
		plain := ansi.Strip(v)
		for _, want := range []string{"Top sellers", playertext.Sanitize(st.TopSellers[0].Name), money(st.MarketVolume),
			"Top items", st.TopItems[0].Name, "Most expensive sales", "Price history", "median"} {
			if !strings.Contains(v, want) && !strings.Contains(plain, want) {
				t.Errorf("%d×%d: view lacks %q:\n%s", size[0], size[1], want, plain)
			}
		}
		if p.material != st.TopItems[0].Material {
			t.Errorf("default material %q, want the top item %q", p.material, st.TopItems[0].Material)
		}
		if got, cols := len(p.hist.Points), statsColumns(size[0]); got > cols || got <= cols/3 {
			t.Errorf("%d wide: %d buckets for %d columns", size[0], got, cols)
		}
		if !strings.ContainsAny(plain, "━") {
			t.Errorf("%d×%d: the chart draws no median:\n%s", size[0], size[1], plain)
		}
		if testing.Verbose() {
			t.Logf("%d×%d:\n%s", size[0], size[1], plain)
		}
	}
}

func TestStatsKeys(t *testing.T) {
	c := statsCommon(t)
	p := newStatsPane()
	statsView(t, c, p, 80, 20)
	first := p.material
	p.Update(c, tea.KeyPressMsg{Code: 'n', Text: "n"})
	if p.material == first || p.material != p.mats[1] {
		t.Fatalf("m: material %q, want %q (after %q)", p.material, p.mats[1], first)
	}
	if p.hist.Material != p.material {
		t.Errorf("m: chart of %q, want %q", p.hist.Material, p.material)
	}
	// A refresh keeps the chosen material.
	statsView(t, c, p, 80, 20)
	if p.material != p.mats[1] {
		t.Errorf("refresh dropped the chosen material: %q", p.material)
	}
	p.Update(c, tea.KeyPressMsg{Code: 'N', Text: "N"})
	if p.material != first {
		t.Errorf("M: material %q, want %q", p.material, first)
	}
	p.Update(c, tea.KeyPressMsg{Code: 'N', Text: "N"})
	if p.material != p.mats[len(p.mats)-1] {
		t.Errorf("M wraps: material %q, want %q", p.material, p.mats[len(p.mats)-1])
	}

	span := p.span
	p.Update(c, tea.KeyPressMsg{Code: 'w', Text: "w"})
	if p.span == span {
		t.Fatal("w did not change the span")
	}
	if !strings.Contains(ansi.Strip(p.View(c, 80, 20)), "last "+statsSpans[p.span].label) {
		t.Errorf("view does not show span %s", statsSpans[p.span].label)
	}
	for range statsSpans {
		p.Update(c, tea.KeyPressMsg{Code: 'w', Text: "w"})
		v := p.View(c, 80, 20)
		checkStatsSize(t, v, 80, 20)
		if testing.Verbose() {
			t.Logf("span %s:\n%s", statsSpans[p.span].label, ansi.Strip(v))
		}
	}
	if p.span != (span+1)%len(statsSpans) {
		t.Errorf("w does not cycle: span %d", p.span)
	}
	if len(p.Help()) != 3 || p.TextFocused() {
		t.Error("help or focus wrong")
	}
	if _, ok := p.Selected(); ok {
		t.Error("stats pane selects a listing")
	}
}

func TestStatsNotReady(t *testing.T) {
	c := statsCommon(t)
	p := newStatsPane()
	statsView(t, c, p, 80, 20)
	c.Svc.Disable()
	v := statsView(t, c, p, 80, 20)
	if !strings.Contains(ansi.Strip(v), "Rynek API nie jest gotowe") {
		t.Fatalf("view lacks the not-ready error:\n%s", ansi.Strip(v))
	}
	p.Update(c, tea.KeyPressMsg{Code: 'n', Text: "n"})
	v = p.View(c, 160, 44)
	checkStatsSize(t, v, 160, 44)
	if testing.Verbose() {
		t.Logf("not ready:\n%s", ansi.Strip(v))
	}

	// Never loaded: the error alone.
	q := newStatsPane()
	v = statsView(t, c, q, 160, 44)
	if !strings.Contains(ansi.Strip(v), "Rynek API nie jest gotowe") {
		t.Fatalf("view lacks the not-ready error:\n%s", ansi.Strip(v))
	}
}

func TestStatsHostileNames(t *testing.T) {
	c := statsCommon(t)
	p := newStatsPane()
	statsView(t, c, p, 80, 20)
	p.st.TopSellers[0].Name = "Evil\x1b]52;c;AAAA\x07\r\u202eName"
	p.st.MostExpensive[0].BuyerName = "B\x1b[2Juyer\x9b"
	p.st.MostExpensive[0].Item.DisplayName = "§cRed\x1b[31m§lSword\n"
	for _, size := range [][2]int{{80, 20}, {160, 44}} {
		v := p.View(c, size[0], size[1])
		checkStatsSize(t, v, size[0], size[1])
		for _, bad := range []string{"\x1b]", "\x1b[2J", "\r", "\u202e", "\x07", "\u009b"} {
			if strings.Contains(v, bad) {
				t.Errorf("%d×%d: view contains %q", size[0], size[1], bad)
			}
		}
	}
}

func TestStatsNoSales(t *testing.T) {
	c := statsCommon(t)
	p := newStatsPane()
	p.Refresh(c)
	// No sales of the material in the chosen span.
	p.st = market.Stats{}
	p.mats, p.material, p.hist = nil, "DIAMOND", market.PriceHistory{}
	for _, size := range [][2]int{{80, 20}, {160, 44}} {
		v := p.View(c, size[0], size[1])
		checkStatsSize(t, v, size[0], size[1])
		if !strings.Contains(ansi.Strip(v), "no sales") {
			t.Errorf("%d×%d: no 'no sales' hint:\n%s", size[0], size[1], ansi.Strip(v))
		}
	}
}

// The chart's sales row: a bar per bucket with sales, as high as its share
// of the busiest bucket, labelled with the busiest bucket's count; buckets
// without sales stay blank.
func TestStatsChartSalesRow(t *testing.T) {
	s := newStyles(true)
	start := fixedNow.Add(-4 * time.Hour)
	pts := []market.PricePoint{
		{Start: start, Sales: 8, Min: 1, Median: 2, Max: 3},
		{Start: start.Add(time.Hour)},
		{Start: start.Add(2 * time.Hour), Sales: 1, Min: 2, Median: 2, Max: 2},
		{Start: start.Add(3 * time.Hour), Sales: 4, Min: 1, Median: 1.5, Max: 2},
	}
	lines := statsChartLines(s, pts, 24*time.Hour, 4, 6, "none")
	if len(lines) != 7 {
		t.Fatalf("%d lines, want 6 and the axis", len(lines))
	}
	if got, want := ansi.Strip(lines[5]), fitLeft("≤8", statsYAxisW-2)+" │█ ▁▄"; got != want {
		t.Fatalf("sales row %q, want %q", got, want)
	}
	for _, l := range lines[:5] {
		if strings.ContainsAny(ansi.Strip(l), string(statsBars)) {
			t.Fatalf("a price row holds a sales bar: %q", ansi.Strip(l))
		}
	}
	if lines := statsChartLines(s, pts, 24*time.Hour, 4, 3, "none"); len(lines) != 4 || strings.Contains(ansi.Strip(lines[2]), "≤") {
		t.Fatalf("3 rows have room for prices only: %q", lines)
	}
}

// TestStatsVolumeIsTheSumOfTheSales: on the Stats pane, the charted item's
// 30-day volume is the sum of its transactions' prices in those 30 days,
// to the cent. It was summed from rounded-down unit prices times amounts,
// and over a month of sales came out 0.01 or more below.
func TestStatsVolumeIsTheSumOfTheSales(t *testing.T) {
	e := envOn(t, seededStore(t, seed.Options{Players: 40, Listings: 3000, Days: 30, Rand: 1}), 160, 44)
	e.key("4")
	p := e.m.panes[3].(*statsPane)
	done, err := e.svc.GetCompletedTransactions()
	if err != nil {
		t.Fatal(err)
	}
	now := e.clock.Now()
	var sum market.Money
	sales := 0
	for _, tx := range done {
		at := tx.Timeline[len(tx.Timeline)-1].At
		if tx.Item.Material == p.material && !at.Before(now.Add(-30*24*time.Hour)) && !at.After(now) {
			sum += market.Money(tx.Price*100 + 0.5)
			sales++
		}
	}
	if sales < 30 {
		t.Fatalf("%d sales of %s in 30 days: too few to sum", sales, p.material)
	}
	// The table's row, the last with "volume": the word and the 24h, 7d
	// and 30d cells, 10 wide each (a full one leaves a single space).
	row := ""
	for _, line := range strings.Split(e.view(), "\n") {
		if i := strings.Index(line, "volume "); i >= 0 {
			row = strings.TrimRight(line[i:], " ")
		}
	}
	if want := statsMoney(sum.Float()); !strings.HasSuffix(row, " "+want) {
		t.Errorf("%d sales of %s in 30 days sum to %s; the volume row is %q", sales, p.material, want, row)
	}
}

// TestStatsNumbersKeepTheirGaps: numbers never run together, at any
// magnitude.
func TestStatsNumbersKeepTheirGaps(t *testing.T) {
	c := statsCommon(t)
	p := newStatsPane()
	p.Refresh(c)
	p.st.TopSellers = []market.SellerRank{{Name: "Kowalski", Sales: 19996, Earned: 23349239.05}, {Name: "Nowak", Sales: 7, Earned: 1.5}}
	p.st.TopItems = []market.ItemRank{{Material: "DIAMOND", Name: "Diamond", Amount: 1234567, Volume: 987654321.99}}
	for _, w := range []int{80, 160} {
		v := ansi.Strip(p.View(c, w, 30))
		for _, want := range []string{"19 996  23 349 239.05", "1 234 567  987 654 321.99"} {
			if !strings.Contains(v, want) {
				t.Errorf("%d wide: lacks %q:\n%s", w, want, v)
			}
		}
		if strings.Contains(v, "1.50 ") && !strings.Contains(v, "           1.50") {
			t.Errorf("%d wide: small values are not right-aligned:\n%s", w, v)
		}
	}
}

// TestStatsAxisSpansTheSpan: the chart is as many columns as its buckets,
// so that the axis spans the span the heading names: on a 160-column
// console 7 days in 2-hour buckets are 84 columns (they were drawn in 111,
// the first 27 blank and standing for days before the span), 30 days in 8
// hours 90, 24 hours in 15 minutes 96. The clock is at 2026-11-01 12:00.
func TestStatsAxisSpansTheSpan(t *testing.T) {
	e := newEnv(t, 160, 48)
	e.key("4")
	for _, c := range []struct{ head, axis string }{
		{"last 7d · top item 1/10 · 1 column = 2h",
			"─────┴Oct 26─────┴Oct 27─────┴Oct 28─────┴Oct 29─────┴Oct 30─────┴Oct 31─────┴Nov 01"},
		{"last 30d · top item 1/10 · 1 column = 8h",
			"─┴Oct 03──┴Oct 06──┴Oct 09──┴Oct 12──┴Oct 15──┴Oct 18──┴Oct 21──┴Oct 24──┴Oct 27──┴Oct 30─"},
		{"last 24h · top item 1/10 · 1 column = 15m",
			"───┴13:00──┴15:00──┴17:00──┴19:00──┴21:00──┴23:00──┴01:00──┴03:00──┴05:00──┴07:00──┴09:00───────"},
	} {
		e.mustContain(c.head)
		e.mustContain("└" + c.axis + "    ") // the rest of the line is blank
		e.key("w")
	}
}

// TestStatsAxisLabelsItsFirstDay: where the first day of the span has room
// for its label before the next, the axis's corner carries it.
func TestStatsAxisLabelsItsFirstDay(t *testing.T) {
	s := newStyles(true)
	start := time.Date(2026, 10, 31, 4, 0, 0, 0, time.UTC)
	var pts []market.PricePoint
	for i := range 30 {
		pts = append(pts, market.PricePoint{Start: start.Add(time.Duration(i) * 2 * time.Hour)})
	}
	lines := statsChartLines(s, pts, 48*time.Hour, 100, 6, "none")
	want := strings.Repeat(" ", statsYAxisW-1) + "└Oct 31────┴Nov 01─────┴Nov 02─"
	if got := ansi.Strip(lines[len(lines)-1]); got != want {
		t.Fatalf("axis\n%q, want\n%q", got, want)
	}
}

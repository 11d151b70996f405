package tui

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"github.com/rynek/rynek/market"
	"github.com/rynek/rynek/market/catalog"
	"github.com/rynek/rynek/market/playertext"
)

// statsTop is how many rows each ranking shows at most.
const statsTop = 10

// statsMaxBuckets caps the chart's columns (one bucket per column).
const statsMaxBuckets = 120

// statsWide is the pane width from which the rankings sit side by side.
const statsWide = 140

// statsSpans are the chart spans "w" cycles through.
var statsSpans = []struct {
	d     time.Duration
	label string
}{
	{24 * time.Hour, "24h"},
	{7 * 24 * time.Hour, "7d"},
	{30 * 24 * time.Hour, "30d"},
}

// statsPane shows the market's figures, its rankings and the price history
// of one material. Refresh reads the market; View only formats what Refresh
// stored.
type statsPane struct {
	st      market.Stats
	hist    market.PriceHistory
	err     error // of the last Stats call
	histErr error // of the last PriceHistory call
	loaded  bool  // st holds a successful read
	at      int64 // NowUnix of the last successful read

	mats     []string // materials of the top items, most traded first
	material string   // the charted material
	chosen   bool     // the user picked the material (n/N): stop following the top item
	span     int      // index into statsSpans

	keys statsKeys
}

type statsKeys struct {
	Next, Prev, Span key.Binding
}

func newStatsPane() *statsPane {
	return &statsPane{span: 1, keys: statsKeys{
		Next: key.NewBinding(key.WithKeys("n"), key.WithHelp("n", "chart next top item")),
		Prev: key.NewBinding(key.WithKeys("N"), key.WithHelp("N", "chart previous top item")),
		Span: key.NewBinding(key.WithKeys("w"), key.WithHelp("w", "chart span 24h/7d/30d")),
	}}
}

func (p *statsPane) Title() string { return "Stats" }

func (p *statsPane) Help() []key.Binding { return []key.Binding{p.keys.Next, p.keys.Prev, p.keys.Span} }

func (p *statsPane) TextFocused() bool { return false }

func (p *statsPane) Selected() (market.Listing, bool) { return market.Listing{}, false }

// Refresh reads the figures and the price history of the charted material.
func (p *statsPane) Refresh(c *Common) {
	if !c.Svc.HistoryLoaded() { // never block the event loop on the background load
		p.err = errHistoryLoading
		return
	}
	st, err := c.Svc.Stats(statsTop)
	if err != nil {
		p.err = err // keep the last figures, shown under the error
		return
	}
	p.err, p.st, p.loaded, p.at = nil, st, true, c.NowUnix
	p.mats = p.mats[:0]
	for _, it := range st.TopItems {
		p.mats = append(p.mats, it.Material)
	}
	if !p.chosen || p.material == "" {
		p.material = "DIAMOND"
		if len(p.mats) > 0 {
			p.material = p.mats[0]
		}
	}
	p.fetchHistory(c)
}

// fetchHistory reads the price history with one bucket per chart column of
// the current screen.
func (p *statsPane) fetchHistory(c *Common) {
	w := max(c.W, 20)
	ph, err := c.Svc.PriceHistory(p.material, statsSpans[p.span].d, statsWidth(statsSpans[p.span].d, w))
	if err != nil {
		p.hist, p.histErr = market.PriceHistory{}, err
		return
	}
	p.hist, p.histErr = ph, nil
}

func (p *statsPane) Update(c *Common, msg tea.Msg) tea.Cmd {
	k, ok := msg.(tea.KeyPressMsg)
	if !ok {
		return nil
	}
	switch {
	case key.Matches(k, p.keys.Next):
		p.cycle(c, 1)
	case key.Matches(k, p.keys.Prev):
		p.cycle(c, -1)
	case key.Matches(k, p.keys.Span):
		p.span = (p.span + 1) % len(statsSpans)
		p.fetchHistory(c)
	}
	return nil
}

// cycle moves the charted material through the top items.
func (p *statsPane) cycle(c *Common, d int) {
	if len(p.mats) == 0 {
		return
	}
	i := -1
	for j, m := range p.mats {
		if m == p.material {
			i = j
		}
	}
	switch {
	case i < 0 && d > 0:
		i = 0
	case i < 0:
		i = len(p.mats) - 1
	default:
		i = (i + d + len(p.mats)) % len(p.mats)
	}
	p.material, p.chosen = p.mats[i], true
	p.fetchHistory(c)
}

// Layout. Every section is a slice of lines; View pads the whole to w×h.

// statsWinW is the width of the 24h/7d/30d table beside the chart.
const statsWinW = 36

// statsYAxisW is the width of the chart's y-axis (labels and axis line).
const statsYAxisW = 11

// statsChartW returns the width of the chart (y-axis included) on a pane w
// cells wide, and whether the 24h/7d/30d table fits beside it.
func statsChartW(w int) (int, bool) {
	if w-statsWinW-2 >= statsYAxisW+20 {
		return w - statsWinW - 2, true
	}
	return w, false
}

// statsColumns is the number of chart columns on a pane w cells wide.
func statsColumns(w int) int {
	cw, _ := statsChartW(w)
	return max(1, min(cw-statsYAxisW, statsMaxBuckets))
}

func (p *statsPane) View(c *Common, w, h int) string {
	lines := []string{p.summary(c, w), p.issuance(c)}
	if w >= statsWide {
		lines = append(lines, p.wideBody(c, w, h-2)...)
	} else {
		lines = append(lines, p.narrowBody(c, w, h-2)...)
	}
	var b strings.Builder
	for i := 0; i < h; i++ {
		if i > 0 {
			b.WriteByte('\n')
		}
		line := ""
		if i < len(lines) {
			line = lines[i]
		}
		b.WriteString(fit(line, w))
	}
	return b.String()
}

// narrowBody stacks the sections: rankings one under another, then a small
// chart.
func (p *statsPane) narrowBody(c *Common, w, h int) []string {
	chart := max(7, min(h*2/5, 18))
	rows := max(h-chart-3, 0) // three section titles
	r := [3]int{}
	for i := range r {
		r[i] = min(rows/3, statsTop)
		if i < rows%3 {
			r[i] = min(r[i]+1, statsTop)
		}
	}
	chart = max(chart, h-3-r[0]-r[1]-r[2])
	var out []string
	out = append(out, p.sellers(c, w, r[0])...)
	out = append(out, p.items(c, w, r[1])...)
	out = append(out, p.expensive(c, w, r[2])...)
	return append(out, p.chart(c, w, chart)...)
}

// wideBody puts the three rankings side by side over a large chart.
func (p *statsPane) wideBody(c *Common, w, h int) []string {
	rows := max(0, min(statsTop, h-3-7)) // blank, titles, blank, chart of 7
	inner := w - 4
	sw, iw := inner*27/100, inner*28/100
	ew := inner - sw - iw
	a, b, e := p.sellers(c, sw, rows), p.items(c, iw, rows), p.expensive(c, ew, rows)
	out := []string{""}
	for i := range a {
		out = append(out, fit(a[i], sw)+"  "+fit(b[i], iw)+"  "+fit(e[i], ew))
	}
	out = append(out, "")
	return append(out, p.chart(c, w, h-len(out))...)
}

// summary is the first line: the market's figures, or the error of the last
// read in red.
func (p *statsPane) summary(c *Common, w int) string {
	s := c.Styles
	if errors.Is(p.err, errHistoryLoading) {
		return s.Dim.Render(p.err.Error())
	}
	if p.err != nil {
		line := s.Err.Render("✗ " + playertext.Sanitize(p.err.Error()))
		if p.loaded {
			line += s.Dim.Render(" · showing figures as of " + time.Unix(p.at, 0).UTC().Format("15:04:05 UTC"))
		}
		return line
	}
	if !p.loaded {
		return s.Dim.Render("no figures yet")
	}
	active, volume, sales, fees := "Active ", "Volume ", "Sales ", "Fees "
	if w >= 100 {
		active, volume, sales, fees = "Active listings ", "Market volume ", "Total sales ", "Fee account "
	}
	sep := s.Dim.Render(" · ")
	return s.Title.Render("Market") + "  " + s.Dim.Render(active) + count(p.st.ActiveListings) + sep +
		s.Dim.Render(volume) + s.Price.Render(money(p.st.MarketVolume)) + sep +
		s.Dim.Render(sales) + count(int(p.st.TotalSales)) + sep +
		s.Dim.Render(fees) + money(p.st.FeeBalance)
}

// issuance is the second line: the issuance account, what came into the
// market from outside and what left it.
func (p *statsPane) issuance(c *Common) string {
	if !p.loaded || p.err != nil {
		return ""
	}
	s, i := c.Styles, p.st.Issued
	sep := s.Dim.Render(" · ")
	return s.Title.Render("Issued") + "  " + s.Dim.Render("money in ") + money(i.MoneyIn.Float()) + sep +
		s.Dim.Render("out ") + money(i.MoneyOut.Float()) + sep + s.Dim.Render("items in ") + count(int(i.ItemsIn)) + sep +
		s.Dim.Render("out ") + count(int(i.ItemsOut)) + s.Dim.Render("  ($ as admin)")
}

// statsCol is one column of a ranking.
type statsCol struct {
	w     int
	right bool
}

// statsGap separates columns: two cells, because the numbers' own thousands
// separators are single spaces ("19 996  23 349 239.05").
const statsGap = "  "

func statsLine(cols []statsCol, cells ...string) string {
	var b strings.Builder
	for i, c := range cols {
		if i > 0 {
			b.WriteString(statsGap)
		}
		if c.right {
			b.WriteString(fitLeft(cells[i], c.w))
		} else {
			b.WriteString(fit(cells[i], c.w))
		}
	}
	return b.String()
}

// statsFlexCols gives the first column what the fixed columns leave of w, at most
// capW.
func statsFlexCols(w, capW int, fixed ...int) []statsCol {
	rest := w - len(fixed)*len(statsGap)
	for _, f := range fixed {
		rest -= f
	}
	cols := []statsCol{{w: max(1, min(rest, capW))}}
	for _, f := range fixed {
		cols = append(cols, statsCol{w: f, right: true})
	}
	return cols
}

// rankings return a title line and exactly rows lines.

func (p *statsPane) sellers(c *Common, w, rows int) []string {
	s := c.Styles
	return statsRanking(s, w, rows, "Top sellers", "sales", "earned", len(p.st.TopSellers), func(i int) (string, string, string) {
		r := p.st.TopSellers[i]
		return s.Dim.Render(fmt.Sprintf("%2d ", i+1)) + playertext.Sanitize(r.Name), count(int(r.Sales)), money(r.Earned)
	})
}

func (p *statsPane) items(c *Common, w, rows int) []string {
	s := c.Styles
	return statsRanking(s, w, rows, "Top items", "sold", "volume", len(p.st.TopItems), func(i int) (string, string, string) {
		r := p.st.TopItems[i]
		rank := s.Dim.Render(fmt.Sprintf("%2d ", i+1))
		if r.Material == p.material {
			rank = s.Chart.Render(fmt.Sprintf("%2d▸", i+1))
		}
		name := r.Name
		if name == "" {
			name = r.Material
		}
		return rank + playertext.Sanitize(name), count(int(r.Amount)), money(r.Volume)
	})
}

// statsRanking lays out the top sellers or the top items: n rows, each a
// label, a number and an amount of money (row(i) gives them), under title
// and the two columns' heads. The numbers' columns are as wide as their
// widest value, the label takes the rest, at most 28 cells.
func statsRanking(s Styles, w, rows int, title, countHead, moneyHead string, n int, row func(i int) (label, number, amount string)) []string {
	countW, moneyW := len(countHead), len(moneyHead)
	for i := range n {
		_, c, m := row(i)
		countW, moneyW = max(countW, width(c)), max(moneyW, width(m))
	}
	cols := statsFlexCols(w, 28, countW, moneyW)
	out := []string{statsLine(cols, s.Title.Render(title), s.Dim.Render(countHead), s.Dim.Render(moneyHead))}
	for i := 0; i < rows; i++ {
		switch {
		case i < n:
			label, c, m := row(i)
			out = append(out, statsLine(cols, label, c, s.Price.Render(m)))
		case i == 0:
			out = append(out, s.Dim.Render("   no sales yet"))
		default:
			out = append(out, "")
		}
	}
	return out
}

func (p *statsPane) expensive(c *Common, w, rows int) []string {
	s := c.Styles
	priceW := len("price")
	for _, t := range p.st.MostExpensive {
		priceW = max(priceW, width(money(t.Price)))
	}
	avail := max(w-priceW-11-3*len(statsGap), 2)
	iw := min(avail*45/100, 30)
	cols := []statsCol{{w: max(iw, 1)}, {w: priceW, right: true}, {w: max(min(avail-iw, 36), 1)}, {w: 11}}
	title := "Most expensive sales"
	var out []string
	if len(title) <= cols[0].w {
		out = append(out, statsLine(cols, s.Title.Render(title), s.Dim.Render("price"),
			s.Dim.Render("seller → buyer"), s.Dim.Render("when (UTC)")))
	} else { // the title takes the price column's heading too
		head := []statsCol{{w: cols[0].w + len(statsGap) + cols[1].w}, cols[2], cols[3]}
		out = append(out, statsLine(head, s.Title.Render(title), s.Dim.Render("seller → buyer"), s.Dim.Render("when (UTC)")))
	}
	for i := 0; i < rows; i++ {
		switch {
		case i < len(p.st.MostExpensive):
			t := p.st.MostExpensive[i]
			item := RenderMC(itemName(t.Item), lipglossPlain)
			if t.Item.Amount > 1 {
				item += s.Dim.Render(fmt.Sprintf(" ×%d", t.Item.Amount))
			}
			when := ""
			if n := len(t.Timeline); n > 0 {
				when = t.Timeline[n-1].At.UTC().Format("01-02 15:04")
			}
			out = append(out, statsLine(cols, item, s.Price.Render(money(t.Price)),
				playertext.Sanitize(t.SellerName)+s.Dim.Render(" → ")+playertext.Sanitize(t.BuyerName), s.Dim.Render(when)))
		case i == 0:
			out = append(out, s.Dim.Render("no sales yet"))
		default:
			out = append(out, "")
		}
	}
	return out
}

// chart returns h lines: a heading, the plot with the 24h/7d/30d table beside
// it (or under it on very narrow panes) and the x-axis.
func (p *statsPane) chart(c *Common, w, h int) []string {
	s := c.Styles
	sp := statsSpans[p.span]
	name := p.material
	if info, ok := catalog.LookupMaterial(p.material); ok {
		name = info.Name
	}
	head := s.Title.Render("Price history · " + playertext.Sanitize(name))
	if w >= 100 {
		head += s.Dim.Render(" " + playertext.Sanitize(p.material))
	}
	head += s.Dim.Render(" · last " + sp.label)
	if i := p.matIndex(); i >= 0 {
		head += s.Dim.Render(fmt.Sprintf(" · top item %d/%d", i+1, len(p.mats)))
	}
	if len(p.hist.Points) > 0 {
		head += s.Dim.Render(" · 1 column = " + statsDur(p.hist.Width))
	}
	if p.histErr != nil {
		head += "  " + s.Err.Render("✗ "+playertext.Sanitize(p.histErr.Error()))
	}
	out := []string{head}
	if h < 2 {
		return out
	}
	cw, side := statsChartW(w)
	plotRows := max(h-2, 1)
	empty := "no sales of " + playertext.Sanitize(name) + " in the last " + sp.label
	switch {
	case p.histErr != nil:
		empty = "price history unavailable"
	case len(p.hist.Points) == 0:
		empty = "no price history yet"
	}
	plot := statsChartLines(s, p.hist.Points, sp.d, cw-statsYAxisW, plotRows, empty)
	win := p.windows(c)
	if !side {
		out = append(out, plot...)
		return append(out, win...)
	}
	for i, line := range plot {
		right := ""
		if i < len(win) {
			right = win[i]
		}
		out = append(out, fit(line, cw)+"  "+right)
	}
	return out
}

func (p *statsPane) matIndex() int {
	for i, m := range p.mats {
		if m == p.material {
			return i
		}
	}
	return -1
}

// windows is the 24h/7d/30d table, statsWinW wide.
func (p *statsPane) windows(c *Common) []string {
	s := c.Styles
	ws := p.hist.Windows
	row := func(label string, cell func(market.PriceWindow) string) string {
		line := fit(s.Dim.Render(label), 6)
		for i := 0; i < 3; i++ {
			v := "—"
			if i < len(ws) && ws[i].Sales > 0 {
				v = cell(ws[i])
			} else if i < len(ws) && label == "sales" {
				v = "0"
			}
			line += fitLeft(v, 10)
		}
		return line
	}
	head := fit("", 6)
	for _, sp := range statsSpans {
		head += fitLeft(s.Dim.Render(sp.label), 10)
	}
	return []string{
		head,
		row("sales", func(pw market.PriceWindow) string { return count(pw.Sales) }),
		row("min", func(pw market.PriceWindow) string { return statsMoney(pw.Min) }),
		row("median", func(pw market.PriceWindow) string { return s.Price.Render(statsMoney(pw.Median)) }),
		row("max", func(pw market.PriceWindow) string { return statsMoney(pw.Max) }),
		row("volume", func(pw market.PriceWindow) string { return statsMoney(pw.Volume.Float()) }),
		"",
		s.ChartDim.Render("│") + s.Dim.Render(" min–max  ") + s.Chart.Render("━") + s.Dim.Render(" median unit price"),
		s.ChartDim.Render("▅") + s.Dim.Render(" sales per column"),
		s.Dim.Render("n/N item · w span"),
	}
}

// statsMoney is money for values under 100 000 and a compact form above, at
// most 9 cells.
func statsMoney(v float64) string {
	switch {
	case v >= 1e9:
		return fmt.Sprintf("%.2fG", v/1e9)
	case v >= 1e6:
		return fmt.Sprintf("%.2fM", v/1e6)
	case v >= 1e5:
		return fmt.Sprintf("%.1fk", v/1e3)
	}
	return money(v)
}

// statsDur renders a bucket length: "12m", "1h24m", "6h", "2d".
func statsDur(d time.Duration) string {
	d = d.Round(time.Minute)
	switch {
	case d < time.Minute:
		return "<1m"
	case d < time.Hour:
		return fmt.Sprintf("%dm", d/time.Minute)
	case d%(24*time.Hour) == 0:
		return fmt.Sprintf("%dd", d/(24*time.Hour))
	case d%time.Hour == 0:
		return fmt.Sprintf("%dh", d/time.Hour)
	}
	return fmt.Sprintf("%dh%02dm", d/time.Hour, (d%time.Hour)/time.Minute)
}

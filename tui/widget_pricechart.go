package tui

import (
	"math"
	"strings"
	"time"

	"github.com/rynek/rynek/market"
)

// The Stats pane's price chart: how wide its buckets are, and drawing them.

// statsWidths are the bucket widths a chart may have: each divides a day or
// is whole days, so that buckets begin on UTC hours and midnights.
var statsWidths = []time.Duration{
	time.Minute, 2 * time.Minute, 5 * time.Minute, 10 * time.Minute, 15 * time.Minute, 20 * time.Minute,
	30 * time.Minute, time.Hour, 2 * time.Hour, 3 * time.Hour, 4 * time.Hour, 6 * time.Hour, 8 * time.Hour,
	12 * time.Hour, 24 * time.Hour, 2 * 24 * time.Hour, 3 * 24 * time.Hour, 5 * 24 * time.Hour, 10 * 24 * time.Hour,
}

// statsWidth is the narrowest bucket width whose buckets over span fit the
// chart's columns on a pane w cells wide: one bucket a column.
func statsWidth(span time.Duration, w int) time.Duration {
	cols := time.Duration(statsColumns(w))
	for _, bw := range statsWidths {
		if (span+bw-1)/bw <= cols {
			return bw
		}
	}
	return statsWidths[len(statsWidths)-1]
}

// statsChartLines draws one column per bucket, the newest on the right: '│' over
// the bucket's min–max unit price and '━' at its median, with a y-axis
// labelled with the top, middle and bottom prices; under it, when there are
// rows for it, the bucket's number of sales as a bar (▁ to █, the busiest
// bucket full), and an x-axis with dates. It returns rows lines and the
// axis line, statsYAxisW plus at most plotW wide: the plot is as wide as
// the buckets, so that its axis spans the span the heading names (7 days in
// 2-hour buckets are 84 columns, not the 111 a wide pane has, whose first 27
// would stand for days before the span). empty is the message shown when no
// bucket has a sale.
func statsChartLines(s Styles, pts []market.PricePoint, span time.Duration, plotW, rows int, empty string) []string {
	plotW = max(plotW, 1)
	if len(pts) > 0 {
		plotW = min(plotW, len(pts))
	}
	var volume string
	if rows >= 4 {
		rows--
		volume = statsVolume(s, pts, plotW)
	}
	if len(pts) > plotW {
		pts = pts[len(pts)-plotW:]
	}
	off := plotW - len(pts) // blank columns on the left
	lo, hi, have := math.Inf(1), math.Inf(-1), false
	for _, pt := range pts {
		if pt.Sales > 0 {
			lo, hi, have = min(lo, pt.Min), max(hi, pt.Max), true
		}
	}
	if !have {
		lo, hi = 0, 0
	}
	if hi-lo < 0.005 { // one price: give it some room
		lo, hi = max(0, lo-max(lo*0.1, 0.01)), hi+max(hi*0.1, 0.01)
	}
	rowOf := func(v float64) int {
		r := int(math.Round((hi - v) / (hi - lo) * float64(rows-1)))
		return max(0, min(r, rows-1))
	}
	// 0 blank, 1 range, 2 median
	grid := make([][]byte, rows)
	for r := range grid {
		grid[r] = make([]byte, plotW)
	}
	for i, pt := range pts {
		if pt.Sales == 0 {
			continue
		}
		x := off + i
		for r := rowOf(pt.Max); r <= rowOf(pt.Min); r++ {
			grid[r][x] = 1
		}
		grid[rowOf(pt.Median)][x] = 2
	}
	mid := -1
	if rows >= 5 {
		mid = (rows - 1) / 2
	}
	out := make([]string, 0, rows+1)
	for r := 0; r < rows; r++ {
		label, axis := "", "│"
		switch {
		case !have:
		case r == 0:
			label, axis = statsMoney(hi), "┤"
		case r == rows-1:
			label, axis = statsMoney(lo), "┤"
		case r == mid:
			label, axis = statsMoney(hi-(hi-lo)*float64(r)/float64(rows-1)), "┤"
		}
		line := s.Dim.Render(fitLeft(label, statsYAxisW-2)+" "+axis) + statsRuns(s, grid[r])
		if !have && r == rows/2 {
			pad := max(0, (plotW-width(empty))/2)
			line = s.Dim.Render(fitLeft("", statsYAxisW-2) + " │" + strings.Repeat(" ", pad) + empty)
		}
		out = append(out, line)
	}
	if volume != "" {
		out = append(out, volume)
	}
	return append(out, s.Dim.Render(strings.Repeat(" ", statsYAxisW-1)+"└"+statsXAxis(pts, off, plotW, span)))
}

// statsBars are the heights of a sales bar, from one sale up to the busiest
// bucket's number.
var statsBars = []rune("▁▂▃▄▅▆▇█")

// statsVolume is the sales row of the chart: per bucket a bar as high as its
// number of sales against the busiest bucket, labelled with that number.
func statsVolume(s Styles, pts []market.PricePoint, plotW int) string {
	if len(pts) > plotW {
		pts = pts[len(pts)-plotW:]
	}
	most := 0
	for _, pt := range pts {
		most = max(most, pt.Sales)
	}
	label := "sales"
	if most > 0 {
		label = "≤" + count(most)
	}
	bars := []rune(strings.Repeat(" ", plotW))
	off := plotW - len(pts)
	for i, pt := range pts {
		if pt.Sales > 0 {
			bars[off+i] = statsBars[(pt.Sales*len(statsBars)-1)/most]
		}
	}
	return s.Dim.Render(fitLeft(label, statsYAxisW-2)+" │") + s.ChartDim.Render(string(bars))
}

// statsRuns styles a plot row, one escape sequence per run of equal cells.
func statsRuns(s Styles, cells []byte) string {
	var b, run strings.Builder
	cur := byte(255)
	flush := func() {
		if run.Len() == 0 {
			return
		}
		switch cur {
		case 1:
			b.WriteString(s.ChartDim.Render(run.String()))
		case 2:
			b.WriteString(s.Chart.Render(run.String()))
		default:
			b.WriteString(run.String())
		}
		run.Reset()
	}
	for _, k := range cells {
		if k != cur {
			flush()
			cur = k
		}
		switch k {
		case 1:
			run.WriteString("│")
		case 2:
			run.WriteString("━")
		default:
			run.WriteByte(' ')
		}
	}
	flush()
	return b.String()
}

// statsXAxis is the x-axis line, plotW wide: a tick and a label at the first
// bucket of a new day ("Jan 02") or, over 24 hours, of a new hour ("15:00"),
// as often as the labels fit; the first column is labelled too, with its
// bucket's day or hour, when that leaves the next label its room.
func statsXAxis(pts []market.PricePoint, off, plotW int, span time.Duration) string {
	axis := []rune(strings.Repeat("─", plotW))
	layout, unit := "Jan 02", 24*time.Hour
	if span <= 24*time.Hour {
		layout, unit = "15:04", time.Hour
	}
	n := len([]rune(layout))
	next := 0 // first column free for a tick
	if len(pts) > 0 {
		first := pts[0].Start.UTC().Truncate(unit)
		boundary := len(pts) // where the first new day (hour) begins
		for i, pt := range pts {
			if pt.Start.UTC().Truncate(unit).After(first) {
				boundary = i
				break
			}
		}
		if boundary >= n+2 && off+n <= plotW { // the corner is its tick
			copy(axis[off:], []rune(first.Format(layout)))
			next = off + n + 2
		}
	}
	var prev time.Time
	for i, pt := range pts {
		b := pt.Start.UTC().Truncate(unit)
		x := off + i
		if i > 0 && b.After(prev) && x >= next && x+1+n <= plotW {
			axis[x] = '┴'
			copy(axis[x+1:], []rune(b.Format(layout)))
			next = x + 1 + n + 2
		}
		prev = b
	}
	return string(axis)
}

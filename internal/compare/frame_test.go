package compare_test

import (
	"fmt"
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"charm.land/bubbles/v2/table"
	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"
	"github.com/rynek/rynek/internal/benchdata"
	"github.com/rynek/rynek/market"
	"github.com/rynek/rynek/market/catalog"
	"github.com/rynek/rynek/market/playertext"
	"github.com/rynek/rynek/market/sqlite"
	"github.com/rynek/rynek/tui"
)

// The screen both contenders fill.
const (
	frameW = 200
	frameH = 60
)

// frameSizes are the market sizes of BenchmarkCompareFrame.
var frameSizes = []int{1_000, 100_000, 1_000_000}

// frameMarket is a service over a generated market of n listings and its
// listings, newest (highest id) first.
type frameMarket struct {
	svc      *market.Service
	listings []market.Listing
	getTook  time.Duration // svc.GetListings
}

// frameRynek is the console over a frameMarket.
type frameRynek struct {
	m     *tui.Model
	n     int
	pos   int // cursor row, tracked to wrap around at the end
	built time.Duration
}

// frameBubbles is the stock bubbles table filled with the same listings.
type frameBubbles struct {
	t       table.Model
	n       int
	pos     int
	header  string
	footer  string
	rowTook time.Duration // listings → []table.Row
	setTook time.Duration // t.SetRows
}

// The contenders are built once per n and shared by the sub-benchmarks
// (a million rows take seconds to build). Benchmarks run one at a time, so
// the maps need no lock.
var (
	frameMarkets = map[int]*frameMarket{}
	frameRyneks  = map[int]*frameRynek{}
	frameBubbls  = map[int]*frameBubbles{}
	frameDir     string // private copies of the data sets, for the whole benchmark
)

// frameTB hands benchdata a temp dir that outlives the sub-benchmark that
// first asked for a data set; everything else goes to the real TB.
type frameTB struct {
	testing.TB
	dir string
}

func (f frameTB) TempDir() string {
	d, err := os.MkdirTemp(f.dir, "market")
	if err != nil {
		f.Fatal(err)
	}
	return d
}

// frameOpen opens a service over a private copy of the n-listing market in
// dir (a fresh t.TempDir() when dir is empty).
func frameOpen(tb testing.TB, n int, dir string) *frameMarket {
	tb.Helper()
	var path string
	if dir == "" {
		path = benchdata.Path(tb, n, -1)
	} else {
		path = benchdata.Path(frameTB{TB: tb, dir: dir}, n, -1)
	}
	svc, _ := benchdata.Open(tb, path, sqlite.Options{}, benchdata.Unlimited)
	start := time.Now()
	ls, err := svc.GetListings()
	took := time.Since(start)
	if err != nil {
		tb.Fatal(err)
	}
	if len(ls) != n {
		tb.Fatalf("%d listings, want %d", len(ls), n)
	}
	// The console's default order is newest first: highest id first.
	slices.SortFunc(ls, func(a, b market.Listing) int { return b.ID - a.ID })
	return &frameMarket{svc: svc, listings: ls, getTook: took}
}

// frameNewRynek opens the console over mk at 200×60 and checks its first
// frame shows the first listing.
func frameNewRynek(tb testing.TB, mk *frameMarket) *frameRynek {
	tb.Helper()
	start := time.Now()
	m := tui.New(tui.Options{Svc: mk.svc})
	m.Update(tea.WindowSizeMsg{Width: frameW, Height: frameH})
	v := m.View() // the first frame fills the row cache
	r := &frameRynek{m: m, n: len(mk.listings), built: time.Since(start)}
	if id := fmt.Sprintf("#%d", mk.listings[0].ID); !strings.Contains(v.Content, id) {
		tb.Fatalf("rynek: first frame lacks the first listing %s:\n%s", id, ansi.Strip(v.Content))
	}
	return r
}

func (r *frameRynek) view() string { return r.m.View().Content }

var (
	frameDown = tea.KeyPressMsg{Code: tea.KeyDown}
	frameHome = tea.KeyPressMsg{Code: tea.KeyHome}
)

// frameColumns are the console's Listings columns at 200 cells: the console
// gives (after its 2-cell cursor gutter and 6 separators) id 9, item 123,
// qty 4, price 14, unit 13, seller 20, expires 9 = 198. The bubbles table pads
// every cell by one space each side (14 cells), so the item column gets
// 200-14-69 = 117 and a row is exactly 200 cells wide.
func frameColumns() []table.Column {
	return []table.Column{
		{Title: "id", Width: 9},
		{Title: "item", Width: frameW - 14 - (9 + 4 + 14 + 13 + 20 + 9)},
		{Title: "qty", Width: 4},
		{Title: "price", Width: 14},
		{Title: "unit", Width: 13},
		{Title: "seller", Width: 20},
		{Title: "expires", Width: 9},
	}
}

// frameRow formats a listing as the console does, in plain strings.
func frameRow(l market.Listing, nowUnix int64) table.Row {
	item := l.Item.DisplayName
	if item != "" {
		item = playertext.Plain(item)
	} else if info, ok := catalog.LookupMaterial(l.Item.Material); ok {
		item = info.Name
	} else {
		item = l.Item.Material
	}
	if len(l.Item.Enchantments) > 0 {
		item += " ✦"
	}
	exp := tui.Until(l.ExpiresAt, nowUnix)
	if l.Reserved {
		exp = "held"
	}
	return table.Row{
		fmt.Sprintf("#%d", l.ID),
		item,
		fmt.Sprint(l.Item.Amount),
		fmt.Sprintf("%.2f", l.Price),
		fmt.Sprintf("%.2f", l.UnitPrice()),
		playertext.Sanitize(l.SellerName),
		exp,
	}
}

// frameNewBubbles fills a stock bubbles table with mk's listings, timing the
// formatting and SetRows apart (a program pays both whenever the data
// changes), and checks its first frame shows the first listing.
//
// Layout: a one-line header, the table (WithHeight(57): its header and 56
// rows) and a two-line footer (status and key help, as the console has) make
// 60 lines. The console shows 54 rows in the same screen (title line, tab
// bar, pane title and table header above, status and help below).
func frameNewBubbles(tb testing.TB, mk *frameMarket) *frameBubbles {
	tb.Helper()
	nowUnix := mk.svc.Now().Unix()
	start := time.Now()
	rows := make([]table.Row, len(mk.listings))
	for i, l := range mk.listings {
		rows[i] = frameRow(l, nowUnix)
	}
	rowTook := time.Since(start)
	t := table.New(table.WithColumns(frameColumns()), table.WithWidth(frameW), table.WithHeight(frameH-3), table.WithFocused(true))
	start = time.Now()
	t.SetRows(rows)
	setTook := time.Since(start)
	pad := func(s string) string { return s + strings.Repeat(" ", frameW-ansi.StringWidth(s)) }
	bt := &frameBubbles{
		t:       t,
		n:       len(rows),
		header:  lipgloss.NewStyle().Bold(true).Render(pad(fmt.Sprintf(" rynek (bubbles table)   %d listings", len(rows)))),
		footer:  pad(" Listings") + "\n" + lipgloss.NewStyle().Faint(true).Render(pad(" ↑/k up • ↓/j down • pgup/pgdn page • g/G first/last • q quit")),
		rowTook: rowTook,
		setTook: setTook,
	}
	if id := rows[0][0]; !strings.Contains(bt.view(), id) {
		tb.Fatalf("bubbles: first frame lacks the first listing %s:\n%s", id, ansi.Strip(bt.view()))
	}
	return bt
}

func (bt *frameBubbles) view() string {
	return lipgloss.JoinVertical(lipgloss.Left, bt.header, bt.t.View(), bt.footer)
}

// frameGetMarket returns the cached market of n listings, opening it on
// first use (on the calling sub-benchmark's goroutine, which becomes the
// service's main thread; the data set copies live in frameDir until the
// top-level benchmark ends).
func frameGetMarket(b *testing.B, n int) *frameMarket {
	if mk := frameMarkets[n]; mk != nil {
		return mk
	}
	mk := frameOpen(b, n, frameDir)
	frameMarkets[n] = mk
	b.Logf("n=%d: GetListings %v", n, mk.getTook)
	return mk
}

// BenchmarkCompareFrame compares a 200×60 frame of the console's Listings
// pane (its own virtualized table over a market query) with the same screen
// drawn by the stock bubbles v2 table holding every listing as a row:
// view is one frame; cursor is a cursor-down key through Update and the frame
// after it, walking down (and back to the top, untimed, at the end).
//
// Note on the bubbles table (v2.2.1): every cursor move calls
// UpdateViewport, which allocates make([]string, 0, len(rows)) before it
// renders its 2×height window, so a move costs O(n) memory (16 B a row) on
// top of re-rendering about 112 rows.
func BenchmarkCompareFrame(b *testing.B) {
	dir, err := os.MkdirTemp("", "rynek-compare-frame-")
	if err != nil {
		b.Fatal(err)
	}
	frameDir = dir
	b.Cleanup(func() {
		for n, r := range frameRyneks {
			r.m.Close()
			delete(frameRyneks, n)
		}
		for n, mk := range frameMarkets {
			mk.svc.Close()
			delete(frameMarkets, n)
		}
		clear(frameBubbls)
		os.RemoveAll(dir)
	})

	b.Run("rynek", func(b *testing.B) {
		for _, n := range frameSizes {
			b.Run(fmt.Sprintf("rows=%d", n), func(b *testing.B) {
				get := func(b *testing.B) *frameRynek {
					r := frameRyneks[n]
					if r == nil {
						r = frameNewRynek(b, frameGetMarket(b, n))
						frameRyneks[n] = r
						b.Logf("n=%d: tui.New + first View %v", n, r.built)
					}
					return r
				}
				// After the loop: ResetTimer drops reported metrics.
				report := func(b *testing.B, r *frameRynek) {
					b.ReportMetric(float64(r.built.Microseconds())/1000, "build-ms")
				}
				b.Run("view", func(b *testing.B) {
					r := get(b)
					var s string
					b.ResetTimer()
					for i := 0; i < b.N; i++ {
						s = r.view()
					}
					b.StopTimer()
					if s == "" {
						b.Fatal("empty frame")
					}
					report(b, r)
				})
				b.Run("cursor", func(b *testing.B) {
					r := get(b)
					var s string
					b.ResetTimer()
					for i := 0; i < b.N; i++ {
						if r.pos == r.n-1 {
							b.StopTimer()
							r.m.Update(frameHome)
							r.pos = 0
							b.StartTimer()
						}
						r.m.Update(frameDown)
						r.pos++
						s = r.view()
					}
					b.StopTimer()
					if !strings.Contains(s, "#") {
						b.Fatal("frame without listings")
					}
					report(b, r)
				})
			})
		}
	})

	b.Run("bubblestable", func(b *testing.B) {
		for _, n := range frameSizes {
			b.Run(fmt.Sprintf("rows=%d", n), func(b *testing.B) {
				get := func(b *testing.B) *frameBubbles {
					bt := frameBubbls[n]
					if bt == nil {
						bt = frameNewBubbles(b, frameGetMarket(b, n))
						frameBubbls[n] = bt
						b.Logf("n=%d: formatting %d rows %v, SetRows %v", n, n, bt.rowTook, bt.setTook)
					}
					return bt
				}
				// After the loop: ResetTimer drops reported metrics.
				report := func(b *testing.B, bt *frameBubbles) {
					b.ReportMetric(float64(frameMarkets[n].getTook.Microseconds())/1000, "getlistings-ms")
					b.ReportMetric(float64(bt.rowTook.Microseconds())/1000, "rows-ms")
					b.ReportMetric(float64(bt.setTook.Microseconds())/1000, "setrows-ms")
				}
				b.Run("view", func(b *testing.B) {
					bt := get(b)
					var s string
					b.ResetTimer()
					for i := 0; i < b.N; i++ {
						s = bt.view()
					}
					b.StopTimer()
					if s == "" {
						b.Fatal("empty frame")
					}
					report(b, bt)
				})
				b.Run("cursor", func(b *testing.B) {
					bt := get(b)
					var s string
					b.ResetTimer()
					for i := 0; i < b.N; i++ {
						if bt.pos == bt.n-1 {
							b.StopTimer()
							bt.t.GotoTop()
							bt.pos = 0
							b.StartTimer()
						}
						bt.t, _ = bt.t.Update(frameDown)
						bt.pos++
						s = bt.view()
					}
					b.StopTimer()
					if !strings.Contains(s, "#") {
						b.Fatal("frame without listings")
					}
					report(b, bt)
				})
			})
		}
	})
}

// frameIDLine matches a table row: an optional cursor gutter, then the id.
var frameIDLine = regexp.MustCompile(`^[^#\w]*#(\d+)\s`)

// frameIDs returns the listing ids of a frame's rows, top to bottom.
func frameIDs(frame string) []string {
	var ids []string
	for _, line := range strings.Split(frame, "\n") {
		if m := frameIDLine.FindStringSubmatch(line); m != nil {
			ids = append(ids, m[1])
		}
	}
	return ids
}

// TestCompareFrameAgree checks that at 1,000 listings both contenders draw
// a 60-line, at most 200-cell-wide screen whose first ten rows are the same
// listings in the same order (newest first).
func TestCompareFrameAgree(t *testing.T) {
	mk := frameOpen(t, 1_000, "")
	t.Cleanup(func() { mk.svc.Close() })
	r := frameNewRynek(t, mk)
	t.Cleanup(r.m.Close)
	bt := frameNewBubbles(t, mk)

	var want []string
	for _, l := range mk.listings[:10] {
		want = append(want, fmt.Sprint(l.ID))
	}
	for _, c := range []struct {
		name  string
		frame string
	}{{"rynek", r.view()}, {"bubblestable", bt.view()}} {
		plain := ansi.Strip(c.frame)
		lines := strings.Split(plain, "\n")
		if len(lines) != frameH {
			t.Errorf("%s: %d lines, want %d:\n%s", c.name, len(lines), frameH, plain)
		}
		for i, l := range lines {
			if w := ansi.StringWidth(l); w > frameW {
				t.Errorf("%s: line %d is %d cells wide: %q", c.name, i, w, l)
			}
		}
		ids := frameIDs(plain)
		if len(ids) < 10 || !slices.Equal(ids[:10], want) {
			t.Errorf("%s: first ids %v, want %v:\n%s", c.name, ids[:min(len(ids), 10)], want, plain)
		}
	}
}

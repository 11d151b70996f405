package tui

import (
	"fmt"
	"slices"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/rynek/rynek/internal/benchdata"
	"github.com/rynek/rynek/market"
	"github.com/rynek/rynek/market/sqlite"
)

// benchEnv opens a console over a generated market of n listings at 200×60.
func benchEnv(b *testing.B, n int) (*Model, *market.Service) {
	b.Helper()
	svc, _ := benchdata.Open(b, benchdata.Path(b, n, -1), sqlite.Options{}, benchdata.Unlimited)
	m := New(Options{Svc: svc, Clock: nil})
	m.Update(tea.WindowSizeMsg{Width: 200, Height: 60})
	b.Cleanup(func() { m.Close(); svc.Close() })
	return m, svc
}

// BenchmarkListingsView measures a full 200×60 frame of the Listings pane
// (header, tabs, 55 rows, footer) from the row cache.
func BenchmarkListingsView(b *testing.B) {
	for _, n := range []int{1_000, 1_000_000} {
		b.Run(fmt.Sprintf("listings=%d", n), func(b *testing.B) {
			m, _ := benchEnv(b, n)
			m.View() // fill the row cache, as the first frame does
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				_ = m.View()
			}
		})
	}
}

// BenchmarkCursorMove measures Update for a cursor key and the frame after
// it, walking down through a million listings (the window is refetched
// every screen or so, and rows are rendered as they scroll in).
func BenchmarkCursorMove(b *testing.B) {
	for _, mode := range []market.SortMode{market.SortNewest, market.SortCheapest} {
		b.Run(mode.String(), func(b *testing.B) {
			m, _ := benchEnv(b, 1_000_000)
			p := m.panes[0].(*listingsPane)
			p.table.setQuery(m.c, market.Query{Sort: mode}, p.rows(m.c))
			m.View()
			down := keyMsg("down")
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				m.Update(down)
				_ = m.View()
			}
		})
	}
}

// BenchmarkSearchKeystroke measures a keystroke in the search box to the
// result on screen: the query (as the debounced command runs it), applying
// the result, and the frame. Letters cycle through a word so every query is
// different, from broad ("d") to narrow ("diamond swo").
func BenchmarkSearchKeystroke(b *testing.B) {
	m, _ := benchEnv(b, 1_000_000)
	m.switchTo(1)
	sp := m.panes[1].(*searchPane)
	word := "diamond sword"
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		text := word[:1+i%len(word)]
		sp.input.input.SetValue(text)
		sp.seq++
		msg := sp.query(m.c, sp.seq, text)()
		m.Update(msg)
		_ = m.View()
	}
}

// BenchmarkEventBurst publishes 100,000 events (real sells and removals, in
// bursts of 5,000 between ticks, as traffic bots would) and measures every
// frame the console renders meanwhile: the tick that drains the burst plus
// the View of the Events pane. It checks that every event arrived in order.
func BenchmarkEventBurst(b *testing.B) {
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		m, svc := benchEnv(b, 1_000)
		m.switchTo(5)
		players, _ := svc.Players()
		var frames []time.Duration
		events := 0
		b.StartTimer()
		for events < 100_000 {
			for k := 0; k < 2_500; k++ { // 2,500 sells + 2,500 removals = 5,000 events
				p := players[(events+k)%len(players)]
				st, _ := svc.GetPlayer(p.ID)
				var s *market.ItemStack
				for _, x := range st.Inventory {
					if x != nil {
						s = x
						break
					}
				}
				if s == nil {
					if _, err := svc.ClaimAll(p.ID); err != nil {
						b.Fatal(err)
					}
					k--
					continue
				}
				l, err := svc.SellItem(p, *s, 5)
				if err != nil {
					b.Fatal(err)
				}
				if err := svc.RemoveListing(l.ID, p); err != nil {
					b.Fatal(err)
				}
			}
			events += 5_000
			t := time.Now()
			m.Update(tickMsg(t))
			_ = m.View()
			frames = append(frames, time.Since(t))
		}
		b.StopTimer()
		if len(m.log.all) != 100_000 || m.log.gaps != 0 {
			b.Fatalf("%d events in the log, %d gaps", len(m.log.all), m.log.gaps)
		}
		b.ReportMetric(float64(slices.Max(frames).Microseconds())/1000, "max-frame-ms")
		b.ReportMetric(float64(len(frames)), "frames")
		b.StartTimer()
	}
}

// BenchmarkColdStart1M opens a million-listing store and renders the first
// frame: what a user waits for between starting rynek and seeing the market.
func BenchmarkColdStart1M(b *testing.B) {
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		path := benchdata.Path(b, 1_000_000, -1)
		b.StartTimer()
		svc, _ := benchdata.Open(b, path, sqlite.Options{}, market.Config{})
		m := New(Options{Svc: svc})
		m.Update(tea.WindowSizeMsg{Width: 200, Height: 60})
		_ = m.View()
		b.StopTimer()
		m.Close()
		svc.Close()
		b.StartTimer()
	}
}

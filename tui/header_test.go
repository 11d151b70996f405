package tui

import (
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
	"github.com/rynek/rynek/market"
	"github.com/rynek/rynek/seed"
)

// TestHeaderShowsTheAPIAddress: with rynek --api, the header says where the
// HTTP API serves; on a narrow screen it gives way before the acting player.
func TestHeaderShowsTheAPIAddress(t *testing.T) {
	st := seededStore(t, seed.Options{Players: 5, Listings: 20, Days: 1, Rand: 7})
	svc := market.New(st, market.Config{Clock: market.NewManualClock(fixedNow)})
	svc.BindMainThread()
	if err := svc.Enable(); err != nil {
		t.Fatal(err)
	}
	m := New(Options{Svc: svc, ExportDir: t.TempDir(), APIAddr: "127.0.0.1:8080"})
	t.Cleanup(func() { m.Close(); svc.Close() })
	m.readHeader()
	if got := ansi.Strip(m.header(200)); !strings.Contains(got, "api http://127.0.0.1:8080") {
		t.Errorf("wide header %q", got)
	}
	if got := ansi.Strip(m.header(60)); strings.Contains(got, "api http://") || !strings.Contains(got, "acting as") {
		t.Errorf("narrow header %q", got)
	}
}

// TestHeaderNarrowsInOrder: at 160 columns the header shows everything; as
// it narrows the API address shrinks first (":18201"), then the volume
// goes, then the address; at 80, the documented minimum, the clock and the
// active count stay. Before, 80 columns kept the long address and dropped
// the clock, the count and the volume.
func TestHeaderNarrowsInOrder(t *testing.T) {
	e := newEnv(t, 160, 48)
	e.m.apiAddr = "127.0.0.1:18201"
	vol, err := e.svc.GetMarketVolume()
	must(t, err)
	volume := money(vol) // the seeded market's: ten characters wide
	for _, c := range []struct {
		w    int
		want string
	}{
		{160, "Rynek │ ● ready │ 2026-11-01 12:00:00 UTC │ active 400 │ volume " + volume + " │ acting as Alex │ api http://127.0.0.1:18201"},
		{115, "Rynek │ ● ready │ 2026-11-01 12:00:00 UTC │ active 400 │ volume " + volume + " │ acting as Alex │ api 127.0.0.1:18201"},
		{110, "Rynek │ ● ready │ 2026-11-01 12:00:00 UTC │ active 400 │ volume " + volume + " │ acting as Alex │ api :18201"},
		{100, "Rynek │ ● ready │ 2026-11-01 12:00:00 UTC │ active 400 │ acting as Alex │ api :18201"},
		{80, "Rynek │ ● ready │ 2026-11-01 12:00:00 UTC │ active 400 │ acting as Alex"},
	} {
		e.send(tea.WindowSizeMsg{Width: c.w, Height: 48})
		if got := strings.TrimRight(strings.Split(e.view(), "\n")[0], " "); got != c.want {
			t.Errorf("%d columns:\n%q, want\n%q", c.w, got, c.want)
		}
	}

	// A long name and the QA clock moved a day: the clock keeps its QA
	// offset and loses its year and zone before the count goes.
	e.clock.Advance(24 * time.Hour)
	e.tick()
	e.m.c.Actor.Name = "Szlachcic_007_xy"
	active, err := e.svc.GetActiveListingsCount()
	must(t, err)
	want := "Rynek │ ● ready │ 11-02 12:00:00 (+1d) │ active " + count(active) + " │ acting as Szlachcic_007_xy"
	e.send(tea.WindowSizeMsg{Width: 80, Height: 24})
	if got := strings.TrimRight(strings.Split(e.view(), "\n")[0], " "); got != want {
		t.Errorf("80 columns, a long name:\n%q, want\n%q", got, want)
	}
}

// TestHeaderShowsTheTickWork: after a tick the header shows the main
// thread's work per tick over the last minute, p50 / p99 / max; it keeps
// the figures for a second, then reads them again; at 80 columns they
// stay in short, with the clock and the active count; past a tick's whole
// budget (50 ms) a figure takes the warning colour.
func TestHeaderShowsTheTickWork(t *testing.T) {
	e := newEnv(t, 160, 48)
	first := func() string { return strings.TrimRight(strings.Split(e.view(), "\n")[0], " ") }
	if got := first(); strings.Contains(got, "tick") {
		t.Fatalf("before the first tick: %q", got)
	}
	e.ticks = market.TickWork{Ticks: 600, Span: time.Minute, HasCPU: true,
		Wall: market.TickFigures{P50: 310 * time.Microsecond, P99: 2140 * time.Microsecond, Max: 5020 * time.Microsecond}}
	e.tick()
	want := "Rynek │ ● ready │ 2026-11-01 12:00:00 UTC │ active 400 │ volume " + money(mustVolume(t, e)) + " │ acting as Alex │ tick p50 0.31ms p99 2.14ms max 5.02ms"
	if got := first(); got != want {
		t.Fatalf("160 columns:\n%q, want\n%q", got, want)
	}
	e.send(tea.WindowSizeMsg{Width: 80, Height: 24})
	if got, want := first(), "Rynek │ ● ready │ 12:00:00 │ active 400 │ acting as Alex │ tick 0.31/2.14/5.02ms"; got != want {
		t.Fatalf("80 columns:\n%q, want\n%q", got, want)
	}
	e.ticks.Wall = market.TickFigures{P50: 12 * time.Millisecond, P99: 61 * time.Millisecond, Max: 412 * time.Millisecond}
	e.tick()
	if got := first(); !strings.HasSuffix(got, "tick 0.31/2.14/5.02ms") {
		t.Fatalf("within the second, the figures read at its start: %q", got)
	}
	e.wall.advance(time.Second)
	e.tick()
	if got := first(); !strings.HasSuffix(got, "tick 12.0/61.0/412ms") {
		t.Fatalf("a second later, the new figures: %q", got)
	}
	warn := e.m.c.Styles.Warn.Render("412")
	if raw := strings.Split(e.m.View().Content, "\n")[0]; !strings.Contains(raw, warn) || strings.Contains(raw, e.m.c.Styles.Warn.Render("12.0")) {
		t.Errorf("the figures over 50 ms in the warning colour, the others not: %q", raw)
	}
}

func mustVolume(t *testing.T, e *testEnv) float64 {
	t.Helper()
	v, err := e.svc.GetMarketVolume()
	must(t, err)
	return v
}

// TestConsoleMeasuresItsTicks: each of the console's ticks is measured in
// the service's record, which /api/health reads beside the console.
func TestConsoleMeasuresItsTicks(t *testing.T) {
	e := newEnv(t, 80, 24)
	before := e.svc.TickWork().Ticks
	for range 5 {
		e.tick()
	}
	if w := e.svc.TickWork(); w.Ticks != before+5 || w.Wall.Max == 0 {
		t.Fatalf("after five ticks the service recorded %+v (before: %d)", w, before)
	}
}

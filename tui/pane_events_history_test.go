package tui

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/rynek/rynek/market"
	"github.com/rynek/rynek/market/sqlite"
	"github.com/rynek/rynek/seed"
)

// marketFile is a seeded market file, closed, for a test to open once and
// then again.
func marketFile(t *testing.T) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "m.db")
	st, err := sqlite.Open(path, sqlite.Options{})
	must(t, err)
	_, err = seed.Load(st, seed.Options{Players: 40, Listings: 400, Days: 10, Rand: 7, Now: fixedNow})
	must(t, err)
	must(t, st.Close())
	return path
}

// reopen opens the market file under a console that has started (Init).
func reopen(t *testing.T, path string, cfg market.Config) *testEnv {
	t.Helper()
	st, err := sqlite.Open(path, sqlite.Options{})
	must(t, err)
	cfg.ListingCooldown = -1
	e := envWith(t, st, cfg, 120, 40)
	e.run(e.m.Init(), 0)
	// The history's read is a command, which run leaves behind past
	// 150 ms (a loaded machine takes that for 500 events): its answer
	// comes later, as in the program.
	if p := e.m.panes[5].(*eventsPane); p.history.loading {
		e.send(p.Start(e.m.c)())
	}
	return e
}

// closeEnv ends a console and its market, as quitting does.
func closeEnv(t *testing.T, e *testEnv) {
	t.Helper()
	e.m.Close()
	must(t, e.svc.Close())
}

// TestEventsShowTheLogFromBeforeTheStart: the Events pane starts with the
// events of the last run (the log is durable), then the new ones follow
// without a gap. It was empty after every start.
func TestEventsShowTheLogFromBeforeTheStart(t *testing.T) {
	path := marketFile(t)
	e := reopen(t, path, market.Config{})
	e.oneEventOfEachKind()
	before := append([]market.Event(nil), e.m.log.all...)
	if len(before) != 3 {
		t.Fatalf("%d events in the first run", len(before))
	}
	closeEnv(t, e)

	e = reopen(t, path, market.Config{})
	e.key("6")
	p := e.m.panes[5].(*eventsPane)
	if p.visible() != 3 || e.m.log.all[0].Seq() != before[0].Seq() || e.m.log.all[2].Seq() != before[2].Seq() {
		t.Fatalf("after the restart: %d visible, log %v", p.visible(), e.m.log.all)
	}
	e.mustContain("3 events · showing all published kinds · 3 from before this start")
	e.mustContain("6 Events (3)")
	e.mustContain("TransactionCompletedEvent")
	e.key("1")
	e.key("s")
	e.key("enter")
	e.tick()
	e.key("6")
	if p.visible() != 4 || e.m.log.gaps != 0 || e.m.log.all[3].Seq() <= before[2].Seq() {
		t.Fatalf("a new event after the restart: %d visible, %d gaps", p.visible(), e.m.log.gaps)
	}
	e.key("e")
	if !strings.HasPrefix(e.status(), "exported 4 events to ") {
		t.Fatalf("export: %q", e.status())
	}
}

// The log read at start is bounded (the newest 500), and reaches past a
// log the retention has trimmed.
func TestEventsFromBeforeTheStartAreBounded(t *testing.T) {
	path := marketFile(t)
	for _, c := range []struct {
		name   string
		keep   int // the retention's count; 0 the default
		sells  int
		shown  int
		oldest int // index of the first sell shown
	}{
		{"more than shown", 0, 320, eventHistoryShown, 320*2 - eventHistoryShown},
		{"trimmed", 300, 200, 0, 0},
	} {
		t.Run(c.name, func(t *testing.T) {
			e := reopen(t, path, market.Config{EventRetention: market.EventRetention{MaxCount: c.keep}})
			defer func() { _ = e.svc.Close() }()
			seller := e.m.c.Actor
			var first uint64
			for i := range c.sells {
				st, err := e.svc.GetPlayer(seller.ID)
				must(t, err)
				var stack market.ItemStack
				for _, s := range st.Inventory {
					if s != nil {
						stack = *s
						break
					}
				}
				l, err := e.svc.SellItem(seller, stack, 100)
				must(t, err)
				must(t, e.svc.RemoveListing(l.ID, seller))
				if i == 0 {
					first = e.svc.Version()
				}
			}
			if c.keep > 0 {
				for {
					n, err := e.svc.TrimEventLog()
					must(t, err)
					if n == 0 {
						break
					}
				}
			}
			head := e.svc.Version()
			closeEnv(t, e)

			e = reopen(t, path, market.Config{EventRetention: market.EventRetention{MaxCount: c.keep}})
			all := e.m.log.all
			shown := c.shown
			if c.keep > 0 {
				page, err := e.svc.EventsSince(head-uint64(c.keep), market.MaxEventsPage)
				must(t, err)
				shown = len(page.Events)
			}
			if len(all) != shown || shown == 0 || all[len(all)-1].Seq() > head {
				t.Fatalf("%d events from before the start, want %d", len(all), shown)
			}
			if c.keep == 0 && all[0].Seq() <= first {
				t.Fatalf("the oldest shown is %d, older than the newest %d", all[0].Seq(), shown)
			}
			e.key("6")
			e.mustContain(fmt.Sprintf("%s from before this start", count(shown)))
		})
	}
}

// On a running program the log is read off the event loop while the bots
// trade: the events from before the start come in front of the new ones,
// none twice, none missing.
func TestE2EEventsFromBeforeTheStartWhileBotsTrade(t *testing.T) {
	path := marketFile(t)
	e := reopen(t, path, market.Config{})
	e.key("s")
	e.key("enter")
	e.tick()
	old := e.m.log.all[0]
	closeEnv(t, e)

	st, err := sqlite.Open(path, sqlite.Options{})
	must(t, err)
	_, tm := startProgramOn(t, envOn(t, st, 120, 40), func(*testEnv) {})
	waitFor(t, tm, "Welcome")
	typeKey(tm, "R") // bots
	typeKey(tm, "6")
	waitFor(t, tm, "1 from before this start")
	time.Sleep(300 * time.Millisecond)
	typeKey(tm, "R")
	m := finish(t, tm)
	all := m.log.all
	if len(all) < 2 || all[0].Seq() != old.Seq() || m.log.gaps != 0 {
		t.Fatalf("%d events, the first %d (want %d), %d gaps", len(all), all[0].Seq(), old.Seq(), m.log.gaps)
	}
	for i := 1; i < len(all); i++ {
		if all[i].Seq() <= all[i-1].Seq() {
			t.Fatalf("event %d: seq %d after %d", i, all[i].Seq(), all[i-1].Seq())
		}
	}
	page, err := m.c.Svc.EventsSince(old.Seq()-1, market.MaxEventsPage)
	must(t, err)
	if n := len(all) + len(m.log.pending); len(page.Events) != n {
		t.Fatalf("the log holds %d events from the first, the console %d", len(page.Events), n)
	}
}

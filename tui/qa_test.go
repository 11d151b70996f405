package tui

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/rynek/rynek/market/sqlite"
	"github.com/rynek/rynek/seed"
)

func TestDisableShowsNotReadyText(t *testing.T) {
	e := newEnv(t, 120, 40)
	e.key("D")
	if !strings.Contains(e.status(), notReadyText) {
		t.Fatalf("status %q", e.status())
	}
	e.mustContain("NOT READY")
	e.mustContain(notReadyText) // the listings pane's query error, verbatim
	e.key("s")
	if !strings.Contains(e.status(), notReadyText) {
		t.Fatalf("sell while disabled: %q", e.status())
	}
	e.key("D")
	if !e.svc.IsReady() {
		t.Fatal("not re-enabled")
	}
	e.mustContain("● ready")
}

func TestBackgroundMutationShowsThreadText(t *testing.T) {
	e := newEnv(t, 120, 40)
	before, _ := e.svc.GetActiveListingsCount()
	e.key("T")
	if !strings.Contains(e.status(), threadText) || !strings.Contains(e.status(), "nothing changed") {
		t.Fatalf("status %q", e.status())
	}
	if after, _ := e.svc.GetActiveListingsCount(); after != before {
		t.Fatal("state changed")
	}
}

func TestTimerExpiryPublishesNoEvent(t *testing.T) {
	e := newEnv(t, 120, 40)
	before, _ := e.svc.GetActiveListingsCount()
	e.key("}") // seeded listings expire throughout the next 7 days
	if !strings.Contains(e.status(), "listings expired by timer: no event, by contract") {
		t.Fatalf("status %q", e.status())
	}
	after, _ := e.svc.GetActiveListingsCount()
	if after >= before {
		t.Fatalf("count %d -> %d", before, after)
	}
	e.tick()
	if len(e.m.log.all) != 0 {
		t.Fatalf("timer expiry published %d events", len(e.m.log.all))
	}
	e.mustContain("(+1d)")
	e.key("]")
	e.mustContain("(+25h)")
}

// TestExpiredTextIsSingularForOne: the timer's message counts one listing
// in the singular.
func TestExpiredTextIsSingularForOne(t *testing.T) {
	if got := expiredText(1, 0); !strings.HasPrefix(got, "1 listing expired") {
		t.Errorf("%q", got)
	}
}

// TestRefusedControlsChangeNothing: a refused QA action changes nothing.
func TestRefusedControlsChangeNothing(t *testing.T) {
	e := newEnv(t, 120, 40)
	e.key("D")
	offset := e.clock.Offset()
	e.key("]")
	if e.clock.Offset() != offset || !strings.Contains(e.status(), notReadyText) {
		t.Fatalf("] while disabled: offset %v → %v, status %q", offset, e.clock.Offset(), e.status())
	}
	p := e.m.panes[0].(*listingsPane)
	q := p.table.q
	for _, k := range []string{"o", "O", "C"} {
		e.key(k)
		if p.table.q != q || !strings.Contains(e.status(), notReadyText) {
			t.Fatalf("%s while disabled: query %+v → %+v, status %q", k, q, p.table.q, e.status())
		}
	}
}

// TestDisabledKeepsRowsAndActionsAnswerNotReady: while disabled the rows
// stay, marked stale, and every action answers with the contract's text.
func TestDisabledKeepsRowsAndActionsAnswerNotReady(t *testing.T) {
	e := newEnv(t, 120, 40)
	e.key("5")
	tp := e.m.panes[4].(*transactionsPane)
	tx, _ := tp.selected()
	e.key("1")
	l, _ := e.m.panes[0].Selected()
	e.key("D")
	e.mustContain(fmt.Sprintf("#%d", l.ID))
	e.mustContain("stale")
	for _, k := range []string{"b", "x", "X", "F", "r", "E", "s", "m"} {
		e.key(k)
		if e.m.dialog != nil || !strings.Contains(e.status(), notReadyText) {
			t.Fatalf("%s while disabled: dialog %T, status %q", k, e.m.dialog, e.status())
		}
	}
	// The Transactions pane keeps its rows too, and its filters change
	// nothing while the market cannot answer.
	e.key("5")
	e.mustContain(shortID(tx.ID))
	e.mustContain("stale")
	q, total := tp.q, tp.total
	e.key("a")
	e.key("f")
	e.typeText(tx.SellerName)
	e.key("enter")
	if tp.q != q || tp.total != total || tp.states != 0 || !strings.Contains(e.status(), notReadyText) {
		t.Fatalf("filters while disabled: query %+v → %+v, total %d → %d, status %q", q, tp.q, total, tp.total, e.status())
	}
	e.mustContain(count(total) + " transactions · completed")
}

// TestClockContinuesFromAMarketFromTheFuture: a market from the future (the
// QA clock was advanced in an earlier run) continues the clock from its
// newest time.
func TestClockContinuesFromAMarketFromTheFuture(t *testing.T) {
	ahead := 25 * time.Hour
	st, err := sqlite.Open(filepath.Join(t.TempDir(), "m.db"), sqlite.Options{})
	must(t, err)
	if _, err := seed.Load(st, seed.Options{Players: 10, Listings: 50, Days: 2, Rand: 3, Now: fixedNow.Add(ahead)}); err != nil {
		t.Fatal(err)
	}
	e := envOn(t, st, 120, 40)
	if off := e.clock.Offset(); off < newestListingTime(e.svc).Sub(fixedNow) || off > ahead {
		t.Fatalf("offset %v after the listings, want up to %v", off, ahead)
	}
	e.tick() // the history has loaded: its newest time counts too
	newest := newestTransactionTime(e.svc)
	if n := newestListingTime(e.svc); n.After(newest) {
		newest = n
	}
	if now := e.svc.Now(); now.Before(newest) || now.Sub(newest) > 2*time.Second {
		t.Fatalf("clock at %v, the market's newest time %v", now, newest)
	}
	if !strings.Contains(strings.Join(historyTexts(e.m), "\n"), "ahead of this machine's clock") {
		t.Fatalf("no word of it: %q", historyTexts(e.m))
	}
	for _, l := range e.m.panes[0].(*listingsPane).table.win {
		if left := l.ExpiresAt.Sub(e.svc.Now()); left > 7*24*time.Hour {
			t.Fatalf("listing #%d expires in %v", l.ID, left)
		}
	}
}

func historyTexts(m *Model) []string {
	var out []string
	for _, h := range m.history.entries {
		out = append(out, h.text)
	}
	return out
}

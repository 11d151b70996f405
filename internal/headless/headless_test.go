package headless

import (
	"context"
	"errors"
	"path/filepath"
	"testing"
	"time"

	"github.com/rynek/rynek/market"
	"github.com/rynek/rynek/market/sqlite"
)

func newMarket(t *testing.T, clock *market.ManualClock) *market.Service {
	t.Helper()
	st, err := sqlite.Open(filepath.Join(t.TempDir(), "m.db"), sqlite.Options{})
	if err != nil {
		t.Fatal(err)
	}
	svc := market.New(st, market.Config{Clock: clock, ListingCooldown: -1})
	if err := svc.BindMainThread(); err != nil {
		t.Fatal(err)
	}
	if err := svc.Enable(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { svc.Close() })
	return svc
}

// TestRunTicksWithBotsAndTimer: on an empty market the bots bring their
// own players and trade; the timer removes what expired; the run ends with
// its context and reports its ticks.
func TestRunTicksWithBotsAndTimer(t *testing.T) {
	clock := market.NewManualClock(time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC))
	svc := newMarket(t, clock)
	var reports []string
	ctx, cancel := context.WithTimeout(context.Background(), 600*time.Millisecond)
	defer cancel()
	sum, err := Run(ctx, svc, Options{BotsRate: 200, Seed: 1, Tick: 10 * time.Millisecond, Report: func(s string) { reports = append(reports, s) }})
	if err != nil {
		t.Fatal(err)
	}
	if sum.Ticks < 5 || sum.BotsOK == 0 || sum.TickP99 < sum.TickP50 || sum.TickMax < sum.TickP99 {
		t.Fatalf("summary %+v", sum)
	}
	if len(reports) == 0 || reports[0] != "the market had fewer than 2 players; the bots added 6" {
		t.Fatalf("reports %q", reports)
	}
	listed, _ := svc.GetActiveListingsCount()
	if listed == 0 {
		t.Fatal("the bots listed nothing")
	}
	// Past every listing's expiry, a run without bots sweeps them all: the
	// timer's removals are entries of the log, so the version moves.
	clock.Advance(8 * 24 * time.Hour)
	before := svc.Version()
	ctx2, cancel2 := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel2()
	if _, err := Run(ctx2, svc, Options{Tick: 10 * time.Millisecond}); err != nil {
		t.Fatal(err)
	}
	if got := svc.Version(); got < before+uint64(listed) {
		t.Fatalf("version %d after sweeping %d listings from version %d", got, listed, before)
	}
}

func TestRunRefusesAnotherGoroutine(t *testing.T) {
	svc := newMarket(t, market.NewManualClock(time.Now()))
	errc := make(chan error)
	go func() {
		_, err := Run(context.Background(), svc, Options{})
		errc <- err
	}()
	if err := <-errc; !errors.Is(err, market.ErrNotMainThread) {
		t.Fatalf("Run from another goroutine: %v", err)
	}
}

package headless

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/rynek/rynek/internal/priority"
	"github.com/rynek/rynek/internal/traffic"
	"github.com/rynek/rynek/market"
	"github.com/rynek/rynek/market/sqlite"
	"github.com/rynek/rynek/seed"
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
	if w := sum.Work; sum.Ticks < 5 || sum.Bots.OK == 0 || w.Ticks != sum.Ticks || w.Wall.P99 < w.Wall.P50 || w.Wall.Max < w.Wall.P99 || w.Wall.Max == 0 {
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

// fullDisk is a store whose writes fail while full is set, as a full disk
// makes them.
type fullDisk struct {
	market.Store
	full atomic.Bool
}

func (d *fullDisk) Commit(b *market.Batch) error {
	if d.full.Load() {
		return errors.New("database or disk is full (13)")
	}
	return d.Store.Commit(b)
}

func (d *fullDisk) ReserveListingIDs(n int) (int64, error) {
	if d.full.Load() {
		return 0, errors.New("database or disk is full (13)")
	}
	return d.Store.ReserveListingIDs(n)
}

// TestAStoreFailureIsSaidOnceThenCountedThenOver: with the bots trading on
// a store that fails for a second, the loop says the store's error once,
// then how many more times it failed (at most every countEvery), and that
// it is over when a write works again: a handful of lines, not one a tick.
func TestAStoreFailureIsSaidOnceThenCountedThenOver(t *testing.T) {
	defer func(d time.Duration) { countEvery = d }(countEvery)
	countEvery = 300 * time.Millisecond
	disk := &fullDisk{}
	svc, clock := openWrapped(t, func(st market.Store) market.Store { disk.Store = st; return disk })
	var reports []string
	time.AfterFunc(200*time.Millisecond, func() { disk.full.Store(true) })
	time.AfterFunc(1200*time.Millisecond, func() { disk.full.Store(false) })
	// The store works for market.StoreSettle: the failure is over.
	time.AfterFunc(1300*time.Millisecond, func() { clock.Advance(market.StoreSettle) })
	ctx, cancel := context.WithTimeout(context.Background(), 1600*time.Millisecond)
	defer cancel()
	sum, err := Run(ctx, svc, Options{BotsRate: 300, Seed: 3, Tick: 10 * time.Millisecond, Report: func(s string) { reports = append(reports, s) }})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%d ticks, bots %d ok, %d refused; reports:\n%s", sum.Ticks, sum.Bots.OK, sum.Bots.Refused, strings.Join(reports, "\n"))
	var began, counts, over []string
	for _, r := range reports[1:] { // the first says the bots added players
		switch {
		case r == "store failure: database or disk is full (13); every change is refused until the store saves again":
			began = append(began, r)
		case regexp.MustCompile(`^store failure: the store failed \d+ more times in the last \d+ms \(database or disk is full \(13\)\)$`).MatchString(r):
			counts = append(counts, r)
		case regexp.MustCompile(`^store failure over: the store has saved changes since \d\d:\d\d:\d\d UTC; \d+ writes failed in [\d.]+m?s$`).MatchString(r):
			over = append(over, r)
		default:
			t.Errorf("unexpected report %q", r)
		}
	}
	if len(began) != 1 || len(counts) < 1 || len(counts) > 3 || len(over) != 1 || reports[len(reports)-1] != over[0] {
		t.Fatalf("%d reports of the failure, %d counts, %d of its end; want 1, 1 to 3 (a second at most every %s), 1 last", len(began), len(counts), len(over), countEvery)
	}
	if h := svc.StoreHealth(); h.Failing || h.Failures == 0 {
		t.Fatalf("store health after the run: %+v", h)
	}
}

// TestRunReportsTheBots: a run with bots says every ReportEvery what they
// did and where the market's listings are; the summary names the refusals
// by code.
func TestRunReportsTheBots(t *testing.T) {
	st, err := sqlite.Open(filepath.Join(t.TempDir(), "m.db"), sqlite.Options{})
	if err != nil {
		t.Fatal(err)
	}
	now := time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC)
	if _, err := seed.Load(st, seed.Options{Players: 20, Listings: 200, Days: 2, Now: now}); err != nil {
		t.Fatal(err)
	}
	svc := market.New(st, market.Config{Clock: market.NewManualClock(now)})
	if err := svc.BindMainThread(); err != nil {
		t.Fatal(err)
	}
	if err := svc.Enable(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { svc.Close() })
	var reports []string
	ctx, cancel := context.WithTimeout(context.Background(), 700*time.Millisecond)
	defer cancel()
	sum, err := Run(ctx, svc, Options{BotsRate: 400, Seed: 1, Tick: 10 * time.Millisecond, ReportEvery: 200 * time.Millisecond,
		Report: func(s string) { reports = append(reports, s) }})
	if err != nil {
		t.Fatal(err)
	}
	re := regexp.MustCompile(`^bots in the last \d+ms: \d+ actions \(([a-z ]+ \d+(, )?)+\); 0 refused; \d+ active listings, the economy holds 200$`)
	if len(reports) < 2 || !re.MatchString(reports[0]) {
		t.Fatalf("reports %q", reports)
	}
	if sum.Bots.OK == 0 || sum.Bots.Refused != 0 {
		t.Fatalf("summary %+v", sum)
	}
	hostile := traffic.Result{Refused: 1, Refusals: map[market.Code]int{market.CodeCooldown: 1},
		LastErr: errors.New("Zły\x1b]52;c;cGF3bmVk\x07 must wait 5s before listing again")}
	if got := botsReport(svc, &traffic.Generator{}, hostile, time.Second); strings.ContainsAny(got, "\x1b\x07") {
		t.Fatalf("the report carries a player's escape sequence to the log: %q", got)
	}
	sum.Bots.Add(traffic.Result{Refused: 3, Refusals: map[market.Code]int{market.CodeCooldown: 2, market.CodePurchaseCap: 1}})
	if got, want := sum.String(), fmt.Sprintf("%d ticks, tick work %s; bots %d ok, 3 refused (COOLDOWN 2, PURCHASE_CAP 1)",
		sum.Ticks, sum.Work, sum.Bots.OK); got != want {
		t.Fatalf("summary %q, want %q", got, want)
	}
}

// TestRunObservesEachTick: an observer hears of every tick the summary
// counts, with the wall time the percentiles are taken from (the service's
// record: market.MeasureTick's figures) and, on Linux, the main thread's
// CPU time, which the bots' work makes more than nothing.
func TestRunObservesEachTick(t *testing.T) {
	svc := newMarket(t, market.NewManualClock(time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC)))
	var walls []time.Duration
	var cpu time.Duration
	ctx, cancel := context.WithTimeout(context.Background(), 400*time.Millisecond)
	defer cancel()
	sum, err := Run(ctx, svc, Options{BotsRate: 500, Seed: 1, Tick: 10 * time.Millisecond, Observe: func(w, c time.Duration) {
		if !svc.IsMainThread() {
			t.Error("observed off the main thread")
		}
		walls = append(walls, w)
		cpu += c
	}})
	if err != nil {
		t.Fatal(err)
	}
	if sum.Ticks < 5 || len(walls) != sum.Ticks {
		t.Fatalf("%d ticks observed of %d", len(walls), sum.Ticks)
	}
	if slices.Max(walls) != sum.Work.Wall.Max {
		t.Fatalf("the longest tick observed %s, the summary's %s", slices.Max(walls), sum.Work.Wall.Max)
	}
	if runtime.GOOS == "linux" && cpu <= 0 {
		t.Fatalf("the main thread's CPU time over %d ticks of bots: %s", sum.Ticks, cpu)
	}
}

// TestRunReportsTickWork: every ReportEvery the loop says how long its
// ticks took since the last report, bots or none, and the service's
// record, which the console and /api/health read, holds the same ticks.
// The run ends after its second report, however long the machine took to
// get there.
func TestRunReportsTickWork(t *testing.T) {
	svc := newMarket(t, market.NewManualClock(time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC)))
	var reports []string
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	sum, err := Run(ctx, svc, Options{Tick: 10 * time.Millisecond, ReportEvery: 200 * time.Millisecond,
		Report: func(s string) {
			if reports = append(reports, s); len(reports) == 2 {
				cancel()
			}
		}})
	if err != nil {
		t.Fatal(err)
	}
	// The figures as market.TickWork says them, whatever they are on a
	// loaded machine, and the ticks that put their changes off if any.
	d := `[0-9.]+(?:ns|µs|ms|s)`
	re := regexp.MustCompile(`^tick work in the last (\d+m?s): (\d+) ticks, p50 ` + d + `, p99 ` + d + `, max ` + d +
		` \(CPU p50 ` + d + `, p99 ` + d + `, max ` + d + `\)(?:; \d+ put their changes off, the market's lock busy over ` + d + `)?$`)
	if len(reports) != 2 {
		t.Fatalf("reports %q, want two of the ticks' work and none after the run was told to end", reports)
	}
	reported := 0
	for _, r := range reports {
		m := re.FindStringSubmatch(r)
		if m == nil {
			t.Fatalf("report %q", r)
		}
		// A report comes at the first tick ReportEvery after the last
		// (its span rounded to the second from a second on); the ticker
		// drops the ticks a slow loop misses, never adds any.
		span, _ := time.ParseDuration(m[1])
		if strings.HasSuffix(m[1], "ms") {
			span += time.Millisecond
		} else {
			span += time.Second / 2
		}
		n, _ := strconv.Atoi(m[2])
		if span < 200*time.Millisecond || n < 1 || n > int(span/(10*time.Millisecond))+2 {
			t.Errorf("%d ticks of 10 ms in %s (ReportEvery 200 ms): %q", n, m[1], r)
		}
		reported += n
	}
	// Each tick is in one report at most.
	if reported > sum.Ticks {
		t.Errorf("the reports count %d ticks, the run made %d", reported, sum.Ticks)
	}
	if w := svc.TickWork(); w.Ticks != sum.Ticks || sum.Work.Ticks != sum.Ticks {
		t.Errorf("the service recorded %d ticks, the summary %d of %d", w.Ticks, sum.Work.Ticks, sum.Ticks)
	}
}

// cutLink is a store behind a link that can be cut (market.Reacher).
type cutLink struct {
	market.Store
	cut atomic.Bool
}

var errRefused = fmt.Errorf("dial tcp 10.0.0.5:5432: connect: connection refused (%w)", market.ErrUnreachable)

func (l *cutLink) Commit(b *market.Batch) error {
	if l.cut.Load() {
		return errRefused
	}
	return l.Store.Commit(b)
}

func (l *cutLink) ReserveListingIDs(n int) (int64, error) {
	if l.cut.Load() {
		return 0, errRefused
	}
	return l.Store.ReserveListingIDs(n)
}

func (l *cutLink) Reach(context.Context) (market.Landed, error) {
	if l.cut.Load() {
		return market.Landed{}, errRefused
	}
	return market.Landed{}, nil
}

// TestAnOutageIsSaidOnceAndItsEnd: with the bots trading while the link to
// the database is cut for a second, the loop says once that the store
// cannot reach it, once that it answers again (with no restart, nothing
// but the loop running), and that the failure is over once the store has
// worked for a while: three lines, and no count of refusals, which never
// reach the store.
func TestAnOutageIsSaidOnceAndItsEnd(t *testing.T) {
	link := &cutLink{}
	svc, clock := openWrapped(t, func(st market.Store) market.Store { link.Store = st; return link })
	var reports []string
	time.AfterFunc(200*time.Millisecond, func() { link.cut.Store(true) })
	time.AfterFunc(1200*time.Millisecond, func() { link.cut.Store(false) })
	time.AfterFunc(2400*time.Millisecond, func() { clock.Advance(market.StoreSettle) })
	ctx, cancel := context.WithTimeout(context.Background(), 2700*time.Millisecond)
	defer cancel()
	sum, err := Run(ctx, svc, Options{BotsRate: 300, Seed: 3, Tick: 10 * time.Millisecond, Report: func(s string) { reports = append(reports, s) }})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%d ticks, bots %d ok, %d refused; reports:\n%s", sum.Ticks, sum.Bots.OK, sum.Bots.Refused, strings.Join(reports, "\n"))
	want := []string{
		"store unreachable: dial tcp 10.0.0.5:5432: connect: connection refused (store: the database cannot be reached); " +
			"every change is refused at once until the database answers, which is tried every second",
		`^store reachable again: the database answered at \d\d:\d\d:\d\d UTC, after 0s away and \d+ changes? refused; changes go through$`,
		`^store failure over: the store has saved changes since \d\d:\d\d:\d\d UTC; 1 writes failed in 0s$`,
	}
	got := reports[1:] // the first says the bots added players
	if len(got) != len(want) || got[0] != want[0] || !regexp.MustCompile(want[1]).MatchString(got[1]) || !regexp.MustCompile(want[2]).MatchString(got[2]) {
		t.Fatalf("reports %q, want %q", got, want)
	}
}

// openWrapped opens a new market on this goroutine, wrap between the
// service and its SQLite store, closed when the test ends.
func openWrapped(t *testing.T, wrap func(market.Store) market.Store) (*market.Service, *market.ManualClock) {
	t.Helper()
	st, err := sqlite.Open(filepath.Join(t.TempDir(), "m.db"), sqlite.Options{})
	if err != nil {
		t.Fatal(err)
	}
	clock := market.NewManualClock(time.Now())
	svc := market.New(wrap(st), market.Config{Clock: clock, ListingCooldown: -1})
	if err := svc.BindMainThread(); err != nil {
		t.Fatal(err)
	}
	if err := svc.Enable(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { svc.Close() })
	return svc, clock
}

// TestRunRaisesTheMainThread: with Realtime the loop's thread runs in the
// real-time class while it runs, says so, and is back to normal after;
// where the system refuses, the loop says why and runs as before.
func TestRunRaisesTheMainThread(t *testing.T) {
	svc := newMarket(t, market.NewManualClock(time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC)))
	var reports []string
	raised := false
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	_, err := Run(ctx, svc, Options{Tick: 10 * time.Millisecond, Realtime: true,
		Report:  func(s string) { reports = append(reports, s) },
		Observe: func(time.Duration, time.Duration) { raised = raised || priority.Raised() }})
	if err != nil {
		t.Fatal(err)
	}
	if len(reports) == 0 {
		t.Fatal("the loop said nothing of its priority")
	}
	const ok = "the main thread runs at real-time priority: no other thread makes a tick wait"
	refused := "the main thread keeps its normal priority, so other threads may make a tick wait ("
	switch {
	case reports[0] == ok:
		if !raised {
			t.Error("said raised, but no tick ran in the real-time class")
		}
	case strings.HasPrefix(reports[0], refused) && strings.HasSuffix(reports[0], ": "+priority.Hint+")"):
		if os.Geteuid() == 0 && runtime.GOOS == "linux" {
			t.Errorf("refused as root: %s", reports[0])
		}
		if raised {
			t.Error("said refused, but a tick ran in the real-time class")
		}
	default:
		t.Fatalf("first report %q, want %q or the refusal", reports[0], ok)
	}
	if priority.Raised() {
		t.Error("the thread is still real-time after the loop")
	}
}

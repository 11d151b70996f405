package market_test

import (
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/rynek/rynek/market"
)

// TestObserveTicksTellsEveryTick: the tick observer hears the wall time of
// every tick MeasureTick runs, exactly what MeasureTick returns, allocating
// nothing on the main thread; once removed it hears nothing.
func TestObserveTicksTellsEveryTick(t *testing.T) {
	svc := mainService(t)
	var heard []time.Duration
	svc.ObserveTicks(func(d time.Duration) { heard = append(heard, d) })
	var walls []time.Duration
	for i := range 5 {
		wall, _ := measure(t, svc, func() { time.Sleep(time.Duration(i) * time.Millisecond) })
		walls = append(walls, wall)
	}
	if len(heard) != len(walls) {
		t.Fatalf("heard %d ticks of %d", len(heard), len(walls))
	}
	for i := range walls {
		if heard[i] != walls[i] {
			t.Errorf("tick %d: heard %s, MeasureTick said %s", i, heard[i], walls[i])
		}
	}
	if heard[4] < 4*time.Millisecond {
		t.Errorf("a tick of 4 ms heard as %s", heard[4])
	}

	var count int
	svc.ObserveTicks(func(time.Duration) { count++ })
	empty := func() {}
	if allocs := testing.AllocsPerRun(100, func() { svc.MeasureTick(empty) }); allocs != 0 {
		t.Errorf("a tick with an observer allocates %.1f times", allocs)
	}
	if count < 100 {
		t.Errorf("the observer heard %d of at least 100 ticks", count)
	}
	svc.ObserveTicks(nil)
	was := count
	measure(t, svc, empty)
	if count != was {
		t.Errorf("a removed observer heard a tick")
	}
}

// timings is a commit observer: the durations it heard, from any goroutine.
type timings struct {
	mu    sync.Mutex
	heard []time.Duration
}

func (o *timings) observe(d time.Duration) {
	o.mu.Lock()
	o.heard = append(o.heard, d)
	o.mu.Unlock()
}

func (o *timings) read() []time.Duration {
	o.mu.Lock()
	defer o.mu.Unlock()
	return append([]time.Duration(nil), o.heard...)
}

// TestObserveCommitsTimesTheSynchronousCommit: committing in the mutation
// (not behind), each store commit is heard once, with its duration: a
// commit the store holds for 30 ms is heard as at least that.
func TestObserveCommitsTimesTheSynchronousCommit(t *testing.T) {
	w, g := behindWorld(t, func(c *market.Config) { c.CommitBehind = false })
	var o timings
	w.svc.ObserveCommits(o.observe)
	w.sell(w.alice, 2, 5)
	if n := g.commits.Load(); n != 1 || len(o.read()) != 1 {
		t.Fatalf("one sell: %d store commits, %d heard", n, len(o.read()))
	}
	g.close()
	go func() {
		time.Sleep(30 * time.Millisecond)
		g.open()
	}()
	w.sell(w.bob, 2, 5)
	heard := o.read()
	if len(heard) != 2 || heard[1] < 30*time.Millisecond {
		t.Fatalf("a commit held 30 ms: heard %v", heard)
	}
	w.svc.ObserveCommits(nil)
	w.sell(w.admin, 2, 5)
	if len(o.read()) != 2 {
		t.Errorf("a removed observer heard a commit")
	}
}

// TestObserveCommitsTimesTheCommitter: committing behind the tick, every
// commit the committer makes (a group of the sells queued meanwhile) is
// heard, on the committer's goroutine, with the time the store held it.
func TestObserveCommitsTimesTheCommitter(t *testing.T) {
	w, g := behindWorld(t)
	var o timings
	w.svc.ObserveCommits(o.observe)
	g.close()
	for range 10 {
		st := w.stack(w.alice, 2)
		st.Amount = 1
		_, err := w.svc.SellItem(w.alice, st, 1)
		must(t, err)
	}
	// Held from when the committer has begun it: on a busy machine its
	// goroutine may begin after the sells (a run heard 29.3 ms).
	for deadline := time.Now().Add(10 * time.Second); g.entered.Load() == 0; time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the committer began no commit in 10 s")
		}
	}
	time.Sleep(30 * time.Millisecond)
	g.open()
	if refused := w.svc.Flush(); len(refused) != 0 {
		t.Fatalf("refused: %+v", refused)
	}
	heard := o.read()
	if n := g.commits.Load(); n == 0 || int(n) != len(heard) {
		t.Fatalf("%d store commits, %d heard", n, len(heard))
	}
	if heard[0] < 30*time.Millisecond {
		t.Errorf("the first commit, held 30 ms, heard as %s", heard[0])
	}
}

// TestFiguresAreTheStatsTotals: Figures reads what Stats says of the
// market's totals, and the log's head, as they move with a sell and a
// purchase; a market that is not ready refuses as every read does.
func TestFiguresAreTheStatsTotals(t *testing.T) {
	w := newWorld(t)
	check := func(when string) market.Figures {
		t.Helper()
		f, err := w.svc.Figures()
		must(t, err)
		st, err := w.svc.Stats(1)
		must(t, err)
		if f.ActiveListings != st.ActiveListings || f.Volume.Float() != st.MarketVolume || f.Sales != st.TotalSales ||
			f.Head != w.svc.Version() {
			t.Fatalf("%s: figures %+v, stats %d listings, volume %v, %d sales, version %d", when, f,
				st.ActiveListings, st.MarketVolume, st.TotalSales, w.svc.Version())
		}
		return f
	}
	before := check("at the start")
	l := w.sell(w.alice, 0, 12.5)
	sold := check("after a sell")
	if sold.ActiveListings != before.ActiveListings+1 || sold.Head <= before.Head {
		t.Fatalf("a sell: %+v, then %+v", before, sold)
	}
	_, err := w.svc.Buy(w.bob, l.ID)
	must(t, err)
	bought := check("after a purchase")
	if bought.Sales != sold.Sales+1 || bought.Volume != sold.Volume+market.Money(1250) ||
		bought.ActiveListings != sold.ActiveListings-1 {
		t.Fatalf("a purchase of 12.50: %+v, then %+v", sold, bought)
	}
	w.svc.Disable()
	if _, err := w.svc.Figures(); !errors.Is(err, market.ErrNotReady) {
		t.Errorf("not ready: %v", err)
	}
}

// BenchmarkMeasureTick and BenchmarkMeasureTickObserved are what an
// empty tick costs the main thread without a tick observer and with one
// (that does nothing). Each binds its own main thread: a sub-benchmark
// would run on another goroutine, where MeasureTick only refuses.
func BenchmarkMeasureTick(b *testing.B) { benchmarkTicks(b, nil) }

func BenchmarkMeasureTickObserved(b *testing.B) { benchmarkTicks(b, func(time.Duration) {}) }

func benchmarkTicks(b *testing.B, observe func(time.Duration)) {
	svc := market.New(nil, market.Config{})
	must(b, svc.BindMainThread())
	defer svc.ReleaseMainThread()
	svc.ObserveTicks(observe)
	empty := func() {}
	for b.Loop() {
		must(b, func() error { _, _, err := svc.MeasureTick(empty); return err }())
	}
}

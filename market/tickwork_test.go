package market_test

import (
	"errors"
	"runtime"
	"sync"
	"testing"
	"time"

	"github.com/rynek/rynek/market"
)

// measure runs tick through MeasureTick, which must take it.
func measure(tb testing.TB, svc *market.Service, tick func()) (wall, cpu time.Duration) {
	tb.Helper()
	wall, cpu, err := svc.MeasureTick(tick)
	must(tb, err)
	return wall, cpu
}

// mainService is a service with the test's goroutine as its main thread:
// measuring ticks needs neither a store nor readiness.
func mainService(t *testing.T) *market.Service {
	t.Helper()
	svc := market.New(nil, market.Config{})
	must(t, svc.BindMainThread())
	t.Cleanup(func() { svc.ReleaseMainThread() })
	return svc
}

// TestTickWorkPercentiles: ninety-nine empty ticks and one that waits 30
// ms. The waiting tick is the longest by the wall clock and p99 of a
// hundred ticks (the nearest rank: the 100th); the median stays an empty
// tick's; and the main thread's CPU time shows that the long tick waited
// rather than worked.
func TestTickWorkPercentiles(t *testing.T) {
	svc := mainService(t)
	if w := svc.TickWork(); w.Ticks != 0 || w.Wall.Max != 0 {
		t.Fatalf("before any tick: %+v", w)
	}
	for i := range 100 {
		measure(t, svc, func() {
			if i == 50 {
				time.Sleep(30 * time.Millisecond)
			}
		})
	}
	w := svc.TickWork()
	if w.Ticks != 100 {
		t.Fatalf("ticks %d, want 100", w.Ticks)
	}
	if w.Wall.Max < 30*time.Millisecond || w.Wall.P99 != w.Wall.Max {
		t.Errorf("wall max %s, p99 %s: want the 30 ms tick as both", w.Wall.Max, w.Wall.P99)
	}
	if w.Wall.P50 > 5*time.Millisecond {
		t.Errorf("wall p50 %s: an empty tick's, want well under 5 ms", w.Wall.P50)
	}
	if w.Span < 30*time.Millisecond || w.Span > time.Minute {
		t.Errorf("span %s, want the run's (over 30 ms)", w.Span)
	}
	if runtime.GOOS == "linux" {
		if !w.HasCPU {
			t.Fatal("no CPU figures on Linux")
		}
		if w.CPU.Max >= 15*time.Millisecond {
			t.Errorf("CPU max %s: the long tick slept, its CPU time should be far below its 30 ms", w.CPU.Max)
		}
	}
}

// TestTickWorkCountsCPU: a tick that computes has its CPU time counted,
// which tells it from one that waits; MeasureTick returns the figures it
// records. The tick computes until its thread has had 20 ms of CPU, not
// for 20 ms of wall time: on a loaded machine the thread may get a
// twentieth of a wall-clock window, and the test measured the load.
func TestTickWorkCountsCPU(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("the main thread's CPU clock is Linux's")
	}
	svc := mainService(t)
	sink := 0
	wall, cpu := measure(t, svc, func() {
		start, _ := market.ThreadCPU()
		for now := start; now-start < 20*time.Millisecond; now, _ = market.ThreadCPU() {
			for i := range 1000 {
				sink += i
			}
		}
	})
	w := svc.TickWork()
	if w.CPU.Max < 20*time.Millisecond || w.CPU.Max > w.Wall.Max+time.Millisecond {
		t.Errorf("a tick of 20 ms of CPU: CPU %s, wall %s (sink %d)", w.CPU.Max, w.Wall.Max, sink)
	}
	if wall != w.Wall.Max || cpu != w.CPU.Max {
		t.Errorf("MeasureTick returned %s and %s, the record holds %s and %s", wall, cpu, w.Wall.Max, w.CPU.Max)
	}
}

// TestTickWorkSince: a summary counts only the ticks after its start, and
// a span with none reads zero.
func TestTickWorkSince(t *testing.T) {
	svc := mainService(t)
	for range 10 {
		measure(t, svc, func() {})
	}
	mid := time.Now()
	for range 7 {
		measure(t, svc, func() {})
	}
	if w := svc.TickWorkSince(mid); w.Ticks != 7 {
		t.Errorf("since the middle: %d ticks, want 7", w.Ticks)
	}
	if w := svc.TickWorkSince(time.Now()); w.Ticks != 0 || w.Wall != (market.TickFigures{}) || w.Span != 0 {
		t.Errorf("since now: %+v, want nothing", w)
	}
	if w := svc.TickWork(); w.Ticks != 17 {
		t.Errorf("the last minute: %d ticks, want 17", w.Ticks)
	}
}

// TestMeasureTickOffTheMainThread: another goroutine's tick is refused
// and not run, as a mutation would be.
func TestMeasureTickOffTheMainThread(t *testing.T) {
	svc := mainService(t)
	ran := false
	var err error
	done := make(chan struct{})
	go func() {
		defer close(done)
		_, _, err = svc.MeasureTick(func() { ran = true })
	}()
	<-done
	if !errors.Is(err, market.ErrNotMainThread) || ran {
		t.Fatalf("from another goroutine: err %v, ran %t; want ErrNotMainThread and no run", err, ran)
	}
	if w := svc.TickWork(); w.Ticks != 0 {
		t.Errorf("a refused tick was recorded: %+v", w)
	}
}

// TestMeasureTickAllocatesNothing: recording a tick costs the main thread
// no allocation (the ring is made at the first tick).
func TestMeasureTickAllocatesNothing(t *testing.T) {
	svc := mainService(t)
	tick := func() {}
	measure(t, svc, tick)
	if n := testing.AllocsPerRun(1000, func() { svc.MeasureTick(tick) }); n != 0 {
		t.Errorf("%.1f allocations a tick, want 0", n)
	}
}

// TestTickWorkReadersWhileTheRingWraps: readers on other goroutines while
// the main thread writes more ticks than the ring holds: every answer is
// whole (never more ticks than the ring keeps, percentiles in order), and
// the race detector sees no unsynchronized access.
func TestTickWorkReadersWhileTheRingWraps(t *testing.T) {
	svc := mainService(t)
	stop := make(chan struct{})
	var wg sync.WaitGroup
	bad := make(chan string, 2)
	for range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				select {
				case <-stop:
					return
				default:
				}
				w := svc.TickWork()
				if w.Ticks > 1<<14 || w.Wall.P50 > w.Wall.P99 || w.Wall.P99 > w.Wall.Max || w.CPU.P50 > w.CPU.Max {
					select {
					case bad <- "a reader saw " + time.Duration(w.Ticks).String():
					default:
					}
				}
			}
		}()
	}
	for range 1<<14 + 5000 {
		measure(t, svc, func() {})
	}
	close(stop)
	wg.Wait()
	close(bad)
	for b := range bad {
		t.Error(b)
	}
	if w := svc.TickWork(); w.Ticks != 1<<14 {
		t.Errorf("after more ticks than the ring holds: %d, want its 16384", w.Ticks)
	}
}

// BenchmarkTickWork: a reader's look at the last minute (1,200 ticks of
// 20 a second), from the readers' copy while no tick ends, and read
// afresh (TickWorkSince, what each look cost before the copy).
func BenchmarkTickWork(b *testing.B) {
	svc := market.New(nil, market.Config{})
	must(b, svc.BindMainThread())
	defer svc.ReleaseMainThread()
	for range 1200 {
		measure(b, svc, func() {})
	}
	b.Run("copy", func(b *testing.B) {
		for b.Loop() {
			svc.TickWork()
		}
	})
	b.Run("afresh", func(b *testing.B) {
		since := time.Now().Add(-market.TickWindow)
		for b.Loop() {
			svc.TickWorkSince(since)
		}
	})
}

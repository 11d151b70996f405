package market

import (
	"fmt"
	"slices"
	"sync"
	"sync/atomic"
	"time"
)

// The main thread's work per tick.
//
// A game server has 50 ms a tick for everything, and its admins watch how
// much of it each plugin takes. The loops that run the market's main thread
// (rynek serve's, the console's) run each tick's work through MeasureTick,
// which keeps its wall time and the main thread's CPU time; TickWork reads
// their percentiles over the last minute from any goroutine. Wall time is
// what the server's tick pays; CPU time beside it tells the market's own
// work from starvation by other processes (on 2 cores a load generator or
// another plugin takes CPU the market cannot have): a tick whose wall time
// is far above its CPU time waited for the disk, the network or a core.
//
// The service keeps the record because it owns the main thread: on Linux
// the bound goroutine is locked to its OS thread (thread_linux.go), so the
// thread's CPU clock is exactly the main loop's work, the runtime's help
// with garbage collection that its allocations cause included.
//
// Recording costs the main thread two reads of each clock and a few atomic
// stores, and allocates nothing; readers never hold it up. The samples sit
// in a ring the main thread alone writes: a reader copies the newest ones
// and checks afterwards, by the count of samples begun, that none it
// copied was overwritten meanwhile.

// TickWindow is the span TickWork covers.
const TickWindow = time.Minute

// tickRing is how many ticks the record keeps: about 13 minutes at 20
// ticks a second, so that a run's summary (TickWorkSince) covers a
// benchmark's whole run, and TickWork's minute at up to 270 ticks a second.
const tickRing = 1 << 14

// TickWork is the main thread's work per tick over a span of time: the
// percentiles of the ticks' wall time and of the main thread's CPU time in
// them (each figure ranks the ticks on its own, so the two p99 may come
// from different ticks).
type TickWork struct {
	// Ticks is how many ticks were measured in the span.
	Ticks int
	// Span is how long the ticks measured cover: from the start of the
	// oldest to the end of the newest (at most the span asked for).
	Span time.Duration
	// Wall is the tick's duration by the wall clock.
	Wall TickFigures
	// CPU is the main thread's CPU time in the tick (user and system).
	// HasCPU is false where the system gives no thread's CPU clock
	// (outside Linux); CPU is zero then.
	CPU    TickFigures
	HasCPU bool
	// PutOff is how many of the ticks put their changes off to the next,
	// the market's lock not free within HoldWait (Service.Hold).
	PutOff int
}

// TickFigures are the median, the 99th percentile and the longest of a
// span's ticks (nearest rank: the p99 of 1,200 ticks is the 12th longest).
type TickFigures struct {
	P50, P99, Max time.Duration
}

// tickMeter is the service's record of its ticks.
type tickMeter struct {
	epoch time.Time                            // samples' times count from here (monotonic)
	ring  atomic.Pointer[[tickRing]tickSample] // made at the first tick
	n     atomic.Uint64                        // samples written, the newest at n-1
	begun atomic.Uint64                        // samples begun: n, or n+1 while one is written
	// putOff is set by Hold when the tick being measured puts its changes
	// off, and taken into its sample. Main thread.
	putOff atomic.Bool

	// The readers' copy of the last minute's figures (TickWork), which
	// the main thread never touches: a monitor polling /api/health
	// hundreds of times a second sorts the minute once per new tick, not
	// once per request, and leaves the cores to the game.
	mu     sync.Mutex
	cached TickWork
	of     uint64    // the samples written when it was read
	at     time.Time // when it was read
}

// tickSample is one tick: when it ended (since the epoch), its wall time
// and its CPU time, in nanoseconds. Each is atomic: readers copy them
// while the main thread may be writing a newer sample elsewhere.
type tickSample struct {
	end, wall, cpu atomic.Int64
	putOff         atomic.Bool
}

// MeasureTick runs tick, one turn of the main thread's loop, records its
// wall time and the main thread's CPU time in it for TickWork, and returns
// them (the CPU time is 0 where the system has no thread's CPU clock).
// Main thread only: from another goroutine it runs nothing and returns
// ErrNotMainThread, as a mutation would. It records whether or not the
// service is ready: a tick's work is the loop's, whatever it found to do.
func (s *Service) MeasureTick(tick func()) (wall, cpu time.Duration, err error) {
	if !s.onMain() {
		return 0, 0, ErrNotMainThread
	}
	m := &s.ticks
	if m.ring.Load() == nil {
		m.epoch = time.Now()
		m.ring.Store(new([tickRing]tickSample))
	}
	cpu0, _ := threadCPU()
	start := time.Now()
	m.putOff.Store(false)
	tick()
	end := time.Now()
	cpu1, _ := threadCPU()
	wall, cpu = end.Sub(start), cpu1-cpu0
	n := m.n.Load()
	m.begun.Store(n + 1)
	slot := &m.ring.Load()[n%tickRing]
	slot.end.Store(int64(end.Sub(m.epoch)))
	slot.wall.Store(int64(wall))
	slot.cpu.Store(int64(cpu))
	slot.putOff.Store(m.putOff.Load())
	m.n.Store(n + 1)
	s.observers.ticked(wall)
	return wall, cpu, nil
}

// TickWork returns the main thread's work per tick over the last minute
// (TickWindow). Any goroutine; it never holds up the main thread.
func (s *Service) TickWork() TickWork {
	m := &s.ticks
	now := time.Now()
	m.mu.Lock()
	defer m.mu.Unlock()
	// The same ticks, read less than a tick's span ago: the same figures.
	if n := m.n.Load(); n == m.of && !m.at.IsZero() && now.Sub(m.at) < tickCacheFor {
		return m.cached
	}
	m.of = m.n.Load()
	m.cached, m.at = s.TickWorkSince(now.Add(-TickWindow)), now
	return m.cached
}

// tickCacheFor bounds how long TickWork answers from its copy while no
// tick ends (a stalled loop): the minute's window moves on meanwhile.
const tickCacheFor = time.Second

// TickWorkSince returns the main thread's work per tick in the ticks that
// ended after since, as far back as the record goes (the newest 16,384
// ticks): a run's summary. Any goroutine.
func (s *Service) TickWorkSince(since time.Time) TickWork {
	m := &s.ticks
	_, hasCPU := threadCPU()
	w := TickWork{HasCPU: hasCPU}
	ring := m.ring.Load()
	if ring == nil {
		return w
	}
	from := int64(since.Sub(m.epoch))
	n := int64(m.n.Load())
	var copied []sampleCopy // the newest first
	for i := n - 1; i >= 0 && i >= n-tickRing; i-- {
		slot := &ring[i%tickRing]
		c := sampleCopy{end: slot.end.Load(), wall: slot.wall.Load(), cpu: slot.cpu.Load(), putOff: slot.putOff.Load()}
		if c.end <= from {
			break
		}
		copied = append(copied, c)
	}
	// The main thread may have written over the oldest slots copied
	// meanwhile: only those it has not begun to write again count. Sample
	// i's slot is written again by sample i+tickRing.
	begun := int64(m.begun.Load())
	copied = copied[:max(0, min(len(copied), int(n-(begun-tickRing))))]
	if len(copied) == 0 {
		return w
	}
	oldest := copied[len(copied)-1]
	w.Ticks, w.Span = len(copied), time.Duration(copied[0].end-max(oldest.end-oldest.wall, from))
	walls := make([]time.Duration, len(copied))
	for i, c := range copied {
		walls[i] = time.Duration(c.wall)
		if c.putOff {
			w.PutOff++
		}
	}
	w.Wall = figures(walls)
	if hasCPU {
		for i, c := range copied {
			walls[i] = time.Duration(c.cpu)
		}
		w.CPU = figures(walls)
	}
	return w
}

// sampleCopy is a reader's copy of a tickSample.
type sampleCopy struct {
	end, wall, cpu int64
	putOff         bool
}

// figures sorts ds and reads its percentiles.
func figures(ds []time.Duration) TickFigures {
	slices.Sort(ds)
	at := func(q float64) time.Duration { return ds[min(len(ds)-1, int(q*float64(len(ds))))] }
	return TickFigures{P50: at(0.50), P99: at(0.99), Max: ds[len(ds)-1]}
}

// String is the figures as the programs' reports say them: "p50 2.1ms, p99
// 6.49ms, max 42.6ms (CPU p50 1.8ms, p99 5.2ms, max 9ms)", each rounded to
// three figures or so.
func (w TickWork) String() string {
	text := w.Wall.String()
	if w.HasCPU {
		text += " (CPU " + w.CPU.String() + ")"
	}
	if w.PutOff > 0 {
		text += fmt.Sprintf("; %d put their changes off, the market's lock busy over %s", w.PutOff, shortDuration(HoldWait))
	}
	return text
}

// String is "p50 2.1ms, p99 6.49ms, max 42.6ms".
func (f TickFigures) String() string {
	return "p50 " + shortDuration(f.P50) + ", p99 " + shortDuration(f.P99) + ", max " + shortDuration(f.Max)
}

// shortDuration rounds d for a report: to the microsecond under a
// millisecond, to 10 µs under 10 ms, to 100 µs under a second and to the
// millisecond above ("412µs", "6.49ms", "42.6ms", "1.234s").
func shortDuration(d time.Duration) string {
	switch {
	case d < time.Millisecond:
		return d.Round(time.Microsecond).String()
	case d < 10*time.Millisecond:
		return d.Round(10 * time.Microsecond).String()
	case d < time.Second:
		return d.Round(100 * time.Microsecond).String()
	}
	return d.Round(time.Millisecond).String()
}

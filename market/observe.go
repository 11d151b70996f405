package market

import (
	"sync/atomic"
	"time"
)

// Observers of durations, for monitors that keep every sample.
//
// TickWork keeps the last minute's ticks for a report; a monitor such as
// Prometheus wants every tick and every store commit counted into a
// histogram it owns, however rarely it scrapes. The service tells it each
// duration through a function it sets here, so that the market knows
// nothing of the monitor. Each hook costs its caller one atomic load when
// none is set, and otherwise a call that must not block: the tick's runs
// on the main thread, the commit's on the committer goroutine as well.

// observers holds the functions the service tells its durations to.
type observers struct {
	tick, commit atomic.Pointer[func(time.Duration)]
}

// ObserveTicks has f told the wall time of every tick MeasureTick runs, on
// the main thread as the tick ends; nil stops it. f must return at once
// and allocate nothing: the game waits for it.
func (s *Service) ObserveTicks(f func(time.Duration)) { setObserver(&s.observers.tick, f) }

// ObserveCommits has f told how long each store commit took, refused or
// not: the committer's group commits (CommitBehind) and the synchronous
// ones. f runs on the goroutine that committed, the main thread among
// them, so it must be safe for concurrent use and return at once; nil
// stops it.
func (s *Service) ObserveCommits(f func(time.Duration)) { setObserver(&s.observers.commit, f) }

func setObserver(p *atomic.Pointer[func(time.Duration)], f func(time.Duration)) {
	if f == nil {
		p.Store(nil)
		return
	}
	p.Store(&f)
}

// commitTo commits b to store, timing it for the commit observer if one
// is set. It encodes the players' data and inventories b writes first, and
// decodes its events once the store has taken them: the committer calls
// it, off the main thread.
func (o *observers) commitTo(store Store, b *Batch) error {
	b.encodeData()
	f := o.commit.Load()
	var start time.Time
	if f != nil {
		start = time.Now()
	}
	err := store.Commit(b)
	if f != nil {
		(*f)(time.Since(start))
	}
	if err == nil {
		b.decodeEvents(store)
	}
	return err
}

// ticked tells the tick observer, if one is set, a tick's wall time.
func (o *observers) ticked(wall time.Duration) {
	if f := o.tick.Load(); f != nil {
		(*f)(wall)
	}
}

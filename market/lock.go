package market

import (
	"runtime"
	"sync"
	"sync/atomic"
	"time"
)

// serviceLock is the service's read-write lock, built so that the main
// thread's write lock waits only for readers that are running, and only as
// long as it chooses to (lockWithin).
//
// A sync.RWMutex hands the read lock to the readers that queued behind a
// writer when the writer lets go: they hold it from then on, whether or not
// the Go scheduler has run them yet. In a trace of the serve loop under a
// website's load, such readers sat runnable, holding the lock, for 1-2 ms
// while both processors ran other goroutines, and the main thread's next
// write waited for them: most ticks over 2 ms were that. Here a reader
// never queues inside the lock: while a writer wants or holds it, a reader
// waits at a gate, holding nothing, and goes in only once it runs again
// and no writer wants the lock (RLock).
//
// A writer takes the writers' token (sem), shuts the readers' door (the
// writing bit of inside) and then waits for the readers inside to leave
// (drained); each of those waits can be given up at a deadline, which a
// sync.RWMutex's cannot: a reader the system stopped while it held the
// lock held the main thread up as long as it stayed stopped. A reader goes
// in by one compare-and-swap of inside that finds the door open: it is
// in, or it is not, never half in (a reader that counted itself in and
// then looked for a writer held one up when it was stopped in between).
//
// A long read gives way when a writer waits or it has held the lock for a
// millisecond (readYield), so it can ask often, and a reader that lets the
// lock go while a writer waits yields its processor: the woken writer runs
// next on it.
type serviceLock struct {
	made    sync.Once
	sem     chan struct{} // holds a token while a writer has the lock
	drained chan struct{} // the last reader out tells the writer waiting for them
	inside  atomic.Int64  // readers inside, and writing while a writer has the lock
	writers atomic.Int32  // writers that want or hold the lock

	gateMu sync.Mutex
	gate   chan struct{} // closed when no writer is left; nil: none made
	atGate atomic.Int32  // readers waiting at the gate

	// holder is the thread that holds the write lock through a stretch of
	// work (hold), 0 when none does. Its own locking inside the stretch is
	// nothing: it holds the lock already.
	holder atomic.Int64
}

// prepare makes the lock's channels, once: the zero lock is ready to use.
func (l *serviceLock) prepare() {
	l.made.Do(func() {
		l.sem = make(chan struct{}, 1)
		l.drained = make(chan struct{}, 1)
	})
}

// hold takes the write lock for a stretch of the calling thread's work,
// until release, if it can be had within wait (lockWithin), and reports
// whether it took it: the locks its calls take meanwhile, each of which
// could wait for readers, are nothing. The main thread's changes take the
// lock several times each; a tick's changes took it some twenty times, and
// each time might find a reader inside that the scheduler had stopped (a
// serve loop's ticks waited 0.2-1.8 ms for one in a tenth of its ticks).
// Held through the tick's changes, the lock is waited for once. The thread
// must be locked to its OS thread (BindMainThread) and must not wait,
// while it holds the lock, for another goroutine that takes it.
func (l *serviceLock) hold(wait time.Duration) bool {
	if !l.lockWithin(wait) {
		return false
	}
	l.holder.Store(currentThread())
	return true
}

// release ends hold's stretch and lets the lock go.
func (l *serviceLock) release() {
	l.holder.Store(0)
	l.Unlock()
}

// holding reports whether the caller holds the lock through a stretch.
func (l *serviceLock) holding() bool {
	h := l.holder.Load()
	return h != 0 && h == currentThread()
}

// Lock takes the write lock. New readers wait from the moment it is asked
// for; it waits for the readers in.
func (l *serviceLock) Lock() {
	if l.holding() {
		return
	}
	l.writers.Add(1)
	l.prepare()
	l.sem <- struct{}{}
	l.awaitReaders(nil)
}

// writing is inside's bit for a writer that has the lock: no reader goes
// in while it is set.
const writing = 1 << 40

// lockWithin takes the write lock if it can be had within wait, and
// reports whether it did; if not, it leaves the lock as it found it.
// Whoever holds the lock may be a thread the system has stopped while both
// cores run others (a database server, the readers, the collector): in
// BenchmarkServerTick on PostgreSQL, while the history loaded, a website's
// query held the read lock 13 ms, and the main thread waited 6.5 ms of it.
func (l *serviceLock) lockWithin(wait time.Duration) bool {
	l.writers.Add(1)
	l.prepare()
	var timer *time.Timer
	deadline := func() <-chan time.Time {
		if timer == nil {
			timer = time.NewTimer(wait)
		}
		return timer.C
	}
	defer func() {
		if timer != nil {
			timer.Stop()
		}
	}()
	select {
	case l.sem <- struct{}{}:
	default: // another writer has it
		select {
		case l.sem <- struct{}{}:
		case <-deadline():
			l.unwant()
			return false
		}
	}
	if l.inside.Or(writing) != 0 && !l.awaitReaders(deadline()) {
		l.inside.And(^writing)
		<-l.sem
		l.unwant()
		return false
	}
	return true
}

// awaitReaders shuts the readers' door and returns once no reader is
// inside, or false when deadline (nil: none) comes first. The caller
// holds the writers' token.
func (l *serviceLock) awaitReaders(deadline <-chan time.Time) bool {
	l.inside.Or(writing)
	for l.inside.Load() != writing {
		select {
		case <-l.drained:
		case <-deadline:
			return false
		}
	}
	return true
}

// Unlock lets the write lock go; the last writer opens the gate.
func (l *serviceLock) Unlock() {
	if l.holding() {
		return
	}
	l.inside.And(^writing)
	<-l.sem
	l.unwant()
}

// unwant ends a writer's want of the lock; the last writer opens the gate.
func (l *serviceLock) unwant() {
	if l.writers.Add(-1) == 0 {
		l.open()
	}
}

// RLock takes the read lock once no writer wants or holds it: it goes in
// while the door is open, or waits at the gate.
func (l *serviceLock) RLock() {
	if l.holding() {
		return
	}
	for {
		if n := l.inside.Load(); n&writing == 0 && l.writers.Load() == 0 {
			if l.inside.CompareAndSwap(n, n+1) {
				return
			}
			continue // another reader came or went
		}
		l.await()
	}
}

// RUnlock lets the read lock go and, when a writer waits, the processor
// too: the writer woken by the last reader runs next on it.
func (l *serviceLock) RUnlock() {
	if l.holding() {
		return
	}
	l.leave()
	if l.writers.Load() > 0 {
		runtime.Gosched()
	}
}

// leave counts a reader out; the last one out tells a writer that waits.
func (l *serviceLock) leave() {
	if l.inside.Add(-1) == writing {
		l.prepare()
		select {
		case l.drained <- struct{}{}:
		default: // told already
		}
	}
}

// wanted reports whether a writer waits for the lock.
func (l *serviceLock) wanted() bool { return l.writers.Load() > 0 }

// await returns once no writer wanted the lock at some moment since it was
// called. The writers' count is read under gateMu, and the last writer
// decrements it before it takes gateMu to open the gate, so a reader
// either sees no writer or waits at a gate that last writer closes.
func (l *serviceLock) await() {
	l.gateMu.Lock()
	if l.writers.Load() == 0 {
		l.gateMu.Unlock()
		// A writer came between the reader's look and this one, and
		// is gone: let the processor go rather than spin on it.
		runtime.Gosched()
		return
	}
	if l.gate == nil {
		l.gate = make(chan struct{})
	}
	gate := l.gate
	l.atGate.Add(1)
	l.gateMu.Unlock()
	<-gate
	l.atGate.Add(-1)
}

// passWait bounds how long pass waits for the readers at the gate to run.
const passWait = 5 * time.Millisecond

// pass lets the write lock go, waits for the writer that wanted it (the
// main thread) to have had it and for the readers that waited at the gate
// to go in, and takes it again: how a writer working in the background
// gives way between two stretches. One that took the lock straight back
// found those it released not yet run, and kept them out for its whole
// run: the history load of a million transactions starved the website for
// seconds and made main-thread reads wait up to 63 ms. Waiting only for
// the readers, it still took the lock back from the main thread, which
// the lock had woken but the scheduler not yet run: a tick waited 19 ms
// through eighty stretches of the load.
func (l *serviceLock) pass() {
	l.Unlock()
	for deadline := time.Now().Add(passWait); (l.wanted() || l.atGate.Load() > 0) && time.Now().Before(deadline); {
		time.Sleep(20 * time.Microsecond)
	}
	l.Lock()
}

// writerWaits reports, to the holder of the write lock, whether another
// writer waits for it: a background writer's cue to pass.
func (l *serviceLock) writerWaits() bool { return l.writers.Load() > 1 }

// open lets the readers at the gate go.
func (l *serviceLock) open() {
	l.gateMu.Lock()
	if l.gate != nil && l.writers.Load() == 0 {
		close(l.gate)
		l.gate = nil
	}
	l.gateMu.Unlock()
}

// Hold runs f holding the market's lock throughout, so that the main
// thread's changes in f (a tick's changes: the bots', the players')
// wait for the readers once, not each several times (serviceLock.hold).
// Readers wait for the whole of f. Main thread only, like a mutation:
// from another goroutine it runs nothing and returns ErrNotMainThread. f
// must not wait for another goroutine that uses the market; inside a
// Hold, Hold just runs f.
//
// The main thread waits for the lock at most HoldWait: when whoever holds
// it keeps it longer (a thread the system stopped, holding it), Hold runs
// nothing and reports false, and the tick puts its changes off to the
// next, which the tick's figures count (TickWork.PutOff).
func (s *Service) Hold(f func()) (held bool, err error) {
	if !s.onMain() {
		return false, ErrNotMainThread
	}
	if s.mu.holding() {
		f()
		return true, nil
	}
	if !s.mu.hold(HoldWait) {
		s.ticks.putOff.Store(true)
		return false, nil
	}
	defer s.mu.release()
	f()
	return true, nil
}

// HoldWait is how long Hold waits for the market's lock. A tick's wait is
// a tenth of a millisecond at the median and a quarter at the 99th
// percentile under a website's load (BenchmarkServerTick); one over a
// millisecond is a lock holder that is not running.
const HoldWait = time.Millisecond

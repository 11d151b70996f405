package market

import (
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// TestAQueuedReaderHoldsNothing: a reader that waited behind a writer
// takes the read lock when it runs, not when the writer lets go. With one
// processor the woken reader cannot run before the writer yields, so a
// writer that takes the lock again at once gets it; a sync.RWMutex would
// have handed the read lock to the queued reader, and the second write
// would wait for it (the serve loop's ticks of 2-5 ms).
func TestAQueuedReaderHoldsNothing(t *testing.T) {
	order := writeTwiceAroundAReader(t, func(l *serviceLock) {
		l.Unlock()
		l.Lock() // no yield in between: the reader has not run
	})
	if len(order) != 2 || order[0] != "write again" {
		t.Fatalf("order %q, want the second write before the read", order)
	}
}

// TestPassLetsTheQueuedReadersIn: a writer in the background that gives
// way between two stretches (pass) lets the readers that waited for it in
// before it goes on; one that took the lock straight back starved them.
func TestPassLetsTheQueuedReadersIn(t *testing.T) {
	order := writeTwiceAroundAReader(t, (*serviceLock).pass)
	if len(order) != 2 || order[0] != "read" {
		t.Fatalf("order %q, want the read before the second write", order)
	}
}

// TestPassLetsAWaitingWriterIn: the history load passing between two
// stretches lets the main thread, which waits for the write lock, have it
// before the load goes on. Taking it back at once, while the woken writer
// had not yet run, held a tick 19 ms through eighty stretches.
func TestPassLetsAWaitingWriterIn(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
	var l serviceLock
	var got entries
	l.Lock()
	if l.writerWaits() {
		t.Fatal("writerWaits with no other writer")
	}
	wrote := make(chan struct{})
	go func() {
		l.Lock()
		got.note("main thread")
		l.Unlock()
		close(wrote)
	}()
	for i := 0; i < 1000 && !l.writerWaits(); i++ {
		runtime.Gosched()
	}
	if !l.writerWaits() {
		t.Fatal("the other writer never waited")
	}
	l.pass()
	got.note("load again")
	l.Unlock()
	<-wrote
	if order := got.order(); len(order) != 2 || order[0] != "main thread" {
		t.Fatalf("order %q, want the waiting writer before the load's next stretch", order)
	}
}

// writeTwiceAroundAReader takes the write lock, starts a reader that
// waits for it, runs between (with the lock held, on one processor: the
// reader runs only when the writer yields) and then writes again; it
// returns the order in which the reader and the second write got in.
func writeTwiceAroundAReader(t *testing.T, between func(*serviceLock)) []string {
	t.Helper()
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
	var l serviceLock
	var got entries
	l.Lock()
	read := make(chan struct{})
	go func() {
		l.RLock()
		got.note("read")
		l.RUnlock()
		close(read)
	}()
	// Until the reader waits (at the gate: a writer holds the lock).
	for i := 0; i < 100 && l.atGate.Load() == 0; i++ {
		runtime.Gosched()
	}
	between(&l)
	got.note("write again")
	l.Unlock()
	<-read
	return got.order()
}

// entries notes, from several goroutines, who got into the lock in what
// order.
type entries struct {
	mu  sync.Mutex
	got []string
}

func (e *entries) note(who string) {
	e.mu.Lock()
	e.got = append(e.got, who)
	e.mu.Unlock()
}

func (e *entries) order() []string {
	e.mu.Lock()
	defer e.mu.Unlock()
	return slices.Clone(e.got)
}

// TestTheLockExcludes: under many readers and writers, a writer is always
// alone and readers overlap only one another; every reader gets in.
func TestTheLockExcludes(t *testing.T) {
	var l serviceLock
	var readers, writers atomic.Int32
	var reads atomic.Int64
	var wg sync.WaitGroup
	fail := func(format string, args ...any) { t.Errorf(format, args...) }
	for w := 0; w < 3; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < 2000; i++ {
				// One writer gives up when the lock is not had within
				// a few microseconds, and asks again.
				for w == 0 && !l.lockWithin(20*time.Microsecond) {
				}
				if w != 0 {
					l.Lock()
				}
				if n := writers.Add(1); n != 1 {
					fail("%d writers at once", n)
				}
				if n := readers.Load(); n != 0 {
					fail("a writer with %d readers", n)
				}
				writers.Add(-1)
				l.Unlock()
			}
		}()
	}
	for r := 0; r < 8; r++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < 2000; i++ {
				l.RLock()
				readers.Add(1)
				if n := writers.Load(); n != 0 {
					fail("a reader with %d writers", n)
				}
				if i%7 == 0 {
					runtime.Gosched()
				}
				readers.Add(-1)
				reads.Add(1)
				l.RUnlock()
			}
		}()
	}
	wg.Wait()
	if got := reads.Load(); got != 8*2000 {
		t.Fatalf("%d reads, want %d", got, 8*2000)
	}
	if l.writers.Load() != 0 || l.gate != nil {
		t.Fatalf("after all: %d writers, gate %v", l.writers.Load(), l.gate)
	}
}

// TestAHoldIsOneLock: a thread holding the lock through a stretch (hold)
// takes it again, for writing and reading, without waiting on itself, and
// no reader gets in until the stretch ends.
func TestAHoldIsOneLock(t *testing.T) {
	var l serviceLock
	var inside atomic.Bool
	saw := make(chan bool, 1)
	done := make(chan struct{})
	go func() {
		defer close(done)
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
		if !l.hold(time.Second) {
			t.Error("the lock, free, was not held within a second")
			saw <- false
			return
		}
		inside.Store(true)
		go func() {
			l.RLock()
			saw <- inside.Load()
			l.RUnlock()
		}()
		for range 3 {
			l.Lock()
			l.RLock()
			l.RUnlock()
			l.Unlock()
		}
		time.Sleep(20 * time.Millisecond) // the reader tries meanwhile
		inside.Store(false)
		l.release()
	}()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("the holder waited on itself")
	}
	if <-saw {
		t.Error("a reader got in during the hold")
	}
	if l.writers.Load() != 0 || l.holder.Load() != 0 {
		t.Fatalf("after the hold: %d writers, holder %d", l.writers.Load(), l.holder.Load())
	}
}

// TestALockGivenUpIsLeftAsItWas: a writer that gives up on the lock, a
// reader or another writer inside past its wait, leaves no trace: it wants
// the lock no more, new readers go in beside the reader inside, and it has
// the lock once the one inside leaves.
func TestALockGivenUpIsLeftAsItWas(t *testing.T) {
	var l serviceLock
	inside := make(chan struct{})
	leave := make(chan struct{})
	go func() {
		l.RLock()
		close(inside)
		<-leave
		l.RUnlock()
	}()
	<-inside
	start := time.Now()
	if l.lockWithin(2 * time.Millisecond) {
		t.Fatal("took the write lock with a reader inside")
	}
	if waited := time.Since(start); waited < 2*time.Millisecond {
		t.Errorf("gave up after %v, want 2ms", waited)
	}
	if l.wanted() {
		t.Fatal("still wants the lock after giving up")
	}
	l.RLock() // at once, beside the reader inside
	l.RUnlock()
	close(leave)
	if !l.lockWithin(time.Second) {
		t.Fatal("did not take the lock once the reader left")
	}
	// Another writer inside: given up on too.
	gaveUp := make(chan bool)
	go func() { gaveUp <- !l.lockWithin(2 * time.Millisecond) }()
	if !<-gaveUp {
		t.Fatal("took the write lock another writer holds")
	}
	if got := l.writers.Load(); got != 1 {
		t.Fatalf("%d writers after one gave up, want the one inside", got)
	}
	l.Unlock()
	if l.wanted() || !l.lockWithin(time.Second) {
		t.Fatal("the lock was not left free")
	}
	l.Unlock()
}

package market

import (
	"runtime"
	"sync"
	"sync/atomic"
)

// serviceLock is the service's read-write lock, which knows when a writer
// waits. The main thread's write lock waits for every reader holding the
// read lock, and a reader that goes on working after it lets go keeps the
// processor the main thread was woken onto: in a trace of the serve loop
// under a website's load, the main thread waited about 1 ms a tick for
// readers (each price-range walk held it some 300 µs). A long read gives
// way only when a writer waits (readYield), so it can ask often, and a
// reader that lets the lock go while a writer waits yields its processor.
type serviceLock struct {
	sync.RWMutex
	writers atomic.Int32 // writers waiting in Lock
}

// Lock takes the write lock, counted as waiting while readers hold it.
func (l *serviceLock) Lock() {
	if l.TryLock() {
		return
	}
	l.writers.Add(1)
	l.RWMutex.Lock()
	l.writers.Add(-1)
}

// RUnlock lets the read lock go and, when a writer waits, the processor
// too: the writer woken by the last reader runs next on it.
func (l *serviceLock) RUnlock() {
	l.RWMutex.RUnlock()
	if l.writers.Load() > 0 {
		runtime.Gosched()
	}
}

// wanted reports whether a writer waits for the lock.
func (l *serviceLock) wanted() bool { return l.writers.Load() > 0 }

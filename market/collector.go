package market

import (
	"runtime"
	"runtime/debug"
	"sync"
)

// loadGrowth is the garbage collector's growth percentage (GOGC) while a
// load builds a large live heap: at the default 100% the collector would
// mark the growing heap several times over, and while the history loads
// behind a running market each collection also takes the processors the
// main thread needs (a mark termination stopped it, and it then waited
// 16 ms for a processor, in a trace of BenchmarkServerTick).
const loadGrowth = 400

// largeLoad is how many rows (listings and transactions, as the store
// counts them) make the market's load raise the collector's growth; the
// history's raises it once it reads more than a chunk. A small load would
// only pay for the collection that ends it (some 8 s over the market
// package's tests).
const largeLoad = 100_000

// collector counts the loads under way in the process, so that the
// program's setting comes back when the last one ends: loads of several
// services overlap in one process (a network's tests), and each putting
// back the value it found would leave a raised one behind for good.
var collector struct {
	sync.Mutex
	loads  int
	raised bool // the growth is loadGrowth, and was is the program's
	was    int
}

// raiseCollectorGrowth runs the collector at loadGrowth until the
// returned function is called (once). A program that collects less often
// already (GOGC above it, or off under a GOMEMLIMIT) keeps its setting.
//
// The last load to end collects before it puts the setting back, at the
// raised growth and waiting for the collection itself. Put back at once,
// the setting finds the heap past its goal (the load's garbage), and the
// collection that starts then makes every goroutine that allocates help
// it, or wait for it: the main thread's ticks right after the history
// loaded took 12-29 ms with 50 µs of their own CPU.
func raiseCollectorGrowth() (lower func()) {
	collector.Lock()
	if collector.loads == 0 && !collector.raised {
		if was := debug.SetGCPercent(loadGrowth); was >= 0 && was < loadGrowth {
			collector.was, collector.raised = was, true
		} else {
			debug.SetGCPercent(was)
		}
	}
	collector.loads++
	collector.Unlock()
	var once sync.Once
	return func() {
		once.Do(func() {
			collector.Lock()
			collector.loads--
			last := collector.loads == 0 && collector.raised
			collector.Unlock()
			if !last {
				return
			}
			runtime.GC() // not under the mutex: a load may start meanwhile
			collector.Lock()
			if collector.loads == 0 && collector.raised {
				debug.SetGCPercent(collector.was)
				collector.raised = false
			}
			collector.Unlock()
		})
	}
}

package compare_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime/trace"
	"sync"
	"testing"
	"time"
)

// slowTickTrace is how long a tick takes before the flight recorder keeps
// the execution trace of the seconds before it: the target's maximum.
const slowTickTrace = 5 * time.Millisecond

// flight keeps the Go execution trace of the last seconds while
// BenchmarkServerTick runs with RYNEK_TICK_TRACE set to a directory, and
// writes it there when a tick takes slowTickTrace or longer: what the main
// goroutine waited on in a slow tick (a processor, a lock, the collector)
// is in the trace, where no counter of the benchmark's can say it. Each
// tick leaves a "tick" log entry on the main goroutine with its wall time,
// so that the slow one is found in `go tool trace`.
type flight struct {
	b       *testing.B
	dir     string
	rec     *trace.FlightRecorder
	writing sync.WaitGroup
	// written and last (the newest snapshot's time) are the main
	// goroutine's, which alone observes ticks.
	written int
	last    time.Time
}

// flightTraces is how many snapshots one run writes at most.
const flightTraces = 6

// startFlight starts the recorder when RYNEK_TICK_TRACE asks for it, and
// returns nil otherwise.
func startFlight(b *testing.B) *flight {
	dir := os.Getenv("RYNEK_TICK_TRACE")
	if dir == "" {
		return nil
	}
	f := &flight{b: b, dir: dir, rec: trace.NewFlightRecorder(trace.FlightRecorderConfig{MinAge: 2 * time.Second, MaxBytes: 96 << 20})}
	if err := f.rec.Start(); err != nil {
		b.Fatalf("start the flight recorder: %v", err)
	}
	b.Cleanup(func() {
		f.writing.Wait() // its log lines belong to the benchmark
		f.rec.Stop()
	})
	return f
}

// observe records a tick that took wall, and keeps the trace when it is slow.
func (f *flight) observe(wall time.Duration) {
	if f == nil {
		return
	}
	trace.Log(context.Background(), "tick", wall.String())
	now := time.Now()
	if wall < slowTickTrace || now.Sub(f.last) < 2*time.Second || f.written >= flightTraces {
		return
	}
	f.last = now
	f.written++
	n := f.written
	f.writing.Add(1)
	go func() {
		defer f.writing.Done()
		time.Sleep(100 * time.Millisecond) // what followed the tick, too
		path := filepath.Join(f.dir, fmt.Sprintf("tick-%s-%d-%s.trace", filepath.Base(f.b.Name()), n, wall.Round(time.Microsecond)))
		out, err := os.Create(path)
		if err == nil {
			_, err = f.rec.WriteTo(out)
			if cerr := out.Close(); err == nil {
				err = cerr
			}
		}
		if err != nil {
			f.b.Logf("the trace of a %s tick: %v", wall, err)
			return
		}
		f.b.Logf("the trace of a %s tick: %s", wall, path)
	}()
}

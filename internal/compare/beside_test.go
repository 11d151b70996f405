package compare_test

// BenchmarkServerTick/sqlite-beside: the measured server shares its market
// file with a second instance of the market (docs/architecture.md, "Several
// instances on one market file"), as a console or a second `rynek serve`
// beside it would: its own service on a thread of its own, opened with
// sqlite.Open on the same path, running the serve loop with the traffic bots
// of its own. The measured server's follower applies that instance's changes
// on its main thread; the run checks that they really arrived.

import (
	"context"
	"runtime"
	"runtime/pprof"
	"testing"
	"time"

	"github.com/rynek/rynek/internal/benchdata"
	"github.com/rynek/rynek/internal/headless"
	"github.com/rynek/rynek/market"
	"github.com/rynek/rynek/market/sqlite"
)

// The two instances' names: the origins of their log entries.
const besideInstance = "beside"

// besideSettle bounds how long, after the run, each instance may take to
// apply the other's last changes.
const besideSettle = 10 * time.Second

// beside is the second instance: its service lives on its own locked OS
// thread, which runs the serve loop while the measured run lasts.
type beside struct {
	run     chan context.Context // the measured run's context: start the loop
	flushed chan struct{}        // its commits are all in
	settle  chan uint64          // the log's end once both flushed: follow to it
	done    chan besideResult
	quit    chan struct{} // closed by the benchmark's cleanup: stop wherever it is
	exited  chan struct{} // closed when the thread has closed its service
}

// besideResult is what the second instance did and how it ended.
type besideResult struct {
	sum     headless.Summary
	version uint64
	audit   market.Audit
	err     error
}

// openTickBeside opens a copy of the data set as the measured instance
// ("tick", bound to the calling goroutine), and a second instance on the
// same file on a thread of its own, both ready.
func openTickBeside(b *testing.B) (*market.Service, market.Store, *beside) {
	path := benchdata.Path(b, tickListingsWanted(b), loadDays)
	svc, st := benchdata.Open(b, path, sqlite.Options{Instance: tickInstance, Command: "serve"}, tickConfig())
	b.Cleanup(func() { svc.Close() })
	o := &beside{run: make(chan context.Context), flushed: make(chan struct{}, 1), settle: make(chan uint64, 1), done: make(chan besideResult, 1),
		quit: make(chan struct{}), exited: make(chan struct{})}
	ready := make(chan error, 1)
	go o.serve(path, ready)
	start := time.Now()
	if err := <-ready; err != nil {
		b.Fatalf("open the second instance: %v", err)
	}
	b.Logf("opened the second instance on the same file to ready in %s", time.Since(start).Round(time.Millisecond))
	b.Cleanup(func() { // before the measured service's: registered after it
		close(o.quit)
		<-o.exited
	})
	return svc, st, o
}

// serve is the second instance's thread: open, wait for the run, run the
// serve loop with its bots until the run ends, then flush, follow to the
// log's end and audit.
func (o *beside) serve(path string, ready chan<- error) {
	defer close(o.exited)
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	st, err := sqlite.Open(path, sqlite.Options{Instance: besideInstance, Command: "serve"})
	if err != nil {
		ready <- err
		return
	}
	svc := market.New(st, tickConfig())
	defer svc.Close()
	if err := svc.BindMainThread(); err != nil {
		st.Close()
		ready <- err
		return
	}
	if err := svc.Enable(); err != nil {
		st.Close()
		ready <- err
		return
	}
	ready <- nil
	var ctx context.Context
	select {
	case ctx = <-o.run:
	case <-o.quit:
		return
	}
	// Its loop's samples in a CPU profile carry instance=beside beside
	// headless.Run's loop=main: -tagignore instance=beside leaves the
	// measured server's main thread alone.
	ctx = pprof.WithLabels(ctx, pprof.Labels("instance", besideInstance))
	var r besideResult
	// Another seed than the measured server's bots: other choices, the
	// same players, so that the two meet in conflicts as two servers do.
	r.sum, r.err = headless.Run(ctx, svc, headless.Options{BotsRate: tickBots, Seed: 2})
	svc.Flush()
	o.flushed <- struct{}{}
	var end uint64
	select {
	case end = <-o.settle:
	case <-o.quit:
		return
	}
	r.version = followTo(svc, end)
	r.audit, err = svc.Audit()
	if r.err == nil {
		r.err = err
	}
	o.done <- r
}

// start begins the second instance's loop for the measured run.
func (o *beside) start(ctx context.Context) { o.run <- ctx }

// followTo applies the other instance's changes on svc's main thread until
// its version reaches end, or besideSettle passes; it returns the version.
func followTo(svc *market.Service, end uint64) uint64 {
	deadline := time.Now().Add(besideSettle)
	for svc.Version() < end && time.Now().Before(deadline) {
		svc.Follow()
		time.Sleep(time.Millisecond)
	}
	return svc.Version()
}

// finish ends the second instance after the measured loop (on the measured
// service's main thread): both flush, both follow to the log's end, and
// the run fails unless the second instance's commits reached the measured
// server, both audits are sound, and both hold the same money and items.
func (o *beside) finish(b *testing.B, svc *market.Service, st market.Store, from uint64) {
	if refused := svc.Flush(); len(refused) > 0 {
		b.Logf("the measured server's last commits: %d refused, the first: %v", len(refused), refused[0].Err)
	}
	<-o.flushed
	end, theirs := from, 0
	for after := from; ; {
		n, err := st.ReadEvents(after, 10_000, func(e market.EventRow) error {
			after, end = e.Seq, e.Seq
			if e.Origin == besideInstance {
				theirs++
			}
			return nil
		})
		if err != nil {
			b.Fatalf("read the log after %d: %v", after, err)
		}
		if n == 0 {
			break
		}
	}
	o.settle <- end
	mine := followTo(svc, end)
	r := <-o.done
	if r.err != nil {
		b.Fatalf("the second instance: %v", r.err)
	}
	b.ReportMetric(float64(r.sum.Bots.OK), "beside-mutations")
	b.ReportMetric(float64(r.sum.Bots.Refused), "beside-refused")
	b.ReportMetric(float64(theirs), "beside-entries")
	b.Logf("the second instance: %s; %d log entries of its own in the run, the log's end %d; versions at the end: measured %d, second %d",
		r.sum, theirs, end, mine, r.version)
	if theirs == 0 {
		b.Fatal("the second instance committed nothing in the run")
	}
	if mine < end || r.version < end {
		b.Fatalf("%s after the run the measured server is at version %d and the second instance at %d, the log ends at %d", besideSettle, mine, r.version, end)
	}
	a, err := svc.Audit()
	if err != nil {
		b.Fatal(err)
	}
	for _, x := range []struct {
		name string
		a    market.Audit
	}{{"the measured server", a}, {"the second instance", r.audit}} {
		if len(x.a.Problems) > 0 {
			b.Errorf("%s's audit: %d problems, the first: %s", x.name, len(x.a.Problems), x.a.Problems[0])
		}
	}
	if a.Money != r.audit.Money || a.Items != r.audit.Items || a.Listings != r.audit.Listings {
		b.Errorf("the two instances disagree at version %d: money %d and %d, items %d and %d, listings %d and %d",
			end, a.Money, r.audit.Money, a.Items, r.audit.Items, a.Listings, r.audit.Listings)
	}
}

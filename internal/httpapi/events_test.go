package httpapi

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/rynek/rynek/internal/traffic"
	"github.com/rynek/rynek/internal/wire"
	"github.com/rynek/rynek/market"
	"github.com/rynek/rynek/seed"
)

// recorder collects the events the service publishes, as the truth the
// stream is compared with.
type recorder struct {
	mu     sync.Mutex
	events []market.Event
}

func record(svc *market.Service) *recorder {
	r := &recorder{}
	svc.Subscribe(func(e market.Event) {
		r.mu.Lock()
		r.events = append(r.events, e)
		r.mu.Unlock()
	})
	return r
}

func (r *recorder) all() []market.Event {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]market.Event(nil), r.events...)
}

// checkFrame compares a stream event with a published one: id, type and
// the data as the wire form.
func checkFrame(t *testing.T, got sseEvent, want market.Event) {
	t.Helper()
	data, _ := json.Marshal(wire.NewEvent(want))
	if got.id != strconv.FormatUint(want.Seq(), 10) || got.event != want.EventName() || got.data != string(data) {
		t.Fatalf("stream sent id %s %s %s\nwant id %d %s %s", got.id, got.event, got.data, want.Seq(), want.EventName(), data)
	}
}

func TestStreamDeliversInOrderAndResumes(t *testing.T) {
	e := newEnv(t, seed.Options{Listings: 300}, Options{})
	rec := record(e.svc)
	players, _ := e.svc.Players()
	gen := traffic.New(5)
	s := e.stream("/api/events")
	traffic.New(5).Step(e.svc, players, 200, time.Second)
	got := rec.all()
	if len(got) < 50 {
		t.Fatalf("only %d events", len(got))
	}
	for _, want := range got {
		checkFrame(t, s.next(t), want)
	}
	// Reconnect as EventSource does, from the last id it saw; meanwhile
	// the market went on.
	s.res.Body.Close()
	last := got[len(got)/2].Seq()
	gen.Step(e.svc, players, 100, time.Second)
	all := rec.all()
	r := e.stream("/api/events", fmt.Sprintf("Last-Event-ID: %d", last))
	for _, want := range all {
		if want.Seq() > last {
			checkFrame(t, r.next(t), want)
		}
	}
	// Last-Event-ID wins over ?since (a page's own reconnect carries both).
	r2 := e.stream(fmt.Sprintf("/api/events?since=%d", all[0].Seq()), fmt.Sprintf("Last-Event-ID: %d", all[len(all)-2].Seq()))
	checkFrame(t, r2.next(t), all[len(all)-1])
}

// TestStreamResumesAcrossRestart: a client that saw up to some version
// resumes after the server process restarted, from the durable log.
func TestStreamResumesAcrossRestart(t *testing.T) {
	e := newEnv(t, seed.Options{Listings: 200}, Options{})
	rec := record(e.svc)
	players, _ := e.svc.Players()
	traffic.New(9).Step(e.svc, players, 300, time.Second)
	before := rec.all()
	since := before[len(before)/3].Seq()
	e.restart()
	s := e.stream(fmt.Sprintf("/api/events?since=%d", since))
	for _, want := range before {
		if want.Seq() > since {
			checkFrame(t, s.next(t), want)
		}
	}
	// And it goes on live after the catch-up.
	rec2 := record(e.svc)
	players, _ = e.svc.Players()
	traffic.New(10).Step(e.svc, players, 50, time.Second)
	for _, want := range rec2.all() {
		checkFrame(t, s.next(t), want)
	}
}

// TestStreamTimerExpirySendsNothing: listings removed by the expiry timer
// publish no event, so the stream's next event is the next sale.
func TestStreamTimerExpirySendsNothing(t *testing.T) {
	e := newEnv(t, seed.Options{Listings: 100, Auctions: -1, Orders: -1}, Options{})
	s := e.stream("/api/events")
	e.clock.Advance(8 * 24 * time.Hour) // past every seeded listing's expiry
	e.sweep()
	if c, _ := e.svc.GetActiveListingsCount(); c != 0 {
		t.Fatalf("%d listings left after the sweep", c)
	}
	swept := e.svc.Version()
	rec := record(e.svc)
	players, _ := e.svc.Players()
	gen := traffic.New(2)
	for len(rec.all()) == 0 {
		gen.One(e.svc, players)
	}
	ev := s.next(t)
	checkFrame(t, ev, rec.all()[0])
	if id, _ := strconv.ParseUint(ev.id, 10, 64); id <= swept {
		t.Fatalf("first event %d is not after the sweep's entries (through %d)", id, swept)
	}
}

func TestStreamResetWhenTooOld(t *testing.T) {
	e := newEnv(t, seed.Options{Listings: 200}, Options{}, func(c *market.Config) {
		c.EventRetention = market.EventRetention{MaxCount: 10, MaxAge: -1}
	})
	players, _ := e.svc.Players()
	traffic.New(3).Step(e.svc, players, 200, time.Second)
	for {
		n, err := e.svc.TrimEventLog()
		if err != nil {
			t.Fatal(err)
		}
		if n == 0 {
			break
		}
	}
	// A new process: the hub's memory holds nothing older than its start,
	// so the old seq must come from the log, which no longer has it.
	e.restart()
	s := e.stream("/api/events?since=1")
	ev := s.next(t)
	var r Reset
	if ev.event != "reset" || ev.id != "" || json.Unmarshal([]byte(ev.data), &r) != nil || r.Reason != ResetTrimmed || r.Version != e.svc.Version() {
		t.Fatalf("got %+v", ev)
	}
	if !s.ended(t) {
		t.Fatal("the stream stayed open after the reset")
	}
	ahead := e.stream(fmt.Sprintf("/api/events?since=%d", e.svc.Version()+100))
	if ev := ahead.next(t); ev.event != "reset" || !json.Valid([]byte(ev.data)) {
		t.Fatalf("ahead: %+v", ev)
	}
}

func TestStreamHeartbeat(t *testing.T) {
	e := newEnv(t, seed.Options{Listings: 10}, Options{Heartbeat: 20 * time.Millisecond})
	s := e.stream("/api/events")
	deadline := time.After(5 * time.Second)
	for {
		select {
		case ev := <-s.events:
			if ev.comment == "ping" {
				return
			}
		case <-deadline:
			t.Fatal("no heartbeat")
		}
	}
}

// blockingWriter is a client that stops reading: its writes wait until
// released.
type blockingWriter struct {
	header  http.Header
	mu      sync.Mutex
	written []byte
	gate    chan struct{}
	blocked chan struct{}
	once    sync.Once
}

func (w *blockingWriter) Header() http.Header { return w.header }
func (w *blockingWriter) WriteHeader(int)     {}
func (w *blockingWriter) Flush()              {}
func (w *blockingWriter) Write(b []byte) (int, error) {
	w.mu.Lock()
	blocking := len(w.written) > 0 && string(b[:min(3, len(b))]) == "id:"
	w.mu.Unlock()
	if blocking {
		w.once.Do(func() { close(w.blocked) })
		<-w.gate
	}
	w.mu.Lock()
	w.written = append(w.written, b...)
	w.mu.Unlock()
	return len(b), nil
}

// TestSlowClientIsDropped: a client that falls further behind than its
// buffer gets a reset and is disconnected; the market never waits for it.
func TestSlowClientIsDropped(t *testing.T) {
	e := newEnv(t, seed.Options{Listings: 300}, Options{StreamLag: 64})
	players, _ := e.svc.Players()
	w := &blockingWriter{header: http.Header{}, gate: make(chan struct{}), blocked: make(chan struct{})}
	done := make(chan struct{})
	go func() {
		defer close(done)
		e.api.ServeHTTP(w, httptest.NewRequest("GET", "/api/events", nil))
	}()
	gen := traffic.New(4)
	for e.api.hub.streams() == 0 {
		time.Sleep(time.Millisecond)
	}
	// The first event blocks the client; then the market moves on by far
	// more than the client's buffer, without waiting.
	for {
		gen.One(e.svc, players)
		select {
		case <-w.blocked:
		case <-done:
			t.Fatalf("the stream ended before its client fell behind: %s", tail(w.written))
		default:
			continue
		}
		break
	}
	// The market goes on while the client is stuck: these mutations
	// return with the client's write still blocked.
	gen.Step(e.svc, players, 400, time.Second)
	for hubThrough(e.api.hub) < e.svc.Version() {
		time.Sleep(time.Millisecond)
	}
	close(w.gate)
	<-done
	w.mu.Lock()
	defer w.mu.Unlock()
	if !bytes.Contains(w.written, []byte("event: reset\ndata: {\"reason\":\"slow\"")) {
		t.Fatalf("the slow client got no reset: ...%s", tail(w.written))
	}
}

func hubThrough(h *hub) uint64 {
	h.mu.RLock()
	defer h.mu.RUnlock()
	return h.through
}

func tail(b []byte) string { return string(b[max(0, len(b)-300):]) }

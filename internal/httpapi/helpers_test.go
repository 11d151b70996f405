package httpapi

import (
	"bufio"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/rynek/rynek/market"
	"github.com/rynek/rynek/market/sqlite"
	"github.com/rynek/rynek/seed"
)

// fixedNow is the clock of every test market.
var fixedNow = time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC)

// env is a seeded market with its API on a test server. The test's
// goroutine is the market's main thread: mutations happen there, while
// the server's goroutines read.
type env struct {
	t     *testing.T
	path  string
	svc   *market.Service
	clock *market.ManualClock
	api   *Server
	srv   *httptest.Server
	opts  Options
	cfg   market.Config
	// wrap, when set, stands between the service and its store (a store
	// that fails on demand).
	wrap func(market.Store) market.Store
}

func newEnv(t *testing.T, so seed.Options, opts Options, cfgs ...func(*market.Config)) *env {
	t.Helper()
	return newWrappedEnv(t, so, opts, nil, cfgs...)
}

// newWrappedEnv is newEnv with wrap between the service and its store.
func newWrappedEnv(t *testing.T, so seed.Options, opts Options, wrap func(market.Store) market.Store, cfgs ...func(*market.Config)) *env {
	t.Helper()
	if so.Now.IsZero() {
		so.Now = fixedNow
	}
	// The market's clock is the seed's now: fixedNow, unless a test needs
	// the real time (a browser counts down to expiries by its own clock).
	e := &env{t: t, path: filepath.Join(t.TempDir(), "m.db"), clock: market.NewManualClock(so.Now), opts: opts, wrap: wrap}
	st, err := sqlite.Open(e.path, sqlite.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if so.Players == 0 {
		so.Players = 20
	}
	if so.Days == 0 {
		so.Days = 3
	}
	if _, err := seed.Load(st, so); err != nil {
		st.Close()
		t.Fatal(err)
	}
	st.Close()
	e.cfg = market.Config{Clock: e.clock, ListingCooldown: -1}
	for _, f := range cfgs {
		f(&e.cfg)
	}
	e.start()
	t.Cleanup(e.stop)
	return e
}

// start opens the market file and serves it.
func (e *env) start() {
	e.t.Helper()
	var st market.Store
	st, err := sqlite.Open(e.path, sqlite.Options{})
	if err != nil {
		e.t.Fatal(err)
	}
	if e.wrap != nil {
		st = e.wrap(st)
	}
	e.svc = market.New(st, e.cfg)
	if err := e.svc.BindMainThread(); err != nil {
		e.t.Fatal(err)
	}
	if err := e.svc.Enable(); err != nil {
		e.t.Fatal(err)
	}
	if err := e.svc.WaitHistory(); err != nil {
		e.t.Fatal(err)
	}
	e.api = New(e.svc, e.opts)
	// Served as Start serves it: the same limits, the same listener.
	e.srv = httptest.NewUnstartedServer(e.api)
	e.srv.Listener = problemListener{e.srv.Listener}
	hs := HTTPServer("", e.api)
	e.srv.Config.ReadHeaderTimeout, e.srv.Config.IdleTimeout, e.srv.Config.MaxHeaderBytes = hs.ReadHeaderTimeout, hs.IdleTimeout, hs.MaxHeaderBytes
	e.srv.Start()
}

// stop closes the server and the market, as a process exit would.
func (e *env) stop() {
	if e.srv == nil {
		return
	}
	e.api.Close()
	e.srv.Close()
	e.svc.Close()
	e.srv = nil
}

// restart stops everything and opens the same file again: a new process.
func (e *env) restart() {
	e.t.Helper()
	e.stop()
	e.svc.ReleaseMainThread()
	e.start()
}

type answer struct {
	status int
	header http.Header
	body   []byte
}

func (a answer) problem(t *testing.T) Problem {
	t.Helper()
	if ct := a.header.Get("Content-Type"); ct != "application/problem+json" {
		t.Fatalf("status %d, content type %q, body %s", a.status, ct, a.body)
	}
	var p Problem
	if err := json.Unmarshal(a.body, &p); err != nil {
		t.Fatal(err)
	}
	return p
}

// sweep runs the expiry timer until nothing more is due, as a server's
// ticks do: a call takes a batch sized to a fraction of a tick.
func (e *env) sweep() {
	e.t.Helper()
	for {
		n, more, err := e.svc.SweepExpired()
		if err != nil {
			e.t.Fatal(err)
		}
		if !more && n == 0 {
			return
		}
	}
}

// get requests path with headers given as "Name: value".
func (e *env) get(path string, headers ...string) answer {
	e.t.Helper()
	return e.do("GET", path, headers...)
}

func (e *env) do(method, path string, headers ...string) answer {
	e.t.Helper()
	req, err := http.NewRequest(method, e.srv.URL+path, nil)
	if err != nil {
		e.t.Fatal(err)
	}
	for _, h := range headers {
		k, v, _ := strings.Cut(h, ": ")
		req.Header.Set(k, v)
	}
	res, err := e.srv.Client().Do(req)
	if err != nil {
		e.t.Fatal(err)
	}
	defer res.Body.Close()
	body, err := io.ReadAll(res.Body)
	if err != nil {
		e.t.Fatal(err)
	}
	return answer{status: res.StatusCode, header: res.Header, body: body}
}

// getJSON requests path, expects 200 and decodes the body into v.
func (e *env) getJSON(path string, v any) answer {
	e.t.Helper()
	a := e.get(path)
	if a.status != 200 {
		e.t.Fatalf("GET %s: %d %s", path, a.status, a.body)
	}
	if err := json.Unmarshal(a.body, v); err != nil {
		e.t.Fatalf("GET %s: %v", path, err)
	}
	return a
}

// sseEvent is one event (or comment) read from a stream.
type sseEvent struct {
	id, event, data string
	comment         string
}

// stream is an open event stream read by a goroutine into a channel.
type stream struct {
	res    *http.Response
	events chan sseEvent
}

func (e *env) stream(path string, headers ...string) *stream {
	e.t.Helper()
	req, err := http.NewRequest("GET", e.srv.URL+path, nil)
	if err != nil {
		e.t.Fatal(err)
	}
	for _, h := range headers {
		k, v, _ := strings.Cut(h, ": ")
		req.Header.Set(k, v)
	}
	res, err := e.srv.Client().Do(req)
	if err != nil {
		e.t.Fatal(err)
	}
	if res.StatusCode != 200 {
		body, _ := io.ReadAll(res.Body)
		res.Body.Close()
		e.t.Fatalf("GET %s: %d %s", path, res.StatusCode, body)
	}
	s := &stream{res: res, events: make(chan sseEvent, 1<<16)}
	go func() {
		defer close(s.events)
		r := bufio.NewReader(res.Body)
		var ev sseEvent
		for {
			line, err := r.ReadString('\n')
			if err != nil {
				return
			}
			line = strings.TrimSuffix(line, "\n")
			switch {
			case line == "":
				if ev != (sseEvent{}) {
					s.events <- ev
				}
				ev = sseEvent{}
			case strings.HasPrefix(line, ":"):
				ev.comment = strings.TrimSpace(line[1:])
			default:
				k, v, _ := strings.Cut(line, ": ")
				switch k {
				case "id":
					ev.id = v
				case "event":
					ev.event = v
				case "data":
					ev.data = v
				}
			}
		}
	}()
	e.t.Cleanup(func() { res.Body.Close() })
	return s
}

// next returns the stream's next event that is not a comment or the retry
// advice, failing after a timeout.
func (s *stream) next(t *testing.T) sseEvent {
	t.Helper()
	timeout := time.After(10 * time.Second)
	for {
		select {
		case ev, ok := <-s.events:
			if !ok {
				t.Fatal("the stream ended")
			}
			if ev.comment != "" || ev.event == "" {
				continue
			}
			return ev
		case <-timeout:
			t.Fatal("no event within 10 s")
		}
	}
}

// ended reports whether the stream ends (the server closed it) in time.
func (s *stream) ended(t *testing.T) bool {
	t.Helper()
	timeout := time.After(10 * time.Second)
	for {
		select {
		case _, ok := <-s.events:
			if !ok {
				return true
			}
		case <-timeout:
			return false
		}
	}
}

// buyerOfOne is a listing of the market and a player who may buy it (not
// its seller).
func (e *env) buyerOfOne() (market.Player, int) {
	e.t.Helper()
	players, err := e.svc.Players()
	if err != nil {
		e.t.Fatal(err)
	}
	page, err := e.svc.Query(market.Query{Limit: 1})
	if err != nil {
		e.t.Fatal(err)
	}
	buyer := players[0]
	if buyer.ID == page.Listings[0].Seller {
		buyer = players[1]
	}
	return buyer, page.Listings[0].ID
}

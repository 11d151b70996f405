package httpapi

import (
	"bufio"
	"errors"
	"io"
	"net"
	"net/http"
	"runtime"
	"testing"
	"time"

	"github.com/rynek/rynek/seed"
)

// openStream opens an event stream on a connection of its own and returns
// the connection (nil) once its headers are read, or the refusal.
func openStream(t *testing.T, e *env) (net.Conn, *http.Response) {
	t.Helper()
	c, err := net.Dial("tcp", e.srv.Listener.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.WriteString(c, "GET /api/events HTTP/1.1\r\nHost: rynek.test\r\n\r\n"); err != nil {
		t.Fatal(err)
	}
	res, err := http.ReadResponse(bufio.NewReader(c), nil)
	if err != nil {
		t.Fatal(err)
	}
	if res.StatusCode == http.StatusOK {
		return c, nil
	}
	defer c.Close()
	body, _ := io.ReadAll(res.Body)
	a := answer{status: res.StatusCode, header: res.Header, body: body}
	a.problem(t) // a problem, or it fails
	return nil, res
}

// TestStreamCaps: one client may hold MaxStreamsPerClient streams (the
// default, 16, when the rate limit is on) and the server MaxStreams; one
// more is 429 too-many-streams with Retry-After, and a closed stream
// frees its place.
func TestStreamCaps(t *testing.T) {
	refused := func(t *testing.T, e *env, detail string) {
		t.Helper()
		c, res := openStream(t, e)
		if c != nil {
			c.Close()
			t.Fatalf("a stream past the cap was served (%d open)", e.api.hub.streams())
		}
		a := e.get("/api/events") // the same refusal, read as a problem
		p := a.problem(t)
		if res.StatusCode != 429 || a.status != 429 || p.Code != CodeTooManyStreams || p.Detail != detail || a.header.Get("Retry-After") != "10" {
			t.Fatalf("%d %+v, Retry-After %q; want 429 %s %q", a.status, p, a.header.Get("Retry-After"), CodeTooManyStreams, detail)
		}
	}

	perClient := newEnv(t, seed.Options{Listings: 5}, Options{RatePerSecond: DefaultRate})
	var conns []net.Conn
	for range DefaultMaxStreamsPerClient {
		c, res := openStream(t, perClient)
		if c == nil {
			t.Fatalf("stream %d refused: %d", len(conns)+1, res.StatusCode)
		}
		conns = append(conns, c)
	}
	refused(t, perClient, "this client has 16 event streams open, the most one client may; close one, or retry after the time in Retry-After")
	conns[0].Close()
	waitFor(t, "a closed stream to leave", func() bool { return perClient.api.hub.streams() == DefaultMaxStreamsPerClient-1 })
	if c, res := openStream(t, perClient); c == nil {
		t.Fatalf("a stream in the freed place was refused: %d", res.StatusCode)
	} else {
		conns[0] = c
	}
	for _, c := range conns {
		c.Close()
	}

	total := newEnv(t, seed.Options{Listings: 5}, Options{MaxStreams: 3})
	for range 3 {
		c, res := openStream(t, total)
		if c == nil {
			t.Fatalf("stream refused: %d", res.StatusCode)
		}
		defer c.Close()
	}
	refused(t, total, "the server has 3 event streams open, the most it serves; retry after the time in Retry-After")
	var h Health
	total.getJSON("/api/health", &h)
	if h.Streams != 3 {
		t.Errorf("health counts %d streams, want 3", h.Streams)
	}
}

// TestStreamsGiveBackWhatTheyTook: 300 streams opened and closed leave no
// stream counted, no client, no goroutine behind, and their memory is
// handed back to the system once they have gone.
func TestStreamsGiveBackWhatTheyTook(t *testing.T) {
	e := newEnv(t, seed.Options{Listings: 5}, Options{})
	runtime.GC()
	before := runtime.NumGoroutine()
	const n = 300
	conns := make([]net.Conn, 0, n)
	for range n {
		c, res := openStream(t, e)
		if c == nil {
			t.Fatalf("stream %d refused: %d", len(conns)+1, res.StatusCode)
		}
		conns = append(conns, c)
	}
	count := e.api.hub.open
	if count.total() != n || count.clients() != 1 {
		t.Fatalf("%d streams of %d clients open, want %d of 1", count.total(), count.clients(), n)
	}
	if during := runtime.NumGoroutine(); during < before+n {
		t.Fatalf("%d goroutines with %d streams open, %d before", during, n, before)
	}
	for _, c := range conns {
		c.Close()
	}
	waitFor(t, "the streams to leave", func() bool { return count.total() == 0 && count.clients() == 0 })
	waitFor(t, "their goroutines to end", func() bool { return runtime.NumGoroutine() <= before+2 })
	waitFor(t, "their memory to be given back", func() bool {
		count.mu.Lock()
		defer count.mu.Unlock()
		return !count.freed.IsZero() && !count.freeing && count.peak == 0
	})
}

// waitFor polls ok for up to 10 s.
func waitFor(t *testing.T, what string, ok func() bool) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); !ok(); time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("waited 10 s for %s", what)
		}
	}
}

// TestStreamCapOfOne: a cap of one stream says so in the singular.
func TestStreamCapOfOne(t *testing.T) {
	for _, c := range []struct {
		max, perClient int
		detail         string
	}{
		{1, 0, "the server has 1 event stream open, the most it serves; retry after the time in Retry-After"},
		{5, 1, "this client has 1 event stream open, the most one client may; close one, or retry after the time in Retry-After"},
	} {
		count := newStreamCount(c.max, c.perClient)
		if err := count.enter("10.0.0.1"); err != nil {
			t.Fatalf("the first stream under %d/%d: %v", c.max, c.perClient, err)
		}
		var p *problemError
		if err := count.enter("10.0.0.1"); !errors.As(err, &p) || p.detail != c.detail {
			t.Errorf("a second stream under %d/%d: %v, want the detail %q", c.max, c.perClient, err, c.detail)
		}
	}
}

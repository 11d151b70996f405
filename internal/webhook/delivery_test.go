package webhook_test

import (
	"fmt"
	"net/http"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/rynek/rynek/internal/webhook"
	"github.com/rynek/rynek/market"
)

// TestDeliveryGivesEveryEventInOrder: a receiver gets every contract event
// that happens after the endpoint starts, in seq order, each once, and the
// status shows the position at the log's head with no lag.
func TestDeliveryGivesEveryEventInOrder(t *testing.T) {
	m := newMarket(t)
	m.change(3) // before: not delivered
	start := m.svc.Version()
	rc := newReceiver(t, nil)
	var report reportLines
	box := webhook.Start(m.svc, []webhook.Endpoint{rc.endpoint("site")}, fast(&report))
	defer box.Close()
	m.change(40)
	want := seqsOf(m.events(start))
	waitFor(t, "every event", func() bool { return len(rc.seqs()) >= len(want) })
	if got := rc.seqs(); !slices.Equal(got, want) {
		t.Fatalf("the receiver got %v, want %v", got, want)
	}
	if got := rc.lines(); len(got) != len(want) {
		t.Fatalf("%d events taken for %d: a delivery was repeated without a failure", len(got), len(want))
	}
	waitFor(t, "the position at the head", func() bool { return statusOf(t, box, "site").Delivered == m.svc.Version() })
	st := statusOf(t, box, "site")
	if st.Lag != 0 || st.Head != m.svc.Version() || st.LastError != "" || st.Failing || st.Paused {
		t.Fatalf("status after delivering everything: %+v", st)
	}
}

// TestDeliveryRetriesAServerError: 5xx answers and a receiver that does
// not answer in time are tried again, with a wait, until taken; nothing
// is lost or reordered, and the trouble is said once and its end too.
func TestDeliveryRetriesAServerError(t *testing.T) {
	for _, tc := range []struct {
		name   string
		answer func(n int, w http.ResponseWriter, r *http.Request) bool
		says   string
	}{
		{"503 twice", func(n int, w http.ResponseWriter, r *http.Request) bool {
			if n <= 2 {
				http.Error(w, "down for maintenance", http.StatusServiceUnavailable)
				return false
			}
			return true
		}, "webhook site: HTTP 503 Service Unavailable: down for maintenance; trying again in "},
		{"slow once", func(n int, w http.ResponseWriter, r *http.Request) bool {
			if n == 1 {
				time.Sleep(400 * time.Millisecond)
			}
			return true
		}, "webhook site: no answer within 200ms; trying again in "},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := newMarket(t)
			start := m.svc.Version()
			rc := newReceiver(t, tc.answer)
			var report reportLines
			o := fast(&report)
			o.Timeout = 200 * time.Millisecond
			o.Client = nil
			box := webhook.Start(m.svc, []webhook.Endpoint{rc.endpoint("site")}, o)
			defer box.Close()
			m.change(10)
			want := seqsOf(m.events(start))
			waitFor(t, "every event", func() bool { return len(rc.seqs()) >= len(want) })
			rc.checkInOrder()
			if got := rc.seqs(); !slices.Equal(got, want) {
				t.Fatalf("the receiver got %v, want %v", got, want)
			}
			lines := report.all()
			if len(lines) != 2 || !strings.HasPrefix(lines[0], tc.says) || !strings.HasPrefix(lines[1], "webhook site: delivering again after ") {
				t.Fatalf("report %q; want %q… and the recovery", lines, tc.says)
			}
			if st := statusOf(t, box, "site"); st.LastError != "" || !st.NextRetry.IsZero() {
				t.Fatalf("after the recovery: %+v", st)
			}
		})
	}
}

// TestDeliveryRefusedMarksFailing: a receiver that refuses (400) is tried
// a few times, then the endpoint is failing and waits; a reload tries it
// again, and Resume delivers again from the refused event, nothing
// skipped.
func TestDeliveryRefusedMarksFailing(t *testing.T) {
	m := newMarket(t)
	start := m.svc.Version()
	var refuse atomic.Bool
	refuse.Store(true)
	rc := newReceiver(t, func(n int, w http.ResponseWriter, r *http.Request) bool {
		if refuse.Load() {
			http.Error(w, `{"message": "Invalid Form Body"}`, http.StatusBadRequest)
			return false
		}
		return true
	})
	var report reportLines
	box := webhook.Start(m.svc, []webhook.Endpoint{rc.endpoint("site")}, fast(&report))
	defer box.Close()
	m.change(5)
	waitFor(t, "the endpoint failing", func() bool { return statusOf(t, box, "site").Failing })
	st := statusOf(t, box, "site")
	want := `HTTP 400 Bad Request: {"message": "Invalid Form Body"}, 3 times in a row: delivery waits for Resume`
	if st.LastError != want || st.Delivered != start {
		t.Fatalf("failing: %+v; want LastError %q at %d", st, want, start)
	}
	if lines := report.all(); !slices.Contains(lines, "webhook site: failing: "+want) {
		t.Fatalf("report %q", lines)
	}
	time.Sleep(200 * time.Millisecond)
	rc.mu.Lock()
	tries := rc.requests
	rc.mu.Unlock()
	if tries != 3 {
		t.Fatalf("%d requests to a failing endpoint, want the 3 before it failed", tries)
	}
	// A reload of the same configuration tries it again: once more
	// refused three times, it is failing again.
	box.Update([]webhook.Endpoint{rc.endpoint("site")})
	waitFor(t, "three more refusals", func() bool {
		rc.mu.Lock()
		defer rc.mu.Unlock()
		return rc.requests == 6
	})
	waitFor(t, "the endpoint failing again", func() bool { return statusOf(t, box, "site").Failing })
	refuse.Store(false)
	must(t, box.Resume("site"))
	wantSeqs := seqsOf(m.events(start))
	waitFor(t, "every event after Resume", func() bool { return len(rc.seqs()) >= len(wantSeqs) })
	if got := rc.seqs(); !slices.Equal(got, wantSeqs) {
		t.Fatalf("after Resume the receiver got %v, want %v", got, wantSeqs)
	}
	if st := statusOf(t, box, "site"); st.Failing || st.LastError != "" {
		t.Fatalf("after Resume: %+v", st)
	}
}

// TestDeliveryHonoursTheReceiversWait: a 429's wait (through Options.Wait)
// is what delivery waits, not its own backoff.
func TestDeliveryHonoursTheReceiversWait(t *testing.T) {
	m := newMarket(t)
	var at []time.Time
	var mu = make(chan struct{}, 1)
	mu <- struct{}{}
	rc := newReceiver(t, func(n int, w http.ResponseWriter, r *http.Request) bool {
		<-mu
		at = append(at, time.Now())
		mu <- struct{}{}
		if n == 1 {
			w.Header().Set("Retry-After", "0.3")
			w.WriteHeader(http.StatusTooManyRequests)
			return false
		}
		return true
	})
	var report reportLines
	o := fast(&report)
	o.Wait = webhook.Wait
	box := webhook.Start(m.svc, []webhook.Endpoint{rc.endpoint("site")}, o)
	defer box.Close()
	m.change(1)
	waitFor(t, "the events", func() bool { return len(rc.seqs()) > 0 })
	<-mu
	gap := at[1].Sub(at[0])
	mu <- struct{}{}
	if gap < 300*time.Millisecond || gap > 600*time.Millisecond {
		t.Fatalf("tried again %s after a 429 asking for 0.3 s", gap)
	}
	if lines := report.all(); len(lines) == 0 || lines[0] != "webhook site: HTTP 429 Too Many Requests; trying again in 300ms" {
		t.Fatalf("report %q", lines)
	}
}

// TestDeliveryFiltersEventsAndPrice: an endpoint gets only the events it
// names, and of those that carry a price only the ones at its least price.
func TestDeliveryFiltersEventsAndPrice(t *testing.T) {
	m := newMarket(t)
	start := m.svc.Version()
	rc := newReceiver(t, nil)
	ep := rc.endpoint("sales")
	ep.Events, ep.MinPrice = []string{"TransactionCompletedEvent"}, 500_00
	var report reportLines
	box := webhook.Start(m.svc, []webhook.Endpoint{ep}, fast(&report))
	defer box.Close()
	m.change(1200)
	var want []uint64
	for _, e := range m.events(start) {
		if tc, ok := e.(market.TransactionCompletedEvent); ok && tc.Transaction().Price >= 500 {
			want = append(want, e.Seq())
		}
	}
	if len(want) < 100 {
		t.Fatalf("only %d sales at 500 or more: the test makes too few", len(want))
	}
	waitFor(t, "the position at the head", func() bool { return statusOf(t, box, "sales").Delivered == m.svc.Version() })
	if got := rc.seqs(); !slices.Equal(got, want) {
		t.Fatalf("the receiver got %d events, want the %d sales at 500 or more", len(got), len(want))
	}
	for _, l := range rc.lines() {
		if l.Event != "TransactionCompletedEvent" {
			t.Fatalf("the receiver got a %s", l.Event)
		}
	}
}

// TestDeliveryResumesFromTheStoredPosition: after the market closes and
// opens again, delivery goes on from the position stored in the market:
// every event once, none skipped.
func TestDeliveryResumesFromTheStoredPosition(t *testing.T) {
	m := newMarket(t)
	start := m.svc.Version()
	rc := newReceiver(t, nil)
	var report reportLines
	box := webhook.Start(m.svc, []webhook.Endpoint{rc.endpoint("site")}, fast(&report))
	m.change(10)
	waitFor(t, "the position at the head", func() bool { return statusOf(t, box, "site").Delivered == m.svc.Version() })
	box.Close()
	// The position is the market's, under the endpoint's bookmark, its
	// lease given up.
	b, err := m.svc.HoldBookmark("webhook:site", 0, 0, time.Second)
	if err != nil || !b.Held || b.Seq != m.svc.Version() {
		t.Fatalf("the bookmark webhook:site after the close: %+v, %v; want it free and at %d", b, err, m.svc.Version())
	}
	must(t, m.svc.ReleaseBookmark("webhook:site"))
	m.change(10) // while no delivery runs
	must(t, m.svc.Close())
	m.open("")
	m.change(10)
	box = webhook.Start(m.svc, []webhook.Endpoint{rc.endpoint("site")}, fast(&report))
	defer box.Close()
	want := seqsOf(m.events(start))
	waitFor(t, "every event", func() bool { return len(rc.lines()) >= len(want) })
	if got := seqsOf2(rc.lines()); !slices.Equal(got, want) {
		t.Fatalf("the receiver got %v, want each of %v once", got, want)
	}
}

func seqsOf2(lines []line) []uint64 {
	out := make([]uint64, len(lines))
	for i, l := range lines {
		out[i] = l.Seq
	}
	return out
}

// TestPauseResumeAndSendTest: a paused endpoint gets nothing until
// Resume, then everything; a test event goes to it also while paused,
// with seq 0, and moves nothing; Control refuses an unknown name.
func TestPauseResumeAndSendTest(t *testing.T) {
	m := newMarket(t)
	start := m.svc.Version()
	rc := newReceiver(t, nil)
	other := newReceiver(t, nil)
	var report reportLines
	box := webhook.Start(m.svc, []webhook.Endpoint{rc.endpoint("site"), other.endpoint("other")}, fast(&report))
	defer box.Close()
	must(t, box.Pause("site"))
	m.change(5)
	waitFor(t, "the other endpoint", func() bool { return statusOf(t, box, "other").Delivered == m.svc.Version() })
	if got := rc.lines(); len(got) != 0 || !statusOf(t, box, "site").Paused {
		t.Fatalf("a paused endpoint got %v", got)
	}
	if st := statusOf(t, box, "site"); st.Head != m.svc.Version() || st.Lag < len(m.events(start)) {
		t.Fatalf("a paused endpoint's status %+v: want the log's head %d and a lag of at least its %d events", st, m.svc.Version(), len(m.events(start)))
	}
	must(t, box.SendTest("site"))
	waitFor(t, "the test event", func() bool { return statusOf(t, box, "site").Test != "" })
	if got := rc.lines(); len(got) != 1 || got[0].Seq != 0 || got[0].Event != "TransactionCompletedEvent" {
		t.Fatalf("the test event: %v; want one TransactionCompletedEvent with seq 0", got)
	}
	if st := statusOf(t, box, "site"); st.Test != "taken (HTTP 204)" || st.Delivered != start {
		t.Fatalf("after the test: %+v; want it taken and the position at %d", st, start)
	}
	if n := len(other.lines()); n != len(m.events(start)) {
		t.Fatalf("the other endpoint got %d events and the test", n)
	}
	must(t, box.Resume("site"))
	want := append([]uint64{0}, seqsOf(m.events(start))...)
	waitFor(t, "the events after Resume", func() bool { return len(rc.lines()) >= len(want) })
	if got := seqsOf2(rc.lines()); !slices.Equal(got, want) {
		t.Fatalf("after Resume: %v, want %v", got, want)
	}
	for _, err := range []error{box.Pause("nope"), box.Resume("nope"), box.SendTest("nope")} {
		if err == nil || err.Error() != `no webhook named "nope" (configured: site, other)` {
			t.Fatalf("an unknown name: %v", err)
		}
	}
}

// TestUpdateAddsRemovesAndRestartsEndpoints: a reloaded configuration
// starts an added endpoint, stops a removed one, and restarts a changed
// one from its stored position, still paused.
func TestUpdateAddsRemovesAndRestartsEndpoints(t *testing.T) {
	m := newMarket(t)
	start := m.svc.Version()
	a, b := newReceiver(t, nil), newReceiver(t, nil)
	var report reportLines
	box := webhook.Start(m.svc, []webhook.Endpoint{a.endpoint("a")}, fast(&report))
	defer box.Close()
	m.change(3)
	waitFor(t, "a at the head", func() bool { return statusOf(t, box, "a").Delivered == m.svc.Version() })
	must(t, box.Pause("a"))
	moved := a.endpoint("a")
	moved.URL = b.srv.URL + "/moved"
	box.Update([]webhook.Endpoint{moved, b.endpoint("b")})
	m.change(3)
	waitFor(t, "b at the head", func() bool { return statusOf(t, box, "b").Delivered == m.svc.Version() })
	st := statusOf(t, box, "a")
	if !st.Paused || st.Delivered != seqsOf(m.events(start))[len(a.lines())-1] || !strings.HasSuffix(st.URL, "/moved") {
		t.Fatalf("a, changed while paused: %+v", st)
	}
	box.Update([]webhook.Endpoint{b.endpoint("b")})
	if names := len(box.Status()); names != 1 {
		t.Fatalf("%d endpoints after removing a", names)
	}
	if err := box.Pause("a"); err == nil || err.Error() != `no webhook named "a" (configured: b)` {
		t.Fatalf("a removed: %v", err)
	}
}

// TestSecretsAreNeverShown: neither the secret nor a URL's token, user or
// query appears in a status, an error or a report line, whatever fails.
func TestSecretsAreNeverShown(t *testing.T) {
	m := newMarket(t)
	rc := newReceiver(t, func(n int, w http.ResponseWriter, r *http.Request) bool {
		http.Error(w, "nope", http.StatusInternalServerError)
		return false
	})
	gone := newReceiver(t, nil)
	gone.srv.Close() // connection refused
	secret := "whsec_dG9wLXNlY3JldC1rZXk="
	hooks := []webhook.Endpoint{
		{Name: "down", URL: strings.Replace(rc.srv.URL, "http://", "http://user:pa55word@", 1) + "/api/webhooks/123/t0ken-value?key=qu3ry", Format: webhook.Standard, Secret: secret},
		{Name: "gone", URL: gone.srv.URL + "/api/webhooks/123/t0ken-value?key=qu3ry", Format: webhook.Standard, Secret: secret},
		{Name: "bad", URL: rc.srv.URL + "/api/webhooks/123/t0ken-value", Format: webhook.Standard, Secret: "whsec_not base64 " + secret},
	}
	var report reportLines
	o := fast(&report)
	o.Encoder = nil // the real one: a bad secret is refused by it
	box := webhook.Start(m.svc, hooks, o)
	defer box.Close()
	m.change(2)
	must(t, box.SendTest("down"))
	waitFor(t, "every endpoint's trouble", func() bool {
		for _, st := range box.Status() {
			if st.LastError == "" {
				return false
			}
		}
		return statusOf(t, box, "down").Test != ""
	})
	var shown []string
	for _, st := range box.Status() {
		shown = append(shown, st.URL, st.LastError, st.Test)
	}
	shown = append(shown, report.all()...)
	for _, s := range shown {
		for _, secretPart := range []string{"t0ken", "qu3ry", "pa55word", "dG9wLXNlY3JldC1rZXk"} {
			if strings.Contains(s, secretPart) {
				t.Fatalf("%q shows %q", s, secretPart)
			}
		}
	}
	if st := statusOf(t, box, "down"); !strings.HasSuffix(st.URL, "/api/webhooks/123/…") || !strings.HasPrefix(st.LastError, "HTTP 500") {
		t.Fatalf("down: %+v", st)
	}
	if st := statusOf(t, box, "gone"); !strings.HasPrefix(st.LastError, "the request failed: ") {
		t.Fatalf("gone: %+v", st)
	}
	if st := statusOf(t, box, "bad"); !st.Failing {
		t.Fatalf("bad: %+v", st)
	}
}

// TestDeliverySkipsWhatRetentionTrimmed: an endpoint further behind than
// the retention's cap finds its next events trimmed; it counts them in
// Skipped, says so (in LastError until the next delivery, and in the
// report), and goes on with the oldest kept, never stalling.
func TestDeliverySkipsWhatRetentionTrimmed(t *testing.T) {
	m := newMarket(t, func(c *market.Config) {
		c.EventRetention = market.EventRetention{MaxCount: 10, MaxUnread: 30}
	})
	start := m.svc.Version()
	rc := newReceiver(t, nil)
	var report reportLines
	box := webhook.Start(m.svc, []webhook.Endpoint{rc.endpoint("site")}, fast(&report))
	defer box.Close()
	waitFor(t, "the endpoint's bookmark", func() bool { return statusOf(t, box, "site").LastError == "" && statusOf(t, box, "site").Head == start })
	must(t, box.Pause("site"))
	m.change(20)
	n, err := m.svc.TrimEventLog()
	must(t, err)
	head := m.svc.Version()
	if first := m.svc.OldestKept(); n == 0 || first != head-30+1 {
		t.Fatalf("trimmed %d, the oldest kept %d; want the newest 30 of %d kept", n, first, head)
	}
	must(t, box.Resume("site"))
	waitFor(t, "the position at the head", func() bool { return statusOf(t, box, "site").Delivered == head })
	st := statusOf(t, box, "site")
	skipped := head - 30 - start
	want := fmt.Sprintf("%d log entries after %d were trimmed before delivery (the retention's cap); delivery goes on from %d", skipped, start, head-30)
	if st.Skipped != skipped {
		t.Fatalf("status %+v; want %d skipped", st, skipped)
	}
	if lines := report.all(); !slices.Contains(lines, "webhook site: "+want) {
		t.Fatalf("report %q", lines)
	}
	if got, kept := rc.seqs(), seqsOf(m.events(head-30)); !slices.Equal(got, kept) {
		t.Fatalf("after the skip the receiver got %v, want the kept %v", got, kept)
	}
}

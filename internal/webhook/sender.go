package webhook

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"
	"time"
	"unicode"

	"github.com/rynek/rynek/market"
)

// pageSize is how many events a sender reads from the log at a time: what
// it holds in memory however far behind it is.
const pageSize = 256

// gather is the least time between two reads of the log, as the event
// stream's hub has it: a burst is read in a few pages, not an event a read.
const gather = 20 * time.Millisecond

// storeEvery bounds how often a sender stores a position that moved past
// events its filter leaves out (each accepted delivery is stored at once):
// after a crash it reads those again and leaves them out again.
const storeEvery = time.Second

// answerLimit bounds how much of a receiver's answer is read.
const answerLimit = 64 << 10

// sender delivers one endpoint: its goroutine runs run.
type sender struct {
	svc    *market.Service
	o      Options
	ep     Endpoint
	enc    Encoder
	encErr error
	// start is the log's head when the endpoint started: where its
	// bookmark starts when it has none yet.
	start uint64

	wake      chan struct{} // the log moved (the main thread's listener)
	ctl       chan struct{} // Pause, Resume or SendTest
	stop      chan struct{}
	done      chan struct{}
	closeOnce sync.Once
	ctx       context.Context // cancelled by close: abandons a request
	cancel    context.CancelFunc

	mu    sync.Mutex
	st    Status
	tests int  // test events asked for and not sent yet
	kick  bool // Resume: end a wait at once

	// The goroutine's own.
	pos      uint64    // every event up to here is delivered or left out
	stored   time.Time // when the position was last stored
	held     bool      // this server holds the endpoint's bookmark
	heldAt   time.Time // when the lease was last renewed
	failures int       // failed tries in a row (the backoff)
	refused  int       // refusals in a row (4xx other than 408, 429)
}

func newSender(svc *market.Service, o Options, ep Endpoint, paused bool) *sender {
	s := &sender{svc: svc, o: o, ep: ep, start: svc.Version(), wake: make(chan struct{}, 1), ctl: make(chan struct{}, 1),
		stop: make(chan struct{}), done: make(chan struct{})}
	s.ctx, s.cancel = context.WithCancel(context.Background())
	s.st = Status{Name: ep.Name, URL: o.Redact(ep.URL), Format: ep.Format, Paused: paused}
	s.enc, s.encErr = o.Encoder(ep)
	return s
}

// halt tells the sender to stop: a request under way is abandoned.
func (s *sender) halt() {
	s.closeOnce.Do(func() {
		close(s.stop)
		s.cancel()
	})
}

// close stops the sender and waits until it has.
func (s *sender) close() {
	s.halt()
	<-s.done
}

// finished reports whether the sender's goroutine has ended.
func (s *sender) finished() bool {
	select {
	case <-s.done:
		return true
	default:
		return false
	}
}

func (s *sender) status() Status {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.st
}

func (s *sender) update(f func(*Status)) {
	s.mu.Lock()
	f(&s.st)
	s.mu.Unlock()
}

// control changes the state for a Control method and wakes the goroutine;
// with kick, a wait under way (a retry's, the log's) ends at once.
func (s *sender) control(kick bool, f func(*Status)) {
	s.mu.Lock()
	f(&s.st)
	s.kick = s.kick || kick
	s.mu.Unlock()
	signal(s.ctl)
}

func signal(c chan struct{}) {
	select {
	case c <- struct{}{}:
	default:
	}
}

func (s *sender) stopped() bool {
	select {
	case <-s.stop:
		return true
	default:
		return false
	}
}

// interrupted reports whether delivery is to stop what it is doing: the
// outbox closes the endpoint, or it is paused or failing.
func (s *sender) interrupted() bool {
	st := s.status()
	return s.stopped() || st.Paused || st.Failing
}

// bookmark names the endpoint's bookmark in the market: its name, apart
// from any other reader's.
func (s *sender) bookmark() string { return "webhook:" + s.ep.Name }

func (s *sender) report(format string, args ...any) {
	s.o.Report("webhook " + s.ep.Name + ": " + fmt.Sprintf(format, args...))
}

func (s *sender) run() {
	defer close(s.done)
	defer func() {
		if s.held {
			s.svc.ReleaseBookmark(s.bookmark()) // another server takes over at once
		}
	}()
	if s.encErr != nil {
		s.update(func(st *Status) { st.Failing, st.LastError = true, s.encErr.Error() })
		s.report("%v", s.encErr)
	}
	for !s.stopped() {
		s.sendTests()
		if s.enc == nil {
			s.update(func(st *Status) { st.Failing, st.LastError = true, s.encErr.Error() })
		}
		if st := s.status(); st.Paused || st.Failing {
			s.keepLease() // no other server delivers it meanwhile
			s.sleep(s.o.Poll, false)
			continue
		}
		if !s.keepLease() {
			continue
		}
		if s.deliverPage() {
			read := time.Now()
			s.sleep(s.o.Poll, true)
			if wait := gather - time.Since(read); wait > 0 {
				s.sleep(wait, false)
			}
		}
	}
}

// keepLease takes or renews the endpoint's bookmark, at most every third of
// the lease, and reports whether this server holds it. While another
// server holds it, it waits a while.
func (s *sender) keepLease() bool {
	if s.held && time.Since(s.heldAt) < s.o.Lease/3 {
		return true
	}
	through := uint64(0)
	if s.held {
		// In a network the position may be ahead of what this server
		// has followed yet (another stored it): the store keeps the
		// larger of the two.
		through = min(s.pos, s.svc.Version())
	}
	b, err := s.svc.HoldBookmark(s.bookmark(), through, s.start, s.o.Lease)
	if err != nil {
		s.failures++
		s.trouble("the position cannot be stored: "+err.Error(), s.o.Retry.Wait(s.failures))
		return false
	}
	s.heldAt, s.stored = time.Now(), time.Now()
	if !b.Held {
		if s.held || s.status().LastError == "" {
			s.report("delivered by %s for now; this server takes over when it stops", b.Holder)
		}
		s.held = false
		s.update(func(st *Status) {
			st.Delivered = b.Seq
			st.LastError = fmt.Sprintf("delivered by %s; this server takes over when it stops", b.Holder)
			st.NextRetry = b.Until
		})
		s.sleep(s.o.Poll, false)
		return false
	}
	if !s.held {
		s.pos = b.Seq
		s.held = true
		s.update(func(st *Status) { st.LastError, st.NextRetry = "", time.Time{} })
	}
	s.update(func(st *Status) { st.Delivered = s.pos })
	return true
}

// advance stores the position (and renews the lease). False when the lease
// was lost: another server delivers the endpoint now.
func (s *sender) advance() bool {
	b, err := s.svc.HoldBookmark(s.bookmark(), min(s.pos, s.svc.Version()), s.start, s.o.Lease)
	if err != nil {
		// The position stays behind in the store: what follows may be
		// delivered twice, never lost. The next write catches up.
		s.update(func(st *Status) { st.LastError = "the position cannot be stored: " + err.Error() })
		return true
	}
	s.heldAt, s.stored = time.Now(), time.Now()
	if !b.Held {
		s.held = false
		s.report("lost its hold to %s, which delivers from %d", b.Holder, b.Seq)
		return false
	}
	s.update(func(st *Status) { st.Delivered = s.pos })
	return true
}

// deliverPage reads the next page of the log and delivers what the
// endpoint wants of it. It reports whether the log was read to its head.
func (s *sender) deliverPage() bool {
	if s.pos > s.svc.Version() {
		// Taken over from a server that had delivered further than
		// this one has followed the log yet: wait for the log.
		s.sleep(s.o.Poll, true)
		return false
	}
	page, err := s.svc.EventsSince(s.pos, pageSize)
	if errors.Is(err, market.ErrEventsTrimmed) {
		s.skipTrimmed()
		return false
	}
	if err != nil {
		s.trouble("the event log cannot be read: "+err.Error(), s.o.Poll)
		return false
	}
	events := slices.DeleteFunc(page.Events, func(e market.Event) bool { return !s.wanted(e) })
	behind := int(page.Head - page.Through)
	s.update(func(st *Status) { st.Head, st.Lag = page.Head, len(events)+behind })
	for len(events) > 0 {
		if s.interrupted() {
			return false
		}
		s.sendTests()
		d, n, err := s.enc.Encode(events, time.Now())
		if err == nil && (n < 1 || n > len(events)) {
			err = fmt.Errorf("the encoder carried %d of %d events", n, len(events))
		}
		if err != nil {
			msg := fmt.Sprintf("event %d cannot be encoded: %v; delivery waits for Resume", events[0].Seq(), err)
			s.update(func(st *Status) { st.Failing, st.LastError = true, msg })
			s.report("%s", msg)
			return false
		}
		if !s.post(d) {
			return false
		}
		s.pos = max(s.pos, events[n-1].Seq(), d.Through)
		events = events[n:]
		if !s.advance() {
			return false
		}
		s.update(func(st *Status) { st.Lag = len(events) + behind })
	}
	if page.Through > s.pos {
		s.pos = page.Through
		if time.Since(s.stored) >= storeEvery && !s.advance() {
			return false
		}
		s.update(func(st *Status) { st.Delivered = s.pos })
	}
	return page.Through >= page.Head
}

// skipTrimmed goes on past entries the log's retention deleted before the
// endpoint got them (its lag passed the cap), counting and saying so.
func (s *sender) skipTrimmed() {
	first := s.svc.OldestKept()
	if first <= s.pos+1 {
		s.sleep(s.o.Poll, false) // trimmed and read again meanwhile: look again
		return
	}
	from, skipped := s.pos, first-1-s.pos
	s.pos = first - 1
	msg := fmt.Sprintf("%d log entries after %d were trimmed before delivery (the retention's cap); delivery goes on from %d", skipped, from, s.pos)
	s.update(func(st *Status) { st.Skipped += skipped; st.LastError = msg })
	s.report("%s", msg)
	s.advance()
}

// wanted applies the endpoint's filter: its event names, and its least
// price to the events that carry one.
func (s *sender) wanted(e market.Event) bool {
	if len(s.ep.Events) > 0 && !slices.Contains(s.ep.Events, e.EventName()) {
		return false
	}
	if s.ep.MinPrice <= 0 {
		return true
	}
	var price float64
	switch e := e.(type) {
	case market.TransactionCompletedEvent:
		price = e.Transaction().Price
	case market.AuctionEndedEvent:
		price = e.Price()
	case market.BuyOrderFilledEvent:
		price = e.Price()
	default:
		return true
	}
	m, err := market.RoundToCents(price)
	return err == nil && m >= s.ep.MinPrice
}

// post sends d until the receiver takes it. False when delivery was
// interrupted first: closed, paused, or marked failing.
func (s *sender) post(d Delivery) bool {
	for {
		if s.interrupted() || !s.keepLease() {
			return false
		}
		status, wait, problem := s.attempt(d)
		if problem == "" {
			if s.failures > 0 {
				s.report("delivering again after %d failed tries", s.failures)
			}
			s.failures, s.refused = 0, 0
			s.update(func(st *Status) { st.LastError, st.NextRetry = "", time.Time{} })
			if wait > 0 {
				s.sleep(wait, false) // the receiver's rate limit, before the next request
			}
			return true
		}
		s.failures++
		if status >= 400 && status < 500 && status != http.StatusRequestTimeout && status != http.StatusTooManyRequests {
			s.refused++
		} else {
			s.refused = 0
		}
		if s.refused >= s.o.FailAfter {
			msg := fmt.Sprintf("%s, %d times in a row: delivery waits for Resume", problem, s.refused)
			s.refused = 0 // Resume gives it as many tries again
			s.update(func(st *Status) { st.Failing, st.LastError, st.NextRetry = true, msg, time.Time{} })
			s.report("failing: %s", msg)
			return false
		}
		if wait <= 0 {
			wait = s.o.Retry.Wait(s.failures)
		}
		s.trouble(problem, wait)
	}
}

// trouble shows a failed try and waits before the next.
func (s *sender) trouble(problem string, wait time.Duration) {
	s.update(func(st *Status) { st.LastError, st.NextRetry = problem, time.Now().Add(wait) })
	if s.failures <= 1 {
		s.report("%s; trying again in %s", problem, wait.Round(time.Millisecond))
	}
	s.sleep(wait, false)
	s.update(func(st *Status) { st.NextRetry = time.Time{} })
}

// attempt sends d once. problem is "" when the receiver took it (2xx);
// wait is the wait the receiver asked for, 0 when none.
func (s *sender) attempt(d Delivery) (status int, wait time.Duration, problem string) {
	ctx, cancel := context.WithTimeout(s.ctx, s.o.Timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, s.ep.URL, bytes.NewReader(d.Body))
	if err != nil {
		return 0, 0, "the URL cannot be used"
	}
	for k, v := range d.Header {
		req.Header[k] = v
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("User-Agent", "Rynek/"+market.ReleaseVersion+" (webhooks)")
	resp, err := s.o.Client.Do(req)
	if err != nil {
		switch {
		case s.ctx.Err() != nil:
			return 0, 0, "stopped"
		case errors.Is(err, context.DeadlineExceeded) || isTimeout(err):
			return 0, 0, fmt.Sprintf("no answer within %s", s.o.Timeout)
		}
		// A url.Error names the URL, whose path may be a token: only
		// its cause is said.
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err
		}
		return 0, 0, "the request failed: " + err.Error()
	}
	body, _ := io.ReadAll(io.LimitReader(resp.Body, answerLimit))
	io.Copy(io.Discard, io.LimitReader(resp.Body, answerLimit))
	resp.Body.Close()
	wait, _ = s.o.Wait(resp, body, time.Now())
	if resp.StatusCode >= 200 && resp.StatusCode < 300 {
		return resp.StatusCode, wait, ""
	}
	problem = fmt.Sprintf("HTTP %d %s", resp.StatusCode, http.StatusText(resp.StatusCode))
	if text := excerpt(body); text != "" {
		problem += ": " + text
	}
	return resp.StatusCode, wait, problem
}

func isTimeout(err error) bool {
	var t interface{ Timeout() bool }
	return errors.As(err, &t) && t.Timeout()
}

// excerpt is the start of a receiver's answer, on one line, for a message.
func excerpt(body []byte) string {
	text := strings.Join(strings.FieldsFunc(string(body), func(r rune) bool { return !unicode.IsPrint(r) || r == ' ' }), " ")
	if r := []rune(text); len(r) > 120 {
		text = string(r[:120]) + "…"
	}
	return text
}

// sendTests sends the test events asked for, once each.
func (s *sender) sendTests() {
	s.mu.Lock()
	n := s.tests
	s.tests = 0
	s.mu.Unlock()
	for range n {
		outcome := ""
		if s.enc == nil {
			outcome = "not sent: " + s.encErr.Error()
		} else if d, _, err := s.enc.Encode([]market.Event{market.TestEvent(time.Now())}, time.Now()); err != nil {
			outcome = "not sent: " + err.Error()
		} else if status, _, problem := s.attempt(d); problem != "" {
			outcome = "not taken: " + problem
		} else {
			outcome = fmt.Sprintf("taken (HTTP %d)", status)
		}
		s.update(func(st *Status) { st.Test = outcome })
		s.report("the test event was %s", outcome)
	}
}

// sleep waits d, sending test events asked for meanwhile. It ends early
// when the endpoint closes, pauses, fails or is resumed, and, with onLog,
// when the log moves.
func (s *sender) sleep(d time.Duration, onLog bool) {
	t := time.NewTimer(d)
	defer t.Stop()
	var wake chan struct{}
	if onLog {
		wake = s.wake
	}
	for {
		select {
		case <-s.stop:
			return
		case <-wake:
			return
		case <-t.C:
			return
		case <-s.ctl:
			s.sendTests()
			s.mu.Lock()
			kick := s.kick
			s.kick = false
			s.mu.Unlock()
			if kick {
				return
			}
		}
	}
}

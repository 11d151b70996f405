package webhook

import (
	"fmt"
	"net/http"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/rynek/rynek/market"
)

// Delivery of the events.
//
// An Outbox runs one sender goroutine per endpoint. A sender follows the
// market's durable event log the way the HTTP event stream does: a listener
// on the main thread only signals it, and it reads the log in pages
// (EventsSince) on its own goroutine, so that the market never waits for a
// receiver. It keeps the endpoint's position in the market as a bookmark
// (market.Service.HoldBookmark), written after every delivery the receiver
// accepts: after a restart or a crash it goes on from there, so every
// event is delivered at least once, in seq order, and one delivered just
// before a crash may come again with the same seq (webhook-id), by which
// the receiver dedupes. In a network of servers the bookmark's lease lets
// one server at a time deliver an endpoint; another takes over when its
// holder stops or dies.

// Options tune an Outbox; the zero value is the defaults.
type Options struct {
	// Encoder builds an endpoint's encoder (nil: NewEncoder).
	Encoder func(Endpoint) (Encoder, error)
	// Wait reads a receiver's answer into the wait it asks for before the
	// next request (nil: Wait).
	Wait func(resp *http.Response, body []byte, now time.Time) (time.Duration, bool)
	// Redact is a URL as shown (nil: Redact).
	Redact func(string) string
	// Client sends the requests (nil: one of the outbox's own).
	Client *http.Client
	// Timeout bounds one request, answer included (0: 10 s).
	Timeout time.Duration
	// Retry is the wait between tries (zero: DefaultBackoff).
	Retry Backoff
	// FailAfter is how many refusals in a row (a 4xx other than 408 and
	// 429) mark an endpoint failing (0: 3).
	FailAfter int
	// Lease is how long a server's hold on an endpoint lasts without
	// being renewed (0: 30 s): another server takes the endpoint over that
	// long after its holder died.
	Lease time.Duration
	// Poll is how often a sender reads the log without a signal, and the
	// most it waits to look again at a lease another server holds (0: 1 s).
	Poll time.Duration
	// Report is told of an endpoint's trouble, one line each time its
	// state changes (nil: nobody).
	Report func(line string)
}

func (o Options) withDefaults() Options {
	if o.Encoder == nil {
		o.Encoder = NewEncoder
	}
	if o.Wait == nil {
		o.Wait = Wait
	}
	if o.Redact == nil {
		o.Redact = Redact
	}
	if o.Timeout <= 0 {
		o.Timeout = 10 * time.Second
	}
	if o.Client == nil {
		o.Client = &http.Client{Timeout: o.Timeout}
	}
	if o.Retry.First <= 0 {
		o.Retry = DefaultBackoff
	}
	if o.FailAfter <= 0 {
		o.FailAfter = 3
	}
	if o.Lease <= 0 {
		o.Lease = 30 * time.Second
	}
	if o.Poll <= 0 {
		o.Poll = time.Second
	}
	if o.Report == nil {
		o.Report = func(string) {}
	}
	return o
}

// Outbox delivers the market's events to the configured endpoints. It is a
// Control: every method is safe from any goroutine and returns at once.
type Outbox struct {
	svc   *market.Service
	o     Options
	unsub func()

	mu      sync.Mutex
	senders []*sender // in the order of the configuration
	retired []*sender // stopped by Update, maybe still finishing
	closed  bool

	// wakes is what the main thread's listener signals: a copy replaced
	// whole when the endpoints change, so the listener takes no lock.
	wakes atomic.Pointer[[]chan struct{}]
}

// Start starts delivering to the endpoints. The endpoints were checked when
// the configuration was read; one whose encoder cannot be built (a bad
// secret) is shown failing with the reason, and the others run.
func Start(svc *market.Service, endpoints []Endpoint, o Options) *Outbox {
	b := &Outbox{svc: svc, o: o.withDefaults()}
	b.wakes.Store(&[]chan struct{}{})
	// The listener runs on the main thread: it only signals.
	b.unsub = svc.Subscribe(func(market.Event) {
		for _, w := range *b.wakes.Load() {
			select {
			case w <- struct{}{}:
			default:
			}
		}
	})
	b.Update(endpoints)
	return b
}

// Update applies a reloaded configuration: an endpoint added starts, one
// removed stops, one changed starts again from its stored position (still
// paused when it was). An unchanged one goes on, tried again at once when it
// was failing. It returns at
// once (the main thread calls it): a stopped sender finishes on its own
// goroutine, and a changed endpoint's new sender starts once the old one
// is gone, so that its receiver never gets two at a time.
func (b *Outbox) Update(endpoints []Endpoint) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.closed {
		return
	}
	old := map[string]*sender{}
	for _, s := range b.senders {
		old[s.ep.Name] = s
	}
	var next []*sender
	for _, ep := range endpoints {
		s, ok := old[ep.Name]
		delete(old, ep.Name)
		switch {
		case ok && sameEndpoint(s.ep, ep):
			// A reload is also how rynek serve's admin, who has no
			// console, says a failing receiver is fixed.
			if s.status().Failing && s.encErr == nil {
				s.control(true, func(st *Status) { st.Failing, st.NextRetry = false, time.Time{} })
			}
			next = append(next, s)
		case ok:
			s.halt()
			b.retired = append(b.retired, s)
			next = append(next, b.start(ep, s.status().Paused, s.done))
		default:
			next = append(next, b.start(ep, false, nil))
		}
	}
	for _, s := range old {
		s.halt()
		b.retired = append(b.retired, s)
	}
	b.retired = slices.DeleteFunc(b.retired, (*sender).finished)
	b.senders = next
	wakes := make([]chan struct{}, len(next))
	for i, s := range next {
		wakes[i] = s.wake
	}
	b.wakes.Store(&wakes)
}

func sameEndpoint(a, b Endpoint) bool {
	return a.Name == b.Name && a.URL == b.URL && a.Format == b.Format && a.Secret == b.Secret &&
		slices.Equal(a.Events, b.Events) && a.MinPrice == b.MinPrice
}

// start starts ep's sender once after (a channel closed when its previous
// sender is gone; nil: none) is closed.
func (b *Outbox) start(ep Endpoint, paused bool, after <-chan struct{}) *sender {
	s := newSender(b.svc, b.o, ep, paused)
	go func() {
		if after != nil {
			<-after
		}
		s.run()
	}()
	return s
}

// Close stops every endpoint: a request under way is abandoned (the
// receiver gets it again from the stored position next time) and each
// lease is given up, so that another server takes over at once.
func (b *Outbox) Close() {
	b.mu.Lock()
	if b.closed {
		b.mu.Unlock()
		return
	}
	b.closed = true
	senders := append(b.senders, b.retired...)
	b.senders, b.retired = nil, nil
	b.mu.Unlock()
	b.unsub()
	b.wakes.Store(&[]chan struct{}{})
	var wg sync.WaitGroup
	for _, s := range senders {
		wg.Go(s.close)
	}
	wg.Wait()
}

// Status is every endpoint's state, in the configuration's order.
func (b *Outbox) Status() []Status {
	b.mu.Lock()
	senders := slices.Clone(b.senders)
	b.mu.Unlock()
	head := b.svc.Version()
	out := make([]Status, len(senders))
	for i, s := range senders {
		st := s.status()
		// A paused, failing or waiting endpoint has not read the log
		// since: what came meanwhile is lag too.
		if from := max(st.Head, st.Delivered); head > from {
			st.Lag += int(head - from)
			st.Head = head
		}
		out[i] = st
	}
	return out
}

// Pause stops delivering to the named endpoint until Resume; what happens
// meanwhile is delivered then. The server keeps its hold on the endpoint,
// so no other server delivers it either.
func (b *Outbox) Pause(name string) error {
	s, err := b.find(name)
	if err != nil {
		return err
	}
	s.control(true, func(st *Status) { st.Paused = true })
	return nil
}

// Resume delivers to the named endpoint again: after a Pause, or once it
// was marked failing (the receiver refused it), at once and from the
// event it refused.
func (b *Outbox) Resume(name string) error {
	s, err := b.find(name)
	if err != nil {
		return err
	}
	s.control(true, func(st *Status) {
		st.Paused, st.Failing = false, false
		st.NextRetry = time.Time{}
	})
	return nil
}

// SendTest sends the named endpoint a test event (market.TestEvent: seq 0,
// origin "test"), once, beside its deliveries: not from the log, not
// moving its position, also while it is paused or failing. Its outcome
// shows in the endpoint's LastError and the report.
func (b *Outbox) SendTest(name string) error {
	s, err := b.find(name)
	if err != nil {
		return err
	}
	s.control(false, func(*Status) { s.tests++ })
	return nil
}

func (b *Outbox) find(name string) (*sender, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	names := make([]string, 0, len(b.senders))
	for _, s := range b.senders {
		if s.ep.Name == name {
			return s, nil
		}
		names = append(names, s.ep.Name)
	}
	if len(names) == 0 {
		return nil, fmt.Errorf("no webhook named %q: none is configured (webhooks: in rynek.yml)", name)
	}
	return nil, fmt.Errorf("no webhook named %q (configured: %s)", name, strings.Join(names, ", "))
}

var _ Control = (*Outbox)(nil)

package market

import (
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/google/uuid"
)

// The committer: commits behind the tick (Config.CommitBehind).
//
// A mutation changes memory and queues its batch (submit); the committer
// goroutine takes every batch queued, up to maxGroup, and commits them as
// one store transaction, so a tick's mutations cost one commit, on a
// network one round trip, and the main thread waits for none. Outcomes come
// back in submission order; the main thread takes them in Settle. When the
// store refuses a batch, the committer halts: every batch after it is
// refused unwritten (it was built on the refused one's memory), until the
// main thread has undone them all (resume). Design and failure cases:
// docs/commit-path.md.

// maxGroup bounds the batches of one group commit.
const maxGroup = 64

// maxInflight bounds the batches in flight, and maxWait how long the oldest
// may wait: past either, a mutation is refused at once rather than queued.
// The store is far behind or unreachable (a cut link holds a commit until
// its timeout): memory should not run ahead of it by more than a second of
// changes that may all be undone.
const (
	maxInflight = 4096
	maxWait     = time.Second
)

// pending is a submitted batch awaiting its outcome.
type pending struct {
	at      time.Time // submitted
	b       *Batch
	u       *undo
	durable func()
}

// idsReserved is a block of listing ids the committer reserved, or why it
// could not.
type idsReserved struct {
	first int64
	err   error
}

// reserveIDs asks for the next block of listing ids; the answer comes with
// the outcomes (Settle).
func (c *committer) reserveIDs() {
	c.mu.Lock()
	ask := !c.wantIDs && c.ids == nil
	c.wantIDs = c.wantIDs || ask
	c.mu.Unlock()
	if ask {
		signal(c.wake)
	}
}

// trimAnswer is what a trim of the log did: the oldest entry kept, or why
// it could not.
type trimAnswer struct {
	first uint64
	err   error
}

// trimEvents asks for a trim of the log, unless one is asked or answered
// and not taken yet.
func (c *committer) trimEvents(t EventTrim) {
	c.mu.Lock()
	ask := c.trim == nil && c.trimmed == nil
	if ask {
		c.trim = &t
	}
	c.mu.Unlock()
	if ask {
		signal(c.wake)
	}
}

// answers is what take hands the main thread.
type answers struct {
	outcomes []outcome
	ids      *idsReserved
	trimmed  *trimAnswer
}

// outcome is what the committer did with the batches queued before it: n
// of them committed, then, if err is set, the next one was refused (and
// every later one will be, until resume).
type outcome struct {
	n   int
	err error
}

type committer struct {
	store Store
	mu    sync.Mutex
	queue []*pending
	done  []outcome
	// halted: a batch was refused; later ones are refused unwritten
	// until the main thread has undone them and calls resume.
	halted bool
	// wantIDs asks for a block of listing ids; ids is the answer, for
	// the main thread (takeListingID). trim asks for a trim of the log
	// (TrimEventLog); trimmed is its answer.
	wantIDs bool
	ids     *idsReserved
	trim    *EventTrim
	trimmed *trimAnswer
	wake    chan struct{} // to the goroutine: something was queued
	ready   chan struct{} // to the main thread: outcomes wait (Committed)
	stop    chan struct{}
	wg      sync.WaitGroup

	// observers are the service's: each commit is timed for them.
	observers *observers
}

func newCommitter(store Store, o *observers) *committer {
	c := &committer{store: store, observers: o, wake: make(chan struct{}, 1), ready: make(chan struct{}, 1), stop: make(chan struct{})}
	c.wg.Add(1)
	go c.run()
	return c
}

func (c *committer) enqueue(p *pending) {
	c.mu.Lock()
	c.queue = append(c.queue, p)
	c.mu.Unlock()
	signal(c.wake)
}

// signal wakes ch's reader without waiting.
func signal(ch chan struct{}) {
	select {
	case ch <- struct{}{}:
	default:
	}
}

// take returns the outcomes since the last call, a block of listing ids if
// one was reserved meanwhile, and a trim's answer if one came.
func (c *committer) take() answers {
	c.mu.Lock()
	defer c.mu.Unlock()
	a := answers{outcomes: c.done, ids: c.ids, trimmed: c.trimmed}
	c.done, c.ids, c.trimmed = nil, nil, nil
	return a
}

// resume drops what a halt left queued (the main thread has undone it)
// and lets the committer go on.
func (c *committer) resume() {
	c.mu.Lock()
	c.queue, c.halted = nil, false
	c.mu.Unlock()
}

// close commits what is queued and stops the goroutine.
func (c *committer) close() {
	close(c.stop)
	c.wg.Wait()
}

func (c *committer) run() {
	defer c.wg.Done()
	for {
		select {
		case <-c.wake:
		case <-c.stop:
			c.drain()
			return
		}
		c.drain()
	}
}

// drain commits groups while batches are queued and the committer is not
// halted.
func (c *committer) drain() {
	for {
		c.mu.Lock()
		if c.wantIDs {
			// wantIDs stays set until the answer is: a second ask
			// meanwhile would reserve a block no one uses.
			c.mu.Unlock()
			first, err := c.store.ReserveListingIDs(idBlock)
			c.mu.Lock()
			c.ids, c.wantIDs = &idsReserved{first: first, err: err}, false
			c.mu.Unlock()
			signal(c.ready)
			continue
		}
		if t := c.trim; t != nil && !c.halted {
			c.trim = nil
			c.mu.Unlock()
			first, err := c.store.TrimEvents(*t)
			c.mu.Lock()
			c.trimmed = &trimAnswer{first: first, err: err}
			c.mu.Unlock()
			signal(c.ready)
			continue
		}
		if c.halted || len(c.queue) == 0 {
			c.mu.Unlock()
			return
		}
		group := append([]*pending(nil), c.queue[:min(len(c.queue), maxGroup)]...)
		c.mu.Unlock()
		n, err := c.commitGroup(group)
		c.mu.Lock()
		c.queue = c.queue[n:]
		if err != nil {
			c.halted = true
		}
		c.done = append(c.done, outcome{n: n, err: err})
		c.mu.Unlock()
		signal(c.ready)
	}
}

// commitGroup commits group as one store transaction and returns how many
// of its batches committed and, if not all, why the next did not. A
// conflict refuses the whole transaction, so the batches are then
// committed one by one to find the one that conflicts; any other failure
// (the store unreachable, a full disk) refuses the group from its first.
func (c *committer) commitGroup(group []*pending) (int, error) {
	if len(group) == 1 {
		if err := c.observers.commitTo(c.store, group[0].b); err != nil {
			return 0, err
		}
		return 1, nil
	}
	all := &Batch{}
	for _, p := range group {
		all.Ops = append(all.Ops, p.b.Ops...)
		all.Events = append(all.Events, p.b.Events...)
		all.Published = max(all.Published, p.b.Published)
	}
	err := c.observers.commitTo(c.store, all)
	if err == nil {
		// The store reported into the group's copies what memory settles
		// from (counters, seqs); the rows it reported through pointers
		// (players) are the batches' own already.
		o, e := 0, 0
		for _, p := range group {
			copy(p.b.Ops, all.Ops[o:o+len(p.b.Ops)])
			copy(p.b.Events, all.Events[e:e+len(p.b.Events)])
			o, e = o+len(p.b.Ops), e+len(p.b.Events)
		}
		return len(group), nil
	}
	if !errors.Is(err, ErrConflict) {
		return 0, err
	}
	for i, p := range group {
		if err := c.observers.commitTo(c.store, p.b); err != nil {
			return i, err
		}
	}
	return len(group), nil
}

// Refusal is a change the store refused after its mutation had returned
// (Config.CommitBehind): memory has undone it, and the player it was for
// is told. Player is the first player its batch wrote (uuid.Nil: none);
// What names its first log entry ("ListingCreatedEvent"); Err says why,
// with the codes of a mutation's refusal (CONFLICT, STORE).
type Refusal struct {
	Player uuid.UUID
	What   string
	Err    error
}

// Committed receives when outcomes of commits wait for Settle; nil unless
// committing behind. A main loop selects on it beside its tick.
func (s *Service) Committed() <-chan struct{} {
	if s.committer == nil {
		return nil
	}
	return s.committer.ready
}

// Settle takes the outcomes of the commits made since the last call, in
// submission order: a committed batch's log entries and events reach the
// log and the listeners, with what only follows a commit; a refused one
// is undone, and so is every batch submitted after it, newest first. It
// returns the refusals, for the caller to tell the players. It never
// waits, and it takes outcomes for outcomeBudget at most, leaving the rest,
// in order, for the next call (Committed receives again meanwhile). Main
// thread only; the console and rynek serve call it every tick and when
// Committed receives.
func (s *Service) Settle() []Refusal { return s.settle(outcomeBudget) }

// outcomeBudget is how long Settle goes on taking outcomes once it has
// taken some: a group commit of 2,000 changes (a sweep after a pause)
// took 2.6 ms to settle in one tick. A variable only so that tests spread
// a small group as much (SetOutcomeBudget).
var outcomeBudget = 500 * time.Microsecond

// settleChunk is how many batches Settle takes between two looks at the
// clock.
const settleChunk = 16

// settle is Settle for budget (0: everything that came).
func (s *Service) settle(budget time.Duration) []Refusal {
	c := s.committer
	if c == nil || !s.onMain() {
		return nil
	}
	start := time.Now()
	var refused []Refusal
	a := c.take()
	if t := a.trimmed; t != nil {
		s.trimmed(t.first, t.err) // a failure is the store's health's to say
	}
	if ids := a.ids; ids != nil {
		if ids.err != nil {
			s.storeFailed(ids.err) // the next sell asks again
		} else {
			s.storeWorked()
			s.nextBlock = ids.first
		}
	}
	s.outcomes = append(s.outcomes, a.outcomes...)
	for took := false; len(s.outcomes) > 0; took = true {
		if took && budget > 0 && time.Since(start) >= budget {
			signal(c.ready) // the rest at the next call
			break
		}
		o := &s.outcomes[0]
		if n := o.n; n > 0 {
			if budget > 0 {
				n = min(n, settleChunk)
			}
			s.settled(s.inflight[:n], s.inflight[n:])
			clear(s.inflight[:n])
			s.inflight = s.inflight[n:]
			s.waiting.Add(-int64(n))
			o.n -= n
			continue
		}
		if o.err != nil {
			refused = append(refused, s.refuseInflight(o.err)...)
		}
		s.outcomes = s.outcomes[1:]
	}
	if len(s.outcomes) == 0 {
		s.outcomes = nil
	}
	s.deliver()
	return refused
}

// refuseInflight undoes every batch in flight, newest first: the first
// was refused with err, the others were built on it. Then the committer
// may go on, and a conflict has the follower catch up.
func (s *Service) refuseInflight(err error) []Refusal {
	err = s.refusal(err)
	refused := make([]Refusal, len(s.inflight))
	s.mu.Lock()
	for i := len(s.inflight) - 1; i >= 0; i-- {
		p := s.inflight[i]
		s.undoLocked(p.u)
		s.spare.keep(p.u)
		refused[i] = refusalOf(p.b, err)
	}
	s.mu.Unlock()
	// The later ones were made on top of the refused one: refused with it,
	// for its reason (a conflict, the store failing).
	code := err.(*Error).Code
	for i := 1; i < len(refused); i++ {
		refused[i].Err = &Error{Code: code, Msg: "it was made after a change that was refused; nothing was changed, try again", Err: err}
	}
	clear(s.inflight)
	s.inflight = s.inflight[:0]
	s.waiting.Store(0)
	s.committer.resume()
	if e := err.(*Error); e.Code == CodeConflict {
		s.catchUp()
	}
	return refused
}

// refusalOf describes b, refused with err.
func refusalOf(b *Batch, err error) Refusal {
	r := Refusal{Err: err}
	for i := range b.Ops {
		if op := &b.Ops[i]; op.Player != nil {
			r.Player = op.Player.ID
			break
		}
	}
	if len(b.Events) > 0 {
		r.What = string(b.Events[0].Kind)
	}
	return r
}

// Flush waits until every change in flight has its outcome, and takes
// them (Settle). Main thread; for what must have the changes durable
// before it goes on: Close, tools, tests. It returns the refusals.
func (s *Service) Flush() []Refusal {
	c := s.committer
	if c == nil || !s.onMain() {
		return nil
	}
	refused := s.settle(0)
	for len(s.inflight) > 0 {
		// Another goroutine may have taken the signal (the console waits
		// on Committed): look again every millisecond whatever comes.
		select {
		case <-c.ready:
		case <-time.After(time.Millisecond):
		}
		refused = append(refused, s.settle(0)...)
	}
	return refused
}

// InFlight is how many changes wait for their commit: what the console's
// header, /api/health and the board say is waiting while the store is slow
// or unreachable. Any goroutine.
func (s *Service) InFlight() int { return int(s.waiting.Load()) }

// behind refuses a change while the store is too far behind: too many
// changes wait, or the oldest has waited too long.
func (s *Service) behind() error {
	if s.committer == nil || len(s.inflight) == 0 {
		return nil
	}
	var e *Error
	if n := len(s.inflight); n >= maxInflight {
		e = &Error{Code: CodeStore, Msg: "the store is too far behind to take more changes now; nothing was changed, try again",
			Err: fmt.Errorf("%d changes wait for their commit", n)}
	} else if d := time.Since(s.inflight[0].at); d >= maxWait {
		e = &Error{Code: CodeStore, Msg: "the store has not answered for a while; nothing was changed, try again",
			Err: fmt.Errorf("the oldest change has waited %s for its commit", d.Round(time.Millisecond))}
	}
	if e != nil {
		// The store fails as far as the market can tell: the store's
		// health says so, and recovery finishes what a refusal here may
		// leave half done (a purchase whose compensation is refused).
		s.storeFailed(e.Err)
		return e
	}
	return nil
}

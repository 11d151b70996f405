package market

import (
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"
)

// The store's health: whether the store takes the market's changes.
//
// A store that fails (a full disk, an I/O error, a database server that is
// away) refuses every change, and memory stays as the store has it, so the
// market goes on being read but nothing moves. The service counts such
// failures as one run, from the first write the store refuses until it has
// taken writes for StoreSettle without refusing one, so that the programs
// around it can say what is wrong once with its cause, then how often it
// went on, then that it is over, and a health check can say so meanwhile.
// (A full disk can let a commit through now and then, when SQLite reuses
// its write-ahead log; such a commit does not end the run.) A refused
// conditional write (ErrConflict: another server changed the row first) is
// not a failure of the store.
//
// A purchase that a failure cut short (its compensation could not be saved
// either) is left unfinished in the store and holds its listing: after a
// failure, RecoverInterrupted finishes it once the store takes writes again.

// StoreSettle is how long the store must take writes, refusing none, for a
// run of failures to be over.
const StoreSettle = 5 * time.Second

// StoreHealth is how the store has been taking the market's changes.
type StoreHealth struct {
	// Failing is set from a write the store refused until it has taken
	// writes for StoreSettle without refusing one.
	Failing bool
	// Cause is the store's error at the first failure of the current run
	// of failures (or of the last one, once it is over), and LastCause at
	// the newest.
	Cause, LastCause string
	// Failures counts the writes the store refused in that run; Since and
	// Last are when its first and newest failure happened (the market's
	// clock).
	Failures    int
	Since, Last time.Time
	// Over is when the last run ended: the first write the store took
	// after its last failure. Zero while failing, and when the store never
	// failed.
	Over time.Time
	// Runs counts the runs of failures since the service started: each
	// run has its own number.
	Runs int

	// Unreachable is set while the store cannot reach its database (the
	// link to it cut, its server away; see probe.go): every change is
	// refused at once, without asking the store, and a probe off the main
	// thread tries to reach it until it answers. Away is when it was
	// found so (the market's clock), Back when the probe last reached it
	// again (zero while it never did).
	Unreachable bool
	Away, Back  time.Time
	// Refused counts the changes refused at once since Away. The timers
	// (RecoverInterrupted here; the console and rynek serve skip their
	// expiry sweep and retention meanwhile) are not asked, so that it
	// counts what players and the API asked for.
	Refused int
	// InDoubt is set while a change that was in flight when the link
	// broke waits for the store to say whether it was saved; once it is
	// reached, memory and the listeners learn the outcome.
	InDoubt bool
	// Interrupted is set from a failure until RecoverInterrupted has
	// finished the purchases it may have cut short, which it does once
	// the store takes writes again: they wait meanwhile.
	Interrupted bool
	// Outages counts the times the store became unreachable since the
	// service started; ProbeCause is why it was found so, then why the
	// probe's newest try failed.
	Outages    int
	ProbeCause string
}

// storeHealth is the service's record of StoreHealth.
type storeHealth struct {
	open atomic.Bool // a run is not over: the main thread's fast path, as most commits succeed
	mu   sync.Mutex  // guards h and worked, which readers use
	h    StoreHealth // h.Failing: the run is open
	// worked is the first write the store took after the run's newest
	// failure; zero while none has been.
	worked time.Time

	// away mirrors h.Unreachable for the main thread's fast path
	// (mutGuard); reached is when the probe last reached the store (the
	// wall clock).
	away    atomic.Bool
	reached time.Time

	// The main thread's: whether a failure may have left a purchase
	// unfinished, and when RecoverInterrupted may try next.
	recoverDue  bool
	recoverNext time.Time
	recoverWait time.Duration
}

// settled closes the open run once the store has worked for StoreSettle.
// mu must be held.
func (h *storeHealth) settled(now time.Time) StoreHealth {
	if h.h.Failing && !h.worked.IsZero() && now.Sub(h.worked) >= StoreSettle {
		h.h.Failing, h.h.Over = false, h.worked
		h.open.Store(false)
	}
	return h.h
}

// StoreHealth returns how the store has been taking the market's changes.
// It is safe from any goroutine and needs no readiness.
func (s *Service) StoreHealth() StoreHealth {
	now := s.now()
	s.health.mu.Lock()
	defer s.health.mu.Unlock()
	return s.health.settled(now)
}

// storeFailed records a write the store refused (main thread). A conflict
// is not the store's failure.
func (s *Service) storeFailed(err error) {
	if errors.Is(err, ErrConflict) {
		return
	}
	now := s.now()
	cause := err.Error()
	h := &s.health
	h.mu.Lock()
	if !h.settled(now).Failing {
		// A new run; what the probe keeps (probe.go) goes on.
		h.h.Failing, h.h.Cause, h.h.Since, h.h.Runs = true, cause, now, h.h.Runs+1
		h.h.Failures, h.h.Over = 0, time.Time{}
	}
	h.h.Failures++
	h.h.LastCause, h.h.Last = cause, now
	h.worked = time.Time{}
	h.h.Interrupted = true
	unreachable := errors.Is(err, ErrUnreachable)
	if unreachable {
		h.h.InDoubt = h.h.InDoubt || errors.Is(err, ErrInDoubt)
	}
	h.mu.Unlock()
	h.open.Store(true)
	h.recoverDue = true
	if unreachable {
		s.lostStore(now, err)
	}
}

// storeWorked records a write the store took (main thread).
func (s *Service) storeWorked() {
	h := &s.health
	if !h.open.Load() {
		return
	}
	now := s.now()
	h.mu.Lock()
	if h.worked.IsZero() {
		h.worked = now
		h.recoverNext = time.Time{} // the store takes writes: recover at once
	}
	h.settled(now)
	h.mu.Unlock()
}

// recoverWaits are how long RecoverInterrupted waits between attempts that
// fail: it starts at the first and doubles up to the second. Tests shorten
// them.
var recoverWaits = [2]time.Duration{time.Second, time.Minute}

// RecoverInterrupted finishes the purchases that a store failure left
// unfinished. It is a timer's work, like SweepExpired: the console and the
// server call it every tick, and it does something only after a store
// failure, at once and then, while recovery keeps failing, at growing
// intervals (a second at first, at most a minute), until it succeeds. It
// returns how many purchases it finished (by completing or undoing them).
// Main thread only.
func (s *Service) RecoverInterrupted() (int, error) {
	if s.ready.Load() && s.onMain() && s.health.away.Load() {
		return 0, nil // nothing can be finished before the store answers
	}
	if err := s.mutGuard(); err != nil {
		return 0, err
	}
	h := &s.health
	now := time.Now() // a pace, not market time: the QA clock may jump
	if !h.recoverDue || now.Before(h.recoverNext) {
		return 0, nil
	}
	n, err := s.recover()
	defer s.noteInterrupted()
	if err != nil {
		h.recoverWait = min(max(2*h.recoverWait, recoverWaits[0]), recoverWaits[1])
		h.recoverNext = now.Add(h.recoverWait)
		return n, fmt.Errorf("finish the purchases a store failure interrupted (next try in %s): %w", h.recoverWait, err)
	}
	h.recoverDue, h.recoverWait = false, 0
	if h.open.Load() {
		// Its next failure may cut another purchase short: a look over the
		// transactions at most once a second meanwhile.
		h.recoverNext = now.Add(recoverWaits[0])
	}
	return n, nil
}

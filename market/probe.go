package market

import (
	"context"
	"errors"
	"time"
)

// The store away: a store whose database is reached over a link that can
// break (a Reacher, market/postgres) fails a commit with ErrUnreachable when
// the link is down, and with ErrInDoubt when it broke while the commit was
// in flight. From then on the service refuses every change at once
// (mutGuard), without asking the store, so that no main loop waits for a
// dead link; a probe goroutine asks the store to reach its database
// (Reacher.Reach), at first after probeWaits[0] and then at most
// probeWaits[1] apart, until it answers. Then the changes go through again,
// by themselves: no restart.
//
// A commit in doubt that the database saved after all (Landed) is not
// lost: the follower reads its rows back as it reads another instance's
// (follower.adopt), so memory and the listeners learn of it; until it has,
// a change that meets its rows is refused as a conflict, and the
// follower's catch-up brings them in.
//
// A store that is not a Reacher (SQLite) has no link to lose: its failures
// are asked about by the next change, as storeFailed describes.

// probeWaits are how long the probe waits before its first try and at most
// between two tries; the wait doubles from the first to the second. Tests
// shorten them.
var probeWaits = [2]time.Duration{100 * time.Millisecond, time.Second}

// probeTimeout bounds one try of the probe: a connection takes
// milliseconds, and a try that began while the link dropped every packet
// waits this long, so the link's return is noticed at most this and a
// probeWaits[1] later.
const probeTimeout = 2 * time.Second

// lostStore records that the store cannot reach its database (err says
// why) and starts the probe (main thread: from storeFailed, and from Follow
// when the follower's read failed so).
func (s *Service) lostStore(now time.Time, err error) {
	h := &s.health
	r, ok := s.store.(Reacher)
	if !ok || h.away.Load() {
		return
	}
	h.mu.Lock()
	h.h.Unreachable, h.h.Away, h.h.ProbeCause, h.h.Refused = true, now, err.Error(), 0
	h.h.Outages++
	h.mu.Unlock()
	h.away.Store(true)
	go s.probe(r, s.follow)
}

// probe tries to reach the store until it answers (or is closed), then
// hands what landed to the follower and lets the changes through again.
func (s *Service) probe(r Reacher, f *follower) {
	h := &s.health
	for wait := probeWaits[0]; ; wait = min(2*wait, probeWaits[1]) {
		time.Sleep(wait)
		ctx, cancel := context.WithTimeout(context.Background(), probeTimeout)
		landed, err := r.Reach(ctx)
		cancel()
		if err != nil {
			h.mu.Lock()
			h.h.ProbeCause = err.Error()
			h.mu.Unlock()
			if !errors.Is(err, ErrUnreachable) {
				return // closed: nothing to reach any more
			}
			continue
		}
		if landed.Entries > 0 && f != nil {
			f.adopt(landed)
			// No change goes through again before memory holds the commit
			// that landed: one made sooner took its listing's id again, and
			// the store refused it as a duplicate (a cut in
			// BenchmarkServerTick).
			if !s.awaitAdopted(landed.After+uint64(landed.Entries), f) {
				return
			}
		}
		now := s.now()
		h.mu.Lock()
		h.h.Unreachable, h.h.InDoubt, h.h.Back, h.h.ProbeCause = false, false, now, ""
		h.reached = time.Now()
		if h.worked.IsZero() {
			// Reached, its writer's connection holding the instance's
			// lock: the store works, and the run of failures the outage
			// opened is over after StoreSettle unless a write fails
			// again, even on a market where nothing is written.
			h.worked = now
		}
		h.mu.Unlock()
		h.away.Store(false)
		return
	}
}

// awaitAdopted waits until the main thread has applied the commit that
// landed through seq, its rows included, and reports whether it did
// (false: the follower stopped first, as the service closed).
func (s *Service) awaitAdopted(seq uint64, f *follower) bool {
	for f.adopted.Load() < seq {
		select {
		case <-f.done:
			return false
		case <-time.After(time.Millisecond):
		}
	}
	return true
}

// reachedBefore reports whether the probe last reached the store before t
// (the wall clock), or never did.
func (h *storeHealth) reachedBefore(t time.Time) bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.reached.Before(t)
}

// refuseAway is mutGuard's answer while the store cannot be reached: the
// STORE error, at once.
func (s *Service) refuseAway() error {
	h := &s.health
	h.mu.Lock()
	away := h.h.Away
	h.h.Refused++
	h.mu.Unlock()
	return &Error{Code: CodeStore, Msg: "the change was not made", Err: awayError{since: away}}
}

// awayError says since when the store cannot be reached; it matches
// ErrUnreachable.
type awayError struct{ since time.Time }

func (e awayError) Error() string {
	return "the market's database cannot be reached since " + e.since.UTC().Format("2006-01-02 15:04:05 UTC") +
		"; changes go through again once it answers"
}

func (e awayError) Unwrap() error { return ErrUnreachable }

// noteInterrupted mirrors into StoreHealth whether purchases a failure cut
// short wait to be finished (main thread).
func (s *Service) noteInterrupted() {
	h := &s.health
	h.mu.Lock()
	h.h.Interrupted = h.recoverDue
	h.mu.Unlock()
}

// adopt asks the goroutine to read the entries of a commit that landed
// though its instance was told it failed, and their rows, and wakes it.
// Any goroutine.
func (f *follower) adopt(l Landed) {
	f.landedMu.Lock()
	f.landed = append(f.landed, l)
	f.landedMu.Unlock()
	select {
	case f.kick <- struct{}{}:
	default:
	}
}

// takeLanded returns and forgets what adopt asked for.
func (f *follower) takeLanded() []Landed {
	f.landedMu.Lock()
	defer f.landedMu.Unlock()
	l := f.landed
	f.landed = nil
	return l
}

// readAgain asks again for what of landed the cycle that made batch did
// not read: all of it when it failed, else the entries past its last. It
// returns the end of the newest it read whole (0: none), which the main
// thread has adopted once it applies batch (follower.adopted).
func (f *follower) readAgain(landed []Landed, batch followed) (through uint64) {
	for _, l := range landed {
		end := l.After + uint64(l.Entries)
		switch {
		case batch.err != nil:
			f.adopt(l)
		case len(batch.entries) > 0 && batch.entries[len(batch.entries)-1].Seq < end:
			read := batch.entries[len(batch.entries)-1].Seq
			f.adopt(Landed{After: read, Entries: int(end - read)})
		default:
			through = max(through, end)
		}
	}
	return through
}

package market

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"time"
)

// Publishing from the event log.
//
// A mutation commits its rows and log entries in one store transaction
// (commit), changes memory (applied), and then the new contract events are
// delivered to the listeners in seq order (deliver). How far delivery got is
// recorded in the store, riding along with the next commit (Batch.Published),
// so a crash can only lose the record of deliveries made since the last
// commit: Enable delivers every entry after the recorded mark again. The
// guarantee is at least once, in order: every committed contract event is
// delivered; one delivered just before a crash may be delivered again by the
// next process, with the same Seq, and consumers dedupe by Seq.

// recentEvents is how many of the newest log entries the service keeps in
// memory for EventsSince; older ones are read from the store.
const recentEvents = 1 << 14

// eventLog is the service's side of the store's event log.
type eventLog struct {
	// Guarded by Service.mu: written by the main thread, read by readers.
	head   uint64   // the newest entry applied to memory: the market's version
	first  uint64   // the oldest entry the store keeps (0: none yet)
	recent []logged // ring of the newest entries, recent[seq%len(recent)]
	kept   int      // how many entries of the ring are filled

	// The main thread's.
	committed   []EventRow // committed, not applied to memory yet
	undelivered []Event    // applied, not yet delivered to the listeners
	delivered   uint64     // every contract event up to here reached the listeners
	recorded    uint64     // the publication mark the store holds
	delivering  bool       // deliver is running (a listener mutated)
	held        bool       // Enable holds delivery until the market is ready
	trimNext    time.Time  // when TrimEventLog asks the store next (the wall clock)
}

// logged is one entry of the ring. Internal entries have no event.
type logged struct {
	seq  uint64
	kind EventKind
	ev   Event
}

// appendLogLocked moves the committed entries into the ring and the
// delivery queue. The event a listener gets is decoded from the entry itself,
// so listeners, EventsSince and the next process all see the same thing.
func (s *Service) appendLogLocked() {
	l := &s.log
	if l.recent == nil {
		l.recent = make([]logged, recentEvents)
	}
	// In a shared market entries come from two sides (this instance's
	// commits, the follower) and not always in order: take them in seq
	// order, skip a copy of one taken already, and stop at a gap, which the
	// follower fills.
	slices.SortStableFunc(l.committed, func(a, b EventRow) int { return cmp.Compare(a.Seq, b.Seq) })
	taken := 0
	for _, row := range l.committed {
		if row.Seq <= l.head {
			taken++
			continue
		}
		if row.Seq != l.head+1 {
			break
		}
		taken++
		ev, err := row.event, error(nil)
		if ev == nil || ev.Seq() != row.Seq || ev.Origin() != row.Origin {
			ev, err = decodeEvent(row)
		}
		if err != nil {
			// The service wrote this body a moment ago; a failure is a bug.
			s.reportPanic(fmt.Sprintf("event log entry %d cannot be read back: %v", row.Seq, err))
		}
		l.recent[row.Seq%recentEvents] = logged{seq: row.Seq, kind: row.Kind, ev: ev}
		l.kept = min(l.kept+1, recentEvents)
		if ev != nil {
			l.undelivered = append(l.undelivered, ev)
		}
		l.head = row.Seq
		if l.first == 0 {
			l.first = row.Seq
		}
	}
	rest := copy(l.committed, l.committed[taken:])
	clear(l.committed[rest:])
	l.committed = l.committed[:rest]
}

// deliver hands the undelivered events to every listener, in order. A
// listener that mutates queues its events behind the current ones.
func (s *Service) deliver() {
	l := &s.log
	if l.delivering || l.held {
		return
	}
	l.delivering = true
	defer func() { l.delivering = false }()
	for len(l.undelivered) > 0 {
		ev := l.undelivered[0]
		l.undelivered[0] = nil
		l.undelivered = l.undelivered[1:]
		s.bus.mu.Lock()
		subs, onPanic := s.bus.subs, s.bus.onPanic
		s.bus.mu.Unlock()
		if s.beforeDelivery != nil {
			s.beforeDelivery(ev) // tests: a crash between a commit and its listeners
		}
		for _, sub := range subs {
			deliver(sub.l, ev.clone(), onPanic)
		}
		l.delivered = ev.Seq()
	}
	l.undelivered = nil
	l.delivered = max(l.delivered, l.head)
}

// loadBacklog queues what the store committed but never recorded as
// delivered: a crash came between a commit and its listeners (or before
// their delivery was recorded). Called by Enable before recovery.
func (s *Service) loadBacklog(published uint64) error {
	// The ring is filled again from the mark on. Entries past what Load
	// saw (another instance's, in a shared market) are the follower's.
	through := s.log.head
	s.mu.Lock()
	s.log.head = published
	s.mu.Unlock()
	for published < through {
		n, err := s.store.ReadEvents(published, int(min(4096, through-published)), func(row EventRow) error {
			row.Body = append([]byte(nil), row.Body...)
			s.log.committed = append(s.log.committed, row)
			published = row.Seq
			return nil
		})
		if err != nil {
			return fmt.Errorf("read the undelivered events: %w", err)
		}
		s.mu.Lock()
		s.appendLogLocked()
		s.mu.Unlock()
		if n == 0 {
			break
		}
	}
	s.mu.Lock()
	s.log.head = max(s.log.head, through)
	s.mu.Unlock()
	return nil
}

// recordDelivery writes the publication mark now (at Enable, after a backlog
// was delivered, and at Close) instead of with the next change.
func (s *Service) recordDelivery() error {
	if s.log.delivered <= s.log.recorded {
		return nil
	}
	b := &s.batch
	b.Reset()
	return s.commit(b)
}

// Version is the seq of the newest change in memory: a read made after
// Version returned v reflects every change up to v. The HTTP interface pages
// and tags its answers with it, and a client that then follows EventsSince(v)
// misses nothing.
func (s *Service) Version() uint64 {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.log.head
}

// Horizon is the market's version and the moment until which a read at
// that version gives the same answer: the first expiry still ahead among
// the listings on the market (zero when none expires). Reads leave out a
// listing once its expiry has passed, before the timer removes it with a
// new version; until then only a change moves the version. A cache of
// answers may keep an answer read at version while Version is still
// version and the clock is before until. Answers that cover a span of time
// ending now (price history) change with the clock alone and are not
// covered.
func (s *Service) Horizon() (version uint64, until time.Time) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	if at, ok := s.ix.FirstExpiryAfter(s.nowMs()); ok {
		until = time.UnixMilli(at)
	}
	return s.log.head, until
}

// EventPage is a stretch of the event log's contract events.
type EventPage struct {
	// Events are the contract events after the asked seq, oldest first.
	Events []Event
	// Through is how far the log was read: ask for the events after
	// Through next. It is at least the last event's Seq, and past it when
	// the rest of the stretch held only internal entries.
	Through uint64
	// Head is the newest seq of the log when it was read.
	Head uint64
}

// eventsChunk is how many of the ring's entries EventsSince copies between
// two asks whether to let its read lock go to a waiting writer (readYield):
// a page of 10,000 events copied at once held the main thread up during a
// burst. A variable only so that tests pause small logs as often (OnRead).
var eventsChunk uint64 = 64

// MaxEventsPage bounds EventsSince's limit.
const MaxEventsPage = 10_000

// EventsSince returns up to limit contract events with seqs above after, in
// order: what a follower (the HTTP event stream, another program) missed
// since the last event it saw. It is safe from any goroutine and never waits
// for the main thread. Recent entries come from memory; older ones from the
// store.
func (s *Service) EventsSince(after uint64, limit int) (EventPage, error) {
	if err := s.readGuard(); err != nil {
		return EventPage{}, err
	}
	if limit <= 0 || limit > MaxEventsPage {
		return EventPage{}, errf(CodeInvalidQuery, "limit %d is outside 1..%d", limit, MaxEventsPage)
	}
	s.mu.RLock()
	head, first, kept := s.log.head, s.log.first, uint64(s.log.kept)
	if after > head {
		s.mu.RUnlock()
		return EventPage{}, errf(CodeInvalidQuery, "event %d is ahead of the log, whose newest event is %d", after, head)
	}
	page := EventPage{Through: head, Head: head}
	if first > 0 && after+1 < first {
		s.mu.RUnlock()
		return EventPage{}, errf(CodeEventsTrimmed, "the events after %d are no longer kept (the oldest is %d); read the market again and follow it from its version", after, first)
	}
	if after >= head-kept {
		y := s.yield()
		for seq := after + 1; seq <= head; seq++ {
			if (seq-after)%eventsChunk == 0 && y.Due() {
				y.Pause()
				if seq+uint64(s.log.kept) <= s.log.head {
					// The ring moved on past seq during the pause: the
					// page ends here, and the next read goes on from it.
					page.Through = seq - 1
					break
				}
			}
			if e := s.log.recent[seq%recentEvents]; e.ev != nil {
				page.Events = append(page.Events, e.ev.clone())
				if len(page.Events) == limit {
					page.Through = seq
					break
				}
			}
		}
		s.mu.RUnlock()
		return page, nil
	}
	s.mu.RUnlock()
	return s.eventsFromStore(after, limit, page)
}

// eventsFromStore reads a stretch of the log older than the ring.
func (s *Service) eventsFromStore(after uint64, limit int, page EventPage) (EventPage, error) {
	const chunk = 1024
	for after < page.Head {
		n, err := s.store.ReadEvents(after, chunk, func(row EventRow) error {
			if len(page.Events) == limit || row.Seq > page.Head {
				return errPageFull
			}
			after = row.Seq
			ev, err := decodeEvent(row)
			if err != nil || ev == nil {
				return err
			}
			page.Events = append(page.Events, ev)
			if len(page.Events) == limit {
				page.Through = row.Seq
			}
			return nil
		})
		if err == errPageFull || len(page.Events) == limit {
			return page, nil
		}
		if err != nil {
			return EventPage{}, &Error{Code: CodeStore, Msg: "the event log could not be read", Err: err}
		}
		if n < chunk {
			break
		}
	}
	return page, nil
}

var errPageFull = fmt.Errorf("page full")

// EventRetention bounds the event log. Entries older than MaxAge, and the
// oldest entries beyond the newest MaxCount, are deleted by TrimEventLog;
// seqs are never reused or renumbered, and entries not yet delivered to the
// listeners are kept whatever their age.
//
// Entries a bookmark (HoldBookmark: a webhook's delivery) has not taken
// yet are kept past MaxAge and MaxCount too, so that a receiver that was
// down gets everything when it is back, but only up to MaxUnread entries
// behind the newest: past that cap they go anyway (a receiver gone for
// good must not fill the disk), and the bookmark's reader finds them
// trimmed (CodeEventsTrimmed) and skips them.
type EventRetention struct {
	MaxAge    time.Duration // 0: the default (30 days); negative: no age limit
	MaxCount  int           // 0: the default (1,000,000); negative: no count limit
	MaxUnread int           // 0: the default (1,000,000); negative: no cap
}

// trimBatch bounds the entries one TrimEventLog call deletes, so that the
// main thread is never held up for long: deleting 2,000 entries from
// SQLite took the tick 1.7–3.6 ms, 500 take under a millisecond, and at 20
// ticks a second a backlog still goes at 10,000 entries a second.
const trimBatch = 500

// trimEvery is how often, at most, TrimEventLog asks the store while no
// backlog is left. Asking found nothing to delete nearly every time yet
// cost the tick 0.1–0.25 ms (two reads of the store under its lock), and
// a retention counted in days or in a million entries is kept as well
// by a look every ten seconds. It is a pace of the main thread, measured
// by the wall clock: the QA clock may jump.
var trimEvery = 10 * time.Second

// TrimEventLog applies the retention policy (Config.EventRetention),
// deleting at most a few hundred of the oldest entries per call: the
// console and the server call it from their timer, every tick. It asks
// the store only when the count limit is exceeded by a whole batch, or
// when trimEvery has passed since it last asked, or when its last call
// deleted a whole batch (a backlog, worked off a batch a tick); otherwise
// it returns at once. Main thread only. It returns how many entries it
// deleted.
func (s *Service) TrimEventLog() (int, error) {
	if err := s.mutGuard(); err != nil {
		return 0, err
	}
	r := s.cfg.EventRetention
	t := EventTrim{Below: s.log.recorded + 1, Limit: trimBatch, OlderThan: math.MinInt64}
	if r.MaxCount > 0 && s.log.head > uint64(r.MaxCount) {
		t.ThroughSeq = s.log.head - uint64(r.MaxCount)
	}
	if r.MaxAge > 0 {
		t.OlderThan = s.nowMs() - r.MaxAge.Milliseconds()
	}
	if r.MaxUnread > 0 && s.log.head > uint64(r.MaxUnread) {
		t.UnreadCap = s.log.head - uint64(r.MaxUnread)
	}
	if t.ThroughSeq < s.log.first && t.OlderThan == math.MinInt64 {
		return 0, nil // only a count limit, and the log is within it
	}
	now := time.Now()
	if now.Before(s.log.trimNext) && (t.ThroughSeq < s.log.first || t.ThroughSeq-s.log.first < trimBatch) {
		return 0, nil
	}
	s.log.trimNext = now.Add(trimEvery)
	if c := s.committer; c != nil {
		// The committer trims between commits; the outcome comes with
		// Settle (trimmed), so the tick never waits for the delete.
		c.trimEvents(t)
		return 0, nil
	}
	return s.trimmed(s.store.TrimEvents(t))
}

// trimmed takes the outcome of a trim of the log whose oldest entry is now
// first: how many it deleted.
func (s *Service) trimmed(first uint64, err error) (int, error) {
	if err != nil {
		s.storeFailed(err)
		return 0, &Error{Code: CodeStore, Msg: "the event log could not be trimmed", Err: err}
	}
	s.storeWorked()
	s.mu.Lock()
	deleted := 0
	if first > s.log.first {
		deleted = int(first - s.log.first)
		s.log.first = first
	}
	s.mu.Unlock()
	if deleted >= trimBatch {
		s.log.trimNext = time.Time{} // a backlog: the next batch at the next call
	}
	return deleted, nil
}

// decodeEvents decodes b's published log entries, now that store has
// given them their seqs, as appendLogLocked will log them: the committer
// calls it off the main thread, which then takes the events as they are
// (over a third of what settling cost it was decoding them). An entry that
// does not decode is left for appendLogLocked to report.
func (b *Batch) decodeEvents(store Store) {
	origin := ""
	if shared, ok := store.(SharedStore); ok {
		origin = shared.Instance()
	}
	for i := range b.Events {
		row := &b.Events[i]
		if !row.Kind.Published() {
			continue
		}
		o := row.Origin
		row.Origin = origin
		row.event, _ = decodeEvent(*row)
		row.Origin = o
	}
}

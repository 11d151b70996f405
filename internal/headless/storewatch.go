package headless

import (
	"fmt"
	"time"

	"github.com/rynek/rynek/market"
)

// countEvery is how often, at most, the loop says how many more times the
// store failed while it goes on failing.
var countEvery = 10 * time.Second

// storeWatch turns the service's StoreHealth into a few report lines: the
// store's error once when it starts failing, then at most every countEvery
// how many more times it failed, and the end once the store has saved
// changes again for market.StoreSettle; when the store cannot reach its
// database, that once, and when it answers again.
type storeWatch struct {
	// outage is the time without the database said
	// (StoreHealth.Outages), away whether it is not over yet.
	outage  int
	away    bool
	failing bool
	run     int       // the run said (StoreHealth.Runs)
	said    int       // the failures said so far
	saidAt  time.Time // when they were said (the wall clock)
}

// check reports what changed since the last call.
func (w *storeWatch) check(h market.StoreHealth, now time.Time, report func(string)) {
	if h.Outages != w.outage {
		// Said instead of the failure the outage began with.
		report("store unreachable: " + h.ProbeCause + "; every change is refused at once until the database answers, " +
			"which is tried every second")
		w.outage, w.away = h.Outages, true
		w.failing, w.run, w.said, w.saidAt = true, h.Runs, h.Failures, now
	}
	if w.away && !h.Unreachable {
		refused := fmt.Sprintf("%d changes", h.Refused)
		if h.Refused == 1 {
			refused = "1 change"
		}
		report(fmt.Sprintf("store reachable again: the database answered at %s UTC, after %s away and %s refused; changes go through",
			h.Back.UTC().Format("15:04:05"), h.Back.Sub(h.Away).Round(time.Millisecond), refused))
		w.away = false
	}
	if h.Runs != w.run {
		// A new run (perhaps begun and over between two checks).
		report("store failure: " + h.Cause + "; every change is refused until the store saves again")
		w.failing, w.run, w.said, w.saidAt = true, h.Runs, 1, now
	}
	if !w.failing {
		return
	}
	if more := h.Failures - w.said; more > 0 && h.Failing && now.Sub(w.saidAt) >= countEvery {
		cause := h.LastCause
		if cause != h.Cause {
			cause = "now: " + cause
		}
		report(fmt.Sprintf("store failure: the store failed %d more times in the last %s (%s)", more, now.Sub(w.saidAt).Round(time.Millisecond), cause))
		w.said, w.saidAt = h.Failures, now
	}
	if !h.Failing {
		report(fmt.Sprintf("store failure over: the store has saved changes since %s UTC; %d writes failed in %s",
			h.Over.UTC().Format("15:04:05"), h.Failures, h.Over.Sub(h.Since).Round(time.Millisecond)))
		w.failing = false
	}
}

package tui

import (
	"errors"
	"fmt"
	"time"

	"github.com/rynek/rynek/market"
)

// storeWatch is what the console last said about the store's health
// (market.StoreHealth): the header shows "● STORE FAILING" while it fails,
// and "● STORE UNREACHABLE" while it cannot reach its database, and the
// status line says when a run of failures or an outage begins, with the
// store's error, and when it is over.
type storeWatch struct {
	run     int // the run of failures said (StoreHealth.Runs)
	failing bool
	// outage is the time without the database said
	// (StoreHealth.Outages), away whether it is not over yet.
	outage int
	away   bool
}

// watchStore runs at each tick: it says what changed in the store's
// health, and finishes the purchases a store failure left unfinished once
// the store takes writes again (market.RecoverInterrupted).
func (m *Model) watchStore() {
	svc := m.c.Svc
	h := svc.StoreHealth()
	w := &m.store
	if h.Outages != w.outage {
		// Said instead of the failure the outage began with.
		w.outage, w.away, w.run, w.failing = h.Outages, true, h.Runs, true
		m.setStatus(statusMsg{text: "the market's database cannot be reached: " + h.ProbeCause +
			"; every change is refused until it answers, which the market notices by itself", err: true})
		m.changed = true
	}
	if w.away && !h.Unreachable {
		w.away = false
		text := fmt.Sprintf("the market's database answers again, after %s and %s refused change%s; changes go through",
			h.Back.Sub(h.Away).Round(100*time.Millisecond), count(h.Refused), plural(h.Refused))
		m.setStatus(statusMsg{text: text})
		m.changed = true
	}
	if h.Runs != w.run {
		w.run, w.failing = h.Runs, true
		m.setStatus(statusMsg{text: "the store cannot save changes: " + h.Cause + "; every change is refused until it can", err: true})
		m.changed = true
	}
	if w.failing && !h.Failing {
		w.failing = false
		m.setStatus(statusMsg{text: fmt.Sprintf("the store saves changes again, after %s failed write%s", count(h.Failures), plural(h.Failures))})
		m.changed = true
	}
	n, err := svc.RecoverInterrupted()
	switch {
	case err != nil && !errors.Is(err, market.ErrStore): // the store's own failure is said above
		m.fail(err)
	case n > 0:
		m.setStatus(statusMsg{text: fmt.Sprintf("finished %d purchase%s a store failure had interrupted", n, plural(n))})
		m.changed = true
	}
}

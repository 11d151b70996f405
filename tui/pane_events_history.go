package tui

import (
	"errors"
	"slices"

	tea "charm.land/bubbletea/v2"
	"github.com/rynek/rynek/market"
)

// The Events pane starts with the newest events the market's log kept from
// before this start: the log is durable, and a pane empty after every
// start hid it. They are read off the event loop (EventsSince never waits
// for the main thread), and the events published meanwhile are not held up.

// eventHistoryShown bounds the events read from before the start.
const eventHistoryShown = 500

// eventHistoryMsg answers the Events pane's Start: the newest events of the
// log up to the seq the console subscribed at, oldest first.
type eventHistoryMsg struct {
	events []market.Event
	err    error
}

// Start reads the log's newest events from before the console subscribed.
func (p *eventsPane) Start(c *Common) tea.Cmd {
	through := p.log.start
	if through == 0 {
		return nil // a new market: nothing came before
	}
	p.history.loading = true
	svc := c.Svc
	return func() tea.Msg {
		events, err := recentEvents(svc, through, eventHistoryShown)
		return eventHistoryMsg{events: events, err: err}
	}
}

// recentEvents returns the newest n contract events with seqs up to
// through, oldest first. The log's seqs count internal entries too, so it
// reads a window back from through and widens it until the window holds n
// events, reaches the log's start, or passes the oldest entry the log
// keeps (retention), which it then finds by bisection.
func recentEvents(svc *market.Service, through uint64, n int) ([]market.Event, error) {
	for window := uint64(2 * n); ; window *= 4 {
		after := through - min(window, through)
		events, err := eventsBetween(svc, after, through)
		if errors.Is(err, market.ErrEventsTrimmed) {
			if after, err = oldestKept(svc, after, through); err == nil {
				events, err = eventsBetween(svc, after, through)
			}
			if err != nil {
				return nil, err
			}
			return newest(events, n), nil
		}
		if err != nil {
			return nil, err
		}
		if len(events) >= n || after == 0 {
			return newest(events, n), nil
		}
	}
}

// eventsBetween reads the contract events with seqs in (after, through].
func eventsBetween(svc *market.Service, after, through uint64) ([]market.Event, error) {
	var out []market.Event
	for after < through {
		page, err := svc.EventsSince(after, min(market.MaxEventsPage, eventHistoryShown))
		if err != nil {
			return nil, err
		}
		for _, e := range page.Events {
			if e.Seq() <= through {
				out = append(out, e)
			}
		}
		if page.Through <= after {
			break
		}
		after = page.Through
	}
	return out, nil
}

// oldestKept finds the smallest seq after which the log still answers,
// between trimmed (it does not) and kept (it does).
func oldestKept(svc *market.Service, trimmed, kept uint64) (uint64, error) {
	for trimmed+1 < kept {
		mid := trimmed + (kept-trimmed)/2
		_, err := svc.EventsSince(mid, 1)
		switch {
		case errors.Is(err, market.ErrEventsTrimmed):
			trimmed = mid
		case err != nil:
			return 0, err
		default:
			kept = mid
		}
	}
	return kept, nil
}

// newest is the last n of events.
func newest(events []market.Event, n int) []market.Event {
	return slices.Clip(events[max(0, len(events)-n):])
}

// historyArrived takes the log from before the start into the view,
// keeping the cursor on its event.
func (p *eventsPane) historyArrived(msg eventHistoryMsg) {
	p.history.loading, p.history.err = false, msg.err
	if msg.err != nil {
		return
	}
	before := p.visible()
	n := p.log.prepend(msg.events)
	p.history.n = n
	p.frozen += n
	p.matched, p.scanned = p.matched[:0], 0
	p.Refresh(nil)
	if !p.follow {
		p.pos += p.visible() - before
	}
}

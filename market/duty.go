package market

import "time"

// The network's duty: in a market several instances share, one of them at a
// time (SharedStore.Duty) runs the market's timers and finishes what the
// others left unfinished.

// takeOverEvery is how often the instance with the network's duty looks for
// purchases other instances left unfinished; abandonedAfter is how long one
// must have stood still (by the service clock) to count as left: its own
// instance compensates a failure at once, or retries its recovery sooner.
var takeOverEvery = 5 * time.Second // a variable for the tests

const abandonedAfter = 10 * time.Second

// hasDuty reports whether this instance runs the market's timers (the
// expiry sweep, taking over what others left): always when no other
// instance shares the store, else when it holds the network's duty.
func (s *Service) hasDuty() bool {
	if shared, ok := s.store.(SharedStore); ok {
		return shared.Duty()
	}
	return true
}

// takeOver finishes or compensates the purchases that stood still for
// abandonedAfter: their instance died or lost the server. Each step is
// conditional, so if their instance comes back and does the same, one of the
// two writes it and the other writes nothing; an error leaves the purchase
// to the next turn.
func (s *Service) takeOver() {
	cutoff := s.nowMs() - abandonedAfter.Milliseconds()
	s.mu.Lock()
	open := s.openTxLocked()
	s.mu.Unlock()
	for _, t := range open {
		if t.tl[len(t.tl)-1].At > cutoff {
			continue
		}
		if !t.State().Terminal() {
			s.runSaga(&sagaRun{t: t, slot: -1})
		}
	}
}

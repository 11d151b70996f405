package market

import "github.com/rynek/rynek/market/internal/search"

// OnReadPause makes every pause of a long read (pauseRead) call f with
// whether the write lock was free then, and makes the reads pause every
// chunk entries (the orders walked, the matches collected, the events
// copied), so that a small market pauses as a large one does. It returns a
// function restoring both.
func OnReadPause(chunk int, f func(writable bool)) (restore func()) {
	restoreChunk := search.SetReadChunk(chunk)
	events := eventsChunk
	eventsChunk = uint64(chunk)
	readPaused = func(s *Service) {
		free := s.mu.TryLock()
		if free {
			s.mu.Unlock()
		}
		f(free)
	}
	return func() {
		readPaused = nil
		restoreChunk()
		eventsChunk = events
	}
}

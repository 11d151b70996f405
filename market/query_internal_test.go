package market

import (
	"time"

	"github.com/rynek/rynek/market/internal/search"
)

// OnRead makes long reads end a chunk every chunk entries (the orders
// walked, the matches collected, the events copied), so that a small
// market reads as a large one does; chunkEnd runs at the end of each chunk
// (the read lock held) and paused in each pause (the lock let go, as a
// writer waited). It returns a function restoring all.
func OnRead(chunk int, chunkEnd, paused func()) (restore func()) {
	restoreChunk := search.SetReadChunk(chunk)
	events := eventsChunk
	eventsChunk = uint64(chunk)
	readHooks.chunkEnd, readHooks.paused = chunkEnd, paused
	return func() {
		readHooks.chunkEnd, readHooks.paused = nil, nil
		restoreChunk()
		eventsChunk = events
	}
}

// WriterWaits reports whether a writer waits for the service's lock.
func WriterWaits(s *Service) bool { return s.mu.wanted() }

// SetReadHold sets how long a read holds the lock before it lets it go
// with no writer waiting; it returns a function restoring it.
func SetReadHold(d time.Duration) (restore func()) {
	was := readHold
	readHold = d
	return func() { readHold = was }
}

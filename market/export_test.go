package market

import (
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/rynek/rynek/market/internal/search"
)

// SetPagingThresholds lets the external tests drive every paging path with
// small data; it returns a function restoring the defaults.
func SetPagingThresholds(collect, walk int) (restore func()) {
	return search.SetPagingThresholds(collect, walk)
}

// SetBeforeDelivery makes f run before each event reaches the listeners: the
// crash test kills the process there, between a commit and its listeners.
func SetBeforeDelivery(s *Service, f func(Event)) { s.beforeDelivery = f }

// SetTakeOverEvery sets how often the instance with the network's duty looks
// for abandoned purchases; it returns a function restoring the default.
func SetTakeOverEvery(d time.Duration) (restore func()) {
	was := takeOverEvery
	takeOverEvery = d
	return func() { takeOverEvery = was }
}

// SetWhileCountingHistory makes f run in the history load as it starts to
// count its copy off the lock; set it before Enable.
func SetWhileCountingHistory(s *Service, f func()) { s.whileCountingHistory = f }

// DeferredEdits reports how many of another server's edits of finished
// purchases wait for the history load to count.
func DeferredEdits(s *Service) int {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return len(s.hist.deferred)
}

// SetRecoverWaits sets how long RecoverInterrupted waits after a failed
// attempt, at first and at most; it returns a function restoring the
// defaults.
func SetRecoverWaits(first, most time.Duration) (restore func()) {
	was := recoverWaits
	recoverWaits = [2]time.Duration{first, most}
	return func() { recoverWaits = was }
}

// SetTrimEvery sets how often, at most, TrimEventLog asks the store while
// no backlog is left; it returns a function restoring the default.
func SetTrimEvery(d time.Duration) (restore func()) {
	was := trimEvery
	trimEvery = d
	return func() { trimEvery = was }
}

// SetSweepBudget sets the time a batch of expired listings is sized to
// take; it returns a function restoring the default.
func SetSweepBudget(d time.Duration) (restore func()) {
	was := sweepBudget
	sweepBudget = d
	return func() { sweepBudget = was }
}

// SetProbeWaits sets how long the probe of an unreachable store waits
// before its first try and at most between tries.
func SetProbeWaits(first, most time.Duration) (restore func()) {
	was := probeWaits
	probeWaits = [2]time.Duration{first, most}
	return func() { probeWaits = was }
}

// SetOutcomeBudget sets how long Settle goes on once it has settled a
// chunk; it returns a function restoring it.
func SetOutcomeBudget(d time.Duration) (restore func()) {
	was := outcomeBudget
	outcomeBudget = d
	return func() { outcomeBudget = was }
}

// HistoryRoom is how many transactions the history's lists take before
// they grow: the whole list and the completed ones.
func HistoryRoom(s *Service) (all, completed int) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return cap(s.allTx) - len(s.allTx), cap(s.completed) - len(s.completed)
}

// SetEventDecoded sets what runs as a log entry's event is decoded; it
// returns a function restoring the default.
func SetEventDecoded(f func()) (restore func()) {
	eventDecoded = f
	return func() { eventDecoded = nil }
}

// SetDataEncoded sets what runs as a player's data blob or inventory is
// encoded, told which; it returns a function restoring the default.
func SetDataEncoded(f func(what string)) (restore func()) {
	dataEncoded = f
	return func() { dataEncoded = nil }
}

// UndoAllocs is how many allocations copying what a batch writing the
// players' states (the same player may come twice) takes for its undo:
// fresh, and when each undo is done with (its batch settled) before the
// next.
func UndoAllocs(s *Service, players ...uuid.UUID) (fresh, settled float64) {
	b := &Batch{}
	for _, id := range players {
		b.Ops = append(b.Ops, Op{Kind: OpPlayerState, Player: &PlayerRow{ID: id}})
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	spare := s.spare
	s.spare = spareImages{}
	defer func() { s.spare = spare }()
	fresh = testing.AllocsPerRun(100, func() { s.undoOf(b) })
	settled = testing.AllocsPerRun(100, func() { s.spare.keep(s.undoOf(b)) })
	return fresh, settled
}

// GramsBehind is how many changes the search index's gram bitmaps have
// not taken in (search.Index.GramsBehind).
func GramsBehind(s *Service) int {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.ix.GramsBehind()
}

// NextIDBlockReserved reports whether the block of listing ids after the
// current one is reserved.
func NextIDBlockReserved(s *Service) bool {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.nextBlock != 0
}

// HoldReadLock takes the market's read lock, as a reader the system has
// stopped in the middle of a read would hold it, until release is called.
// Not from the main thread.
func HoldReadLock(s *Service) (release func()) {
	s.mu.RLock()
	return s.mu.RUnlock
}

// ThreadCPU is the calling thread's CPU time (threadCPU), for a test that
// must burn CPU rather than wall time.
func ThreadCPU() (time.Duration, bool) { return threadCPU() }

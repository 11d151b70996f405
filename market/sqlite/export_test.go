package sqlite

import "time"

// HoldTables keeps the materializer from writing the tables until the
// returned function is called: commits still reach the change log, as they
// would in the moment before a crash.
func (s *Store) HoldTables() (release func()) {
	s.mu.Lock()
	return s.mu.Unlock
}

// SetLogLimits changes the size past which the log is emptied and the
// number of records that may wait for the tables.
func SetLogLimits(size int64, pending int) (restore func()) {
	oldSize, oldPending := logTruncateAt, maxPending
	logTruncateAt, maxPending = size, pending
	return func() { logTruncateAt, maxPending = oldSize, oldPending }
}

// LogSize reports the change log's current size in bytes.
func (s *Store) LogSize() int64 {
	s.lmu.Lock()
	defer s.lmu.Unlock()
	return s.logSize
}

// EncodeBatch and DecodeBatch expose the record codec to the fuzzer.
var (
	EncodeBatch = encodeBatch
	DecodeBatch = decodeBatch
)

// FailTables makes the next n writes of the tables fail, as a full disk
// would, and sets the materializer's retry delay.
func (s *Store) FailTables(n int, retry time.Duration) (restore func()) {
	old := retryAfter
	retryAfter = retry // before mu: the materializer reads it after a failure
	s.mu.Lock()
	s.failApply = n
	s.mu.Unlock()
	return func() { retryAfter = old }
}

package sqlite

import (
	"errors"
	"fmt"

	"github.com/rynek/rynek/market"
)

// A data load (seeding, importing, merging) is one SQLite transaction on
// the writer, open from BeginBulk to Commit: its chunks go into the WAL as
// they are written, and none of them is part of the market until the
// commit frame is. A process killed half-way leaves frames no commit
// covers, which the next opening ignores: the market is as it was.

// bulkTx is a data load's open transaction.
type bulkTx struct {
	s *Store
}

var _ market.BulkTx = (*bulkTx)(nil)

// errBulkEnded is the answer of a load whose transaction has ended.
var errBulkEnded = errors.New("the data load has ended")

// BeginBulk opens a data load's transaction on the writer.
func (s *Store) BeginBulk() (market.BulkTx, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.writerFree(); err != nil {
		return nil, err
	}
	if _, err := s.begin.Exec(); err != nil {
		return nil, fmt.Errorf("begin the data load: %w", describe(err))
	}
	s.bulk = &bulkTx{s: s}
	return s.bulk, nil
}

// Write writes b's ops into the load's transaction; a failure rolls the
// whole load back.
func (t *bulkTx) Write(b *market.Batch) error {
	s := t.s
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.bulk != t {
		return errBulkEnded
	}
	if len(b.Events) > 0 {
		t.end()
		return errors.New("a data load writes no log entries")
	}
	for i := range b.Ops {
		if err := s.apply(&b.Ops[i]); err != nil {
			t.end()
			return err
		}
	}
	return nil
}

// Commit commits the load.
func (t *bulkTx) Commit() error {
	s := t.s
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.bulk != t {
		return errBulkEnded
	}
	s.bulk = nil
	if _, err := s.commit.Exec(); err != nil {
		s.rollback.Exec()
		return fmt.Errorf("commit the data load: %w", describe(err))
	}
	return nil
}

// Rollback drops the load, if its transaction is still open.
func (t *bulkTx) Rollback() error {
	s := t.s
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.bulk != t {
		return nil
	}
	return t.end()
}

// end rolls the load's transaction back and frees the writer. mu must be
// held.
func (t *bulkTx) end() error {
	t.s.bulk = nil
	if _, err := t.s.rollback.Exec(); err != nil {
		return fmt.Errorf("roll the data load back: %w", describe(err))
	}
	return nil
}

// loading reports whether a data load's transaction is open.
func (s *Store) loading() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.bulk != nil
}

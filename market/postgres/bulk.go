package postgres

import (
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"
	"github.com/rynek/rynek/market"
)

// A data load (seeding, importing, merging) is one PostgreSQL transaction
// on the writer's connection, open from BeginBulk to Commit; each chunk is
// one pipeline inside it. Until the commit no other session sees any of
// it, and a client that dies half-way takes the transaction with its
// connection: the server rolls it back.

// bulkTx is a data load's open transaction.
type bulkTx struct {
	s  *Store
	tx pgx.Tx
}

var _ market.BulkTx = (*bulkTx)(nil)

// errBulkEnded is the answer of a load whose transaction has ended.
var errBulkEnded = errors.New("the data load has ended")

// BeginBulk opens a data load's transaction on the writer's connection.
func (s *Store) BeginBulk() (market.BulkTx, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.writerFree(); err != nil {
		return nil, err
	}
	if err := s.ready(); err != nil {
		return nil, err
	}
	tx, err := s.conn.Begin(s.ctx)
	if err != nil {
		return nil, fmt.Errorf("begin the data load: %w", err)
	}
	s.bulk = &bulkTx{s: s, tx: tx}
	return s.bulk, nil
}

// Write sends b's ops as one pipeline inside the load's transaction; a
// failure rolls the whole load back.
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
	var pb pgx.Batch
	queueOps(&pb, b.Ops, counterAdds(b.Ops))
	if err := refusal(t.tx.SendBatch(s.ctx, &pb).Close()); err != nil {
		t.end()
		return err
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
	if err := t.tx.Commit(s.ctx); err != nil {
		return fmt.Errorf("commit the data load: %w", err)
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

// end rolls the load's transaction back and frees the writer's
// connection. mu must be held.
func (t *bulkTx) end() error {
	t.s.bulk = nil
	if err := t.tx.Rollback(t.s.ctx); err != nil && !errors.Is(err, pgx.ErrTxClosed) {
		return fmt.Errorf("roll the data load back: %w", err)
	}
	return nil
}

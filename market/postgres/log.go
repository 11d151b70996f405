package postgres

import (
	"context"
	"errors"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/rynek/rynek/market"
)

// appendLog takes n seqs from the counter and raises the delivery mark to
// $2, refusing a mark past the newest entry before this batch. Its result is
// the newest seq after the batch.
const appendLog = `WITH c AS (UPDATE event_counter SET last_seq = last_seq + $1 WHERE $2 <= last_seq RETURNING last_seq),
		i AS (UPDATE rynek_instances SET published = greatest(published, $2) WHERE name = $3 AND EXISTS (SELECT 1 FROM c))
	SELECT rynek_expect((SELECT count(*) FROM c), '` + codeDelivered + `', 'the delivery mark ' || $2::text || ' past the newest event'),
		(SELECT last_seq FROM c)`

// insertEvents writes the batch's entries with the seqs appendLog took:
// the i-th of n (from 1) gets last_seq - n + i.
const insertEvents = `INSERT INTO events (seq, kind, at, body, origin)
	SELECT c.last_seq - $1 + e.i, e.kind, e.at, e.body, $5
	FROM event_counter c, unnest($2::text[], $3::bigint[], $4::bytea[]) WITH ORDINALITY AS e(kind, at, body, i)`

// ReadEvents streams log entries after seq after, on a read connection.
func (s *Store) ReadEvents(after uint64, limit int, fn func(market.EventRow) error) (int, error) {
	if s.closed.Load() {
		return 0, errClosed
	}
	ctx, cancel := context.WithTimeout(s.ctx, readTimeout)
	defer cancel()
	n, err := readEvents(ctx, s.readers, after, limit, fn)
	return n, linkError(err)
}

// readEvents streams what q sees of the log, as Store.ReadEvents documents.
func readEvents(ctx context.Context, q querier, after uint64, limit int, fn func(market.EventRow) error) (int, error) {
	rows, err := q.Query(ctx, "SELECT seq, kind, at, body, origin FROM events WHERE seq > $1 ORDER BY seq LIMIT $2", int64(after), limit)
	if err != nil {
		return 0, err
	}
	defer rows.Close()
	n := 0
	for rows.Next() {
		var e market.EventRow
		var seq int64
		var kind string
		if err := rows.Scan(&seq, &kind, &e.At, &e.Body, &e.Origin); err != nil {
			return n, err
		}
		e.Seq, e.Kind = uint64(seq), market.EventKind(kind)
		n++
		if err := fn(e); err != nil {
			return n, err
		}
	}
	return n, rows.Err()
}

// notifyChannel is what commits notify and followers listen to.
const notifyChannel = "rynek_events"

// pollEvery bounds how long a follower waits without a notification.
const pollEvery = time.Second

// listen opens the listening connection and tries to take the duty on it.
// listenMu must be held.
func (s *Store) listen(ctx context.Context) error {
	conn, err := pgx.ConnectConfig(ctx, s.cfg)
	if err != nil {
		return err
	}
	if _, err := conn.Exec(ctx, "LISTEN "+notifyChannel); err != nil {
		conn.Close(s.ctx)
		return err
	}
	s.listener = conn
	s.tryDuty(ctx)
	return nil
}

// WaitEvents returns when a commit notifies, after pollEvery, or when ctx
// ends. It keeps one listening connection; when the server is away it waits
// out the poll interval and connects again on the next call.
func (s *Store) WaitEvents(ctx context.Context) {
	s.listenMu.Lock()
	defer s.listenMu.Unlock()
	ctx, cancel := context.WithTimeout(ctx, pollEvery)
	defer cancel()
	if s.closed.Load() {
		// Closed under a service still following: connecting again
		// would take the duty a live instance should have.
		<-ctx.Done()
		return
	}
	if s.listener == nil || s.listener.IsClosed() {
		s.duty.Store(false) // it went with the connection
		if err := s.listen(ctx); err != nil {
			if ctx.Err() == nil || errors.Is(ctx.Err(), context.DeadlineExceeded) {
				s.suspect.Store(true)
			}
			<-ctx.Done()
			return
		}
		// Entries may have come between the caller's read and LISTEN: do
		// not wait for a notification that was sent before it.
		return
	}
	if !s.duty.Load() && time.Since(s.dutyTried) >= dutyRetry {
		s.tryDuty(ctx)
	}
	if _, err := s.listener.WaitForNotification(ctx); err != nil && ctx.Err() == nil {
		s.listener.Close(s.ctx) // broken: the next call connects again
		s.duty.Store(false)
		s.suspect.Store(true)
		<-ctx.Done()
	}
}

// dutyLock is the advisory lock of the network's duty: running the expiry
// timer and taking over purchases that other instances left unfinished. One
// instance holds it, on its listening connection, so that the duty passes
// to another when the instance dies or loses the server.
const dutyLock = ownerLock + 2

// dutyRetry is how often an instance without the duty tries to take it.
const dutyRetry = time.Second

// tryDuty takes the duty if no instance holds it. listenMu must be held.
func (s *Store) tryDuty(ctx context.Context) {
	s.dutyTried = time.Now()
	var got bool
	if err := s.listener.QueryRow(ctx, "SELECT pg_try_advisory_lock($1)", int64(dutyLock)).Scan(&got); err == nil && got {
		s.duty.Store(true)
	}
}

// Duty reports whether this instance holds the network's duty: the one
// instance that runs the expiry timer and takes over what others left
// unfinished.
func (s *Store) Duty() bool { return s.duty.Load() }

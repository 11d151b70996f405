package sqlite

import (
	"context"
	"database/sql"
	"fmt"

	"github.com/rynek/rynek/market"
)

// readLogState reads this instance's delivery mark: the larger of its row's
// and its newest entry's (a commit that appends entries carries the mark in
// them, to write no row of its own). The entries of a file from before
// instances were kept are the first instance's: register gave it the
// file's mark. A tool keeps the file's mark (Open read it).
func (s *Store) readLogState() error {
	if s.instance != "" {
		var inEntry, inRow sql.NullInt64
		if err := s.conn.QueryRowContext(s.ctx, "SELECT published FROM instances WHERE name = ?", s.instance).Scan(&inRow); err != nil {
			return fmt.Errorf("read the delivery mark of instance %s: %w", s.instance, describe(err))
		}
		// Only entries past the row's mark can carry a newer one.
		err := s.conn.QueryRowContext(s.ctx, "SELECT published FROM events WHERE origin = ? AND seq > ? ORDER BY seq DESC LIMIT 1",
			s.instance, inRow.Int64).Scan(&inEntry)
		if err != nil && err != sql.ErrNoRows {
			return describe(err)
		}
		s.published = uint64(max(inEntry.Int64, inRow.Int64))
	}
	s.ownSeq.Store(s.lastSeq)
	if s.published > s.lastSeq {
		return fmt.Errorf("the publication mark (%d) is past the newest event (%d); the database was edited or damaged", s.published, s.lastSeq)
	}
	return nil
}

// legacyMark is the delivery mark of a file from before instances were
// kept: the larger of meta's and the newest entry's.
func (s *Store) legacyMark() (uint64, error) {
	var inEntry, inMeta sql.NullInt64
	err := s.conn.QueryRowContext(s.ctx, "SELECT published FROM events ORDER BY seq DESC LIMIT 1").Scan(&inEntry)
	if err != nil && err != sql.ErrNoRows {
		return 0, describe(err)
	}
	if err := s.conn.QueryRowContext(s.ctx, "SELECT v FROM meta WHERE k = 'published_seq'").Scan(&inMeta); err != nil {
		return 0, fmt.Errorf("read the publication mark: %w", describe(err))
	}
	return uint64(max(inEntry.Int64, inMeta.Int64)), nil
}

// ReadEvents streams log entries after seq after, on a read connection.
func (s *Store) ReadEvents(after uint64, limit int, fn func(market.EventRow) error) (int, error) {
	if s.isClosed() {
		return 0, errClosed
	}
	return readEvents(s.ctx, s.readers, after, limit, fn)
}

// readEvents streams what q sees of the log, as Store.ReadEvents documents.
func readEvents(ctx context.Context, q queryer, after uint64, limit int, fn func(market.EventRow) error) (int, error) {
	n := 0
	err := each(ctx, q, "SELECT seq, kind, at, body, origin FROM events WHERE seq > ? ORDER BY seq LIMIT ?", func(r *sql.Rows) error {
		var e market.EventRow
		var seq int64
		var kind string
		if err := r.Scan(&seq, &kind, &e.At, (*sql.RawBytes)(&e.Body), &e.Origin); err != nil {
			return err
		}
		e.Seq, e.Kind = uint64(seq), market.EventKind(kind)
		n++
		return fn(e)
	}, int64(after), limit)
	return n, err
}

package sqlite

import (
	"context"
	"database/sql"
	"fmt"

	"github.com/rynek/rynek/market"
)

// readLogState reads the newest seq of the log and the publication mark:
// the larger of meta's and the newest entry's.
func (s *Store) readLogState() error {
	var last, inEntry, inMeta sql.NullInt64
	err := s.conn.QueryRowContext(s.ctx, "SELECT seq, published FROM events ORDER BY seq DESC LIMIT 1").Scan(&last, &inEntry)
	if err != nil && err != sql.ErrNoRows {
		return describe(err)
	}
	if err := s.conn.QueryRowContext(s.ctx, "SELECT v FROM meta WHERE k = 'published_seq'").Scan(&inMeta); err != nil {
		return fmt.Errorf("read the publication mark: %w", describe(err))
	}
	s.lastSeq, s.published = uint64(last.Int64), uint64(max(inEntry.Int64, inMeta.Int64))
	if s.published > s.lastSeq {
		return fmt.Errorf("the publication mark (%d) is past the newest event (%d); the database was edited or damaged", s.published, s.lastSeq)
	}
	return nil
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
	err := each(ctx, q, "SELECT seq, kind, at, body FROM events WHERE seq > ? ORDER BY seq LIMIT ?", func(r *sql.Rows) error {
		var e market.EventRow
		var seq int64
		var kind string
		if err := r.Scan(&seq, &kind, &e.At, (*sql.RawBytes)(&e.Body)); err != nil {
			return err
		}
		e.Seq, e.Kind = uint64(seq), market.EventKind(kind)
		n++
		return fn(e)
	}, int64(after), limit)
	return n, err
}

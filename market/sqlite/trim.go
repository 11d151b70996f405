package sqlite

import (
	"database/sql"
	"fmt"

	"github.com/rynek/rynek/market"
)

// TrimEvents deletes the prefix of the log that t allows, in one
// transaction.
func (s *Store) TrimEvents(t market.EventTrim) (uint64, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.writerFree(); err != nil {
		return 0, err
	}
	below, err := keepUnread(s, t)
	if err != nil {
		return 0, err
	}
	var through, newest int64
	err = each(s.ctx, s.conn, "SELECT seq, at FROM events ORDER BY seq LIMIT ?", func(r *sql.Rows) error {
		var seq, at int64
		if err := r.Scan(&seq, &at); err != nil {
			return err
		}
		if uint64(seq) >= below || uint64(seq) >= s.lastSeq || (uint64(seq) > t.ThroughSeq && at >= t.OlderThan) {
			return errStop
		}
		through, newest = seq, max(newest, at)
		return nil
	}, max(t.Limit, 1))
	if err != nil && err != errStop {
		return 0, err
	}
	if through > 0 {
		if err := s.inTx(func() error {
			if _, err := s.conn.ExecContext(s.ctx, "DELETE FROM events WHERE seq <= ?", through); err != nil {
				return describe(err)
			}
			// The horizon, so that a check tells the trimmed prefix from
			// an entry deleted by hand (a file from before it was kept
			// gets the row when the service records the opening account).
			if _, err := s.conn.ExecContext(s.ctx, `UPDATE meta SET v = max(v, CASE k WHEN 'log_trimmed' THEN ?1 ELSE ?2 END)
				WHERE k IN ('log_trimmed', 'log_trimmed_at')`, through, newest); err != nil {
				return describe(err)
			}
			return nil
		}); err != nil {
			return 0, fmt.Errorf("trim the event log: %w", err)
		}
	}
	var first sql.NullInt64
	if err := s.conn.QueryRowContext(s.ctx, "SELECT min(seq) FROM events").Scan(&first); err != nil {
		return 0, describe(err)
	}
	return uint64(first.Int64), nil
}

// keepUnread is t.Below lowered so that the entries a bookmark has not
// taken stay, except those at or under t.UnreadCap, and so that those an
// instance that has the file open has not delivered stay (one that is gone
// holds nothing back: its listeners get what the retention kept).
func keepUnread(s *Store, t market.EventTrim) (uint64, error) {
	below := t.Below
	err := each(s.ctx, s.conn, "SELECT slot, published FROM instances WHERE slot >= 0 AND name <> ?", func(r *sql.Rows) error {
		var slot, published int64
		if err := r.Scan(&slot, &published); err != nil {
			return err
		}
		if live, err := rangeHeld(s.lock, firstSlot+slot); err != nil || !live {
			return err
		}
		below = min(below, uint64(published)+1)
		return nil
	}, s.instance)
	if err != nil {
		return 0, fmt.Errorf("read the instances' delivery marks: %w", err)
	}
	t.Below = below
	var lowest sql.NullInt64
	if err := s.conn.QueryRowContext(s.ctx, "SELECT min(seq) FROM bookmarks").Scan(&lowest); err != nil {
		return 0, fmt.Errorf("read the bookmarks: %w", describe(err))
	}
	if !lowest.Valid {
		return t.Below, nil
	}
	return min(t.Below, max(uint64(lowest.Int64), t.UnreadCap)+1), nil
}

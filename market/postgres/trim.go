package postgres

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"
	"github.com/rynek/rynek/market"
)

// TrimEvents deletes the prefix of the log that t allows, in one
// transaction, and returns the oldest seq left.
func (s *Store) TrimEvents(t market.EventTrim) (uint64, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.writerFree(); err != nil {
		return 0, err
	}
	if err := s.ready(); err != nil {
		return 0, err
	}
	// On the main thread, a batch a tick: bounded as a commit is. A trim
	// cut short deletes nothing, or a prefix it may delete again.
	ctx, cancel := context.WithTimeout(s.ctx, commitTimeout)
	defer cancel()
	var first int64
	err := pgx.BeginFunc(ctx, s.conn, func(tx pgx.Tx) error {
		// A prefix of the log: the oldest entries up to the first one that
		// t keeps. The newest entry is never deleted: it carries the log's
		// position for anyone who reads the log after a trim. Nor is an
		// entry some instance has not delivered yet: each one follows the
		// log from its own mark on (an instance that no longer runs holds
		// the log until its row in rynek_instances is deleted).
		var lowest int64
		if err := tx.QueryRow(ctx, `SELECT coalesce(min(published), 0) FROM rynek_instances`).Scan(&lowest); err != nil {
			return err
		}
		below := min(t.Below, uint64(lowest)+1)
		// Nor, up to the cap, one a bookmark has not taken yet.
		var unread *int64
		if err := tx.QueryRow(ctx, `SELECT min(seq) FROM bookmarks`).Scan(&unread); err != nil {
			return err
		}
		if unread != nil {
			below = min(below, max(uint64(*unread), t.UnreadCap)+1)
		}
		rows, err := tx.Query(ctx, `SELECT e.seq, e.at, c.last_seq FROM events e, event_counter c ORDER BY e.seq LIMIT $1`, max(t.Limit, 1))
		if err != nil {
			return err
		}
		var through, newest int64
		for rows.Next() {
			var seq, at, last int64
			if err := rows.Scan(&seq, &at, &last); err != nil {
				rows.Close()
				return err
			}
			if uint64(seq) >= below || seq >= last || (uint64(seq) > t.ThroughSeq && at >= t.OlderThan) {
				break
			}
			through, newest = seq, max(newest, at)
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return err
		}
		if through > 0 {
			if _, err := tx.Exec(ctx, "DELETE FROM events WHERE seq <= $1", through); err != nil {
				return err
			}
			// The horizon, so that a check tells the trimmed prefix from
			// an entry deleted by hand.
			if _, err := tx.Exec(ctx, `UPDATE meta SET v = greatest(v, CASE k WHEN 'log_trimmed' THEN $1::bigint ELSE $2::bigint END)
				WHERE k IN ('log_trimmed', 'log_trimmed_at')`, through, newest); err != nil {
				return err
			}
		}
		return tx.QueryRow(ctx, "SELECT coalesce(min(seq), 0) FROM events").Scan(&first)
	})
	if err != nil {
		if ctx.Err() != nil {
			drop(s.conn)
		}
		return 0, fmt.Errorf("trim the event log: %w", linkError(err))
	}
	return uint64(first), nil
}

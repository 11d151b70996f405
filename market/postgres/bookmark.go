package postgres

import (
	"context"
	"fmt"
	"time"

	"github.com/rynek/rynek/market"
)

// nowMs is the database server's clock in unix ms: every instance measures
// the leases by it, whatever its own clock says.
const nowMs = `(extract(epoch from clock_timestamp()) * 1000)::bigint`

// HoldBookmark writes a named reader's position and lease in one conditional
// upsert (market.Store documents it) and reads the bookmark back.
func (s *Store) HoldBookmark(h market.BookmarkHold) (market.Bookmark, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.writerFree(); err != nil {
		return market.Bookmark{}, err
	}
	if err := s.ready(); err != nil {
		return market.Bookmark{}, err
	}
	ctx, cancel := context.WithTimeout(s.ctx, commitTimeout)
	defer cancel()
	_, err := s.conn.Exec(ctx, `INSERT INTO bookmarks (name, seq, holder, until) VALUES ($1, $5, $3, `+nowMs+` + $4)
		ON CONFLICT (name) DO UPDATE SET seq = greatest(bookmarks.seq, $2), holder = excluded.holder, until = excluded.until
		WHERE bookmarks.holder = excluded.holder OR bookmarks.until <= `+nowMs,
		h.Name, int64(h.Through), h.Holder, h.For.Milliseconds(), int64(max(h.Start, h.Through)))
	c := market.Bookmark{Name: h.Name}
	var seq, until int64
	if err == nil {
		err = s.conn.QueryRow(ctx, `SELECT seq, holder, until, holder = $2 AND until > `+nowMs+` FROM bookmarks WHERE name = $1`,
			h.Name, h.Holder).Scan(&seq, &c.Holder, &until, &c.Held)
	}
	if err != nil {
		if ctx.Err() != nil {
			drop(s.conn)
		}
		return market.Bookmark{}, fmt.Errorf("hold bookmark %s: %w", h.Name, linkError(err))
	}
	c.Seq, c.Until = uint64(seq), time.UnixMilli(until)
	return c, nil
}

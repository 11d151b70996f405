package sqlite

import (
	"fmt"
	"time"

	"github.com/rynek/rynek/market"
)

// HoldBookmark writes a named reader's position and lease in one conditional
// upsert (market.Store documents it) and reads the bookmark back. A market
// file has one writer process, so the lease only matters to the holders
// within it; it is kept alike for the contract's sake.
func (s *Store) HoldBookmark(h market.BookmarkHold) (market.Bookmark, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.writerFree(); err != nil {
		return market.Bookmark{}, err
	}
	now := time.Now().UnixMilli()
	_, err := s.conn.ExecContext(s.ctx, `INSERT INTO bookmarks (name, seq, holder, until) VALUES (?1, ?6, ?3, ?4)
		ON CONFLICT (name) DO UPDATE SET seq = max(seq, ?2), holder = excluded.holder, until = excluded.until
		WHERE holder = excluded.holder OR until <= ?5`,
		h.Name, int64(h.Through), h.Holder, now+h.For.Milliseconds(), now, int64(max(h.Start, h.Through)))
	if err != nil {
		return market.Bookmark{}, fmt.Errorf("hold bookmark %s: %w", h.Name, describe(err))
	}
	c := market.Bookmark{Name: h.Name}
	var seq, until int64
	if err := s.conn.QueryRowContext(s.ctx, "SELECT seq, holder, until FROM bookmarks WHERE name = ?", h.Name).Scan(&seq, &c.Holder, &until); err != nil {
		return market.Bookmark{}, fmt.Errorf("read bookmark %s: %w", h.Name, describe(err))
	}
	c.Seq, c.Until = uint64(seq), time.UnixMilli(until)
	c.Held = c.Holder == h.Holder && until > now
	return c, nil
}

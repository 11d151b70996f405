package sqlite

import (
	"fmt"
	"os"
	"time"
)

// checkpointEvery is how often the store's goroutine copies the WAL back
// into the database file. A passive checkpoint never blocks the writer, and
// keeping the un-copied tail short keeps the writer's page lookups cheap
// (SQLite searches the WAL's index only for frames not yet copied back).
var checkpointEvery = 200 * time.Millisecond

// walRestartAt is the WAL size past which the goroutine also restarts the
// WAL from its beginning. Under a steady stream of commits a passive
// checkpoint never catches the last frame, and only a writer that starts
// when everything is copied back rewinds the WAL, so the file would grow
// without bound. The restart waits for the writer's current transaction
// and holds the next one back while it copies the short tail the passive
// checkpoints left: a pause of milliseconds, once per this many bytes.
var walRestartAt int64 = 64 << 20

// restartWait bounds how long the restart waits for the writer's current
// transaction (and for a reader that began since the passive checkpoint),
// holding the next commit back; it tries again at the next tick.
const restartWait = 100 // ms

func (s *Store) checkpoints() {
	defer close(s.checkpointsDone)
	t := time.NewTicker(checkpointEvery)
	defer t.Stop()
	wal := s.path + "-wal"
	lastCopied := 0 // frames the last passive checkpoint had copied
	for {
		select {
		case <-s.stopCheckpoints:
			return
		case <-t.C:
			// A failure (the disk, say) shows at the next commit; the WAL
			// keeps every change meanwhile.
			var busy, frames, copied int
			if err := s.readers.QueryRowContext(s.ctx, "PRAGMA wal_checkpoint(PASSIVE)").Scan(&busy, &frames, &copied); err != nil {
				continue
			}
			// A passive checkpoint copies what no reader still reads
			// from the WAL. When it could copy nothing more since the
			// last one, a reader of an older instant holds the rest (a
			// backup, an integrity check, another process's snapshot):
			// the restart would wait for that reader and hold every
			// commit back meanwhile (for as long as a large market's
			// check takes; a commit is refused as busy after five
			// seconds). It waits for the reader to end instead, and the
			// WAL grows meanwhile. So it does while a data load's open
			// transaction fills it (bulk.go): the restart would only wait
			// for it.
			held := copied < frames && copied <= lastCopied
			lastCopied = copied
			if fi, err := os.Stat(wal); err == nil && fi.Size() > walRestartAt && !held && !s.loading() {
				s.restartWAL()
			}
		}
	}
}

// restartWAL copies the rest of the WAL back and starts it over, waiting
// at most restartWait for the transactions in its way.
func (s *Store) restartWAL() {
	conn, err := s.readers.Conn(s.ctx)
	if err != nil {
		return
	}
	defer conn.Close()
	conn.ExecContext(s.ctx, fmt.Sprintf("PRAGMA busy_timeout = %d", restartWait))
	conn.ExecContext(s.ctx, "PRAGMA wal_checkpoint(TRUNCATE)")
	conn.ExecContext(s.ctx, "PRAGMA busy_timeout = 5000") // the readers' own
}

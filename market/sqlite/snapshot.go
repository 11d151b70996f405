package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io"
	"net/url"
	"os"
	"path/filepath"

	"github.com/rynek/rynek/market"
)

// Snapshot is a market file read at one instant and never written: one read
// transaction holds the instant from the first read to Close, so a market
// another process has open and commits to reads as it was when the snapshot
// began, and that process goes on undisturbed (in WAL mode a reader never
// blocks the writer). Nothing is written to the file, not even the flock
// that Open takes, and a file on read-only media reads too.
type Snapshot struct {
	path string
	db   *sql.DB
	conn *sql.Conn
	ctx  context.Context
	// lock is an exclusive flock, held while the file is read as immutable
	// (on read-only media): no Rynek process opens it meanwhile.
	lock *os.File
	// log is the newest seq and the publication mark as the snapshot sees
	// them.
	log market.MetaRow
}

var _ market.Snapshot = (*Snapshot)(nil)

// OpenSnapshot opens the market file at path to be read. A missing file, a
// file that is not a Rynek market, and a market of another schema version
// than this program's (an older one is upgraded by opening it with Rynek
// once) are refused; nothing is created or changed either way.
func OpenSnapshot(path string) (*Snapshot, error) {
	fi, err := os.Stat(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, fmt.Errorf("no market at %s: %w", path, os.ErrNotExist)
	}
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("read %s: not a market database file", path)
	}
	if err := checkHeader(path); err != nil {
		return nil, err
	}
	if _, err := os.Stat(legacyLogPath(path)); err == nil {
		return nil, fmt.Errorf("read %s: it still has a change log of an older Rynek (%s); open the market once with this version, which replays it", path, legacyLogPath(path))
	}
	s := &Snapshot{path: path, ctx: context.Background()}
	dsn, err := s.dsn()
	if err != nil {
		return nil, err
	}
	if err := s.open(dsn); err != nil {
		s.Close()
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	return s, nil
}

// dsn chooses how to open the file without writing it. SQLite reads a WAL
// file through its -shm index, which it creates when it is missing:
//   - with a -wal file beside it (another process has the market open, or
//     one crashed with it open), read-only mode reads it through the -wal
//     and -shm as they are;
//   - a file nothing could write (its folder or itself not writable: read-
//     only media) without a -wal file has every change in the file itself
//     and is read as immutable, without the index, under an exclusive flock
//     that keeps Rynek from opening it meanwhile;
//   - otherwise a connection that runs no writing statement (query_only)
//     makes the index and, as the last to close, removes it again, leaving
//     the folder as it found it.
func (s *Snapshot) dsn() (string, error) {
	q := url.Values{}
	q.Add("_pragma", "busy_timeout(5000)")
	_, err := os.Stat(s.path + "-wal")
	switch {
	case err == nil:
		q.Add("mode", "ro")
	case !writable(filepath.Dir(s.path)) || !writable(s.path):
		lock, err := readAloneLock(s.path)
		if err != nil {
			return "", err
		}
		s.lock = lock
		q.Add("mode", "ro")
		q.Add("immutable", "1")
	default:
		q.Add("_pragma", "query_only(1)")
	}
	return "file:" + (&url.URL{Path: s.path}).EscapedPath() + "?" + q.Encode(), nil
}

func (s *Snapshot) open(dsn string) error {
	var err error
	if s.db, err = sql.Open("sqlite", dsn); err != nil {
		return err
	}
	s.db.SetMaxOpenConns(1)
	if s.conn, err = s.db.Conn(s.ctx); err != nil {
		return describe(err)
	}
	app, ver, err := readSchema(s.ctx, s.conn)
	if err != nil {
		return err
	}
	switch {
	case app != applicationID:
		return fmt.Errorf("%w: application_id is %#x", ErrForeign, app)
	case ver > SchemaVersion:
		return fmt.Errorf("the database has schema version %d, newer than this program's %d; use a newer Rynek", ver, SchemaVersion)
	case ver < SchemaVersion:
		return fmt.Errorf("the database has schema version %d, older than this program's %d; open it once with this Rynek, which upgrades it", ver, SchemaVersion)
	}
	// The read transaction begins with its first read and holds that
	// instant until it ends.
	if _, err := s.conn.ExecContext(s.ctx, "BEGIN DEFERRED"); err != nil {
		return describe(err)
	}
	var last, inEntry, inMeta, inRows sql.NullInt64
	err = s.conn.QueryRowContext(s.ctx, "SELECT seq, published FROM events ORDER BY seq DESC LIMIT 1").Scan(&last, &inEntry)
	if err != nil && err != sql.ErrNoRows {
		return describe(err)
	}
	if err := s.conn.QueryRowContext(s.ctx, "SELECT v FROM meta WHERE k = 'published_seq'").Scan(&inMeta); err != nil && err != sql.ErrNoRows {
		return describe(err)
	}
	if err := s.conn.QueryRowContext(s.ctx, "SELECT max(published) FROM instances").Scan(&inRows); err != nil {
		return describe(err)
	}
	s.log = market.MetaRow{LastSeq: uint64(last.Int64), PublishedSeq: uint64(max(inEntry.Int64, inMeta.Int64, inRows.Int64))}
	return nil
}

// Describe names the market: its file.
func (s *Snapshot) Describe() string { return s.path + " (SQLite)" }

// Load streams every row of the snapshot to l, as Store.Load does.
func (s *Snapshot) Load(l market.Loader) error { return load(s.ctx, s.conn, l, s.log) }

// LoadHistory streams finished transactions of the snapshot, as
// Store.LoadHistory does.
func (s *Snapshot) LoadHistory(after [16]byte, limit int, fn func(market.TxRow) error) (int, error) {
	return loadHistory(s.ctx, s.conn, after, limit, fn)
}

// ReadEvents streams log entries of the snapshot, as Store.ReadEvents does.
func (s *Snapshot) ReadEvents(after uint64, limit int, fn func(market.EventRow) error) (int, error) {
	return readEvents(s.ctx, s.conn, after, limit, fn)
}

// Close ends the read transaction and lets go of the file.
func (s *Snapshot) Close() error {
	var err error
	if s.conn != nil {
		s.conn.ExecContext(s.ctx, "ROLLBACK") // a read: nothing to undo
		err = s.conn.Close()
		s.conn = nil
	}
	if s.db != nil {
		if cerr := s.db.Close(); err == nil {
			err = cerr
		}
		s.db = nil
	}
	if s.lock != nil {
		s.lock.Close()
		s.lock = nil
	}
	return err
}

// checkHeader refuses a file that does not start with the SQLite header,
// without creating or changing anything.
func checkHeader(path string) error {
	f, err := os.Open(path)
	if err != nil {
		return fmt.Errorf("read %s: %w", path, err)
	}
	defer f.Close()
	head := make([]byte, 16)
	if _, err := io.ReadFull(f, head); err != nil || string(head) != "SQLite format 3\x00" {
		if errors.Is(err, io.EOF) {
			return fmt.Errorf("%s: %w: the file is empty", path, ErrForeign)
		}
		return fmt.Errorf("%s: %w: the file is not an SQLite database", path, ErrForeign)
	}
	return nil
}

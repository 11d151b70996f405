package sqlite

import (
	"bytes"
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

// Options tune the store.
type Options struct {
	// Sync makes every commit wait for an fsync (synchronous=FULL): durable
	// against power loss, not only process crashes.
	Sync bool
	// Instance is this instance's name among those that have the file open
	// (instance.go); "" takes Command's, numbered while a live instance has it.
	Instance string
	// Command is what this process runs ("serve", "console"), which the
	// other instances show.
	Command string
	// Tool opens the file as a tool (an import): not an instance, with no
	// name, no delivery mark and no duty.
	Tool bool
}

// Open opens or creates the market database at path. A new file is created
// with mode 0600 (it holds players' balances). A file that is not SQLite, or
// is SQLite but not Rynek's, or is from a newer schema, is refused with an
// error: it is never reset or overwritten. A market on a network filesystem
// is refused before anything is created (checkFilesystem). A market that
// other Rynek processes have open is joined, as another instance of it
// (instance.go), on Linux; elsewhere it is refused.
func Open(path string, opts Options) (*Store, error) {
	if err := checkFilesystem(path); err != nil {
		return nil, err
	}
	if err := checkFile(path); err != nil {
		return nil, err
	}
	lock, err := lockFile(path)
	if err != nil {
		return nil, err
	}
	s := &Store{path: path, lock: lock, ctx: context.Background(), stmts: map[market.OpKind]*sql.Stmt{}}
	if err := s.open(opts); err != nil {
		s.closeDB()
		return nil, fmt.Errorf("open %s: %w", path, err)
	}
	s.stopCheckpoints = make(chan struct{})
	s.checkpointsDone = make(chan struct{})
	go s.checkpoints()
	return s, nil
}

func (s *Store) open(opts Options) error {
	var err error
	if s.db, err = sql.Open("sqlite", DSN(s.path, opts)); err != nil {
		return err
	}
	s.db.SetMaxOpenConns(1)
	if s.conn, err = s.db.Conn(s.ctx); err != nil {
		return describe(err)
	}
	if err := s.init(); err != nil {
		return err
	}
	if err := s.prepare(); err != nil {
		return err
	}
	if err := s.replayLegacyLog(); err != nil {
		return err
	}
	if s.readers, err = sql.Open("sqlite", readerDSN(s.path)); err != nil {
		return err
	}
	s.readers.SetMaxOpenConns(5) // one is WaitEvents' watch
	s.readers.SetMaxIdleConns(3)
	if err := s.selectLast.QueryRow().Scan(&s.lastSeq); err != nil {
		return fmt.Errorf("read the log's end: %w", describe(err))
	}
	if s.published, err = s.legacyMark(); err != nil {
		return err
	}
	if !opts.Tool {
		if err := s.register(opts); err != nil {
			return err
		}
		s.watchMu.Lock()
		s.tryDuty()
		s.watchMu.Unlock()
	}
	return s.readLogState()
}

// DSN is the driver connection string the store's writer opens path with:
// the pragmas every commit runs under. Exported so that a benchmark can
// measure a raw SQLite commit under exactly the same settings.
//
// wal_autocheckpoint is off: a checkpoint would otherwise run inside the
// commit that crosses the threshold, on the main thread; the store's own
// goroutine checkpoints instead (checkpoints).
func DSN(path string, opts Options) string {
	sync := "NORMAL"
	if opts.Sync {
		sync = "FULL"
	}
	q := url.Values{}
	q.Add("_pragma", "busy_timeout(5000)")
	q.Add("_pragma", "journal_mode(WAL)")
	q.Add("_pragma", "synchronous("+sync+")")
	q.Add("_pragma", "foreign_keys(OFF)")
	q.Add("_pragma", "cache_size(-65536)")
	q.Add("_pragma", "wal_autocheckpoint(0)")
	q.Add("_pragma", "journal_size_limit(67108864)")
	q.Add("_txlock", "immediate")
	return "file:" + (&url.URL{Path: path}).EscapedPath() + "?" + q.Encode()
}

// readerDSN is for the read connections: they never write.
func readerDSN(path string) string {
	q := url.Values{}
	q.Add("_pragma", "busy_timeout(5000)")
	q.Add("_pragma", "query_only(1)")
	q.Add("_pragma", "cache_size(-16384)")
	return "file:" + (&url.URL{Path: path}).EscapedPath() + "?" + q.Encode()
}

// backupDSN is for a backup's connection: it reads the market and writes
// only the copy.
func backupDSN(path string) string {
	q := url.Values{}
	q.Add("_pragma", "busy_timeout(5000)")
	return "file:" + (&url.URL{Path: path}).EscapedPath() + "?" + q.Encode()
}

// checkFile creates a missing file with mode 0600 and refuses a path that is
// not a regular file, or a non-empty file that does not start with the
// SQLite header.
func checkFile(path string) error {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o600)
	if err == nil {
		return f.Close()
	}
	if !errors.Is(err, os.ErrExist) {
		return fmt.Errorf("create %s: %w", path, err)
	}
	if fi, err := os.Stat(path); err == nil && !fi.Mode().IsRegular() {
		return fmt.Errorf("%s is a directory, not a market database file", path)
	}
	f, err = os.Open(path)
	if err != nil {
		return fmt.Errorf("open %s: %w", path, err)
	}
	defer f.Close()
	head := make([]byte, 16)
	n, err := io.ReadFull(f, head)
	if n == 0 && (err == io.EOF || err == io.ErrUnexpectedEOF) {
		return nil // empty file: a new database
	}
	if err != nil && err != io.ErrUnexpectedEOF {
		return fmt.Errorf("read %s: %w", path, err)
	}
	if !bytes.Equal(head[:n], []byte("SQLite format 3\x00")[:n]) || n < 16 {
		return fmt.Errorf("%s: %w: the file is not an SQLite database", path, ErrForeign)
	}
	return nil
}

// Close checkpoints the WAL into the database file, closes it and releases
// the file, so that a cleanly closed market is one file.
func (s *Store) Close() error {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return nil
	}
	s.closed = true
	s.mu.Unlock()
	close(s.stopCheckpoints)
	<-s.checkpointsDone
	// WaitEvents' connection, once its caller is out: it sees the store
	// closed (without mu, which closeDB holds) and waits its turn out.
	s.watchMu.Lock()
	if s.watch != nil {
		s.watch.Close()
		s.watch = nil
	}
	s.watchMu.Unlock()
	return s.closeDB()
}

// closeDB closes the statements and the connections, then the lock.
func (s *Store) closeDB() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	var err error
	if s.bulk != nil {
		s.bulk.end() // a load never finished: none of it stays
	}
	if s.readers != nil {
		err = s.readers.Close()
	}
	for _, st := range s.stmts {
		st.Close()
	}
	for _, st := range []*sql.Stmt{s.begin, s.commit, s.rollback, s.insertEvent, s.setPublished, s.selectLast} {
		if st != nil {
			st.Close()
		}
	}
	if s.conn != nil {
		if _, cerr := s.conn.ExecContext(s.ctx, "PRAGMA wal_checkpoint(TRUNCATE)"); cerr != nil && err == nil {
			err = describe(cerr)
		}
		s.conn.Close()
	}
	if s.db != nil {
		if cerr := s.db.Close(); err == nil {
			err = cerr
		}
	}
	if s.lock != nil {
		s.lock.Close() // after SQLite's own descriptors: see lockFile
	}
	return err
}

// DefaultFile returns $XDG_DATA_HOME/rynek/market.db, or
// ~/.local/share/rynek/market.db. It creates nothing: the directory is made
// (0700) by whoever creates the market in it, so that naming the default
// market (a check, an export, a start that fails) leaves no trace.
func DefaultFile() (string, error) {
	dir := os.Getenv("XDG_DATA_HOME")
	if dir == "" {
		home, err := os.UserHomeDir()
		if err != nil {
			return "", err
		}
		dir = filepath.Join(home, ".local", "share")
	}
	return filepath.Join(dir, "rynek", "market.db"), nil
}

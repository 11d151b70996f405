// Package sqlite is the market's embedded store: one SQLite file in WAL mode
// (modernc.org/sqlite, pure Go). It is the only package besides
// market/postgres that contains SQL.
//
// One database file is the whole market: its rows and its event log. Every
// Commit is one SQLite transaction holding the change's rows and its log
// entries, so the log can never disagree with the tables.
//
// Several processes on one machine share the file as instances of one
// market (instance.go: a market.SharedStore, as PostgreSQL's network is);
// a file on a network filesystem is refused. Inside the process the main
// thread writes through one connection; a pool of read connections
// serves what must not wait for it (the history load, the event log for
// followers, backups) and runs the WAL checkpoints, so the main thread never
// pays for a checkpoint.
//
// Durability: synchronous=NORMAL, so a committed change survives a crash or
// SIGKILL of the process; Options.Sync (synchronous=FULL) makes it survive
// power loss too, at the price of an fsync per commit.
//
// It implements the port that package market declares (market.Store), so
// the service never learns which store it runs on, and it imports market
// alone of this module: never the console, the HTTP API or anything else
// that sits above the service. Its files are named by role, as
// market/postgres's are: open, schema, commit, load, log, trim, bulk,
// snapshot; backup, checkpoint and legacylog are SQLite's own.
package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/rynek/rynek/market"
	_ "modernc.org/sqlite" // registers the "sqlite" driver
)

// Store is a market.Store on one SQLite file.
type Store struct {
	path    string
	lock    *os.File // holds the flock that keeps other processes out
	db      *sql.DB
	conn    *sql.Conn // the writer: Commit, BulkLoad, TrimEvents, Load
	readers *sql.DB   // reads that must not wait for the writer
	ctx     context.Context

	// mu serializes the writer connection and guards what follows.
	mu    sync.Mutex
	stmts map[market.OpKind]*sql.Stmt
	// Prepared once: parsing them on every transaction cost more than a
	// third of a sell.
	begin, commit, rollback, insertEvent, setPublished *sql.Stmt
	lastSeq, published                                 uint64
	closed                                             bool
	// selectLast reads the log's newest seq inside a commit's
	// transaction: another instance may have appended since.
	selectLast *sql.Stmt

	// The instance (instance.go): its name and slot, the duty, and what
	// WaitEvents watches with (watchMu guards watch and dataVersion).
	instance    string
	slot        int64
	duty        atomic.Bool
	dutyTried   time.Time
	watchMu     sync.Mutex
	watch       *sql.Conn
	dataVersion int64
	// ownSeq is the newest seq this instance wrote; othersWrote is set
	// when a commit found entries of others under its own.
	ownSeq      atomic.Uint64
	othersWrote atomic.Bool
	// bulk is the data load whose transaction is open on the writer, if
	// any (bulk.go): every other write waits for its end, refused.
	bulk *bulkTx

	stopCheckpoints chan struct{}
	checkpointsDone chan struct{}
}

var _ market.Store = (*Store)(nil)

// ErrForeign is returned when the file is not a Rynek market database.
var ErrForeign = errors.New("not a Rynek market database")

var errClosed = errors.New("the store is closed")

// describe turns the driver's terse corruption errors into advice.
func describe(err error) error {
	msg := err.Error()
	if strings.Contains(msg, "database is locked") {
		return fmt.Errorf("another process has this market open (%v); close it first", err)
	}
	if strings.Contains(msg, "not a database") || strings.Contains(msg, "malformed") || strings.Contains(msg, "corrupt") {
		return fmt.Errorf("the database file is corrupt (%v); restore it from a backup or move it aside to start an empty market", err)
	}
	return err
}

// Path returns the database file's path.
func (s *Store) Path() string { return s.path }

// writerFree refuses the writer's use when the store is closed or a data
// load holds it. mu must be held.
func (s *Store) writerFree() error {
	switch {
	case s.closed:
		return errClosed
	case s.bulk != nil:
		return market.ErrBulkOpen
	}
	return nil
}

func (s *Store) isClosed() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.closed
}

// Package postgres is the market's store on PostgreSQL (pgx), the shared
// store of record for a network of servers. It is the only package besides
// market/sqlite that contains SQL.
//
// Every Commit is one PostgreSQL transaction holding the change's rows and
// its log entries, sent as one pipeline: one round trip per commit. The
// checks that SQLite's store makes in Go after each statement (a conditional
// update matched its row) are made by the server here, by a function that
// raises an error when a statement affected other than one row; the error
// aborts the pipeline's transaction, so nothing of a refused batch is
// written.
//
// The log's seqs come from a counter row that each commit updates, which
// holds the row's lock until the commit: seq order is commit order and a
// rolled-back commit leaves no gap, so a follower reading "seq > n" never
// skips an entry that commits late (which a plain sequence would allow).
//
// Several instances share one market, each under a name of its own (a
// session advisory lock keeps two from using one name): every entry it
// writes carries its name as the origin, and it keeps its own mark of how far
// its listeners got. Each instance follows the others through the log
// (market.SharedStore): LISTEN/NOTIFY wakes it, a short poll is the safety
// net, and ReadRows gives it the rows an entry changed.
//
// It implements the ports that package market declares (market.Store and
// market.SharedStore), so the service never learns which store it runs on,
// and it imports market alone of this module: never the console, the HTTP
// API or anything else that sits above the service. Its files are named by
// role, as market/sqlite's are: open, schema, commit, load, log, trim, bulk,
// snapshot.
package postgres

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/rynek/rynek/market"
)

// ErrForeign is returned when the database holds tables that are not a
// Rynek market's.
var ErrForeign = errors.New("not a Rynek market database")

var errClosed = errors.New("the store is closed")

// Store is a market.Store on a PostgreSQL database.
type Store struct {
	ctx     context.Context
	readers *pgxpool.Pool // reads that must not wait for the writer

	// mu serializes the writer connection and guards what follows.
	mu     sync.Mutex
	cfg    *pgx.ConnConfig
	conn   *pgx.Conn   // the writer, which also holds the lock of the instance's name
	closed atomic.Bool // read without mu by WaitEvents, which Close waits for
	// lastSeq is the newest seq of this instance's own entries; after a
	// broken connection, an entry of its own past it says that the commit
	// in flight happened.
	lastSeq uint64
	// inFlight is the newest seq of a commit learnOutcome found committed.
	inFlight uint64
	// instance is this instance's name.
	instance string
	// name is the market as messages show it: no password.
	name string
	// tool is Options.Tool.
	tool bool

	// listener is the connection that waits for notifications (WaitEvents
	// runs on one goroutine at a time).
	listenMu sync.Mutex
	listener *pgx.Conn
	// suspect is set when the listener's connection breaks or cannot be
	// made: the writer's connection is then checked before the next commit.
	suspect atomic.Bool
	// duty is set while this instance holds dutyLock; dutyTried is when
	// it last tried to take it (the listener's goroutine's).
	duty      atomic.Bool
	dutyTried time.Time
	// doubt is the commit in flight when the link broke, until its outcome
	// is learnt (reach.go): every commit is refused meanwhile.
	doubt *doubt
	// lost is set when the log holds what no commit of this instance can
	// have written: memory may disagree with the store, so every later
	// commit is refused until the market is opened again (which loads the
	// truth). The name's lock makes it impossible.
	lost error
	// bulk is the data load whose transaction is open on the writer's
	// connection, if any (bulk.go): every other use of it is refused.
	bulk *bulkTx
}

var _ market.SharedStore = (*Store)(nil)

// Name is the market as messages may show it: user, server and database,
// without the password.
func (s *Store) Name() string { return "postgres://" + s.name }

// writerFree refuses the writer's connection when the store is closed or a
// data load holds it. mu must be held.
func (s *Store) writerFree() error {
	switch {
	case s.closed.Load():
		return errClosed
	case s.bulk != nil:
		return market.ErrBulkOpen
	}
	return nil
}

// Package sqlite is the market's embedded store: one SQLite file in WAL mode
// (modernc.org/sqlite, pure Go). It is the only package that contains SQL.
//
// The database is opened in exclusive locking mode: one process owns it,
// so a second console on the same file is refused ("database is locked")
// instead of racing the first, and no file locks are taken per commit.
//
// Durability: every Commit is one record appended to the change log
// (changelog.go) with one write system call; a goroutine writes the tables
// from it. A committed change survives a crash or SIGKILL of the process, as
// an SQLite commit with synchronous=NORMAL does. Surviving power loss as well
// needs Options.Sync: an fsync per commit (and synchronous=FULL for the
// tables), at a much lower write rate.
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
	"strings"
	"sync"

	"github.com/google/uuid"
	"github.com/rynek/rynek/market"
	_ "modernc.org/sqlite" // registers the "sqlite" driver
)

// applicationID marks a database as Rynek's ('RYNK'), so that Open refuses
// someone else's SQLite file instead of writing tables into it.
const applicationID = 0x52594E4B

// SchemaVersion is the version of the schema this package writes.
const SchemaVersion = 1

// Options tune the store.
type Options struct {
	// Sync makes every commit fsync the change log, and the tables use
	// synchronous=FULL: durable against power loss, not only process crashes.
	Sync bool
}

// Store is a market.Store on one SQLite file and its change log
// (changelog.go).
type Store struct {
	path  string
	db    *sql.DB
	conn  *sql.Conn
	stmts map[market.OpKind]*sql.Stmt
	// begin, commit and rollback are prepared once: parsing them on every
	// transaction cost more than a third of a sell.
	begin, commit, rollback, setApplied, txExists *sql.Stmt
	ctx                                           context.Context
	// mu serializes the one connection between the materializer, the
	// background history reader and Load.
	mu sync.Mutex

	// The change log. lmu guards everything below; lock order is lmu, then mu.
	lmu          sync.Mutex
	cond         *sync.Cond // on lmu: signalled after every materializer round
	sync         bool
	logPath      string
	logf         *os.File
	logID        uint64
	logSize      int64
	lastSeq      uint64     // last record appended
	appliedSeq   uint64     // last record in the tables
	pending      []logEntry // appended, not yet in the tables
	pendingBytes int
	spare        []logEntry // the materializer's other buffer
	work         chan struct{}
	matDone      chan struct{}
	matErr       error                // the materializer's last round failed; it retries
	logErr       error                // sticky: a failed append could not be cut back
	recentTx     map[uuid.UUID]uint64 // transactions inserted by records not yet applied
	maxTx        uuid.UUID            // the highest transaction id in the table or the log
	failApply    int                  // tests: fail this many materializer rounds (guarded by mu)
	matStopped   bool
	closed       bool
	shadow       *shadow // nil until Load or the first Commit builds it
	undo         []undoOp
}

var _ market.Store = (*Store)(nil)

// ErrForeign is returned when the file is not a Rynek market database.
var ErrForeign = errors.New("not a Rynek market database")

const schema = `
CREATE TABLE meta (k TEXT PRIMARY KEY, v INTEGER NOT NULL) WITHOUT ROWID;
-- players is a rowid table on purpose: a WITHOUT ROWID row lives in an index
-- b-tree, where a row over ~1000 bytes (a full inventory) spills to overflow
-- pages that SQLite then reads from the file on every update.
CREATE TABLE players (
	id BLOB NOT NULL UNIQUE, name TEXT NOT NULL, perms TEXT NOT NULL,
	balance INTEGER NOT NULL, last_sell INTEGER NOT NULL, inventory BLOB NOT NULL);
CREATE TABLE mail (
	id BLOB PRIMARY KEY, player BLOB NOT NULL, item BLOB NOT NULL, reason TEXT NOT NULL,
	created INTEGER NOT NULL, prev_price INTEGER NOT NULL) WITHOUT ROWID;
-- Listings and transactions keep their fields in one record each (encoded
-- by package market): the service reads them only at load, and the driver's
-- cost is per column read.
CREATE TABLE listings (id INTEGER PRIMARY KEY, rec BLOB NOT NULL);
CREATE TABLE transactions (id BLOB PRIMARY KEY, state TEXT NOT NULL, rec BLOB NOT NULL) WITHOUT ROWID;
-- Unfinished transactions are loaded before the market is ready (recovery
-- needs them); finished ones are history, loaded in the background.
CREATE INDEX transactions_open ON transactions (state) WHERE state NOT IN ('COMPLETED', 'FAILED', 'ROLLED_BACK');
INSERT INTO meta (k, v) VALUES ('next_listing_id', 1), ('fee_balance', 0), ('market_volume', 0), ('total_sales', 0);
`

var statements = map[market.OpKind]string{
	market.OpPutPlayer: `INSERT INTO players (id, name, perms, balance, last_sell, inventory) VALUES (?, ?, ?, ?, ?, ?)
		ON CONFLICT (id) DO UPDATE SET name = excluded.name, perms = excluded.perms,
		balance = excluded.balance, last_sell = excluded.last_sell, inventory = excluded.inventory`,
	market.OpPlayerState: `UPDATE players SET balance = ?, last_sell = ?, inventory = ? WHERE id = ?`,
	market.OpPutMail:     `INSERT INTO mail (id, player, item, reason, created, prev_price) VALUES (?, ?, ?, ?, ?, ?)`,
	market.OpDelMail:     `DELETE FROM mail WHERE id = ?`,
	market.OpPutListing:  `INSERT OR REPLACE INTO listings (id, rec) VALUES (?, ?)`,
	market.OpDelListing:  `DELETE FROM listings WHERE id = ?`,
	market.OpPutTx:       `INSERT INTO transactions (id, state, rec) VALUES (?, ?, ?)`,
	market.OpTxState:     `UPDATE transactions SET state = ?, rec = ? WHERE id = ? AND state = ?`,
	market.OpMeta: `INSERT INTO meta (k, v) VALUES ('next_listing_id', ?), ('fee_balance', ?), ('market_volume', ?), ('total_sales', ?)
		ON CONFLICT (k) DO UPDATE SET v = excluded.v`,
}

// Open opens or creates the market database at path. A new file is created
// with mode 0600 (it holds players' balances). A file that is not SQLite, or
// is SQLite but not Rynek's, or is from a newer schema, is refused with an
// error: it is never reset or overwritten.
func Open(path string, opts Options) (*Store, error) {
	if err := checkFile(path); err != nil {
		return nil, err
	}
	db, err := sql.Open("sqlite", DSN(path, opts))
	if err != nil {
		return nil, fmt.Errorf("open %s: %w", path, err)
	}
	db.SetMaxOpenConns(1)
	ctx := context.Background()
	conn, err := db.Conn(ctx)
	if err != nil {
		db.Close()
		return nil, fmt.Errorf("open %s: %w", path, describe(err))
	}
	s := &Store{path: path, db: db, conn: conn, ctx: ctx, stmts: map[market.OpKind]*sql.Stmt{},
		sync: opts.Sync, logPath: LogPath(path), work: make(chan struct{}, 1), matDone: make(chan struct{}),
		recentTx: map[uuid.UUID]uint64{}}
	s.cond = sync.NewCond(&s.lmu)
	if err := s.init(); err != nil {
		s.closeDB()
		return nil, fmt.Errorf("open %s: %w", path, err)
	}
	if err := s.openLog(); err != nil {
		if s.logf != nil {
			s.logf.Close()
		}
		s.closeDB()
		return nil, fmt.Errorf("open %s: %w", path, err)
	}
	go s.materialize()
	return s, nil
}

// DSN is the driver connection string the store opens path with: the
// pragmas every connection gets. Exported so that a benchmark can measure a
// raw SQLite commit under exactly the same settings.
func DSN(path string, opts Options) string {
	sync := "NORMAL"
	if opts.Sync {
		sync = "FULL"
	}
	q := url.Values{}
	// One process owns the file (exclusive locking); a second one should
	// hear so at once rather than after seconds of silence.
	q.Add("_pragma", "busy_timeout(250)")
	q.Add("_pragma", "locking_mode(EXCLUSIVE)")
	q.Add("_pragma", "journal_mode(WAL)")
	q.Add("_pragma", "synchronous("+sync+")")
	q.Add("_pragma", "foreign_keys(OFF)")
	q.Add("_pragma", "cache_size(-65536)")
	q.Add("_pragma", "wal_autocheckpoint(8192)")
	q.Add("_txlock", "immediate")
	return "file:" + (&url.URL{Path: path}).EscapedPath() + "?" + q.Encode()
}

// checkFile creates a missing file with mode 0600 and refuses a non-empty
// file that does not start with the SQLite header.
func checkFile(path string) error {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o600)
	if err == nil {
		return f.Close()
	}
	if !errors.Is(err, os.ErrExist) {
		return fmt.Errorf("create %s: %w", path, err)
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

func (s *Store) init() error {
	var app, ver int64
	if err := s.conn.QueryRowContext(s.ctx, "PRAGMA application_id").Scan(&app); err != nil {
		return describe(err)
	}
	if err := s.conn.QueryRowContext(s.ctx, "PRAGMA user_version").Scan(&ver); err != nil {
		return describe(err)
	}
	switch {
	case app == 0 && ver == 0:
		var tables int
		if err := s.conn.QueryRowContext(s.ctx, "SELECT count(*) FROM sqlite_master").Scan(&tables); err != nil {
			return describe(err)
		}
		if tables > 0 {
			return fmt.Errorf("%w: the SQLite file already holds %d other objects", ErrForeign, tables)
		}
		if err := s.exec("BEGIN IMMEDIATE"); err != nil {
			return err
		}
		if _, err := s.conn.ExecContext(s.ctx, schema); err != nil {
			s.exec("ROLLBACK")
			return fmt.Errorf("create schema: %w", err)
		}
		if err := s.exec(fmt.Sprintf("PRAGMA application_id = %d", applicationID)); err != nil {
			s.exec("ROLLBACK")
			return err
		}
		if err := s.exec(fmt.Sprintf("PRAGMA user_version = %d", SchemaVersion)); err != nil {
			s.exec("ROLLBACK")
			return err
		}
		if err := s.exec("COMMIT"); err != nil {
			return err
		}
	case app != applicationID:
		return fmt.Errorf("%w: application_id is %#x", ErrForeign, app)
	case ver > SchemaVersion:
		return fmt.Errorf("the database has schema version %d, newer than this program's %d; use a newer Rynek", ver, SchemaVersion)
	case ver < 1:
		return fmt.Errorf("the database has unknown schema version %d", ver)
	}
	var err error
	for _, p := range []struct {
		st **sql.Stmt
		q  string
	}{{&s.begin, "BEGIN IMMEDIATE"}, {&s.commit, "COMMIT"}, {&s.rollback, "ROLLBACK"},
		{&s.setApplied, "INSERT INTO meta (k, v) VALUES ('log_applied', ?) ON CONFLICT (k) DO UPDATE SET v = excluded.v"},
		{&s.txExists, "SELECT 1 FROM transactions WHERE id = ?"}} {
		if *p.st, err = s.conn.PrepareContext(s.ctx, p.q); err != nil {
			return fmt.Errorf("prepare: %w", describe(err))
		}
	}
	for kind, q := range statements {
		st, err := s.conn.PrepareContext(s.ctx, q)
		if err != nil {
			return fmt.Errorf("prepare: %w", describe(err))
		}
		s.stmts[kind] = st
	}
	return nil
}

func (s *Store) exec(q string) error {
	_, err := s.conn.ExecContext(s.ctx, q)
	return err
}

// Close waits for the materializer to write every committed change to the
// tables, closes the database and, when nothing is left in it, removes the
// change log, so that a cleanly closed market is one file.
func (s *Store) Close() error {
	s.lmu.Lock()
	if s.closed {
		s.lmu.Unlock()
		return nil
	}
	s.closed = true
	close(s.work)
	s.lmu.Unlock()
	<-s.matDone
	s.lmu.Lock()
	s.matStopped = true
	s.cond.Broadcast()
	err := s.matErr
	done := err == nil && s.appliedSeq == s.lastSeq
	s.lmu.Unlock()
	if cerr := s.closeDB(); err == nil {
		err = cerr
	} else {
		err = fmt.Errorf("%w; every committed change is kept in %s and is replayed on the next start", err, s.logPath)
	}
	if s.logf != nil {
		s.logf.Close()
		if done && err == nil {
			os.Remove(s.logPath)
		}
	}
	return err
}

func (s *Store) isClosed() bool {
	s.lmu.Lock()
	defer s.lmu.Unlock()
	return s.closed
}

// closeDB closes the statements and the connection.
func (s *Store) closeDB() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, st := range s.stmts {
		st.Close()
	}
	for _, st := range []*sql.Stmt{s.begin, s.commit, s.rollback, s.setApplied, s.txExists} {
		if st != nil {
			st.Close()
		}
	}
	if s.conn != nil {
		s.conn.Close()
	}
	return s.db.Close()
}

// Empty reports whether the market has no players yet (a new database, to
// be seeded).
func (s *Store) Empty() (bool, error) {
	if s.isClosed() {
		return false, errClosed
	}
	if err := s.Flush(); err != nil {
		return false, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	var n int
	if err := s.conn.QueryRowContext(s.ctx, "SELECT count(*) FROM players").Scan(&n); err != nil {
		return false, describe(err)
	}
	return n == 0, nil
}

// Path returns the database file's path.
func (s *Store) Path() string { return s.path }

// BulkLoad writes b straight to the tables in one transaction, after the
// change log has been written out; it is for seeding, not live mutations.
// The shadow is rebuilt on the next Commit.
func (s *Store) BulkLoad(b *market.Batch) error {
	s.lmu.Lock()
	defer s.lmu.Unlock()
	if err := s.drainLocked(); err != nil {
		return err
	}
	s.shadow = nil
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.inTx(func() error {
		for i := range b.Ops {
			if err := s.apply(&b.Ops[i]); err != nil {
				return err
			}
		}
		return nil
	}); err != nil {
		return err
	}
	for i := range b.Ops { // the batch may have inserted transactions
		if op := &b.Ops[i]; op.Kind == market.OpPutTx {
			s.noteTx(op.Tx.ID)
		}
	}
	return nil
}

func (s *Store) apply(op *market.Op) error {
	var res sql.Result
	var err error
	st := s.stmts[op.Kind]
	switch op.Kind {
	case market.OpPutPlayer:
		p := op.Player
		res, err = st.Exec(p.ID[:], p.Name, p.Perms, int64(p.Balance), p.LastSell, nonNil(p.Inventory))
	case market.OpPlayerState:
		p := op.Player
		res, err = st.Exec(int64(p.Balance), p.LastSell, nonNil(p.Inventory), p.ID[:])
	case market.OpPutMail:
		m := op.Mail
		_, err = st.Exec(m.ID[:], m.Player[:], m.Item, m.Reason, m.Created, int64(m.PrevPrice))
	case market.OpDelMail:
		res, err = st.Exec(op.Mail.ID[:])
	case market.OpPutListing:
		_, err = st.Exec(op.Listing.ID, nonNil(op.Listing.Rec))
	case market.OpDelListing:
		res, err = st.Exec(op.Int)
	case market.OpPutTx:
		t := op.Tx
		_, err = st.Exec(t.ID[:], string(t.State), nonNil(t.Rec))
	case market.OpTxState:
		t := op.Tx
		res, err = st.Exec(string(t.State), nonNil(t.Rec), t.ID[:], string(op.ExpectState))
	case market.OpMeta:
		m := op.Meta
		_, err = st.Exec(m.NextListingID, int64(m.FeeBalance), int64(m.Volume), m.Sales)
	default:
		return fmt.Errorf("unknown op kind %d", op.Kind)
	}
	if err != nil {
		return fmt.Errorf("op %d: %w", op.Kind, describe(err))
	}
	if res != nil {
		n, err := res.RowsAffected()
		if err != nil {
			return err
		}
		if n != 1 {
			if op.Kind == market.OpTxState {
				return market.ErrConflict
			}
			return fmt.Errorf("op %d matched %d rows, want 1: %w", op.Kind, n, market.ErrConflict)
		}
	}
	return nil
}

// nonNil keeps an empty blob from becoming NULL.
func nonNil(b []byte) []byte {
	if b == nil {
		return []byte{}
	}
	return b
}

// Load writes out the change log, then streams every row to l and builds
// the shadow that Commit checks batches against from the same rows. It must
// not run concurrently with Commit.
func (s *Store) Load(l market.Loader) error {
	s.lmu.Lock()
	defer s.lmu.Unlock()
	if err := s.drainLocked(); err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	sh, err := s.loadWithShadow(l)
	if err != nil {
		return err
	}
	s.shadow = sh
	return nil
}

// loadWithShadow streams every row to l and returns the shadow of their
// keys; the one definition of which rows the shadow holds. mu is held.
func (s *Store) loadWithShadow(l market.Loader) (*shadow, error) {
	sl := &shadowLoader{Loader: l, sh: newShadow()}
	if err := s.load(sl); err != nil {
		return nil, err
	}
	sl.sh.listings.AddMany(sl.ids)
	return sl.sh, nil
}

// shadowLoader passes rows on to the service's loader and notes their keys.
type shadowLoader struct {
	market.Loader
	sh  *shadow
	ids []uint64 // listing ids, added to the bitmap at once
}

func (sl *shadowLoader) Player(p market.PlayerRow) error {
	sl.sh.players[p.ID] = struct{}{}
	return sl.Loader.Player(p)
}

func (sl *shadowLoader) Mail(m market.MailRow) error {
	sl.sh.mail[m.ID] = struct{}{}
	return sl.Loader.Mail(m)
}

func (sl *shadowLoader) Listing(l market.ListingRow) error {
	sl.ids = append(sl.ids, uint64(l.ID))
	return sl.Loader.Listing(l)
}

func (sl *shadowLoader) Transaction(t market.TxRow) error {
	sl.sh.tx(t)
	return sl.Loader.Transaction(t)
}

func (s *Store) load(l market.Loader) error {
	var m market.MetaRow
	seen, counters := 0, 0
	rows, err := s.conn.QueryContext(s.ctx, "SELECT k, v FROM meta")
	if err != nil {
		return describe(err)
	}
	for rows.Next() {
		var k string
		var v int64
		if err := rows.Scan(&k, &v); err != nil {
			rows.Close()
			return describe(err)
		}
		switch k {
		case "next_listing_id":
			m.NextListingID = v
			seen++
		case "fee_balance":
			m.FeeBalance = market.Money(v)
			seen++
		case "market_volume":
			m.Volume = market.Money(v)
			counters++
		case "total_sales":
			m.Sales = v
			counters++
		}
	}
	if err := closeRows(rows); err != nil {
		return err
	}
	if seen != 2 {
		return fmt.Errorf("the meta table lacks its rows (%d of 2); the database was edited or damaged", seen)
	}
	m.HasCounters = counters == 2
	// Sizes for the service's tables. Transactions are counted only when all
	// of them load now: counting a million rows would cost more than the
	// few unfinished ones save.
	counts := []struct {
		q string
		n *int
	}{{"SELECT count(*) FROM listings", &m.Listings}}
	if !m.HasCounters {
		counts = append(counts, struct {
			q string
			n *int
		}{"SELECT count(*) FROM transactions", &m.Transactions})
	}
	for _, c := range counts {
		if err := s.conn.QueryRowContext(s.ctx, c.q).Scan(c.n); err != nil {
			return describe(err)
		}
	}
	if err := l.Meta(m); err != nil {
		return err
	}
	if err := s.each("SELECT id, name, perms, balance, last_sell, inventory FROM players ORDER BY name, id", func(r *sql.Rows) error {
		var p market.PlayerRow
		var id []byte
		var bal int64
		if err := r.Scan(&id, &p.Name, &p.Perms, &bal, &p.LastSell, (*sql.RawBytes)(&p.Inventory)); err != nil {
			return err
		}
		p.ID, p.Balance = toUUID(id), market.Money(bal)
		return l.Player(p)
	}); err != nil {
		return fmt.Errorf("players: %w", err)
	}
	if err := s.each("SELECT id, player, item, reason, created, prev_price FROM mail ORDER BY created, id", func(r *sql.Rows) error {
		var mr market.MailRow
		var id, pid sql.RawBytes
		var prev int64
		if err := r.Scan(&id, &pid, (*sql.RawBytes)(&mr.Item), &mr.Reason, &mr.Created, &prev); err != nil {
			return err
		}
		mr.ID, mr.Player, mr.PrevPrice = toUUID(id), toUUID(pid), market.Money(prev)
		return l.Mail(mr)
	}); err != nil {
		return fmt.Errorf("mail: %w", err)
	}
	if err := s.each("SELECT id, rec FROM listings", func(r *sql.Rows) error {
		var lr market.ListingRow
		if err := r.Scan(&lr.ID, (*sql.RawBytes)(&lr.Rec)); err != nil {
			return err
		}
		return l.Listing(lr)
	}); err != nil {
		return fmt.Errorf("listings: %w", err)
	}
	open := "SELECT id, state, rec FROM transactions"
	if m.HasCounters {
		// History loads later (LoadHistory); the partial index finds the rest.
		open += " WHERE state NOT IN ('COMPLETED', 'FAILED', 'ROLLED_BACK')"
	}
	if err := s.each(open, func(r *sql.Rows) error {
		var t market.TxRow
		var id sql.RawBytes
		var state string
		if err := r.Scan(&id, &state, (*sql.RawBytes)(&t.Rec)); err != nil {
			return err
		}
		t.ID, t.State = toUUID(id), market.State(state)
		return l.Transaction(t)
	}); err != nil {
		return fmt.Errorf("transactions: %w", err)
	}
	return nil
}

// LoadHistory streams finished transactions with ids above after.
//
// It does not wait for the change log: every finished transaction still in
// it was committed after Load, so the service has it in memory already, and
// reading the tables works while the materializer is failing.
func (s *Store) LoadHistory(after [16]byte, limit int, fn func(market.TxRow) error) (int, error) {
	if s.isClosed() {
		return 0, errClosed
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	n := 0
	err := s.each(`SELECT id, state, rec FROM transactions
		WHERE id > ? AND state IN ('COMPLETED', 'FAILED', 'ROLLED_BACK') ORDER BY id LIMIT ?`, func(r *sql.Rows) error {
		var t market.TxRow
		var id sql.RawBytes
		var state string
		if err := r.Scan(&id, &state, (*sql.RawBytes)(&t.Rec)); err != nil {
			return err
		}
		t.ID, t.State = toUUID(id), market.State(state)
		n++
		return fn(t)
	}, after[:], limit)
	return n, err
}

func (s *Store) each(q string, fn func(*sql.Rows) error, args ...any) error {
	rows, err := s.conn.QueryContext(s.ctx, q, args...)
	if err != nil {
		return describe(err)
	}
	for rows.Next() {
		if err := fn(rows); err != nil {
			rows.Close()
			return describe(err)
		}
	}
	return closeRows(rows)
}

func closeRows(r *sql.Rows) error {
	err := r.Err()
	if cerr := r.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return describe(err)
	}
	return nil
}

func toUUID(b []byte) uuid.UUID {
	var u uuid.UUID
	copy(u[:], b)
	return u
}

// DefaultPath returns $XDG_DATA_HOME/rynek/market.db, or
// ~/.local/share/rynek/market.db, creating the directory (0700).
func DefaultPath() (string, error) {
	dir := os.Getenv("XDG_DATA_HOME")
	if dir == "" {
		home, err := os.UserHomeDir()
		if err != nil {
			return "", err
		}
		dir = filepath.Join(home, ".local", "share")
	}
	dir = filepath.Join(dir, "rynek")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", err
	}
	return filepath.Join(dir, "market.db"), nil
}

// Package sqlite is the market's embedded store: one SQLite file in WAL mode
// (modernc.org/sqlite, pure Go). It is the only package besides
// market/postgres that contains SQL.
//
// One database file is the whole market: its rows and its event log. Every
// Commit is one SQLite transaction holding the change's rows and its log
// entries, so the log can never disagree with the tables.
//
// One process owns the file (an flock on it), so a second console on the
// same market is refused instead of racing the first. Inside the process the
// main thread writes through one connection; a pool of read connections
// serves what must not wait for it (the history load, the event log for
// followers, backups) and runs the WAL checkpoints, so the main thread never
// pays for a checkpoint.
//
// Durability: synchronous=NORMAL, so a committed change survives a crash or
// SIGKILL of the process; Options.Sync (synchronous=FULL) makes it survive
// power loss too, at the price of an fsync per commit.
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
	"time"

	"github.com/google/uuid"
	"github.com/rynek/rynek/market"
	_ "modernc.org/sqlite" // registers the "sqlite" driver
)

// applicationID marks a database as Rynek's ('RYNK'), so that Open refuses
// someone else's SQLite file instead of writing tables into it.
const applicationID = 0x52594E4B

// SchemaVersion is the version of the schema this package writes. Version 1
// had no event log, version 2 no player row versions; Open upgrades both in
// place.
const SchemaVersion = 4

// Options tune the store.
type Options struct {
	// Sync makes every commit wait for an fsync (synchronous=FULL): durable
	// against power loss, not only process crashes.
	Sync bool
}

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
INSERT INTO meta (k, v) VALUES ('next_listing_id', 1), ('fee_balance', 0), ('market_volume', 0), ('total_sales', 0),
	('opening_money', 0), ('opening_items', 0), ('loaded_through', 0), ('log_trimmed', 0), ('log_trimmed_at', 0);
`

// eventsSchema is what version 2 added: the event log, and how far its
// delivery to listeners got. seq is the rowid, so an append writes the
// rightmost leaf and reading a stretch is a range scan.
//
// The delivery mark rides in the log entry a batch appends anyway
// ('published': the mark as of that commit), so recording it costs no page
// of its own; a batch without entries writes it to meta. The mark is the
// larger of the two.
const eventsSchema = `
CREATE TABLE events (seq INTEGER PRIMARY KEY, kind TEXT NOT NULL, at INTEGER NOT NULL, body BLOB NOT NULL,
	published INTEGER NOT NULL);
INSERT INTO meta (k, v) VALUES ('published_seq', 0);
`

// versionSchema is what version 3 added: each player row counts its
// changes, so that instances sharing a market can tell which read of it is
// newer.
const versionSchema = `ALTER TABLE players ADD COLUMN version INTEGER NOT NULL DEFAULT 0;`

// extraSchema is what version 4 added: each player's own market data
// (favourites, price alerts, what they have read), one blob.
const extraSchema = `ALTER TABLE players ADD COLUMN extra BLOB NOT NULL DEFAULT x'';`

// statements write the ops. A conditional one matches its row or no row
// (apply turns that into market.ErrConflict); the player and counter
// updates return the row's new values.
var statements = map[market.OpKind]string{
	market.OpAddPlayer: `INSERT INTO players (id, name, perms, balance, last_sell, inventory, extra) VALUES (?, ?, ?, ?, ?, ?, ?)`,
	// ?1 delta, ?2 last sell, ?3 new inventory or NULL, ?4 id, ?5 the inventory it replaces,
	// ?6 new extra or NULL, ?7 the extra it replaces
	market.OpPlayerState: `UPDATE players SET balance = balance + ?1, last_sell = max(last_sell, ?2),
		inventory = coalesce(?3, inventory), extra = coalesce(?6, extra), version = version + 1
		WHERE id = ?4 AND (?1 >= 0 OR balance + ?1 >= 0) AND (?3 IS NULL OR inventory = ?5) AND (?6 IS NULL OR extra = ?7)
		RETURNING balance, version`,
	market.OpPutMail:      `INSERT INTO mail (id, player, item, reason, created, prev_price) VALUES (?, ?, ?, ?, ?, ?)`,
	market.OpDelMail:      `DELETE FROM mail WHERE id = ?`,
	market.OpAddListing:   `INSERT INTO listings (id, rec) VALUES (?, ?)`,
	market.OpListingState: `UPDATE listings SET rec = ? WHERE id = ? AND rec = ?`,
	market.OpDelListing:   `DELETE FROM listings WHERE id = ? AND rec = ?`,
	market.OpPutTx:        `INSERT INTO transactions (id, state, rec) VALUES (?, ?, ?)`,
	market.OpTxState:      `UPDATE transactions SET state = ?1, rec = ?2 WHERE id = ?3 AND state = ?4 AND (?5 IS NULL OR rec = ?5)`,
	// A file from before the volume and sales counters lacks their rows:
	// they start from zero (the service then adds its whole totals).
	market.OpCounters: `INSERT INTO meta (k, v) VALUES ('fee_balance', ?1), ('market_volume', ?2), ('total_sales', ?3)
		ON CONFLICT (k) DO UPDATE SET v = v + excluded.v RETURNING k, v`,
	market.OpListingIDs: `UPDATE meta SET v = ?2 WHERE k = 'next_listing_id' AND v = ?1`,
	// A file from before the issuance account lacks its rows: it starts
	// from zero.
	market.OpIssuance: `INSERT INTO meta (k, v) VALUES ('issued_money_in', ?1), ('issued_money_out', ?2),
		('issued_items_in', ?3), ('issued_items_out', ?4)
		ON CONFLICT (k) DO UPDATE SET v = v + excluded.v RETURNING k, v`,
	market.OpPlayerProfile: `UPDATE players SET name = ?1, perms = ?2, version = version + 1
		WHERE id = ?3 AND version = ?4 RETURNING version`,
	// A file from before the opening account lacks its rows: a bulk load
	// adds nothing to it, the service records it whole (OpRecordOpening).
	market.OpLoaded: `UPDATE meta SET v = CASE k WHEN 'opening_money' THEN v + ?1 WHEN 'opening_items' THEN v + ?2 ELSE max(v, ?3) END
		WHERE k IN ('opening_money', 'opening_items', 'loaded_through')`,
	market.OpRecordOpening: `INSERT INTO meta (k, v) VALUES ('opening_money', ?1), ('opening_items', ?2), ('loaded_through', ?3),
		('log_trimmed', ?4), ('log_trimmed_at', ?5) ON CONFLICT (k) DO NOTHING`,
}

// Open opens or creates the market database at path. A new file is created
// with mode 0600 (it holds players' balances). A file that is not SQLite, or
// is SQLite but not Rynek's, or is from a newer schema, is refused with an
// error: it is never reset or overwritten. A market another process has open
// is refused too.
func Open(path string, opts Options) (*Store, error) {
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
	s.readers.SetMaxOpenConns(4)
	s.readers.SetMaxIdleConns(2)
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

// init creates the schema in a new file, upgrades an older one, and refuses
// what is not a Rynek market of a version this program knows.
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
		return s.migrate(schema, eventsSchema, versionSchema, extraSchema, fmt.Sprintf("PRAGMA application_id = %d", applicationID))
	case app != applicationID:
		return fmt.Errorf("%w: application_id is %#x", ErrForeign, app)
	case ver > SchemaVersion:
		return fmt.Errorf("the database has schema version %d, newer than this program's %d; use a newer Rynek", ver, SchemaVersion)
	case ver == 1:
		return s.migrate(eventsSchema, versionSchema, extraSchema)
	case ver == 2:
		return s.migrate(versionSchema, extraSchema)
	case ver == 3:
		return s.migrate(extraSchema)
	case ver < 1:
		return fmt.Errorf("the database has unknown schema version %d", ver)
	}
	return nil
}

// migrate runs statements and sets the schema version, in one transaction.
func (s *Store) migrate(statements ...string) error {
	if err := s.exec("BEGIN IMMEDIATE"); err != nil {
		return describe(err)
	}
	statements = append(statements, fmt.Sprintf("PRAGMA user_version = %d", SchemaVersion))
	for _, q := range statements {
		if err := s.exec(q); err != nil {
			s.exec("ROLLBACK")
			return fmt.Errorf("create the schema: %w", describe(err))
		}
	}
	if err := s.exec("COMMIT"); err != nil {
		return describe(err)
	}
	return nil
}

func (s *Store) prepare() error {
	var err error
	for _, p := range []struct {
		st **sql.Stmt
		q  string
	}{{&s.begin, "BEGIN IMMEDIATE"}, {&s.commit, "COMMIT"}, {&s.rollback, "ROLLBACK"},
		{&s.insertEvent, "INSERT INTO events (seq, kind, at, body, published) VALUES (?, ?, ?, ?, ?)"},
		{&s.setPublished, "UPDATE meta SET v = ? WHERE k = 'published_seq'"}} {
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

// readLogState reads the newest seq of the log and the publication mark:
// the larger of meta's and the newest entry's.
func (s *Store) readLogState() error {
	var last, inEntry, inMeta sql.NullInt64
	err := s.conn.QueryRowContext(s.ctx, "SELECT seq, published FROM events ORDER BY seq DESC LIMIT 1").Scan(&last, &inEntry)
	if err != nil && err != sql.ErrNoRows {
		return describe(err)
	}
	if err := s.conn.QueryRowContext(s.ctx, "SELECT v FROM meta WHERE k = 'published_seq'").Scan(&inMeta); err != nil {
		return fmt.Errorf("read the publication mark: %w", describe(err))
	}
	s.lastSeq, s.published = uint64(last.Int64), uint64(max(inEntry.Int64, inMeta.Int64))
	if s.published > s.lastSeq {
		return fmt.Errorf("the publication mark (%d) is past the newest event (%d); the database was edited or damaged", s.published, s.lastSeq)
	}
	return nil
}

func (s *Store) exec(q string) error {
	_, err := s.conn.ExecContext(s.ctx, q)
	return err
}

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
	for _, st := range []*sql.Stmt{s.begin, s.commit, s.rollback, s.insertEvent, s.setPublished} {
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

// Empty reports whether the market has no players yet (a new database, to
// be seeded).
func (s *Store) Empty() (bool, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.writerFree(); err != nil {
		return false, err
	}
	var n int
	if err := s.conn.QueryRowContext(s.ctx, "SELECT count(*) FROM (SELECT 1 FROM players LIMIT 1)").Scan(&n); err != nil {
		return false, describe(err)
	}
	return n == 0, nil
}

// Path returns the database file's path.
func (s *Store) Path() string { return s.path }

// Commit writes b's ops and log entries in one SQLite transaction.
func (s *Store) Commit(b *market.Batch) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.writerFree(); err != nil {
		return err
	}
	if b.Published > s.lastSeq {
		return fmt.Errorf("cannot mark event %d as delivered: the newest event is %d", b.Published, s.lastSeq)
	}
	err := s.inTx(func() error {
		for i := range b.Ops {
			if err := s.apply(&b.Ops[i]); err != nil {
				return err
			}
		}
		published := max(s.published, b.Published)
		for i, e := range b.Events {
			if _, err := s.insertEvent.Exec(int64(s.lastSeq)+int64(i)+1, string(e.Kind), e.At, nonNil(e.Body), int64(published)); err != nil {
				return fmt.Errorf("append to the event log: %w", describe(err))
			}
		}
		if len(b.Events) == 0 && b.Published > s.published {
			if _, err := s.setPublished.Exec(int64(b.Published)); err != nil {
				return fmt.Errorf("record the delivered events: %w", describe(err))
			}
		}
		return nil
	})
	if err != nil {
		return err
	}
	for i := range b.Events {
		s.lastSeq++
		b.Events[i].Seq = s.lastSeq
	}
	s.published = max(s.published, b.Published)
	return nil
}

// inTx runs fn in one SQLite transaction on the writer, with mu held:
// committed if fn succeeds, rolled back otherwise.
func (s *Store) inTx(fn func() error) error {
	if _, err := s.begin.Exec(); err != nil {
		return describe(err)
	}
	if err := fn(); err != nil {
		s.rollback.Exec()
		return err
	}
	if _, err := s.commit.Exec(); err != nil {
		s.rollback.Exec()
		return describe(err)
	}
	return nil
}

func (s *Store) apply(op *market.Op) error {
	var res sql.Result
	var err error
	st := s.stmts[op.Kind]
	switch op.Kind {
	case market.OpAddPlayer:
		p := op.Player
		res, err = st.Exec(p.ID[:], p.Name, p.Perms, int64(p.Balance), p.LastSell, nonNil(p.Inventory), nonNil(p.Extra))
	case market.OpPlayerState:
		p := op.Player
		var inv any // NULL: the inventory stays
		if p.Inventory != nil {
			inv = p.Inventory
		}
		var extra any // NULL: the extra blob stays
		if p.Extra != nil {
			extra = p.Extra
		}
		var balance int64
		err = st.QueryRow(int64(op.Delta), p.LastSell, inv, p.ID[:], nonNil(op.Expect), extra, nonNil(op.ExpectExtra)).Scan(&balance, &p.Version)
		if errors.Is(err, sql.ErrNoRows) {
			return fmt.Errorf("player %s: %w", p.ID, errPlayerMoved)
		}
		p.Balance = market.Money(balance)
	case market.OpPutMail:
		m := op.Mail
		_, err = st.Exec(m.ID[:], m.Player[:], m.Item, m.Reason, m.Created, int64(m.PrevPrice))
	case market.OpDelMail:
		res, err = st.Exec(op.Mail.ID[:])
	case market.OpAddListing:
		_, err = st.Exec(op.Listing.ID, nonNil(op.Listing.Rec))
	case market.OpListingState:
		res, err = st.Exec(nonNil(op.Listing.Rec), op.Listing.ID, nonNil(op.Expect))
	case market.OpDelListing:
		res, err = st.Exec(op.Int, nonNil(op.Expect))
	case market.OpPutTx:
		t := op.Tx
		_, err = st.Exec(t.ID[:], string(t.State), nonNil(t.Rec))
	case market.OpTxState:
		t := op.Tx
		var rec any // NULL: any record
		if op.Expect != nil {
			rec = op.Expect
		}
		res, err = st.Exec(string(t.State), nonNil(t.Rec), t.ID[:], string(op.ExpectState), rec)
	case market.OpCounters:
		m := &op.Meta
		err = addToMeta(st, m, int64(m.FeeBalance), int64(m.Volume), m.Sales)
	case market.OpListingIDs:
		_, err = st.Exec(op.Int, op.Meta.NextListingID)
	case market.OpIssuance:
		m := &op.Meta
		i := &m.Issuance
		err = addToMeta(st, m, int64(i.MoneyIn), int64(i.MoneyOut), i.ItemsIn, i.ItemsOut)
	case market.OpLoaded:
		o := op.Meta.Opening
		_, err = st.Exec(int64(o.Money), o.Items, o.LoadedThrough)
	case market.OpRecordOpening:
		o := op.Meta.Opening
		_, err = st.Exec(int64(o.Money), o.Items, o.LoadedThrough, int64(op.Meta.Trimmed), op.Meta.TrimmedAt)
	case market.OpPlayerProfile:
		p := op.Player
		err = st.QueryRow(p.Name, p.Perms, p.ID[:], op.Int).Scan(&p.Version)
		if errors.Is(err, sql.ErrNoRows) {
			return fmt.Errorf("player %s at version %d: %w", p.ID, op.Int, market.ErrConflict)
		}
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

// errPlayerMoved is a player update that matched no row: the player is
// unknown, the balance would go below zero, or another instance changed
// the inventory first.
var errPlayerMoved = fmt.Errorf("no such player, too little money, or the inventory or the player's market data changed meanwhile: %w", market.ErrConflict)

// addToMeta runs an insert-or-add statement of meta rows with args and
// writes the rows' new totals into m.
func addToMeta(st *sql.Stmt, m *market.MetaRow, args ...any) error {
	rows, err := st.Query(args...)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var k string
		var v int64
		if err := rows.Scan(&k, &v); err != nil {
			return err
		}
		setMeta(m, k, v)
	}
	return rows.Err()
}

// setMeta sets the field of m that meta row k holds, and reports whether
// k is one.
func setMeta(m *market.MetaRow, k string, v int64) bool {
	switch k {
	case "next_listing_id":
		m.NextListingID = v
	case "fee_balance":
		m.FeeBalance = market.Money(v)
	case "market_volume":
		m.Volume = market.Money(v)
	case "total_sales":
		m.Sales = v
	case "issued_money_in":
		m.Issuance.MoneyIn = market.Money(v)
	case "issued_money_out":
		m.Issuance.MoneyOut = market.Money(v)
	case "issued_items_in":
		m.Issuance.ItemsIn = v
	case "issued_items_out":
		m.Issuance.ItemsOut = v
	case "opening_money":
		m.Opening.Money = market.Money(v)
	case "opening_items":
		m.Opening.Items = v
	case "loaded_through":
		m.Opening.LoadedThrough = v
	case "log_trimmed":
		m.Trimmed = uint64(v)
	case "log_trimmed_at":
		m.TrimmedAt = v
	default:
		return false
	}
	return true
}

// nonNil keeps an empty blob from becoming NULL.
func nonNil(b []byte) []byte {
	if b == nil {
		return []byte{}
	}
	return b
}

// ReadEvents streams log entries after seq after, on a read connection.
func (s *Store) ReadEvents(after uint64, limit int, fn func(market.EventRow) error) (int, error) {
	if s.isClosed() {
		return 0, errClosed
	}
	return readEvents(s.ctx, s.readers, after, limit, fn)
}

// TrimEvents deletes the prefix of the log that t allows, in one
// transaction.
func (s *Store) TrimEvents(t market.EventTrim) (uint64, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.writerFree(); err != nil {
		return 0, err
	}
	var through, newest int64
	err := each(s.ctx, s.conn, "SELECT seq, at FROM events ORDER BY seq LIMIT ?", func(r *sql.Rows) error {
		var seq, at int64
		if err := r.Scan(&seq, &at); err != nil {
			return err
		}
		if uint64(seq) >= t.Below || uint64(seq) >= s.lastSeq || (uint64(seq) > t.ThroughSeq && at >= t.OlderThan) {
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

var errStop = errors.New("stop")

// queryer is what the reads read with: the writer's connection, the
// readers, or a snapshot's transaction.
type queryer interface {
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
}

func each(ctx context.Context, q queryer, query string, fn func(*sql.Rows) error, args ...any) error {
	rows, err := q.QueryContext(ctx, query, args...)
	if err != nil {
		return describe(err)
	}
	for rows.Next() {
		if err := fn(rows); err != nil {
			rows.Close()
			if err == errStop {
				return err
			}
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

// Load streams every row to l. It must not run concurrently with Commit.
func (s *Store) Load(l market.Loader) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.writerFree(); err != nil {
		return err
	}
	return load(s.ctx, s.conn, l, market.MetaRow{LastSeq: s.lastSeq, PublishedSeq: s.published})
}

func scanTx(fn func(market.TxRow) error) func(*sql.Rows) error {
	return func(r *sql.Rows) error {
		var t market.TxRow
		var id sql.RawBytes
		var state string
		if err := r.Scan(&id, &state, (*sql.RawBytes)(&t.Rec)); err != nil {
			return err
		}
		t.ID, t.State = toUUID(id), market.State(state)
		return fn(t)
	}
}

// LoadHistory streams finished transactions with ids above after, on a
// read connection, so commits go on meanwhile.
func (s *Store) LoadHistory(after [16]byte, limit int, fn func(market.TxRow) error) (int, error) {
	if s.isClosed() {
		return 0, errClosed
	}
	return loadHistory(s.ctx, s.readers, after, limit, fn)
}

func toUUID(b []byte) uuid.UUID {
	var u uuid.UUID
	copy(u[:], b)
	return u
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

// ReserveListingIDs moves the next listing id n ahead and returns where it
// was: the block is the caller's alone.
func (s *Store) ReserveListingIDs(n int) (int64, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.writerFree(); err != nil {
		return 0, err
	}
	var first int64
	err := s.conn.QueryRowContext(s.ctx, "UPDATE meta SET v = v + ?1 WHERE k = 'next_listing_id' RETURNING v - ?1", n).Scan(&first)
	if err != nil {
		return 0, fmt.Errorf("reserve listing ids: %w", describe(err))
	}
	return first, nil
}

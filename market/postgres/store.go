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
package postgres

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/rynek/rynek/market"
)

// SchemaVersion is the version of the schema this package writes: one per
// migration.
const SchemaVersion = 4

// application marks a database as a Rynek market, in rynek_schema.
const application = "rynek-market"

// ownerLock is the advisory lock class of the instances' names (with the
// name's hash as the key) and, plus one, of the schema's creation.
const ownerLock = 0x52594E4B // 'RYNK'

// dutyLock is the advisory lock of the network's duty: running the expiry
// timer and taking over purchases that other instances left unfinished. One
// instance holds it, on its listening connection, so that the duty passes
// to another when the instance dies or loses the server.
const dutyLock = ownerLock + 2

// dutyRetry is how often an instance without the duty tries to take it.
const dutyRetry = time.Second

// notifyChannel is what commits notify and followers listen to.
const notifyChannel = "rynek_events"

// pollEvery bounds how long a follower waits without a notification.
const pollEvery = time.Second

// The server's error codes for a refused batch (raised by rynek_expect).
const (
	codeConflict  = "RYN01" // a conditional op matched no row
	codeDelivered = "RYN02" // the delivery mark is past the newest entry
)

// ErrForeign is returned when the database holds tables that are not a
// Rynek market's.
var ErrForeign = errors.New("not a Rynek market database")

var errClosed = errors.New("the store is closed")

// migrations[i] takes the schema from version i to i+1. Each runs in one
// transaction with the version update.
var migrations = []string{`
CREATE TABLE rynek_schema (application text NOT NULL, version integer NOT NULL);
INSERT INTO rynek_schema (application, version) VALUES ('` + application + `', 0);
CREATE TABLE meta (k text PRIMARY KEY, v bigint NOT NULL);
INSERT INTO meta (k, v) VALUES ('next_listing_id', 1), ('fee_balance', 0), ('market_volume', 0), ('total_sales', 0);
-- The opening account and the log's horizon. Only a new market gets them
-- here, from nothing: one made before they were kept has no rows, and the
-- service records them when it opens it (market.OpRecordOpening).
INSERT INTO meta (k, v) VALUES ('opening_money', 0), ('opening_items', 0), ('loaded_through', 0), ('log_trimmed', 0), ('log_trimmed_at', 0);
CREATE TABLE players (
	id uuid PRIMARY KEY, name text NOT NULL, perms text NOT NULL,
	balance bigint NOT NULL, last_sell bigint NOT NULL, inventory bytea NOT NULL);
CREATE TABLE mail (
	id uuid PRIMARY KEY, player uuid NOT NULL, item bytea NOT NULL, reason text NOT NULL,
	created bigint NOT NULL, prev_price bigint NOT NULL);
CREATE TABLE listings (id bigint PRIMARY KEY, rec bytea NOT NULL);
CREATE TABLE transactions (id uuid PRIMARY KEY, state text NOT NULL, rec bytea NOT NULL);
CREATE INDEX transactions_open ON transactions (state) WHERE state NOT IN ('COMPLETED', 'FAILED', 'ROLLED_BACK');
CREATE TABLE events (seq bigint PRIMARY KEY, kind text NOT NULL, at bigint NOT NULL, body bytea NOT NULL);
-- The log's counter: the newest seq and how far delivery got. One row,
-- locked by each commit that appends until it commits.
CREATE TABLE event_counter (only_row boolean PRIMARY KEY DEFAULT true CHECK (only_row),
	last_seq bigint NOT NULL, published bigint NOT NULL);
INSERT INTO event_counter (last_seq, published) VALUES (0, 0);
-- rynek_expect fails the statement, and so the batch's transaction, with
-- code unless n is 1; it returns n.
CREATE FUNCTION rynek_expect(n bigint, code text, what text) RETURNS bigint LANGUAGE plpgsql AS $$
BEGIN
	IF n <> 1 THEN
		RAISE EXCEPTION '% matched % rows, want 1', what, n USING ERRCODE = code;
	END IF;
	RETURN n;
END $$;
`, `
-- Each player row counts its changes, so that instances sharing the market
-- can tell which read of it is newer.
ALTER TABLE players ADD COLUMN version bigint NOT NULL DEFAULT 0;
-- Each entry names the instance that wrote it, and each instance keeps its
-- own mark of how far its listeners got.
ALTER TABLE events ADD COLUMN origin text NOT NULL DEFAULT '';
ALTER TABLE event_counter DROP COLUMN published;
CREATE TABLE rynek_instances (name text PRIMARY KEY, published bigint NOT NULL);
`, `
-- The issuance account: money and items that came in from outside the
-- market or left it.
INSERT INTO meta (k, v) VALUES ('issued_money_in', 0), ('issued_money_out', 0), ('issued_items_in', 0), ('issued_items_out', 0);
`, `
-- Each player's own market data (favourites, price alerts, what they have
-- read), one blob.
ALTER TABLE players ADD COLUMN extra bytea NOT NULL DEFAULT '';
`}

// statements write the ops; a conditional one fails through rynek_expect.
// The player and counter updates return the rows' new values.
var statements = map[market.OpKind]string{
	market.OpAddPlayer: `INSERT INTO players (id, name, perms, balance, last_sell, inventory, extra) VALUES ($1, $2, $3, $4, $5, $6, $7)`,
	// $1 delta, $2 last sell, $3 new inventory or NULL, $4 id, $5 the inventory it replaces,
	// $6 new extra or NULL, $7 the extra it replaces
	market.OpPlayerState: `WITH c AS (UPDATE players SET balance = balance + $1, last_sell = greatest(last_sell, $2),
			inventory = coalesce($3, inventory), extra = coalesce($6, extra), version = version + 1
		WHERE id = $4 AND ($1 >= 0 OR balance + $1 >= 0) AND ($3::bytea IS NULL OR inventory = $5)
			AND ($6::bytea IS NULL OR extra = $7) RETURNING balance, version)
		SELECT rynek_expect((SELECT count(*) FROM c), '` + codeConflict + `',
			'player ' || $4::text || ' (unknown, too little money, or its inventory or market data changed meanwhile)'),
			(SELECT balance FROM c), (SELECT version FROM c)`,
	market.OpPutMail: `INSERT INTO mail (id, player, item, reason, created, prev_price) VALUES ($1, $2, $3, $4, $5, $6)`,
	market.OpDelMail: `WITH c AS (DELETE FROM mail WHERE id = $1 RETURNING 1)
		SELECT rynek_expect((SELECT count(*) FROM c), '` + codeConflict + `', 'mail ' || $1::text)`,
	market.OpAddListing: `INSERT INTO listings (id, rec) VALUES ($1, $2)`,
	market.OpListingState: `WITH c AS (UPDATE listings SET rec = $1 WHERE id = $2 AND rec = $3 RETURNING 1)
		SELECT rynek_expect((SELECT count(*) FROM c), '` + codeConflict + `', 'listing ' || $2::text || ' as this instance knew it')`,
	market.OpDelListing: `WITH c AS (DELETE FROM listings WHERE id = $1 AND rec = $2 RETURNING 1)
		SELECT rynek_expect((SELECT count(*) FROM c), '` + codeConflict + `', 'listing ' || $1::text || ' as this instance knew it')`,
	market.OpPutTx: `INSERT INTO transactions (id, state, rec) VALUES ($1, $2, $3)`,
	market.OpTxState: `WITH c AS (UPDATE transactions SET state = $1, rec = $2 WHERE id = $3 AND state = $4
			AND ($5::bytea IS NULL OR rec = $5) RETURNING 1)
		SELECT rynek_expect((SELECT count(*) FROM c), '` + codeConflict + `', 'transaction ' || $3::text || ' in state ' || $4)`,
	market.OpCounters: `WITH f AS (UPDATE meta SET v = v + $1 WHERE k = 'fee_balance' RETURNING v),
			m AS (UPDATE meta SET v = v + $2 WHERE k = 'market_volume' RETURNING v),
			s AS (UPDATE meta SET v = v + $3 WHERE k = 'total_sales' RETURNING v)
		SELECT (SELECT v FROM f), (SELECT v FROM m), (SELECT v FROM s)`,
	market.OpListingIDs: `UPDATE meta SET v = $2 WHERE k = 'next_listing_id' AND v = $1`,
	market.OpIssuance: `WITH a AS (UPDATE meta SET v = v + $1 WHERE k = 'issued_money_in' RETURNING v),
			b AS (UPDATE meta SET v = v + $2 WHERE k = 'issued_money_out' RETURNING v),
			c AS (UPDATE meta SET v = v + $3 WHERE k = 'issued_items_in' RETURNING v),
			d AS (UPDATE meta SET v = v + $4 WHERE k = 'issued_items_out' RETURNING v)
		SELECT (SELECT v FROM a), (SELECT v FROM b), (SELECT v FROM c), (SELECT v FROM d)`,
	market.OpPlayerProfile: `WITH c AS (UPDATE players SET name = $1, perms = $2, version = version + 1
			WHERE id = $3 AND version = $4 RETURNING version)
		SELECT rynek_expect((SELECT count(*) FROM c), '` + codeConflict + `',
			'player ' || $3::text || ' at version ' || $4::text), (SELECT version FROM c)`,
	market.OpLoaded: `UPDATE meta SET v = CASE k WHEN 'opening_money' THEN v + $1 WHEN 'opening_items' THEN v + $2 ELSE greatest(v, $3) END
		WHERE k IN ('opening_money', 'opening_items', 'loaded_through')`,
	market.OpRecordOpening: `INSERT INTO meta (k, v) VALUES ('opening_money', $1), ('opening_items', $2), ('loaded_through', $3),
		('log_trimmed', $4), ('log_trimmed_at', $5) ON CONFLICT (k) DO NOTHING`,
}

// openingColumns reads the opening account and the log's horizon in a
// query's select list: whether the market keeps them, and their values.
const openingColumns = `(SELECT count(*) = 5 FROM meta WHERE k IN ('opening_money', 'opening_items', 'loaded_through', 'log_trimmed', 'log_trimmed_at')),
	coalesce((SELECT v FROM meta WHERE k = 'opening_money'), 0), coalesce((SELECT v FROM meta WHERE k = 'opening_items'), 0),
	coalesce((SELECT v FROM meta WHERE k = 'loaded_through'), 0), coalesce((SELECT v FROM meta WHERE k = 'log_trimmed'), 0),
	coalesce((SELECT v FROM meta WHERE k = 'log_trimmed_at'), 0)`

// openingFields are where a scan of openingColumns goes.
func openingFields(m *market.MetaRow) []any {
	return []any{&m.HasOpening, (*int64)(&m.Opening.Money), &m.Opening.Items, &m.Opening.LoadedThrough, &m.Trimmed, &m.TrimmedAt}
}

// issuanceColumns reads the issuance account in a query's select list.
const issuanceColumns = `(SELECT v FROM meta WHERE k = 'issued_money_in'), (SELECT v FROM meta WHERE k = 'issued_money_out'),
	(SELECT v FROM meta WHERE k = 'issued_items_in'), (SELECT v FROM meta WHERE k = 'issued_items_out')`

// issuanceFields are where a scan of issuanceColumns goes.
func issuanceFields(i *market.Issuance) []any {
	return []any{(*int64)(&i.MoneyIn), (*int64)(&i.MoneyOut), &i.ItemsIn, &i.ItemsOut}
}

// appendLog takes n seqs from the counter and raises the delivery mark to
// $2, refusing a mark past the newest entry before this batch. Its result is
// the newest seq after the batch.
const appendLog = `WITH c AS (UPDATE event_counter SET last_seq = last_seq + $1 WHERE $2 <= last_seq RETURNING last_seq),
		i AS (UPDATE rynek_instances SET published = greatest(published, $2) WHERE name = $3 AND EXISTS (SELECT 1 FROM c))
	SELECT rynek_expect((SELECT count(*) FROM c), '` + codeDelivered + `', 'the delivery mark ' || $2::text || ' past the newest event'),
		(SELECT last_seq FROM c)`

// insertEvents writes the batch's entries with the seqs appendLog took:
// the i-th of n (from 1) gets last_seq - n + i.
const insertEvents = `INSERT INTO events (seq, kind, at, body, origin)
	SELECT c.last_seq - $1 + e.i, e.kind, e.at, e.body, $5
	FROM event_counter c, unnest($2::text[], $3::bigint[], $4::bytea[]) WITH ORDINALITY AS e(kind, at, body, i)`

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
	// lost is set when a commit's outcome could not be learned: memory may
	// disagree with the store, so every later commit is refused until the
	// market is opened again (which loads the truth).
	lost error
	// bulk is the data load whose transaction is open on the writer's
	// connection, if any (bulk.go): every other use of it is refused.
	bulk *bulkTx
}

var _ market.SharedStore = (*Store)(nil)

// Options tune the store.
type Options struct {
	// Instance is this instance's name in the network, unique among the
	// instances that share the market, shown as the origin of its events;
	// the machine's host name when empty.
	Instance string
	// Tool opens the market for a tool (an import, an export, seeding):
	// it holds the name's lock like an instance, but it is not one of the
	// network's instances, so it has no delivery mark of its own and the
	// log's retention does not wait for it.
	Tool bool
}

// Open connects to the database dsn (a postgres:// URL or a keyword/value
// string), creates the schema in an empty database, and refuses a database
// that holds other tables, a newer schema, or a market another instance has
// open.
func Open(dsn string, opts Options) (*Store, error) {
	ctx := context.Background()
	s := &Store{ctx: ctx, instance: opts.Instance, name: redact(dsn), tool: opts.Tool}
	if s.instance == "" {
		host, err := os.Hostname()
		if err != nil {
			return nil, fmt.Errorf("name this instance (the host name is unknown: %v)", err)
		}
		s.instance = host
	}
	if err := s.open(dsn); err != nil {
		s.Close()
		return nil, fmt.Errorf("open the PostgreSQL market %s: %w", redact(dsn), err)
	}
	return s, nil
}

func (s *Store) open(dsn string) error {
	var err error
	if s.cfg, err = pgx.ParseConfig(dsn); err != nil {
		return err
	}
	s.cfg.ConnectTimeout = 10 * time.Second
	s.nameConnections(s.cfg)
	if err := s.connect(); err != nil {
		return err
	}
	if err := s.migrate(); err != nil {
		return err
	}
	pcfg, err := pgxpool.ParseConfig(dsn)
	if err != nil {
		return err
	}
	pcfg.MaxConns = 4
	s.nameConnections(pcfg.ConnConfig)
	if s.readers, err = pgxpool.NewWithConfig(s.ctx, pcfg); err != nil {
		return err
	}
	// A new instance's listeners start at the log's end: they get what
	// happens from now on, not the market's whole past.
	var last int64
	if err := s.conn.QueryRow(s.ctx, `WITH i AS (INSERT INTO rynek_instances (name, published)
			SELECT $1, last_seq FROM event_counter WHERE NOT $2 ON CONFLICT (name) DO NOTHING)
		SELECT last_seq FROM event_counter`, s.instance, s.tool).Scan(&last); err != nil {
		return err
	}
	s.lastSeq = uint64(last)
	if !s.tool {
		// Listening from the start, so that the duty can be this
		// instance's before its first tick.
		s.listenMu.Lock()
		err = s.listen(s.ctx)
		s.listenMu.Unlock()
	}
	return err
}

// listen opens the listening connection and tries to take the duty on it.
// listenMu must be held.
func (s *Store) listen(ctx context.Context) error {
	conn, err := pgx.ConnectConfig(ctx, s.cfg)
	if err != nil {
		return err
	}
	if _, err := conn.Exec(ctx, "LISTEN "+notifyChannel); err != nil {
		conn.Close(s.ctx)
		return err
	}
	s.listener = conn
	s.tryDuty(ctx)
	return nil
}

// tryDuty takes the duty if no instance holds it. listenMu must be held.
func (s *Store) tryDuty(ctx context.Context) {
	s.dutyTried = time.Now()
	var got bool
	if err := s.listener.QueryRow(ctx, "SELECT pg_try_advisory_lock($1)", int64(dutyLock)).Scan(&got); err == nil && got {
		s.duty.Store(true)
	}
}

// Duty reports whether this instance holds the network's duty: the one
// instance that runs the expiry timer and takes over what others left
// unfinished.
func (s *Store) Duty() bool { return s.duty.Load() }

// Instance is this instance's name.
func (s *Store) Instance() string { return s.instance }

// Name is the market as messages may show it: user, server and database,
// without the password.
func (s *Store) Name() string { return "postgres://" + s.name }

// OthersOpen counts the other instances that have the market open now.
func (s *Store) OthersOpen() (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.writerFree(); err != nil {
		return 0, err
	}
	var n int
	err := s.conn.QueryRow(s.ctx, `SELECT count(*) FROM pg_locks
		WHERE locktype = 'advisory' AND classid = $1::oid AND objsubid = 2 AND granted AND pid <> pg_backend_pid()`, int64(uint32(ownerLock))).Scan(&n)
	return n, err
}

// connect opens the writer's connection and takes the owner's lock on it.
func (s *Store) connect() error {
	ctx := s.ctx
	if s.conn != nil { // a reconnection: keep the main thread's wait short
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(s.ctx, reconnectTimeout)
		defer cancel()
	}
	if s.conn != nil {
		s.conn.Close(ctx)
	}
	conn, err := pgx.ConnectConfig(ctx, s.cfg)
	if err != nil {
		return err
	}
	// An instance of the same name that has just closed may still hold the
	// lock for a moment: its server process lets go when it has exited.
	var owned bool
	for deadline := time.Now().Add(lockWait); ; time.Sleep(25 * time.Millisecond) {
		if err := conn.QueryRow(s.ctx, "SELECT pg_try_advisory_lock($1, hashtext($2))", int32(ownerLock), s.instance).Scan(&owned); err != nil {
			conn.Close(s.ctx)
			return err
		}
		if owned || time.Now().After(deadline) {
			break
		}
	}
	if !owned {
		conn.Close(s.ctx)
		return fmt.Errorf("another Rynek instance named %q has this market open; close it, or give each instance its own name", s.instance)
	}
	s.conn = conn
	return nil
}

// nameConnections gives this instance's connections the application name
// "rynek:<instance>", unless the connection string sets one: an admin sees
// in pg_stat_activity which server of the network each one serves.
func (s *Store) nameConnections(cfg *pgx.ConnConfig) {
	if cfg.RuntimeParams["application_name"] == "" {
		cfg.RuntimeParams["application_name"] = "rynek:" + s.instance
	}
}

// redact drops a password from dsn for messages.
func redact(dsn string) string {
	cfg, err := pgx.ParseConfig(dsn)
	if err != nil {
		return "(unparseable connection string)"
	}
	return fmt.Sprintf("%s@%s:%d/%s", cfg.User, cfg.Host, cfg.Port, cfg.Database)
}

// migrate creates or upgrades the schema, under a transaction-level
// advisory lock so that two instances starting on an empty database do not
// both create it.
func (s *Store) migrate() error {
	return pgx.BeginFunc(s.ctx, s.conn, func(tx pgx.Tx) error {
		if _, err := tx.Exec(s.ctx, "SELECT pg_advisory_xact_lock($1)", int64(ownerLock+1)); err != nil {
			return err
		}
		var app string
		var ver int
		var exists bool
		if err := tx.QueryRow(s.ctx, "SELECT to_regclass('rynek_schema') IS NOT NULL").Scan(&exists); err != nil {
			return err
		}
		if exists {
			if err := tx.QueryRow(s.ctx, "SELECT application, version FROM rynek_schema").Scan(&app, &ver); err != nil {
				return fmt.Errorf("%w: its rynek_schema table cannot be read: %v", ErrForeign, err)
			}
		}
		switch {
		case !exists:
			var tables int
			if err := tx.QueryRow(s.ctx, `SELECT count(*) FROM information_schema.tables WHERE table_schema = current_schema()`).Scan(&tables); err != nil {
				return err
			}
			if tables > 0 {
				return fmt.Errorf("%w: the database already holds %d other tables", ErrForeign, tables)
			}
		case app != application:
			return fmt.Errorf("%w: rynek_schema names %q", ErrForeign, app)
		case ver > SchemaVersion:
			return fmt.Errorf("the database has schema version %d, newer than this program's %d; use a newer Rynek", ver, SchemaVersion)
		}
		for v := ver; v < SchemaVersion; v++ {
			if _, err := tx.Exec(s.ctx, migrations[v]); err != nil {
				return fmt.Errorf("migrate the schema to version %d: %w", v+1, err)
			}
		}
		if ver < SchemaVersion {
			if _, err := tx.Exec(s.ctx, "UPDATE rynek_schema SET version = $1", SchemaVersion); err != nil {
				return err
			}
		}
		return nil
	})
}

// Close releases the connections and with them the owner's lock.
func (s *Store) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed.Swap(true) {
		return nil
	}
	if s.bulk != nil {
		s.bulk.end() // a load never finished: none of it stays
	}
	if s.readers != nil {
		s.readers.Close()
	}
	s.listenMu.Lock()
	if s.listener != nil {
		s.listener.Close(s.ctx)
	}
	s.listenMu.Unlock()
	if s.conn != nil {
		return s.conn.Close(s.ctx)
	}
	return nil
}

// Commit sends b's ops and log entries as one pipeline, which the server
// runs as one transaction: every statement, or none.
func (s *Store) Commit(b *market.Batch) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.writerFree(); err != nil {
		return err
	}
	if err := s.ready(); err != nil {
		return err
	}
	// The counter first: a mark past the newest entry is refused before
	// any op is looked at, as the other stores do. A batch is built anew
	// for each sending: pgx rewrites a sent one for its connection.
	newest := int64(s.lastSeq)
	adds := counterAdds(b.Ops)
	build := func() *pgx.Batch {
		var pb pgx.Batch
		if len(b.Events) > 0 || b.Published > 0 {
			pb.Queue(appendLog, len(b.Events), int64(b.Published), s.instance).QueryRow(func(r pgx.Row) error {
				var one int64
				return r.Scan(&one, &newest)
			})
		}
		queueOps(&pb, b.Ops, adds)
		if n := len(b.Events); n > 0 {
			kinds, ats, bodies := make([]string, n), make([]int64, n), make([][]byte, n)
			for i, e := range b.Events {
				kinds[i], ats[i], bodies[i] = string(e.Kind), e.At, nonNil(e.Body)
			}
			pb.Queue(insertEvents, n, kinds, ats, bodies, s.instance)
			pb.Queue("SELECT pg_notify('" + notifyChannel + "', '')")
		}
		return &pb
	}
	err := s.send(build())
	if err != nil && s.conn.IsClosed() && (len(b.Ops) > 0 || len(b.Events) > 0) {
		// The connection broke (a restarted server, say). Learn whether
		// the commit happened; if it certainly did not, send it once more
		// on a new connection. A batch of only the delivery mark is left
		// to the next commit, which carries it again.
		committed := false
		if pgconn.SafeToRetry(err) { // never sent
			if cerr := s.connect(); cerr != nil {
				return fmt.Errorf("the PostgreSQL server cannot be reached (%v); the change was not saved", cerr)
			}
		} else if committed, err = s.learnOutcome(len(b.Events)); err != nil {
			return err
		}
		if committed {
			newest = int64(s.inFlight)
			err = s.readBack(b.Ops)
		} else if err = s.send(build()); err != nil && s.conn.IsClosed() {
			s.lost = errors.New("the PostgreSQL connection broke twice during one commit; open the market again")
		}
	}
	if err != nil {
		return err
	}
	s.lastSeq = uint64(newest)
	for i := range b.Events {
		b.Events[i].Seq = uint64(newest) - uint64(len(b.Events)) + uint64(i) + 1
	}
	return nil
}

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

// ready reconnects a broken writer connection, and refuses commits after an
// outcome was lost. It returns at once when the server is still away, so a
// mutation fails fast instead of holding up the main thread.
func (s *Store) ready() error {
	if s.lost != nil {
		return s.lost
	}
	if s.suspect.Swap(false) && s.conn != nil {
		// The listening connection broke since the last commit: the
		// server may have gone away, which a write on the writer's
		// connection would not notice until after sending (and then it
		// could not tell whether the commit happened). Connect anew first.
		s.conn.Close(s.ctx)
	}
	if s.conn != nil && !s.conn.IsClosed() {
		return nil
	}
	if err := s.connect(); err != nil {
		return fmt.Errorf("the PostgreSQL server cannot be reached (%v); the change was not saved", err)
	}
	return nil
}

// lockWait is how long Open waits for an instance of the same name that is
// closing to let go of the name.
const lockWait = time.Second

// reconnectTimeout bounds a reconnection attempt made on the main thread.
const reconnectTimeout = 2 * time.Second

// learnOutcome reconnects after the connection broke during a commit of n
// log entries and looks for entries of this instance's own past the newest
// one it knew: only the commit in flight can have written them (the name's
// lock keeps other writers of the name away). It leaves the newest of them
// in s.inFlight. A commit without entries cannot be told apart, so then, or
// when the server stays away, the outcome is lost and the store refuses
// further commits.
func (s *Store) learnOutcome(n int) (bool, error) {
	lose := func(why string) (bool, error) {
		s.lost = fmt.Errorf("the PostgreSQL connection broke during a commit and %s; open the market again", why)
		return false, s.lost
	}
	if n == 0 {
		return lose("a change without log entries cannot be checked")
	}
	var err error
	for wait := 50 * time.Millisecond; wait < 5*time.Second; wait *= 2 {
		if err = s.connect(); err == nil {
			break
		}
		time.Sleep(wait)
	}
	if err != nil {
		return lose("the server did not come back to say whether it was saved")
	}
	var found, newest int64
	if err := s.conn.QueryRow(s.ctx, "SELECT count(*), coalesce(max(seq), 0) FROM events WHERE seq > $1 AND origin = $2",
		int64(s.lastSeq), s.instance).Scan(&found, &newest); err != nil {
		return lose("the log could not be read")
	}
	switch found {
	case 0:
		return false, nil
	case int64(n):
		s.inFlight = uint64(newest)
		return true, nil
	}
	return lose(fmt.Sprintf("the log holds %d entries of this instance past %d, not 0 or %d", found, s.lastSeq, n))
}

// readBack fills in what Commit reports into ops (players' balances and
// versions, the counters' totals) after a commit whose results were lost
// with its connection: the rows as they are now, which is at least as new.
// When even that fails the outcome is known but memory cannot be made to
// agree: the store refuses further commits.
func (s *Store) readBack(ops []market.Op) error {
	for i := range ops {
		op := &ops[i]
		var err error
		switch op.Kind {
		case market.OpPlayerState:
			p := op.Player
			err = s.conn.QueryRow(s.ctx, "SELECT balance, version FROM players WHERE id = $1", p.ID).Scan((*int64)(&p.Balance), &p.Version)
		case market.OpCounters:
			m := &op.Meta
			err = s.conn.QueryRow(s.ctx, `SELECT (SELECT v FROM meta WHERE k = 'fee_balance'),
				(SELECT v FROM meta WHERE k = 'market_volume'), (SELECT v FROM meta WHERE k = 'total_sales')`).
				Scan((*int64)(&m.FeeBalance), (*int64)(&m.Volume), &m.Sales)
		case market.OpIssuance:
			err = s.conn.QueryRow(s.ctx, "SELECT "+issuanceColumns).Scan(issuanceFields(&op.Meta.Issuance)...)
		case market.OpPlayerProfile:
			err = s.conn.QueryRow(s.ctx, "SELECT version FROM players WHERE id = $1", op.Player.ID).Scan(&op.Player.Version)
		}
		if err != nil {
			s.lost = fmt.Errorf("a commit was saved but its rows could not be read back (%v); open the market again", err)
			return s.lost
		}
	}
	return nil
}

// counterAdds keeps what each OpCounters and OpIssuance adds, by the op's index: the
// op's Meta receives the totals as results arrive, and a batch sent again
// after a broken connection must add the amounts, not the totals of the
// attempt that failed.
func counterAdds(ops []market.Op) map[int]market.MetaRow {
	adds := map[int]market.MetaRow{}
	for i := range ops {
		if k := ops[i].Kind; k == market.OpCounters || k == market.OpIssuance {
			adds[i] = ops[i].Meta
		}
	}
	return adds
}

// queueOps adds the statements of ops to pb; adds are the counters' amounts
// (counterAdds).
func queueOps(pb *pgx.Batch, ops []market.Op, adds map[int]market.MetaRow) {
	for i := range ops {
		op := &ops[i]
		q := statements[op.Kind]
		switch op.Kind {
		case market.OpAddPlayer:
			p := op.Player
			pb.Queue(q, p.ID, p.Name, p.Perms, int64(p.Balance), p.LastSell, nonNil(p.Inventory), nonNil(p.Extra))
		case market.OpPlayerState:
			p := op.Player
			pb.Queue(q, int64(op.Delta), p.LastSell, p.Inventory, p.ID, nonNil(op.Expect), p.Extra, nonNil(op.ExpectExtra)).QueryRow(func(r pgx.Row) error {
				var one int64
				return r.Scan(&one, (*int64)(&p.Balance), &p.Version)
			})
		case market.OpPutMail:
			m := op.Mail
			pb.Queue(q, m.ID, m.Player, nonNil(m.Item), m.Reason, m.Created, int64(m.PrevPrice))
		case market.OpDelMail:
			pb.Queue(q, op.Mail.ID)
		case market.OpAddListing:
			pb.Queue(q, op.Listing.ID, nonNil(op.Listing.Rec))
		case market.OpListingState:
			pb.Queue(q, nonNil(op.Listing.Rec), op.Listing.ID, nonNil(op.Expect))
		case market.OpDelListing:
			pb.Queue(q, op.Int, nonNil(op.Expect))
		case market.OpPutTx:
			t := op.Tx
			pb.Queue(q, t.ID, string(t.State), nonNil(t.Rec))
		case market.OpTxState:
			t := op.Tx
			pb.Queue(q, string(t.State), nonNil(t.Rec), t.ID, string(op.ExpectState), op.Expect)
		case market.OpCounters:
			m, add := &op.Meta, adds[i]
			pb.Queue(q, int64(add.FeeBalance), int64(add.Volume), add.Sales).QueryRow(func(r pgx.Row) error {
				return r.Scan((*int64)(&m.FeeBalance), (*int64)(&m.Volume), &m.Sales)
			})
		case market.OpListingIDs:
			pb.Queue(q, op.Int, op.Meta.NextListingID)
		case market.OpIssuance:
			m, add := &op.Meta, adds[i].Issuance
			pb.Queue(q, int64(add.MoneyIn), int64(add.MoneyOut), add.ItemsIn, add.ItemsOut).QueryRow(func(r pgx.Row) error {
				return r.Scan(issuanceFields(&m.Issuance)...)
			})
		case market.OpLoaded:
			o := op.Meta.Opening
			pb.Queue(q, int64(o.Money), o.Items, o.LoadedThrough)
		case market.OpRecordOpening:
			o := op.Meta.Opening
			pb.Queue(q, int64(o.Money), o.Items, o.LoadedThrough, int64(op.Meta.Trimmed), op.Meta.TrimmedAt)
		case market.OpPlayerProfile:
			p := op.Player
			pb.Queue(q, p.Name, p.Perms, p.ID, op.Int).QueryRow(func(r pgx.Row) error {
				var one int64
				return r.Scan(&one, &p.Version)
			})
		default:
			pb.Queue("SELECT rynek_expect(0, 'RYN03', $1)", fmt.Sprintf("unknown op kind %d", op.Kind))
		}
	}
}

// send runs pb in one implicit transaction (a pipeline ends in one Sync)
// and translates the server's refusals.
func (s *Store) send(pb *pgx.Batch) error {
	return refusal(s.conn.SendBatch(s.ctx, pb).Close())
}

// refusal translates the server's refusal of a batch into the store's
// errors.
func refusal(err error) error {
	var pgErr *pgconn.PgError
	switch {
	case err == nil:
		return nil
	case errors.As(err, &pgErr) && pgErr.Code == codeConflict:
		return fmt.Errorf("%s: %w", pgErr.Message, market.ErrConflict)
	case errors.As(err, &pgErr) && pgErr.Code == codeDelivered:
		return fmt.Errorf("cannot mark events as delivered: %s", pgErr.Message)
	}
	return err
}

func nonNil(b []byte) []byte {
	if b == nil {
		return []byte{}
	}
	return b
}

// ReadEvents streams log entries after seq after, on a read connection.
func (s *Store) ReadEvents(after uint64, limit int, fn func(market.EventRow) error) (int, error) {
	if s.closed.Load() {
		return 0, errClosed
	}
	return readEvents(s.ctx, s.readers, after, limit, fn)
}

// ReserveListingIDs moves the next listing id n ahead and returns where it
// was: the block is the caller's alone, whichever instance asks.
func (s *Store) ReserveListingIDs(n int) (int64, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.writerFree(); err != nil {
		return 0, err
	}
	if err := s.ready(); err != nil {
		return 0, err
	}
	var first int64
	err := s.conn.QueryRow(s.ctx, "UPDATE meta SET v = v + $1 WHERE k = 'next_listing_id' RETURNING v - $1", int64(n)).Scan(&first)
	if err != nil {
		return 0, fmt.Errorf("reserve listing ids: %w", err)
	}
	return first, nil
}

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
	var first int64
	err := pgx.BeginFunc(s.ctx, s.conn, func(tx pgx.Tx) error {
		// A prefix of the log: the oldest entries up to the first one that
		// t keeps. The newest entry is never deleted: it carries the log's
		// position for anyone who reads the log after a trim. Nor is an
		// entry some instance has not delivered yet: each one follows the
		// log from its own mark on (an instance that no longer runs holds
		// the log until its row in rynek_instances is deleted).
		var lowest int64
		if err := tx.QueryRow(s.ctx, `SELECT coalesce(min(published), 0) FROM rynek_instances`).Scan(&lowest); err != nil {
			return err
		}
		below := min(t.Below, uint64(lowest)+1)
		rows, err := tx.Query(s.ctx, `SELECT e.seq, e.at, c.last_seq FROM events e, event_counter c ORDER BY e.seq LIMIT $1`, max(t.Limit, 1))
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
			if _, err := tx.Exec(s.ctx, "DELETE FROM events WHERE seq <= $1", through); err != nil {
				return err
			}
			// The horizon, so that a check tells the trimmed prefix from
			// an entry deleted by hand.
			if _, err := tx.Exec(s.ctx, `UPDATE meta SET v = greatest(v, CASE k WHEN 'log_trimmed' THEN $1::bigint ELSE $2::bigint END)
				WHERE k IN ('log_trimmed', 'log_trimmed_at')`, through, newest); err != nil {
				return err
			}
		}
		return tx.QueryRow(s.ctx, "SELECT coalesce(min(seq), 0) FROM events").Scan(&first)
	})
	if err != nil {
		return 0, fmt.Errorf("trim the event log: %w", err)
	}
	return uint64(first), nil
}

// Empty reports whether the market has no players yet.
func (s *Store) Empty() (bool, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.writerFree(); err != nil {
		return false, err
	}
	var any bool
	err := s.conn.QueryRow(s.ctx, "SELECT EXISTS (SELECT 1 FROM players)").Scan(&any)
	return !any, err
}

// Load streams every row to l, from one snapshot: the rows are the market
// as of the newest entry it reports (other instances may be committing). It
// must not run concurrently with Commit.
func (s *Store) Load(l market.Loader) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.writerFree(); err != nil {
		return err
	}
	return snapshot(s.ctx, s.conn, func(tx pgx.Tx) error {
		var m market.MetaRow
		if err := readMeta(s.ctx, tx, &m); err != nil {
			return err
		}
		var published int64 // a tool has no mark: it delivers from now on
		if err := tx.QueryRow(s.ctx, `SELECT coalesce((SELECT published FROM rynek_instances WHERE name = $1), last_seq)
			FROM event_counter`, s.instance).Scan(&published); err != nil {
			return fmt.Errorf("read this instance's delivery mark: %w", err)
		}
		m.PublishedSeq = uint64(published)
		var first int64
		if err := tx.QueryRow(s.ctx, `SELECT coalesce(min(seq), 0), (SELECT count(*) FROM listings) FROM events`).Scan(&first, &m.Listings); err != nil {
			return fmt.Errorf("read the log's start and count the listings: %w", err)
		}
		m.FirstSeq = uint64(first)
		if err := l.Meta(m); err != nil {
			return err
		}
		// History loads later (LoadHistory); the partial index finds the rest.
		return readRows(s.ctx, tx, l, rowFilter{transactions: "WHERE state NOT IN ('COMPLETED', 'FAILED', 'ROLLED_BACK')"})
	})
}

// ReadRows reads the rows q names, from one snapshot on a read connection.
func (s *Store) ReadRows(q market.RowQuery, l market.Loader) error {
	if s.closed.Load() {
		return errClosed
	}
	conn, err := s.readers.Acquire(s.ctx)
	if err != nil {
		return err
	}
	defer conn.Release()
	return snapshot(s.ctx, conn.Conn(), func(tx pgx.Tx) error {
		var m market.MetaRow
		if err := readMeta(s.ctx, tx, &m); err != nil {
			return err
		}
		if err := l.Meta(m); err != nil {
			return err
		}
		return readRows(s.ctx, tx, l, rowFilter{players: "WHERE id = ANY($1)", mail: "WHERE player = ANY($1)",
			listings: "WHERE id = ANY($1)", transactions: "WHERE id = ANY($1)",
			playerIDs: q.Players, listingIDs: q.Listings, transactionIDs: q.Transactions})
	})
}

// snapshot runs fn in a read-only transaction that sees one instant of the
// market.
func snapshot(ctx context.Context, conn *pgx.Conn, fn func(pgx.Tx) error) error {
	return pgx.BeginTxFunc(ctx, conn, pgx.TxOptions{IsoLevel: pgx.RepeatableRead, AccessMode: pgx.ReadOnly}, fn)
}

// readMeta reads the counters and the newest seq.
func readMeta(ctx context.Context, tx pgx.Tx, m *market.MetaRow) error {
	var last int64
	fields := append([]any{&m.NextListingID, (*int64)(&m.FeeBalance), (*int64)(&m.Volume), &m.Sales, &last}, issuanceFields(&m.Issuance)...)
	err := tx.QueryRow(ctx, `SELECT
		(SELECT v FROM meta WHERE k = 'next_listing_id'), (SELECT v FROM meta WHERE k = 'fee_balance'),
		(SELECT v FROM meta WHERE k = 'market_volume'), (SELECT v FROM meta WHERE k = 'total_sales'), c.last_seq,
		`+issuanceColumns+`, `+openingColumns+`
		FROM event_counter c`).Scan(append(fields, openingFields(m)...)...)
	if err != nil {
		return fmt.Errorf("read the counters: %w", err)
	}
	m.HasCounters = true
	m.LastSeq = uint64(last)
	return nil
}

// rowFilter selects rows for readRows: a WHERE clause per table (empty:
// every row), whose $1 is the ids of that kind (the mail's are the
// players').
type rowFilter struct {
	players, mail, listings, transactions string
	playerIDs                             []uuid.UUID
	listingIDs                            []int64
	transactionIDs                        []uuid.UUID
}

// readRows streams the players, mail, listings and transactions that f
// selects, in the order Loader wants them.
func readRows(ctx context.Context, tx pgx.Tx, l market.Loader, f rowFilter) error {
	each := func(query string, ids any, fn func(pgx.Rows) error) error {
		var args []any
		if strings.Contains(query, "$1") {
			args = []any{ids}
		}
		rows, err := tx.Query(ctx, query, args...)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			if err := fn(rows); err != nil {
				return err
			}
		}
		return rows.Err()
	}
	if err := each("SELECT id, name, perms, balance, last_sell, inventory, version, extra FROM players "+f.players+" ORDER BY name, id", f.playerIDs, func(r pgx.Rows) error {
		var p market.PlayerRow
		if err := r.Scan(&p.ID, &p.Name, &p.Perms, (*int64)(&p.Balance), &p.LastSell, &p.Inventory, &p.Version, &p.Extra); err != nil {
			return err
		}
		return l.Player(p)
	}); err != nil {
		return fmt.Errorf("players: %w", err)
	}
	if err := each("SELECT id, player, item, reason, created, prev_price FROM mail "+f.mail+" ORDER BY created, id", f.playerIDs, func(r pgx.Rows) error {
		var mr market.MailRow
		if err := r.Scan(&mr.ID, &mr.Player, &mr.Item, &mr.Reason, &mr.Created, (*int64)(&mr.PrevPrice)); err != nil {
			return err
		}
		return l.Mail(mr)
	}); err != nil {
		return fmt.Errorf("mail: %w", err)
	}
	if err := each("SELECT id, rec FROM listings "+f.listings, f.listingIDs, func(r pgx.Rows) error {
		var lr market.ListingRow
		if err := r.Scan(&lr.ID, &lr.Rec); err != nil {
			return err
		}
		return l.Listing(lr)
	}); err != nil {
		return fmt.Errorf("listings: %w", err)
	}
	if err := each("SELECT id, state, rec FROM transactions "+f.transactions, f.transactionIDs, scanTx(l.Transaction)); err != nil {
		return fmt.Errorf("transactions: %w", err)
	}
	return nil
}

func scanTx(fn func(market.TxRow) error) func(pgx.Rows) error {
	return func(r pgx.Rows) error {
		var t market.TxRow
		var state string
		if err := r.Scan(&t.ID, &state, &t.Rec); err != nil {
			return err
		}
		t.State = market.State(state)
		return fn(t)
	}
}

// LoadHistory streams finished transactions with ids above after, on a
// read connection, so commits go on meanwhile.
func (s *Store) LoadHistory(after [16]byte, limit int, fn func(market.TxRow) error) (int, error) {
	if s.closed.Load() {
		return 0, errClosed
	}
	return loadHistory(s.ctx, s.readers, after, limit, fn)
}

// WaitEvents returns when a commit notifies, after pollEvery, or when ctx
// ends. It keeps one listening connection; when the server is away it waits
// out the poll interval and connects again on the next call.
func (s *Store) WaitEvents(ctx context.Context) {
	s.listenMu.Lock()
	defer s.listenMu.Unlock()
	ctx, cancel := context.WithTimeout(ctx, pollEvery)
	defer cancel()
	if s.closed.Load() {
		// Closed under a service still following: connecting again
		// would take the duty a live instance should have.
		<-ctx.Done()
		return
	}
	if s.listener == nil || s.listener.IsClosed() {
		s.duty.Store(false) // it went with the connection
		if err := s.listen(ctx); err != nil {
			if ctx.Err() == nil || errors.Is(ctx.Err(), context.DeadlineExceeded) {
				s.suspect.Store(true)
			}
			<-ctx.Done()
			return
		}
		// Entries may have come between the caller's read and LISTEN: do
		// not wait for a notification that was sent before it.
		return
	}
	if !s.duty.Load() && time.Since(s.dutyTried) >= dutyRetry {
		s.tryDuty(ctx)
	}
	if _, err := s.listener.WaitForNotification(ctx); err != nil && ctx.Err() == nil {
		s.listener.Close(s.ctx) // broken: the next call connects again
		s.duty.Store(false)
		s.suspect.Store(true)
		<-ctx.Done()
	}
}

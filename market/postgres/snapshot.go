package postgres

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/rynek/rynek/market"
)

// Snapshot is a PostgreSQL market read at one instant and never written:
// one read-only REPEATABLE READ transaction holds the instant from Open to
// Close, so the instances of the network go on committing undisturbed
// (MVCC: a reader takes no lock that a writer waits for). Opening it
// creates and migrates nothing, takes no instance's name and registers no
// delivery mark.
type Snapshot struct {
	ctx  context.Context
	conn *pgx.Conn
	tx   pgx.Tx
	name string
}

var _ market.Snapshot = (*Snapshot)(nil)

// OpenSnapshot connects to the market dsn to read it; its connection is
// named "rynek:<purpose>" in pg_stat_activity. A database that is not a
// Rynek market, or holds another schema version than this program's (an
// older one is upgraded by opening it with Rynek once), is refused.
func OpenSnapshot(dsn, purpose string) (*Snapshot, error) {
	s := &Snapshot{ctx: context.Background(), name: redact(dsn)}
	if err := s.open(dsn, purpose); err != nil {
		s.Close()
		return nil, fmt.Errorf("read the PostgreSQL market %s: %w", s.name, err)
	}
	return s, nil
}

func (s *Snapshot) open(dsn, purpose string) error {
	cfg, err := pgx.ParseConfig(dsn)
	if err != nil {
		return err
	}
	cfg.ConnectTimeout = 10 * time.Second
	if cfg.RuntimeParams["application_name"] == "" {
		cfg.RuntimeParams["application_name"] = "rynek:" + purpose
	}
	if s.conn, err = pgx.ConnectConfig(s.ctx, cfg); err != nil {
		return err
	}
	if s.tx, err = s.conn.BeginTx(s.ctx, pgx.TxOptions{IsoLevel: pgx.RepeatableRead, AccessMode: pgx.ReadOnly}); err != nil {
		return err
	}
	exists, app, ver, err := readSchema(s.ctx, s.tx)
	switch {
	case err != nil:
		return err
	case !exists:
		return fmt.Errorf("%w: it has no rynek_schema table", ErrForeign)
	case app != application:
		return fmt.Errorf("%w: rynek_schema names %q", ErrForeign, app)
	case ver > SchemaVersion:
		return fmt.Errorf("the database has schema version %d, newer than this program's %d; use a newer Rynek", ver, SchemaVersion)
	case ver < SchemaVersion:
		return fmt.Errorf("the database has schema version %d, older than this program's %d; open it once with this Rynek, which upgrades it", ver, SchemaVersion)
	}
	return nil
}

// Describe names the market: its server and database, without a password.
func (s *Snapshot) Describe() string { return "postgres://" + s.name + " (PostgreSQL)" }

// Load streams every row of the snapshot to l, as Store.Load does. The
// publication mark is the furthest any instance's listeners got.
func (s *Snapshot) Load(l market.Loader) error {
	var m market.MetaRow
	if err := readMeta(s.ctx, s.tx, &m); err != nil {
		return err
	}
	var first, published int64
	if err := s.tx.QueryRow(s.ctx, `SELECT coalesce(min(seq), 0), (SELECT count(*) FROM listings),
		(SELECT coalesce(max(published), 0) FROM rynek_instances) FROM events`).Scan(&first, &m.Listings, &published); err != nil {
		return fmt.Errorf("read the log's start and count the listings: %w", err)
	}
	m.FirstSeq, m.PublishedSeq = uint64(first), uint64(published)
	if err := l.Meta(m); err != nil {
		return err
	}
	return readRows(s.ctx, s.tx, l, rowFilter{transactions: "WHERE state NOT IN ('COMPLETED', 'FAILED', 'ROLLED_BACK')"})
}

// LoadHistory streams finished transactions of the snapshot, as
// Store.LoadHistory does.
func (s *Snapshot) LoadHistory(after [16]byte, limit int, fn func(market.TxRow) error) (int, error) {
	return loadHistory(s.ctx, s.tx, after, limit, fn)
}

// ReadEvents streams log entries of the snapshot, as Store.ReadEvents does.
func (s *Snapshot) ReadEvents(after uint64, limit int, fn func(market.EventRow) error) (int, error) {
	return readEvents(s.ctx, s.tx, after, limit, fn)
}

// Close ends the transaction and the connection.
func (s *Snapshot) Close() error {
	if s.tx != nil {
		s.tx.Rollback(s.ctx) // a read: nothing to undo
		s.tx = nil
	}
	if s.conn != nil {
		err := s.conn.Close(s.ctx)
		s.conn = nil
		return err
	}
	return nil
}

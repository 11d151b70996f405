package sqlite

import (
	"context"
	"fmt"
)

// applicationID marks a database as Rynek's ('RYNK'), so that Open refuses
// someone else's SQLite file instead of writing tables into it.
const applicationID = 0x52594E4B

// SchemaVersion is the version of the schema this package writes. Version 1
// had no event log, version 2 no player row versions, version 3 no player
// data, version 4 no buy orders, version 5 no bookmarks, version 6 no
// instances, version 7 no booked balances; Open upgrades each in place.
const SchemaVersion = 8

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

// ordersSchema is what version 5 added: buy orders, each (id, record) like
// a listing.
const ordersSchema = `CREATE TABLE orders (id INTEGER PRIMARY KEY, rec BLOB NOT NULL);`

// bookmarksSchema is what version 6 added: the named readers of the log,
// each its position and its lease (holder, until: unix ms).
const bookmarksSchema = `CREATE TABLE bookmarks (name TEXT PRIMARY KEY, seq INTEGER NOT NULL, holder TEXT NOT NULL,
	until INTEGER NOT NULL) WITHOUT ROWID;`

// instancesSchema is what version 7 added: the instances that share the
// file (instance.go), and each log entry's origin, the instance that wrote
// it (empty for the entries of the one process that owned a file before).
const instancesSchema = `ALTER TABLE events ADD COLUMN origin TEXT NOT NULL DEFAULT '';
CREATE TABLE instances (name TEXT PRIMARY KEY, slot INTEGER NOT NULL, pid INTEGER NOT NULL, command TEXT NOT NULL,
	started INTEGER NOT NULL, published INTEGER NOT NULL) WITHOUT ROWID;`

// bookedSchema is what version 8 added: each player's balance as Rynek
// booked it, moved by the same statements that move the balance, so that
// the integrity check can name a player whose balance was changed by hand.
// An upgraded file's balances are taken as booked: what was changed by
// hand before the upgrade shows in the market's total only.
const bookedSchema = `ALTER TABLE players ADD COLUMN booked INTEGER NOT NULL DEFAULT 0;
UPDATE players SET booked = balance;`

// init creates the schema in a new file, upgrades an older one, and refuses
// what is not a Rynek market of a version this program knows.
func (s *Store) init() error {
	// In one write transaction from the first read: two instances opening
	// a new or older file at once upgrade it once, the second seeing the
	// first's schema.
	if err := s.exec("BEGIN IMMEDIATE"); err != nil {
		return describe(err)
	}
	statements, err := s.upgrades()
	if err == nil && len(statements) > 0 {
		statements = append(statements, fmt.Sprintf("PRAGMA user_version = %d", SchemaVersion))
		for _, q := range statements {
			if err = s.exec(q); err != nil {
				err = fmt.Errorf("create the schema: %w", describe(err))
				break
			}
		}
	}
	if err != nil {
		s.exec("ROLLBACK")
		return err
	}
	if err := s.exec("COMMIT"); err != nil {
		return describe(err)
	}
	return nil
}

// upgrades is what brings the file's schema to this program's: every
// statement for a new file, the versions' additions for an older one,
// none for a current one, and an error for what is not a Rynek market of a
// version this program knows.
func (s *Store) upgrades() ([]string, error) {
	app, ver, err := readSchema(s.ctx, s.conn)
	if err != nil {
		return nil, err
	}
	since := []string{eventsSchema, versionSchema, extraSchema, ordersSchema, bookmarksSchema, instancesSchema, bookedSchema}
	switch {
	case app == 0 && ver == 0:
		var tables int
		if err := s.conn.QueryRowContext(s.ctx, "SELECT count(*) FROM sqlite_master").Scan(&tables); err != nil {
			return nil, describe(err)
		}
		if tables > 0 {
			return nil, fmt.Errorf("%w: the SQLite file already holds %d other objects", ErrForeign, tables)
		}
		return append(append([]string{schema}, since...), fmt.Sprintf("PRAGMA application_id = %d", applicationID)), nil
	case app != applicationID:
		return nil, fmt.Errorf("%w: application_id is %#x", ErrForeign, app)
	case ver > SchemaVersion:
		return nil, fmt.Errorf("the database has schema version %d, newer than this program's %d; use a newer Rynek", ver, SchemaVersion)
	case ver < 1:
		return nil, fmt.Errorf("the database has unknown schema version %d", ver)
	}
	return since[ver-1:], nil // version v lacks what versions v+1… added
}

func (s *Store) exec(q string) error {
	_, err := s.conn.ExecContext(s.ctx, q)
	return err
}

// readSchema reads whose database q is on (its application id: Rynek's is
// applicationID, a new file's 0) and the version of its schema. Opening,
// reading a snapshot and backing up each decide from them what to refuse.
func readSchema(ctx context.Context, q queryer) (app, ver int64, err error) {
	if err := q.QueryRowContext(ctx, "PRAGMA application_id").Scan(&app); err != nil {
		return 0, 0, describe(err)
	}
	if err := q.QueryRowContext(ctx, "PRAGMA user_version").Scan(&ver); err != nil {
		return 0, 0, describe(err)
	}
	return app, ver, nil
}

package postgres

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"
)

// SchemaVersion is the version of the schema this package writes: one per
// migration.
const SchemaVersion = 7

// application marks a database as a Rynek market, in rynek_schema.
const application = "rynek-market"

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
`, `
-- Buy orders, each (id, record) like a listing; a closed one stays.
CREATE TABLE orders (id bigint PRIMARY KEY, rec bytea NOT NULL);
`, `
-- The named readers of the log (webhooks): each its position and its
-- lease, held by one instance until "until" (unix ms, the server's clock).
CREATE TABLE bookmarks (name text PRIMARY KEY, seq bigint NOT NULL, holder text NOT NULL, until bigint NOT NULL);
`, `
-- Each player's balance as Rynek booked it, moved by the same statements
-- that move the balance, so that the integrity check can name a player
-- whose balance was changed by hand. An upgraded market's balances are
-- taken as booked.
ALTER TABLE players ADD COLUMN booked bigint NOT NULL DEFAULT 0;
UPDATE players SET booked = balance;
`}

// migrate creates or upgrades the schema, under a transaction-level
// advisory lock so that two instances starting on an empty database do not
// both create it.
func (s *Store) migrate() error {
	return pgx.BeginFunc(s.ctx, s.conn, func(tx pgx.Tx) error {
		if _, err := tx.Exec(s.ctx, "SELECT pg_advisory_xact_lock($1)", int64(ownerLock+1)); err != nil {
			return err
		}
		exists, app, ver, err := readSchema(s.ctx, tx)
		if err != nil {
			return err
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

// readSchema reads whether the database holds a Rynek schema table, whose
// it is and its version. Opening a market and opening a snapshot each
// decide from them what to refuse.
func readSchema(ctx context.Context, tx pgx.Tx) (exists bool, app string, ver int, err error) {
	if err := tx.QueryRow(ctx, "SELECT to_regclass('rynek_schema') IS NOT NULL").Scan(&exists); err != nil || !exists {
		return false, "", 0, err
	}
	if err := tx.QueryRow(ctx, "SELECT application, version FROM rynek_schema").Scan(&app, &ver); err != nil {
		return true, "", 0, fmt.Errorf("%w: its rynek_schema table cannot be read: %v", ErrForeign, err)
	}
	return true, app, ver, nil
}

package postgres_test

import (
	"context"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/rynek/rynek/internal/pgtest"
	"github.com/rynek/rynek/market"
	"github.com/rynek/rynek/market/postgres"
	"github.com/rynek/rynek/market/storetest"
)

// tables is the PostgreSQL store's hand on its own tables for the suites
// that edit them by hand.
var tables = storetest.Tables{
	New: func(t *testing.T) string { return pgtest.Database(t) },
	Open: func(t *testing.T, dsn string) market.Store {
		st, err := postgres.Open(dsn, postgres.Options{})
		mustOK(t, err)
		return st
	},
	Snapshot: func(t *testing.T, dsn string) (market.Snapshot, error) { return postgres.OpenSnapshot(dsn, "check") },
	Exec: func(t *testing.T, dsn, query string, args ...any) {
		t.Helper()
		ctx := context.Background()
		conn, err := pgx.Connect(ctx, dsn)
		mustOK(t, err)
		defer conn.Close(ctx)
		if _, err := conn.Exec(ctx, query, args...); err != nil {
			t.Fatalf("%s: %v", query, err)
		}
	},
	LogCounter: true,
	Edits: map[string]string{
		"change a listing's seller":  `UPDATE listings SET rec = overlay(rec placing $2 from 2 for 16) WHERE id = $1`,
		"copy a listing":             `INSERT INTO listings (id, rec) SELECT $2, rec FROM listings WHERE id = $1`,
		"copy an inventory":          `UPDATE players SET inventory = (SELECT inventory FROM players WHERE id = $1) WHERE id = $2`,
		"delete a listing":           `DELETE FROM listings WHERE id = $1`,
		"delete a player":            `DELETE FROM players WHERE id = $1`,
		"delete a purchase":          `DELETE FROM transactions WHERE id = $1`,
		"delete an event":            `DELETE FROM events WHERE seq = $1`,
		"delete the newest events":   `DELETE FROM events WHERE seq > $1`,
		"delete the oldest events":   `DELETE FROM events WHERE seq <= $1`,
		"garble a listing":           `UPDATE listings SET rec = $2 WHERE id = $1`,
		"garble a purchase":          `UPDATE transactions SET rec = $2 WHERE id = $1`,
		"garble an event":            `UPDATE events SET body = $2 WHERE seq = $1`,
		"insert a listing":           `INSERT INTO listings (id, rec) VALUES ($1, $2)`,
		"insert a mailbox entry":     `INSERT INTO mail (id, player, item, reason, created, prev_price) VALUES ($1, $2, $3, $4, $5, $6)`,
		"mark events delivered":      `UPDATE rynek_instances SET published = $1`,
		"move a mailbox entry":       `UPDATE mail SET player = $2 WHERE id = $1`,
		"raise a balance":            `UPDATE players SET balance = balance + $2 WHERE id = $1`,
		"raise the fee account":      `UPDATE meta SET v = v + $1 WHERE k = 'fee_balance'`,
		"raise the volume":           `UPDATE meta SET v = v + $1 WHERE k = 'market_volume'`,
		"rename an event":            `UPDATE events SET kind = $2 WHERE seq = $1`,
		"set a balance":              `UPDATE players SET balance = $2 WHERE id = $1`,
		"set a purchase's state":     `UPDATE transactions SET state = $2 WHERE id = $1`,
		"set the next listing id":    `UPDATE meta SET v = $1 WHERE k = 'next_listing_id'`,
		"forget the opening account": `DELETE FROM meta WHERE k IN ('opening_money', 'opening_items', 'loaded_through', 'log_trimmed', 'log_trimmed_at')`,
	},
}

// TestCheck runs the integrity check's suite: a sound market passes, and
// each edit by hand is found and named.
func TestCheck(t *testing.T) { storetest.CheckSuite(t, tables) }

// TestOpeningAccount runs the stores' suite of the opening account and the
// log's horizon.
func TestOpeningAccount(t *testing.T) { storetest.OpeningAccount(t, tables) }

// TestBookmarks runs the stores' suite of the log's bookmarks: the
// position, its lease, and what trimming keeps for them.
func TestBookmarks(t *testing.T) { storetest.Bookmarks(t, tables) }

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
	Edits: map[string]string{
		"forget the opening account": `DELETE FROM meta WHERE k IN ('opening_money', 'opening_items', 'loaded_through', 'log_trimmed', 'log_trimmed_at')`,
	},
}

// TestOpeningAccount runs the stores' suite of the opening account and the
// log's horizon.
func TestOpeningAccount(t *testing.T) { storetest.OpeningAccount(t, tables) }

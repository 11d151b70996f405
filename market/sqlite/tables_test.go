package sqlite_test

import (
	"path/filepath"
	"testing"

	"github.com/google/uuid"
	"github.com/rynek/rynek/market"
	"github.com/rynek/rynek/market/sqlite"
	"github.com/rynek/rynek/market/storetest"
)

// tables is the SQLite store's hand on its own tables for the suites that
// edit them by hand.
var tables = storetest.Tables{
	New: func(t *testing.T) string { return filepath.Join(t.TempDir(), "market.db") },
	Open: func(t *testing.T, path string) market.Store {
		st, err := sqlite.Open(path, sqlite.Options{})
		mustOK(t, err)
		return st
	},
	Snapshot: func(t *testing.T, path string) (market.Snapshot, error) { return sqlite.OpenSnapshot(path) },
	Exec: func(t *testing.T, path, query string, args ...any) {
		t.Helper()
		for i, a := range args {
			if u, ok := a.(uuid.UUID); ok {
				args[i] = u[:] // a blob, as the store keeps ids
			}
		}
		db := openRaw(t, path)
		defer db.Close()
		if _, err := db.Exec(query, args...); err != nil {
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

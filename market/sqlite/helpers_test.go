package sqlite_test

import (
	"database/sql"
	"testing"
)

// openRaw opens path with the plain driver, past the store.
func openRaw(t *testing.T, path string) *sql.DB {
	t.Helper()
	db, err := sql.Open("sqlite", "file:"+path)
	mustOK(t, err)
	return db
}

func mustOK(t testing.TB, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

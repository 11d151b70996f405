package storetest

import (
	"testing"

	"github.com/rynek/rynek/market"
)

// Tables is a store package's hand on its own tables, for the suites that
// edit them as an admin with an SQL prompt would (to make a market of an
// older Rynek, or to damage one for the integrity check). Each store's test
// gives the SQL of every edit the suites name, in its own dialect; a suite
// fails on an edit a store does not give, so every store is put through all
// of them.
type Tables struct {
	// New makes a new empty market and returns what opens it: a file's
	// path or a connection string.
	New func(t *testing.T) string
	// Open opens the market as a store; the suite closes it.
	Open func(t *testing.T, at string) market.Store
	// Snapshot opens the market to be read; the suite closes it.
	Snapshot func(t *testing.T, at string) (market.Snapshot, error)
	// Exec runs one statement on the market while no store has it open.
	// Arguments are the edit's: ints, strings, and uuid.UUIDs, which Exec
	// passes as the store keeps ids.
	Exec func(t *testing.T, at string, query string, args ...any)
	// Edits are the statements, by the names the suites use.
	Edits map[string]string
	// LogCounter is set for a store that keeps the log's newest seq apart
	// from its entries (PostgreSQL's event_counter): deleting the newest
	// entries shows against it.
	LogCounter bool
}

// edit runs the named edit on the market at.
func (tb Tables) edit(t *testing.T, at, name string, args ...any) {
	t.Helper()
	q, ok := tb.Edits[name]
	if !ok {
		t.Fatalf("the store's test gives no SQL for the edit %q", name)
	}
	tb.Exec(t, at, q, args...)
}

// metaOf reads the meta row a store reports on Load.
func metaOf(t *testing.T, st market.Store) market.MetaRow {
	t.Helper()
	var d Dump
	if err := st.Load(dumper{&d}); err != nil {
		t.Fatal(err)
	}
	return d.Meta
}

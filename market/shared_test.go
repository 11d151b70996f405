package market_test

import (
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/rynek/rynek/internal/pgtest"
	"github.com/rynek/rynek/market"
	"github.com/rynek/rynek/market/postgres"
	"github.com/rynek/rynek/market/sqlite"
)

// sharedMarket is one market that several instances open at once: a
// PostgreSQL database (a network), or a SQLite file (processes on one
// machine). open opens it as the named instance, or as a tool.
type sharedMarket struct {
	kind string
	open func(instance string, tool bool) (market.SharedStore, error)
}

func postgresMarket(dsn string) sharedMarket {
	return sharedMarket{kind: "postgres", open: func(instance string, tool bool) (market.SharedStore, error) {
		return postgres.Open(dsn, postgres.Options{Instance: instance, Tool: tool})
	}}
}

func sqliteMarket(path string) sharedMarket {
	return sharedMarket{kind: "sqlite", open: func(instance string, tool bool) (market.SharedStore, error) {
		return sqlite.Open(path, sqlite.Options{Instance: instance, Tool: tool})
	}}
}

// forEachSharedMarket runs a test of several instances on a SQLite file
// and on a PostgreSQL database: the guarantees are the same.
func forEachSharedMarket(t *testing.T, run func(*testing.T, sharedMarket)) {
	t.Run("sqlite", func(t *testing.T) { run(t, sqliteMarket(filepath.Join(t.TempDir(), "m.db"))) })
	t.Run("postgres", func(t *testing.T) { run(t, postgresMarket(pgtest.Database(t))) })
}

// TestPeersAreTheOtherInstances: each instance lists the others that have
// the market open, by name, and forgets one that closed; a tool is none.
func TestPeersAreTheOtherInstances(t *testing.T) {
	forEachSharedMarket(t, func(t *testing.T, m sharedMarket) {
		names := func(st market.SharedStore) []string {
			t.Helper()
			peers, err := st.(market.PeerLister).Peers()
			must(t, err)
			var out []string
			for _, p := range peers {
				out = append(out, p.Name)
			}
			return out
		}
		a, err := m.open("lobby", false)
		must(t, err)
		defer a.Close()
		b, err := m.open("survival", false)
		must(t, err)
		tool, err := m.open("", true)
		must(t, err)
		defer tool.Close()
		if got := names(a); !slices.Equal(got, []string{"survival"}) {
			t.Fatalf("lobby sees %v, want [survival]", got)
		}
		if got := names(b); !slices.Equal(got, []string{"lobby"}) {
			t.Fatalf("survival sees %v, want [lobby]", got)
		}
		must(t, b.Close())
		// PostgreSQL ends the closed session's backend, and its locks,
		// a moment after the client has gone.
		for deadline := time.Now().Add(5 * time.Second); len(names(a)) != 0; time.Sleep(20 * time.Millisecond) {
			if time.Now().After(deadline) {
				t.Fatalf("lobby sees %v five seconds after survival closed, want none", names(a))
			}
		}
	})
}

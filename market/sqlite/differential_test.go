package sqlite_test

import (
	"path/filepath"
	"testing"

	"github.com/rynek/rynek/market"
	"github.com/rynek/rynek/market/sqlite"
	"github.com/rynek/rynek/market/storetest"
)

// TestStoreAgreesWithTheModel runs the stores' differential suite: random
// batches through Commit here and through the reference model, accepted or
// refused alike, with the same rows and log live and after a reopen.
func TestStoreAgreesWithTheModel(t *testing.T) {
	storetest.Differential(t, func(t *testing.T) (market.Store, func() market.Store) {
		path := filepath.Join(t.TempDir(), "m.db")
		st, err := sqlite.Open(path, sqlite.Options{})
		mustOK(t, err)
		t.Cleanup(func() { st.Close() })
		return st, func() market.Store {
			mustOK(t, st.Close())
			st, err = sqlite.Open(path, sqlite.Options{})
			mustOK(t, err)
			return st
		}
	})
}

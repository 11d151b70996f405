package postgres_test

import (
	"testing"

	"github.com/rynek/rynek/internal/pgtest"
	"github.com/rynek/rynek/market"
	"github.com/rynek/rynek/market/postgres"
	"github.com/rynek/rynek/market/storetest"
)

// TestStoreAgreesWithTheModel runs the stores' differential suite: random
// batches through Commit here and through the reference model, accepted or
// refused alike, with the same rows and log live and after a reopen.
func TestStoreAgreesWithTheModel(t *testing.T) {
	storetest.Differential(t, func(t *testing.T) (market.Store, func() market.Store) {
		dsn := pgtest.Database(t)
		st, err := postgres.Open(dsn, postgres.Options{})
		mustOK(t, err)
		t.Cleanup(func() { st.Close() })
		return st, func() market.Store {
			mustOK(t, st.Close())
			st, err = postgres.Open(dsn, postgres.Options{})
			mustOK(t, err)
			return st
		}
	})
}

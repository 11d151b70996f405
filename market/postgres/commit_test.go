package postgres_test

import (
	"errors"
	"testing"

	"github.com/rynek/rynek/internal/pgtest"
	"github.com/rynek/rynek/market"
	"github.com/rynek/rynek/market/postgres"
)

// TestRefusedBatchWritesNothing: a batch whose last op fails leaves no row
// and no log entry of its earlier ops, and takes no seq.
func TestRefusedBatchWritesNothing(t *testing.T) {
	dsn := pgtest.Database(t)
	st, err := postgres.Open(dsn, postgres.Options{})
	mustOK(t, err)
	defer st.Close()
	b := &market.Batch{
		Ops: []market.Op{{Kind: market.OpAddListing, Listing: &market.ListingRow{ID: 7, Rec: []byte{1}}},
			{Kind: market.OpDelListing, Int: 8}},
		Events: []market.EventRow{{Kind: market.KindListingCreated, At: 1, Body: []byte{2}}},
	}
	if err := st.Commit(b); !errors.Is(err, market.ErrConflict) {
		t.Fatalf("got %v, want a conflict", err)
	}
	if n := count(t, dsn, "SELECT count(*) FROM listings") + count(t, dsn, "SELECT count(*) FROM events"); n != 0 {
		t.Fatalf("%d rows written by a refused batch", n)
	}
	b.Ops = b.Ops[:1]
	mustOK(t, st.Commit(b))
	if b.Events[0].Seq != 1 {
		t.Fatalf("the first accepted entry has seq %d, want 1", b.Events[0].Seq)
	}
}

// TestServerRestart: a commit after the server restarted (the writer's
// connection is gone) is saved once, on a new connection, and the log goes on
// without a gap or a double.
func TestServerRestart(t *testing.T) {
	dsn := pgtest.Database(t)
	st, err := postgres.Open(dsn, postgres.Options{})
	mustOK(t, err)
	defer st.Close()
	sell := func(id int64) *market.Batch {
		return &market.Batch{
			Ops:    []market.Op{{Kind: market.OpAddListing, Listing: &market.ListingRow{ID: id, Rec: []byte{byte(id)}}}},
			Events: []market.EventRow{{Kind: market.KindListingCreated, At: id, Body: []byte{byte(id)}}},
		}
	}
	mustOK(t, st.Commit(sell(1)))
	pgtest.Restart(t, 0)
	b := sell(2)
	mustOK(t, st.Commit(b))
	if b.Events[0].Seq != 2 {
		t.Fatalf("the commit after the restart got seq %d, want 2", b.Events[0].Seq)
	}
	mustOK(t, st.Commit(sell(3)))
	if n := count(t, dsn, "SELECT count(*) FROM events"); n != 3 {
		t.Fatalf("%d log entries, want 3", n)
	}
	if n := count(t, dsn, "SELECT count(*) FROM listings"); n != 3 {
		t.Fatalf("%d listings, want 3", n)
	}
}

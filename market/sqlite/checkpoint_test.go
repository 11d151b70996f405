package sqlite_test

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/rynek/rynek/market"
	"github.com/rynek/rynek/market/sqlite"
)

func TestCheckpointsKeepTheWALBounded(t *testing.T) {
	defer sqlite.SetCheckpoints(20*time.Millisecond, 1<<20)()
	path := filepath.Join(t.TempDir(), "m.db")
	st, err := sqlite.Open(path, sqlite.Options{})
	mustOK(t, err)
	defer st.Close()
	p := uuid.New()
	mustOK(t, st.Commit(&market.Batch{Ops: []market.Op{{Kind: market.OpAddPlayer, Player: &market.PlayerRow{ID: p, Name: "A"}}}}))
	inventory := make([]byte, 900)
	walSize := func() int64 {
		fi, err := os.Stat(path + "-wal")
		if err != nil {
			return 0
		}
		return fi.Size()
	}
	// A steady stream of commits until the WAL has started over twice (or,
	// failing, for ten seconds: a slow machine under the race detector may
	// need several): a passive checkpoint alone never lets the WAL start
	// over, so it would only grow.
	restarts, last := 0, int64(0)
	had := []byte{} // the player's inventory as stored
	for start, i := time.Now(), 1; restarts < 2 && time.Since(start) < 10*time.Second; i++ {
		mustOK(t, st.Commit(&market.Batch{
			Ops: []market.Op{
				{Kind: market.OpPlayerState, Delta: 1, Player: &market.PlayerRow{ID: p, Inventory: inventory}, Expect: had},
				{Kind: market.OpAddListing, Listing: &market.ListingRow{ID: int64(i), Rec: inventory[:80]}},
			},
			Events: []market.EventRow{{Kind: market.KindListingCreated, At: int64(i), Body: inventory[:120]}},
		}))
		had = inventory
		if size := walSize(); size < last {
			restarts++
			last = size
		} else {
			last = size
		}
	}
	if restarts < 2 {
		t.Fatalf("the WAL started over %d times under a steady stream of commits", restarts)
	}
}

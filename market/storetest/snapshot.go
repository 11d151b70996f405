package storetest

import (
	"reflect"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/rynek/rynek/market"
)

// Snapshots checks a store's read-only snapshot: it reads every row, the
// history and the log as the store holds them, and it reads one instant of
// a market that a store has open and commits to, without holding that
// store's commits up. What it must not change (the file, the tables) each
// store's own test checks.
func Snapshots(t *testing.T, tb Tables) {
	t.Run("reads what the store holds", func(t *testing.T) {
		at := tb.New(t)
		st := tb.Open(t, at)
		b, err := market.NewBulk(st)
		must(t, err)
		load(t, b, 0)
		must(t, b.Finish())
		for i := 0; i < 3; i++ {
			must(t, st.Commit(&market.Batch{Events: []market.EventRow{{Kind: market.KindPlayerData, At: int64(i), Body: []byte{byte(i)}}}}))
		}
		want := DumpStore(t, st)
		must(t, st.Close())
		snap := openSnapshot(t, tb, at)
		got := DumpStore(t, snap)
		got.Published, want.Published = 0, 0 // a store's is its instance's mark
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("the snapshot reads\n%+v\nthe store holds\n%+v", got, want)
		}
	})

	t.Run("one instant while a store commits", func(t *testing.T) {
		at := tb.New(t)
		st := tb.Open(t, at)
		defer st.Close()
		b, err := market.NewBulk(st)
		must(t, err)
		load(t, b, 0)
		must(t, b.Finish())
		must(t, st.Commit(&market.Batch{Events: []market.EventRow{{Kind: market.KindPlayerData, At: 1, Body: []byte{1}}}}))
		before := DumpStore(t, st)
		snap := openSnapshot(t, tb, at)
		// The store commits while the snapshot is open, and is not held
		// up by it.
		done := make(chan error, 1)
		go func() {
			done <- st.Commit(&market.Batch{Ops: []market.Op{
				{Kind: market.OpAddPlayer, Player: &market.PlayerRow{ID: uuid.New(), Name: "Cecylia", Balance: 5_00}},
				{Kind: market.OpIssuance, Meta: market.MetaRow{Issuance: market.Issuance{MoneyIn: 5_00}}},
			}, Events: []market.EventRow{{Kind: market.KindPlayerAdded, At: 2, Body: []byte{2}}}})
		}()
		select {
		case err := <-done:
			must(t, err)
		case <-time.After(10 * time.Second):
			t.Fatal("a commit waited for the snapshot for 10 s")
		}
		got := DumpStore(t, snap)
		got.Published, before.Published = 0, 0
		if !reflect.DeepEqual(got, before) {
			t.Fatalf("the snapshot moved with the commit:\n%+v\nwant\n%+v", got, before)
		}
		must(t, snap.Close())
		snap = openSnapshot(t, tb, at)
		after := DumpStore(t, snap)
		if len(after.Players) != len(before.Players)+1 || len(after.Events) != len(before.Events)+1 {
			t.Fatalf("a new snapshot does not see the commit: %d players, %d entries", len(after.Players), len(after.Events))
		}
		// Closed before the store, whose closing checkpoint would wait
		// for the snapshot's readers to finish.
		must(t, snap.Close())
	})
}

// openSnapshot opens a snapshot of the market at, closed when t ends.
func openSnapshot(t *testing.T, tb Tables, at string) market.Snapshot {
	t.Helper()
	snap, err := tb.Snapshot(t, at)
	must(t, err)
	t.Cleanup(func() { snap.Close() })
	return snap
}

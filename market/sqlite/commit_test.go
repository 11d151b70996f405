package sqlite_test

import (
	"errors"
	"path/filepath"
	"testing"

	"github.com/google/uuid"
	"github.com/rynek/rynek/market"
	"github.com/rynek/rynek/market/sqlite"
)

func TestCommitIsAtomicAndConditional(t *testing.T) {
	path := filepath.Join(t.TempDir(), "m.db")
	st, err := sqlite.Open(path, sqlite.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	p := uuid.New()
	tx := uuid.New()
	mustOK(t, st.Commit(&market.Batch{Ops: []market.Op{
		{Kind: market.OpAddPlayer, Player: &market.PlayerRow{ID: p, Name: "A", Balance: 100}},
		{Kind: market.OpPutTx, Tx: &market.TxRow{ID: tx, State: market.StateCreated, Rec: []byte{1}}},
	}}))
	// A conditional update that does not match fails the whole batch,
	// including the balance change before it.
	err = st.Commit(&market.Batch{Ops: []market.Op{
		{Kind: market.OpPlayerState, Player: &market.PlayerRow{ID: p, Balance: 5}},
		{Kind: market.OpTxState, Tx: &market.TxRow{ID: tx, State: market.StateCompleted}, ExpectState: market.StateMoneyWithdrawn},
	}})
	if !errors.Is(err, market.ErrConflict) {
		t.Fatalf("conditional update: %v", err)
	}
	var rec recorder
	mustOK(t, st.Load(&rec))
	if len(rec.players) != 1 || rec.players[0].Balance != 100 {
		t.Fatalf("partial commit: %+v", rec.players)
	}
	if len(rec.txs) != 1 || rec.txs[0].State != market.StateCreated {
		t.Fatalf("tx %+v", rec.txs)
	}
	// Updating a player that does not exist is an error too.
	err = st.Commit(&market.Batch{Ops: []market.Op{{Kind: market.OpPlayerState, Player: &market.PlayerRow{ID: uuid.New()}}}})
	if !errors.Is(err, market.ErrConflict) {
		t.Fatalf("missing player: %v", err)
	}
}

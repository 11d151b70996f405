package storetest

import (
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/rynek/rynek/market"
)

// The market the suites that take Tables load (check.go, opening.go,
// snapshot.go), and the helpers they share.

// t0 is the suites' clock's start.
var t0 = time.Date(2026, 11, 1, 12, 0, 0, 0, time.UTC)

// ids are the players load adds.
var ids = []uuid.UUID{uuid.MustParse("00000000-0000-4000-8000-000000000001"), uuid.MustParse("00000000-0000-4000-8000-000000000002")}

// load adds two players (100.00 and 250.00, a stack of 5 and one of 7), a
// listing of 3 created at t0+1h, a completed sale at t0 and 40 cents of
// fees, the ids of its stacks starting after first.
func load(t *testing.T, b *market.Bulk, first byte) {
	t.Helper()
	must(t, b.AddPlayer(market.Player{ID: ids[0], Name: "Ala"}, 100_00))
	must(t, b.AddPlayer(market.Player{ID: ids[1], Name: "Bartek"}, 250_00))
	must(t, b.SetSlot(ids[0], 0, market.ItemStack{ID: stackID(first + 1), Material: "DIAMOND", Amount: 5}))
	must(t, b.SetSlot(ids[1], 3, market.ItemStack{ID: stackID(first + 2), Material: "OAK_LOG", Amount: 7}))
	_, err := b.AddListing(ids[0], market.ItemStack{ID: stackID(first + 3), Material: "DIAMOND", Amount: 3}, 12_00, t0.Add(time.Hour), t0.Add(48*time.Hour))
	must(t, err)
	_, err = b.AddTransaction(market.HistoricSale{Buyer: ids[1], Seller: ids[0], Item: market.ItemStack{ID: stackID(first + 4), Material: "DIAMOND", Amount: 1},
		Price: 4_00, Fee: 40, State: market.StateCompleted, At: t0})
	must(t, err)
	b.Fees(40)
}

// stack is a new stack of n diamonds.
func stack(n int) market.ItemStack {
	return market.ItemStack{ID: uuid.New(), Material: "DIAMOND", Amount: n}
}

// stackID is the fixed id of the suites' nth stack, so that a dump names
// the same stack in every run.
func stackID(n byte) uuid.UUID {
	u := uuid.MustParse("00000000-0000-4000-8000-0000000000a0")
	u[15] += n
	return u
}

// must fails the test at once on an error.
func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

package storetest

import (
	"math"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/rynek/rynek/market"
)

// OpeningAccount checks that a store keeps the opening account and the log's
// horizon, which the integrity check counts the market against: a bulk load
// adds what it brings, trimming records the newest seq and time it deleted,
// and a market from before they were kept (the edit "forget the opening
// account") gets them when a service opens it.
func OpeningAccount(t *testing.T, tb Tables) {
	t.Run("a bulk load adds to it", func(t *testing.T) {
		at := tb.New(t)
		st := tb.Open(t, at)
		defer st.Close()
		b, err := market.NewBulk(st)
		must(t, err)
		load(t, b, 0)
		must(t, b.Finish())
		got := metaOf(t, st)
		want := market.Opening{Money: 350_00 + 40, Items: 5 + 7 + 3, LoadedThrough: t0.Add(time.Hour).UnixMilli()}
		if !got.HasOpening || got.Opening != want || got.Trimmed != 0 {
			t.Fatalf("after the load: %+v (kept %v, trimmed %d); want %+v", got.Opening, got.HasOpening, got.Trimmed, want)
		}
		// A merge adds to it; the account is not set back by an older
		// creation time.
		m, err := market.NewMerge(st)
		must(t, err)
		must(t, m.AddPlayer(market.Player{ID: uuid.New(), Name: "Cecylia"}, 10_00))
		_, err = m.AddListing(ids[0], stack(2), 9_00, t0.Add(-time.Hour), t0.Add(time.Hour))
		must(t, err)
		must(t, m.Finish())
		want.Money += 10_00
		want.Items += 2
		if got := metaOf(t, st); got.Opening != want {
			t.Fatalf("after the merge: %+v, want %+v", got.Opening, want)
		}
	})

	t.Run("trimming records its horizon", func(t *testing.T) {
		at := tb.New(t)
		st := tb.Open(t, at)
		defer st.Close()
		for _, ms := range []int64{10, 30, 20, 40} { // a clock that went back: the horizon's time is the newest
			must(t, st.Commit(&market.Batch{Events: []market.EventRow{{Kind: market.KindPlayerData, At: ms, Body: []byte{1}}}}))
		}
		must(t, st.Commit(&market.Batch{Published: 4}))
		first, err := st.TrimEvents(market.EventTrim{Below: 5, ThroughSeq: 3, OlderThan: math.MinInt64, Limit: 100})
		must(t, err)
		got := metaOf(t, st)
		if first != 4 || got.Trimmed != 3 || got.TrimmedAt != 30 || got.FirstSeq != 4 {
			t.Fatalf("trimmed to %d: horizon %d at %d, first %d; want 4, 3 at 30, 4", first, got.Trimmed, got.TrimmedAt, got.FirstSeq)
		}
	})

	t.Run("a market from before gets it when it opens", func(t *testing.T) {
		at := tb.New(t)
		st := tb.Open(t, at)
		b, err := market.NewBulk(st)
		must(t, err)
		load(t, b, 0)
		must(t, b.Finish())
		// Entries 1 and 2 were trimmed before Rynek kept the horizon.
		for i := 0; i < 3; i++ {
			must(t, st.Commit(&market.Batch{Events: []market.EventRow{{Kind: market.KindPlayerData, At: int64(i), Body: []byte{1}}}}))
		}
		must(t, st.Commit(&market.Batch{Published: 3}))
		_, err = st.TrimEvents(market.EventTrim{Below: 4, ThroughSeq: 2, OlderThan: math.MinInt64, Limit: 100})
		must(t, err)
		must(t, st.Close())
		tb.edit(t, at, "forget the opening account")

		st = tb.Open(t, at)
		if got := metaOf(t, st); got.HasOpening {
			t.Fatalf("the edit left the account: %+v", got)
		}
		// A bulk load into it adds nothing: a part of the account would
		// pass for the whole.
		m, err := market.NewMerge(st)
		must(t, err)
		must(t, m.AddPlayer(market.Player{ID: uuid.New(), Name: "Cecylia"}, 10_00))
		must(t, m.Finish())
		if got := metaOf(t, st); got.HasOpening {
			t.Fatalf("a merge made the account from its own share: %+v", got)
		}
		clock := market.NewManualClock(t0.Add(48 * time.Hour))
		svc := market.New(st, market.Config{Clock: clock})
		must(t, svc.BindMainThread())
		must(t, svc.Enable())
		must(t, svc.Close())
		st = tb.Open(t, at)
		defer st.Close()
		got := metaOf(t, st)
		want := market.Opening{Money: 350_00 + 40 + 10_00, Items: 5 + 7 + 3, LoadedThrough: clock.Now().UnixMilli()}
		if !got.HasOpening || got.Opening != want || got.Trimmed != 2 || got.TrimmedAt != 0 {
			t.Fatalf("recorded %+v (kept %v), horizon %d at %d; want %+v, horizon 2 at 0", got.Opening, got.HasOpening, got.Trimmed, got.TrimmedAt, want)
		}
	})
}

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

func stackID(n byte) uuid.UUID {
	u := uuid.MustParse("00000000-0000-4000-8000-0000000000a0")
	u[15] += n
	return u
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

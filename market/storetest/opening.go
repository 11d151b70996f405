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

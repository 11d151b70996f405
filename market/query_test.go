package market_test

import (
	"math"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/rynek/rynek/internal/traffic"
	"github.com/rynek/rynek/market"
	"github.com/rynek/rynek/market/catalog"
	"github.com/rynek/rynek/market/sqlite"
	"github.com/rynek/rynek/seed"
)

// seeded opens a generated market of n listings on the calling goroutine,
// which becomes its main thread.
func seeded(t *testing.T, n int) *market.Service {
	t.Helper()
	st, err := sqlite.Open(filepath.Join(t.TempDir(), "m.db"), sqlite.Options{})
	must(t, err)
	if _, err := seed.Load(st, seed.Options{Listings: n, Players: 50, Days: 2, Now: t0}); err != nil {
		st.Close()
		t.Fatal(err)
	}
	svc := market.New(st, market.Config{Clock: market.NewManualClock(t0), ListingCooldown: -1})
	must(t, svc.BindMainThread())
	must(t, svc.Enable())
	must(t, svc.WaitHistory())
	t.Cleanup(func() { svc.Close() })
	return svc
}

// TestCursorPagingMatchesOneRead: paging with After through a still market
// gives exactly the one-read answer, for every sort and several filters,
// on both the broad (order walk) and the narrow (collect) paths.
func TestCursorPagingMatchesOneRead(t *testing.T) {
	svc := seeded(t, 20_000)
	filters := []market.Query{
		{},
		{Category: catalog.CategoryTools},
		{Material: "diamond"},
		{MinPrice: 10_00, MaxPrice: 500_00},
		{Text: "a"},
		{MinPrice: 1_000_00},
		{MinAmount: 16, MaxAmount: 48},
		{Text: "a", MinAmount: 2, MinPrice: 5_00},
	}
	for _, f := range filters {
		for _, mode := range market.SortModes() {
			q := f
			q.Sort, q.Limit = mode, -1
			all, err := svc.Query(q)
			must(t, err)
			q.Limit = 97
			var got []int
			for pages := 0; ; pages++ {
				p, err := svc.Query(q)
				must(t, err)
				for _, l := range p.Listings {
					got = append(got, l.ID)
				}
				if p.Next == nil {
					break
				}
				if pages > len(all.Listings) {
					t.Fatalf("%+v: paging does not end", q)
				}
				q.After = p.Next
			}
			want := make([]int, len(all.Listings))
			for i, l := range all.Listings {
				want[i] = l.ID
			}
			if !slices.Equal(got, want) {
				t.Errorf("sort %s, filters %+v: paged %d listings, one read %d; first difference at %d", mode, f, len(got), len(want), firstDiff(got, want))
			}
		}
	}
}

func firstDiff(a, b []int) int {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return i
		}
	}
	return min(len(a), len(b))
}

// TestCursorPagingUnderTraffic: while traffic sells, buys and removes
// between pages, a listing that stays on the market the whole time is
// returned exactly once, nothing is returned twice, and every page follows
// the sort order from where the last one ended.
func TestCursorPagingUnderTraffic(t *testing.T) {
	svc := seeded(t, 5_000)
	players, err := svc.Players()
	must(t, err)
	rng := rand.New(rand.NewPCG(7, 7))
	gen := traffic.New(7)
	for _, mode := range market.SortModes() {
		before, err := svc.Query(market.Query{Sort: mode, Limit: -1})
		must(t, err)
		q := market.Query{Sort: mode, Limit: 1 + rng.IntN(60)}
		seen := map[int]int{}
		moved := map[int]bool{}         // met with another amount or price than before
		was := map[int]market.Listing{} // as before, or as first seen
		for _, l := range before.Listings {
			was[l.ID] = l
		}
		for {
			p, err := svc.Query(q)
			must(t, err)
			for _, l := range p.Listings {
				seen[l.ID]++
				if b, ok := was[l.ID]; !ok {
					was[l.ID] = l
				} else if b.Item.Amount != l.Item.Amount || b.Price != l.Price {
					moved[l.ID] = true
				}
			}
			if p.Next == nil {
				break
			}
			q.After = p.Next
			for range 1 + rng.IntN(20) {
				gen.One(svc, players)
			}
		}
		after, err := svc.Query(market.Query{Sort: mode, Limit: -1})
		must(t, err)
		// An auction's place in the price and ending orders moves with its
		// bids, and a listing a buy order bought part of stays with fewer
		// items at a lower price, so a page may meet either twice or not
		// at all: the rule is for listings whose keys stay put.
		still, moving := map[int]bool{}, map[int]bool{}
		for _, l := range after.Listings {
			still[l.ID] = true
			b, ok := was[l.ID]
			moving[l.ID] = l.Auction != nil || moved[l.ID] || ok && (b.Item.Amount != l.Item.Amount || b.Price != l.Price)
		}
		for _, l := range before.Listings {
			moving[l.ID] = moving[l.ID] || l.Auction != nil
			if still[l.ID] && !moving[l.ID] && seen[l.ID] != 1 {
				t.Errorf("sort %s: listing %d stayed on the market and was returned %d times", mode, l.ID, seen[l.ID])
			}
		}
		for id, n := range seen {
			if n > 1 && !moving[id] && !moved[id] {
				t.Errorf("sort %s: listing %d returned %d times", mode, id, n)
			}
		}
	}
}

func TestQueryFiltersAndCursorRefusals(t *testing.T) {
	svc := seeded(t, 2_000)
	p, err := svc.Query(market.Query{Material: "minecraft:diamond", MinPrice: 5_00, MaxPrice: 50_000_00, Limit: -1})
	must(t, err)
	for _, l := range p.Listings {
		if l.Item.Material != "DIAMOND" || l.Price < 5 || l.Price > 50_000 {
			t.Fatalf("listing %d (%s at %v) passed the filters", l.ID, l.Item.Material, l.Price)
		}
	}
	p, err = svc.Query(market.Query{MinAmount: 10, MaxAmount: 20, Limit: -1})
	must(t, err)
	if len(p.Listings) == 0 {
		t.Fatal("no listing of 10 to 20 items in a seeded market")
	}
	for _, l := range p.Listings {
		if l.Item.Amount < 10 || l.Item.Amount > 20 {
			t.Fatalf("listing %d of %d items passed the amount range 10..20", l.ID, l.Item.Amount)
		}
	}
	all, err := svc.Query(market.Query{Limit: -1})
	must(t, err)
	inRange := 0
	for _, l := range all.Listings {
		if l.Item.Amount >= 10 && l.Item.Amount <= 20 {
			inRange++
		}
	}
	if inRange != len(p.Listings) || p.Total != inRange {
		t.Fatalf("the amount range found %d (total %d) of %d", len(p.Listings), p.Total, inRange)
	}
	for _, c := range []struct {
		q    market.Query
		want string
	}{
		{market.Query{Material: "NO_SUCH_THING"}, `unknown material "NO_SUCH_THING"`},
		{market.Query{MinAmount: 20, MaxAmount: 10}, "amount range 20..10 is empty (amounts are 1..99)"},
		{market.Query{MinAmount: 100}, "amount range 100..0 is empty (amounts are 1..99)"},
		{market.Query{MaxAmount: -1}, "amount range 0..-1 is empty (amounts are 1..99)"},
		{market.Query{MinPrice: 10_00, MaxPrice: 5_00}, "price range 10.00..5.00 is empty"},
		{market.Query{Sort: market.SortCheapest, After: &market.Cursor{Sort: market.SortNewest, ID: 5}}, "the position is one of the newest order, the query sorts by cheapest"},
		{market.Query{Reverse: true, After: &market.Cursor{ID: 5}}, "a position cannot be combined with a reversed order"},
		{market.Query{After: &market.Cursor{ID: 0}}, "listing id 0 of the position is out of range"},
	} {
		_, err := svc.Query(c.q)
		if err == nil || err.Error() != c.want || !errorsIsInvalidQuery(err) {
			t.Errorf("%+v: %v, want %q", c.q, err, c.want)
		}
	}
}

func errorsIsInvalidQuery(err error) bool {
	me, ok := err.(*market.Error)
	return ok && me.Code == market.CodeInvalidQuery
}

func errorsIsCode(err error, c market.Code) bool {
	me, ok := err.(*market.Error)
	return ok && me.Code == c
}

func TestQueryHugeOffsetAndLimit(t *testing.T) {
	w := newWorld(t)
	w.sell(w.alice, 0, 10)
	for _, q := range []market.Query{
		{Offset: 1, Limit: math.MaxInt},
		{Offset: math.MaxInt},
		{Offset: math.MaxInt, Sort: market.SortCheapest},
		{Offset: math.MaxInt - 5, Limit: 10, Sort: market.SortUnitPrice, Reverse: true},
	} {
		p, err := w.svc.Query(q)
		must(t, err)
		if len(p.Listings) > 1 || p.Total != 1 {
			t.Fatalf("%+v: %d listings of %d", q, len(p.Listings), p.Total)
		}
	}
}

// TestQueryLetsTheMainThreadIn: a long query (a wide price range over a big
// market) lets its read lock go between chunks of its work, so that the
// main thread, whose write lock waits for every reader, never waits behind
// a whole query. A search sorted by price with a price filter once held
// the lock 62 ms on a million listings, a tick's wait. A listing removed
// during the pause is not on the page, which equals a query made after.
//
// Both ways of applying a price range pause: walking the price order
// (the range alone) and checking the keys of what a narrower filter
// leaves (the tools in a wide range).
func TestQueryLetsTheMainThreadIn(t *testing.T) {
	svc := seeded(t, 20_000)
	for _, q := range []market.Query{
		{MinPrice: 1_00, MaxPrice: 500_00, Sort: market.SortCheapest, Limit: 20},
		{Category: catalog.CategoryTools, MinPrice: 1_00, MaxPrice: 1_000_000_00, Sort: market.SortNewest, Limit: 20},
	} {
		before, err := svc.Query(q)
		must(t, err)
		if len(before.Listings) < 20 {
			t.Fatalf("%+v finds %d listings; the test needs a full page", q, len(before.Listings))
		}
		victim := before.Listings[0]

		seller := market.Player{ID: victim.Seller, Name: victim.SellerName}
		during, chunks := readAcrossAChange(t, svc, 64, func() (market.Page, error) { return svc.Query(q) }, func() {
			must(t, svc.RemoveListing(victim.ID, seller))
		})
		after, err := svc.Query(q)
		must(t, err)
		if chunks < 2 {
			t.Errorf("%+v ended %d chunks; a 20,000-listing market in chunks of 64 has more", q, chunks)
		}
		if got, want := listingIDs(during.Listings), listingIDs(after.Listings); !slices.Equal(got, want) {
			t.Errorf("%+v: the page made across the removal is %v, a page made after it %v", q, got, want)
		}
		if slices.Contains(listingIDs(during.Listings), victim.ID) {
			t.Errorf("%+v: listing %d, removed while the query paused, is on its page", q, victim.ID)
		}
		if during.Version != before.Version {
			t.Errorf("%+v: the page says version %d; it began at %d, before the removal", q, during.Version, before.Version)
		}
	}
}

// readAcrossAChange runs read on another goroutine with long reads ending
// a chunk every chunk entries (market.OnRead), and change on the calling
// goroutine, the main thread, once the read has ended its first chunk: the
// read goes on when the change's write lock waits, and the change goes on
// when the read lets its lock go for it. It fails the test unless the read
// let go exactly when a writer waited, and returns what read returned and
// how many chunks it ended.
func readAcrossAChange[T any](t *testing.T, svc *market.Service, chunk int, read func() (T, error), change func()) (T, int) {
	t.Helper()
	ends, pauses, first := 0, 0, make(chan struct{})
	defer market.OnRead(chunk, func() {
		if ends++; ends > 1 {
			return
		}
		close(first)
		for deadline := time.Now().Add(10 * time.Second); !market.WriterWaits(svc); time.Sleep(time.Millisecond) {
			if time.Now().After(deadline) {
				t.Error("the change never asked for the write lock")
				return
			}
		}
	}, func() { pauses++ })()
	done := make(chan T)
	go func() {
		v, err := read()
		if err != nil {
			t.Error(err)
		}
		done <- v
	}()
	select {
	case <-first:
	case <-done:
		t.Fatal("the read ended no chunk")
	}
	change()
	v := <-done
	if pauses == 0 {
		t.Error("the read never let its lock go to the waiting change")
	}
	return v, ends
}

// TestAReadLetsGoOnlyForAWriter: a long read ends its chunks without
// letting the lock go while no writer waits and it has not held the lock
// for long: a pause costs the reader a new walk and the main thread
// nothing.
func TestAReadLetsGoOnlyForAWriter(t *testing.T) {
	svc := seeded(t, 20_000)
	defer market.SetReadHold(time.Hour)() // however slow the run (-race)
	ends, pauses := 0, 0
	restore := market.OnRead(256, func() { ends++ }, func() { pauses++ })
	_, err := svc.Query(market.Query{MinPrice: 1_00, MaxPrice: 500_00, Sort: market.SortCheapest, Limit: 20})
	restore()
	must(t, err)
	if ends < 2 || pauses != 0 {
		t.Errorf("with no writer, a read of 20,000 listings in chunks of 256 ended %d chunks and let go %d times; want several and none", ends, pauses)
	}
}

// TestALongReadLetsGoOfItsOwn: a read that has held the lock for
// readHold lets it go at its next chunk's end though no writer waits, so
// that the scheduler never stops it holding the lock; its answer is the
// same.
func TestALongReadLetsGoOfItsOwn(t *testing.T) {
	svc := seeded(t, 20_000)
	q := market.Query{MinPrice: 1_00, MaxPrice: 500_00, Sort: market.SortCheapest, Limit: 20}
	want, err := svc.Query(q)
	must(t, err)
	defer market.SetReadHold(0)() // every chunk held too long
	ends, pauses := 0, 0
	restore := market.OnRead(256, func() { ends++ }, func() { pauses++ })
	got, err := svc.Query(q)
	restore()
	must(t, err)
	if ends < 2 || pauses != ends {
		t.Errorf("a read held past readHold ended %d chunks and let go %d times; want as many", ends, pauses)
	}
	if !slices.Equal(listingIDs(got.Listings), listingIDs(want.Listings)) || got.Total != want.Total {
		t.Errorf("paused at every chunk: %d of %v, want %d of %v", got.Total, listingIDs(got.Listings), want.Total, listingIDs(want.Listings))
	}
}

func listingIDs(ls []market.Listing) []int {
	ids := make([]int, len(ls))
	for i, l := range ls {
		ids[i] = l.ID
	}
	return ids
}

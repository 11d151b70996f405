package market_test

import (
	"cmp"
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/rynek/rynek/market"
)

// TestAllOrdersPagesMatchEveryOrder: a page of all orders (open first,
// best first; then the closed, the newest closed first, then the highest
// id), for every material and buyer, every offset and a few limits, is
// the stretch of every order there is, sorted so, that it should be: read
// from the closed orders' own order, not a walk of every order; and the
// same once the market is opened again from its store.
func TestAllOrdersPagesMatchEveryOrder(t *testing.T) {
	w := newWorld(t)
	players := []market.Player{w.alice, w.bob, w.admin}
	var ids []int
	for i := range 24 {
		p := players[i%3]
		mat := []string{"STONE", "OAK_LOG"}[i/3%2]
		o := w.order(p, mat, 1+i%4, 0.5+float64(i%5)/10)
		ids = append(ids, o.ID)
		switch {
		case i%4 == 1: // closed at once: some close at the same time, told apart by id
			must(t, w.svc.CancelOrder(o.ID, p))
		case i%4 == 2 && i > 2:
			must(t, w.svc.CancelOrder(ids[i-2], players[(i-2)%3]))
		}
		if i%3 == 2 {
			w.clock.Advance(time.Minute)
		}
	}
	w.flush()
	check := func(when string) {
		t.Helper()
		var every []market.Order
		for _, id := range ids {
			o, err := w.svc.GetOrder(id)
			must(t, err)
			every = append(every, o)
		}
		if open := slices.IndexFunc(every, market.Order.Open); open < 0 || !slices.ContainsFunc(every, func(o market.Order) bool { return !o.Open() }) {
			t.Fatalf("%s: the orders are not both open and closed: the pages would prove nothing", when)
		}
		for _, mat := range []string{"", "STONE", "OAK_LOG"} {
			for _, buyer := range []uuid.UUID{uuid.Nil, w.alice.ID, w.bob.ID} {
				var want []market.Order
				for _, o := range every {
					if (mat == "" || o.Material == mat) && (buyer == uuid.Nil || o.Buyer == buyer) {
						want = append(want, o)
					}
				}
				slices.SortFunc(want, func(a, b market.Order) int {
					switch {
					case a.Open() != b.Open():
						if a.Open() {
							return -1
						}
						return 1
					case a.Open():
						return cmp.Or(cmp.Compare(b.UnitPrice, a.UnitPrice), a.CreatedAt.Compare(b.CreatedAt), cmp.Compare(a.ID, b.ID))
					}
					return cmp.Or(b.ClosedAt.Compare(a.ClosedAt), cmp.Compare(b.ID, a.ID))
				})
				for _, limit := range []int{1, 3, 100} {
					for offset := 0; offset <= len(want); offset++ {
						page, err := w.svc.Orders(market.OrderQuery{Material: mat, Buyer: buyer, All: true, Offset: offset, Limit: limit})
						must(t, err)
						wantIDs := idsOf(want[offset:min(offset+limit, len(want))])
						if got := idsOf(page.Orders); page.Total != len(want) || !slices.Equal(got, wantIDs) {
							t.Fatalf("%s: all orders of %q by %v from %d, %d at most: total %d, %v; want %d, %v",
								when, mat, buyer, offset, limit, page.Total, got, len(want), wantIDs)
						}
					}
				}
			}
		}
	}
	check("live")
	w.reopen()
	check("opened again")
}

func idsOf(orders []market.Order) []int {
	ids := make([]int, 0, len(orders))
	for _, o := range orders {
		ids = append(ids, o.ID)
	}
	return ids
}

// TestClosedOrdersPageByPlace: a player with 150 closed orders (some
// closed in the same millisecond, told apart by id) and three open, paged
// seven at a time from each page's Next, reads exactly every order once,
// open first (best first), then the closed (the newest closed first, then
// the highest id): by buyer, by buyer and material, and over all buyers.
// An order that closes while a reader is among the closed is newer than
// the reader's place: the next pages neither repeat nor skip one, where an
// offset would repeat the page's last order.
func TestClosedOrdersPageByPlace(t *testing.T) {
	w := newWorld(t)
	var all []market.Order
	for i := range 153 {
		mat := "STONE"
		if i%5 == 0 {
			mat = "OAK_LOG"
		}
		o := w.order(w.alice, mat, 1, 0.5+float64(i%3)/10)
		if i < 150 {
			must(t, w.svc.CancelOrder(o.ID, w.alice))
		}
		if i%4 == 3 {
			w.clock.Advance(time.Millisecond)
		}
		all = append(all, o)
	}
	bob := w.order(w.bob, "STONE", 1, 0.9)
	must(t, w.svc.CancelOrder(bob.ID, w.bob))
	w.flush()
	expect := func(mat string, buyer uuid.UUID) []int {
		var want []market.Order
		for _, o := range append(slices.Clone(all), bob) {
			got, err := w.svc.GetOrder(o.ID)
			must(t, err)
			if (mat == "" || got.Material == mat) && (buyer == uuid.Nil || got.Buyer == buyer) {
				want = append(want, got)
			}
		}
		slices.SortFunc(want, func(a, b market.Order) int {
			switch {
			case a.Open() != b.Open():
				if a.Open() {
					return -1
				}
				return 1
			case a.Open():
				return cmp.Or(cmp.Compare(b.UnitPrice, a.UnitPrice), a.CreatedAt.Compare(b.CreatedAt), cmp.Compare(a.ID, b.ID))
			}
			return cmp.Or(b.ClosedAt.Compare(a.ClosedAt), cmp.Compare(b.ID, a.ID))
		})
		return idsOf(want)
	}
	pages := func(q market.OrderQuery, between func(page int)) []int {
		t.Helper()
		var got []int
		for page := 0; ; page++ {
			p, err := w.svc.Orders(q)
			must(t, err)
			if len(p.Orders) == 0 || len(p.Orders) > q.Limit {
				t.Fatalf("page %d after %+v: %d orders", page, q.After, len(p.Orders))
			}
			got = append(got, idsOf(p.Orders)...)
			if p.Next == nil {
				return got
			}
			if last := p.Orders[len(p.Orders)-1]; *p.Next != last.Place() || last.Open() != p.Next.ClosedAt.IsZero() {
				t.Fatalf("page %d: next %+v, want the place of #%d", page, *p.Next, last.ID)
			}
			q.After = p.Next
			if between != nil {
				between(page)
			}
		}
	}
	for _, c := range []struct {
		mat   string
		buyer uuid.UUID
	}{{"", w.alice.ID}, {"OAK_LOG", w.alice.ID}, {"STONE", w.alice.ID}, {"", uuid.Nil}, {"STONE", uuid.Nil}} {
		want := expect(c.mat, c.buyer)
		if got := pages(market.OrderQuery{Material: c.mat, Buyer: c.buyer, All: true, Limit: 7}, nil); !slices.Equal(got, want) {
			t.Fatalf("all orders of %q by %v, 7 a page: %v\nwant %v", c.mat, c.buyer, got, want)
		}
	}
	// Among the closed (the third page), the last open order of Alice's
	// closes: it is newer than the page's place, so the pages go on
	// exactly as they would have, without it.
	want := expect("", w.alice.ID)
	got := pages(market.OrderQuery{Buyer: w.alice.ID, All: true, Limit: 7}, func(page int) {
		if page == 2 {
			must(t, w.svc.CancelOrder(all[152].ID, w.alice))
		}
	})
	if !slices.Equal(got, want) {
		t.Fatalf("with an order closing between pages: %v\nwant %v", got, want)
	}
	var e *market.Error
	if _, err := w.svc.Orders(market.OrderQuery{After: &market.OrderPlace{ID: bob.ID, ClosedAt: t0}}); !errors.As(err, &e) ||
		e.Error() != "a page after a closed order is a page of all orders" {
		t.Fatalf("a page of open orders after a closed one: %v", err)
	}
}

package market_test

import (
	"cmp"
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

package market

import (
	"fmt"
	"slices"
	"testing"

	"github.com/google/uuid"
	"github.com/rynek/rynek/market/catalog"
	"github.com/rynek/rynek/market/internal/record"
)

// BenchmarkClosedOrdersPage: a page of 50 of a player's orders (Orders
// with All) deep among their closed ones, with 1,000 and with 100,000
// closed: from the page before's place (After: its cost is the page's,
// however many closed before it), beside the same page by Offset (which
// walks past those before it); and the first page of the player's orders
// of a material that is 1% of them (from the tree of the player's orders
// of that material, not a walk of all the player's).
func BenchmarkClosedOrdersPage(b *testing.B) {
	stone, _ := catalog.MaterialID("STONE")
	oak, _ := catalog.MaterialID("OAK_LOG")
	for _, n := range []int{1_000, 100_000} {
		s := New(nil, Config{})
		buyer := &playerRecord{idx: 0, id: uuid.New(), name: "Kupiec"}
		s.players = []*playerRecord{buyer}
		s.playerByID = map[uuid.UUID]*playerRecord{buyer.id: buyer}
		s.ready.Store(true)
		for i := range n {
			mat := stone
			if i%100 == 0 {
				mat = oak
			}
			s.orders.set(&orderRecord{id: uint32(i + 1), buyer: 0, mat: mat, amount: 8, limit: 100,
				created: int64(i), expires: 1 << 40, closed: int64(i / 3), state: record.OrderStateCancelled})
		}
		mid := OrderQuery{Buyer: buyer.id, All: true, Offset: n / 2, Limit: 50}
		byOffset, err := s.Orders(mid)
		if err != nil {
			b.Fatal(err)
		}
		before, err := s.Orders(OrderQuery{Buyer: buyer.id, All: true, Offset: n/2 - 1, Limit: 1})
		if err != nil {
			b.Fatal(err)
		}
		place := before.Orders[0].Place()
		after := OrderQuery{Buyer: buyer.id, All: true, After: &place, Limit: 50}
		byPlace, err := s.Orders(after)
		if err != nil {
			b.Fatal(err)
		}
		ids := func(p OrderPage) []int {
			var out []int
			for _, o := range p.Orders {
				out = append(out, o.ID)
			}
			return out
		}
		if !slices.Equal(ids(byPlace), ids(byOffset)) || len(byPlace.Orders) != 50 || byPlace.Next == nil {
			b.Fatalf("the page after #%d: %v; by offset %v", place.ID, ids(byPlace), ids(byOffset))
		}
		for _, c := range []struct {
			name string
			q    OrderQuery
		}{
			{"after", after},
			{"offset", mid},
			{"material", OrderQuery{Buyer: buyer.id, Material: "OAK_LOG", All: true, Limit: 50}},
		} {
			b.Run(fmt.Sprintf("closed=%d/%s", n, c.name), func(b *testing.B) {
				b.ReportAllocs()
				for b.Loop() {
					if p, err := s.Orders(c.q); err != nil || len(p.Orders) == 0 {
						b.Fatal(p, err)
					}
				}
			})
		}
	}
}

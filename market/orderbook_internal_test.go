package market

import (
	"fmt"
	"testing"

	"github.com/google/uuid"
	"github.com/rynek/rynek/market/internal/item"
)

// BenchmarkOrderMatching: finding the order that buys a new listing, with
// 100,000 open orders, 2,000 for each of 50 materials, through the
// book's tree, beside a scan of every open order as a book without an
// index would make. Half the listings cross the best order, half cross
// none.
func BenchmarkOrderMatching(b *testing.B) {
	s := New(nil, Config{})
	s.players = []*playerRecord{{idx: 0, id: uuid.New(), name: "Sprzedawca"}, {idx: 1, id: uuid.New(), name: "Kupiec"}}
	const mats, orders = 50, 100_000
	for i := range orders {
		mat := uint16(1 + i%mats)
		s.orders.set(&orderRecord{id: uint32(i + 1), buyer: 1, mat: mat, amount: 64, limit: Money(100 + i%5000),
			escrow: Money(64 * (100 + i%5000)), created: int64(i)})
	}
	listings := []*listingRecord{
		{id: 1, seller: 0, price: 64 * 99, expires: 1 << 62, it: item.Item{Mat: 1, Amount: 64}},      // below every limit: crosses
		{id: 2, seller: 0, price: 64 * 100_000, expires: 1 << 62, it: item.Item{Mat: 1, Amount: 64}}, // above every limit
	}
	scan := func(r *listingRecord) *orderRecord {
		var best *orderRecord
		s.orders.eachOpen(func(o *orderRecord) {
			if o.mat == r.it.Mat && crosses(o, r) && o.buyer != r.seller && (best == nil || betterOrder(o, best) < 0) {
				best = o
			}
		})
		return best
	}
	for _, r := range listings { // both ways find the same order
		if got, want := s.bestOrderFor(r), scan(r); got != want {
			b.Fatalf("listing %d: the tree finds %v, the scan %v", r.id, got, want)
		}
	}
	for _, c := range []struct {
		name string
		find func(*listingRecord) *orderRecord
	}{{"tree", s.bestOrderFor}, {"scan", scan}} {
		b.Run(fmt.Sprintf("%s-%d", c.name, orders), func(b *testing.B) {
			for i := range b.N {
				c.find(listings[i&1])
			}
		})
	}
}

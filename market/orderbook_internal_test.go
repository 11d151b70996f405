package market

import (
	"fmt"
	"slices"
	"testing"

	"github.com/google/uuid"
	"github.com/rynek/rynek/market/internal/item"
	"github.com/rynek/rynek/market/internal/record"
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

// TestOrderBookDueByExpiry: the book hands the expiry timer the due open
// orders, the earliest first, from its expiry tree: an order closed, or
// replaced by its next state, is found as it is now, and one not yet due
// is left.
func TestOrderBookDueByExpiry(t *testing.T) {
	b := newOrderBook()
	for i, exp := range []int64{50, 10, 30, 20, 90} {
		b.set(&orderRecord{id: uint32(i + 1), mat: uint16(1 + i%2), amount: 8, limit: 100, expires: exp, state: record.OrderStateOpen})
	}
	// Order 3 (expires 30) closes; order 4 (20) is partly filled.
	closed := *b.byID[3]
	closed.state = record.OrderStateCancelled
	b.set(&closed)
	filled := *b.byID[4]
	filled.filled = 2
	b.set(&filled)
	ids := func(os []*orderRecord) []uint32 {
		var out []uint32
		for _, o := range os {
			out = append(out, o.id)
		}
		return out
	}
	due, more := b.due(60, 10)
	if got := ids(due); !slices.Equal(got, []uint32{2, 4, 1}) || more || due[1] != b.byID[4] {
		t.Fatalf("due at 60: %v (more %t), want 2, 4 (its newest state), 1", got, more)
	}
	if due, more := b.due(60, 2); !slices.Equal(ids(due), []uint32{2, 4}) || !more {
		t.Fatalf("two at most: %v (more %t)", ids(due), more)
	}
	if due, more := b.due(5, 10); len(due) != 0 || more {
		t.Fatalf("none due at 5: %v", ids(due))
	}
}

// BenchmarkExpireOrdersNoneDue: the expiry timer's look at 10,000 open
// orders of 1,000 materials when none is due, which it takes every tick.
func BenchmarkExpireOrdersNoneDue(b *testing.B) {
	book := newOrderBook()
	for i := range 10_000 {
		book.set(&orderRecord{id: uint32(i + 1), mat: uint16(1 + i%1000), amount: 8, limit: 100, expires: int64(1000 + i), state: record.OrderStateOpen})
	}
	for b.Loop() {
		if due, _ := book.due(999, 8); len(due) != 0 {
			b.Fatal("due")
		}
	}
}

// TestUncrossSpreadsItsPassOverCalls: the timer's look at the book stops
// once it has spent its budget and goes on from there at the next call,
// so that a book of a thousand materials does not take one tick's
// milliseconds; a new pass begins only after the last ends.
func TestUncrossSpreadsItsPassOverCalls(t *testing.T) {
	was := uncrossBudget
	uncrossBudget = 0 // one material a call
	defer func() { uncrossBudget = was }()
	s := New(nil, Config{})
	for i, mat := range []uint16{7, 3, 5} {
		s.orders.set(&orderRecord{id: uint32(i + 1), mat: mat, amount: 8, limit: 100, expires: 1 << 62, state: record.OrderStateOpen})
	}
	for call, want := range []int{1, 2, 3} {
		s.uncross()
		if s.uncrossing.next != want || !slices.Equal(s.uncrossing.mats, []uint16{3, 5, 7}) {
			t.Fatalf("call %d: looked at %d of %v, want %d of [3 5 7]", call+1, s.uncrossing.next, s.uncrossing.mats, want)
		}
	}
	if s.uncrossing.busy() {
		t.Fatal("the pass did not end after its three materials")
	}
	s.uncross() // a new pass
	if s.uncrossing.next != 1 {
		t.Fatalf("the next pass: at %d", s.uncrossing.next)
	}
}

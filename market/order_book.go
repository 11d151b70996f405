package market

import (
	"cmp"
	"slices"

	"github.com/google/btree"
	"github.com/rynek/rynek/market/catalog"
)

// orderBook holds every order the market knows, open and closed, and the
// open ones of each material in a tree, best first: the highest unit
// price, then the oldest, then the lowest id. Matching a new listing reads
// the best order of its material; placing or closing one is a tree's
// insert or delete, whatever the number of orders.
type orderBook struct {
	byID map[uint32]*orderRecord
	open map[uint16]*btree.BTreeG[*orderRecord]
	// mine holds each buyer's open orders: their count is the buyer's
	// against the limit, and a page of one buyer's orders reads only them.
	mine map[int32]map[uint32]*orderRecord
	// byExpiry holds the open orders by expiry, then id: the expiry
	// timer reads the due ones in a tree's first steps, where a walk of
	// every open order cost each tick 0.24 ms with 2,700 of them.
	byExpiry *btree.BTreeG[*orderRecord]
	// closed holds the closed orders as a page of all orders reads them
	// (closed_orders.go).
	closed closedOrders
}

func newOrderBook() orderBook {
	return orderBook{byID: map[uint32]*orderRecord{}, open: map[uint16]*btree.BTreeG[*orderRecord]{}, mine: map[int32]map[uint32]*orderRecord{},
		byExpiry: btree.NewG(8, func(a, b *orderRecord) bool {
			return cmp.Or(cmp.Compare(a.expires, b.expires), cmp.Compare(a.id, b.id)) < 0
		}),
		closed: newClosedOrders()}
}

func betterOrder(a, b *orderRecord) int {
	if c := cmp.Compare(b.limit, a.limit); c != 0 {
		return c
	}
	if c := cmp.Compare(a.created, b.created); c != 0 {
		return c
	}
	return cmp.Compare(a.id, b.id)
}

// set files o, replacing the order with its id.
func (b *orderBook) set(o *orderRecord) {
	if old := b.byID[o.id]; old != nil {
		b.unfile(old)
	}
	b.byID[o.id] = o
	if !o.open() {
		b.closed.add(o)
		return
	}
	t := b.open[o.mat]
	if t == nil {
		t = btree.NewG(8, func(a, b *orderRecord) bool { return betterOrder(a, b) < 0 })
		b.open[o.mat] = t
	}
	t.ReplaceOrInsert(o)
	b.byExpiry.ReplaceOrInsert(o)
	m := b.mine[o.buyer]
	if m == nil {
		m = map[uint32]*orderRecord{}
		b.mine[o.buyer] = m
	}
	m[o.id] = o
}

// remove forgets o, which a refused batch placed.
func (b *orderBook) remove(o *orderRecord) {
	b.unfile(o)
	delete(b.byID, o.id)
}

func (b *orderBook) unfile(o *orderRecord) {
	if !o.open() {
		b.closed.remove(o)
		return
	}
	if t := b.open[o.mat]; t != nil {
		t.Delete(o)
		if t.Len() == 0 {
			delete(b.open, o.mat)
		}
	}
	b.byExpiry.Delete(o)
	if m := b.mine[o.buyer]; m != nil {
		delete(m, o.id)
		if len(m) == 0 {
			delete(b.mine, o.buyer)
		}
	}
}

// each calls fn with mat's open orders, best first, while it returns true.
func (b *orderBook) each(mat uint16, fn func(o *orderRecord) bool) {
	if t := b.open[mat]; t != nil {
		t.Ascend(fn)
	}
}

// best is mat's best open order, nil for none.
func (b *orderBook) best(mat uint16) *orderRecord {
	if t := b.open[mat]; t != nil {
		o, _ := t.Min()
		return o
	}
	return nil
}

// due returns the open orders whose expiry is at or before now, the
// earliest first, at most limit of them, and whether more are due.
func (b *orderBook) due(now int64, limit int) (due []*orderRecord, more bool) {
	b.byExpiry.Ascend(func(o *orderRecord) bool {
		if o.expires > now {
			return false
		}
		if len(due) == limit {
			more = true
			return false
		}
		due = append(due, o)
		return true
	})
	return due, more
}

// eachOpen calls fn with every open order, by material.
func (b *orderBook) eachOpen(fn func(o *orderRecord)) {
	for _, t := range b.open {
		t.Ascend(func(o *orderRecord) bool { fn(o); return true })
	}
}

// BookLevel is one price of an order book's side: the items wanted (or
// offered) at that unit price, by how many orders (or listings).
type BookLevel struct {
	UnitPrice float64
	Amount    int
	Count     int
}

// OrderBook is a commodity's book: the open orders' prices, highest first,
// and the matching listings' unit prices, cheapest first (a listing's unit
// price rounded up to the cent: a listing at 1.003 an item, just above an
// order's 1.00, stands at 1.01, so the book never looks crossed when it is
// not).
type OrderBook struct {
	Material string
	Buy      []BookLevel
	Sell     []BookLevel
}

// GetOrderBook returns material's book, depth levels at most (0: 20) on
// each side. Any goroutine.
func (s *Service) GetOrderBook(material string, depth int) (OrderBook, error) {
	if err := s.readGuard(); err != nil {
		return OrderBook{}, err
	}
	mat, err := materialOf(material, CodeInvalidQuery)
	if err != nil {
		return OrderBook{}, err
	}
	if depth <= 0 {
		depth = 20
	}
	now := s.nowMs()
	s.mu.RLock()
	defer s.mu.RUnlock()
	book := OrderBook{Material: catalog.Material(mat).Key}
	s.orders.each(mat, func(o *orderRecord) bool {
		n := len(book.Buy)
		if n > 0 && book.Buy[n-1].UnitPrice == o.limit.Float() {
			book.Buy[n-1].Amount += int(o.remaining())
			book.Buy[n-1].Count++
			return true
		}
		if n == depth {
			return false
		}
		book.Buy = append(book.Buy, BookLevel{UnitPrice: o.limit.Float(), Amount: int(o.remaining()), Count: 1})
		return true
	})
	// Listings come cheapest unit price first; a level is a unit price
	// rounded up to the cent, so one level may hold listings from either
	// side of the order the index keeps them in: levels are merged, then
	// sorted.
	levels := map[Money]*BookLevel{}
	s.eachCommodity(mat, now, -1, func(r *listingRecord) bool {
		unit := (r.price + Money(r.it.Amount) - 1) / Money(r.it.Amount)
		l := levels[unit]
		if l == nil {
			if len(levels) == depth+1 {
				return false
			}
			l = &BookLevel{UnitPrice: unit.Float()}
			levels[unit] = l
		}
		l.Amount += int(r.it.Amount)
		l.Count++
		return true
	})
	for _, l := range levels {
		book.Sell = append(book.Sell, *l)
	}
	slices.SortFunc(book.Sell, func(a, b BookLevel) int { return cmp.Compare(a.UnitPrice, b.UnitPrice) })
	book.Sell = book.Sell[:min(depth, len(book.Sell))]
	return book, nil
}

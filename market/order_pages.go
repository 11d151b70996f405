package market

import (
	"container/heap"
	"slices"
	"time"

	"github.com/google/btree"
	"github.com/google/uuid"
)

// OrderQuery selects orders: open ones of a material, of a buyer, or all
// (State "open" by default; "all" for closed ones too).
type OrderQuery struct {
	Material string    // a catalogue key; "" any
	Buyer    uuid.UUID // uuid.Nil any
	All      bool      // closed orders too, newest first after the open
	// After, when set, starts the page after that place (OrderPage.Next:
	// the last order of the page before; an open one may have closed
	// since), so that a reader paging through the book neither skips nor
	// repeats an order while others come and go. With All, a closed
	// order's place (ClosedAt set) starts among the closed, read from its
	// place in their order: a page costs its own size, however many
	// orders closed before it, where Offset walks past them.
	After  *OrderPlace
	Offset int
	Limit  int // 0: 100
}

// OrderPlace is an order's place in a page's order: an open order's is
// its unit price (the highest first), then when it was placed (the oldest
// first), then its id; a closed order's (ClosedAt set) is when it closed
// (the newest first), then its id (the highest first).
type OrderPlace struct {
	UnitPrice float64
	CreatedAt time.Time
	ID        int
	ClosedAt  time.Time // zero for an open order
}

// Place is o's place in the book, or among the closed orders.
func (o Order) Place() OrderPlace {
	p := OrderPlace{UnitPrice: o.UnitPrice, CreatedAt: o.CreatedAt, ID: o.ID}
	if !o.Open() {
		p.ClosedAt = o.ClosedAt
	}
	return p
}

// OrderPage is a page of orders and how many match in all (on every page);
// Next is where the next page starts, nil on the last.
type OrderPage struct {
	Orders []Order
	Total  int
	Next   *OrderPlace
}

// Orders returns the orders q selects, open ones best first (the highest
// unit price, then the oldest), closed ones after them, the newest closed
// first. Any goroutine.
func (s *Service) Orders(q OrderQuery) (OrderPage, error) {
	if err := s.readGuard(); err != nil {
		return OrderPage{}, err
	}
	var mat uint16
	if q.Material != "" {
		id, err := materialOf(q.Material, CodeInvalidQuery)
		if err != nil {
			return OrderPage{}, err
		}
		mat = id
	}
	if q.Offset < 0 || q.Limit < 0 {
		return OrderPage{}, errf(CodeInvalidQuery, "offset and limit must not be negative")
	}
	if q.Limit == 0 {
		q.Limit = 100
	}
	var after *orderRecord
	afterClosed := false
	if a := q.After; a != nil {
		if a.ID < 1 || a.ID > 1<<31-1 {
			return OrderPage{}, errf(CodeInvalidQuery, "a page after an order is after a real one, not #%d", a.ID)
		}
		if afterClosed = !a.ClosedAt.IsZero(); afterClosed {
			if !q.All {
				return OrderPage{}, errf(CodeInvalidQuery, "a page after a closed order is a page of all orders")
			}
			after = &orderRecord{closed: a.ClosedAt.UnixMilli(), id: uint32(a.ID)}
		} else {
			limit, err := toMoney("unit price", a.UnitPrice, 1, 1<<50)
			if err != nil {
				return OrderPage{}, errf(CodeInvalidQuery, "a page after an open order is after a real one: %v", err)
			}
			after = &orderRecord{limit: limit, created: a.CreatedAt.UnixMilli(), id: uint32(a.ID)}
		}
	}
	s.mu.RLock()
	defer s.mu.RUnlock()
	buyer := int32(-1)
	if q.Buyer != uuid.Nil {
		p, err := s.player(q.Buyer)
		if err != nil {
			return OrderPage{}, err
		}
		buyer = p.idx
	}
	if !q.All && buyer < 0 {
		// The book's trees are each best first: a merge of the best of
		// each takes what the page shows, however many orders rest. The
		// page's orders and the one after them are among the first
		// Offset+Limit+1 of their material's.
		page := OrderPage{}
		var lists [][]*orderRecord
		for m, t := range s.orders.open {
			if mat != 0 && m != mat {
				continue
			}
			page.Total += t.Len()
			lists = append(lists, bestOf(t, after, q.Offset+q.Limit+1))
		}
		best, more := bestOpen(lists, q.Offset, q.Limit)
		for _, o := range best {
			page.Orders = append(page.Orders, s.orderOf(o))
		}
		if n := len(page.Orders); n > 0 && more {
			next := page.Orders[n-1].Place()
			page.Next = &next
		}
		return page, nil
	}
	keep := func(o *orderRecord) bool { return (mat == 0 || o.mat == mat) && (buyer < 0 || o.buyer == buyer) }
	var open []*orderRecord
	if buyer >= 0 { // the buyer's own, however many others rest
		for _, o := range s.orders.mine[buyer] {
			if keep(o) {
				open = append(open, o)
			}
		}
		slices.SortFunc(open, betterOrder)
	} else if mat != 0 { // one material's tree, best first already
		s.orders.each(mat, func(o *orderRecord) bool {
			if keep(o) {
				open = append(open, o)
			}
			return true
		})
	} else {
		s.orders.eachOpen(func(o *orderRecord) {
			if keep(o) {
				open = append(open, o)
			}
		})
		slices.SortFunc(open, betterOrder)
	}
	page := OrderPage{}
	if q.All {
		// The open ones, then the closed, the newest closed first: the
		// closed are read from their own order, from the page's place in
		// it, only as many as the page shows past the open (and one more,
		// to tell whether a next page follows).
		page.Total = len(open) + s.orders.closed.count(mat, buyer)
		var closedAfter *orderRecord
		switch {
		case afterClosed:
			open, closedAfter = nil, after
		default:
			open = openAfter(open, after)
		}
		end := min(q.Offset+q.Limit, len(open))
		for _, o := range open[min(q.Offset, len(open)):end] {
			page.Orders = append(page.Orders, s.orderOf(o))
		}
		more := end < len(open)
		if left := q.Limit - len(page.Orders); left > 0 {
			seen := 0
			s.orders.closed.each(mat, buyer, closedAfter, max(0, q.Offset-len(open)), left+1, func(o *orderRecord) {
				if seen++; seen <= left {
					page.Orders = append(page.Orders, s.orderOf(o))
				}
			})
			more = seen > left
		}
		if n := len(page.Orders); n > 0 && more {
			next := page.Orders[n-1].Place()
			page.Next = &next
		}
		return page, nil
	}
	page.Total = len(open)
	open = openAfter(open, after)
	end := min(q.Offset+q.Limit, len(open))
	for _, o := range open[min(q.Offset, len(open)):end] {
		page.Orders = append(page.Orders, s.orderOf(o))
	}
	if n := len(page.Orders); n > 0 && end < len(open) {
		next := page.Orders[n-1].Place()
		page.Next = &next
	}
	return page, nil
}

// bestOf is up to n of a material's open orders, best first, from the
// place after on (nil: from its best).
func bestOf(t *btree.BTreeG[*orderRecord], after *orderRecord, n int) []*orderRecord {
	var out []*orderRecord
	take := func(o *orderRecord) bool {
		if after != nil && betterOrder(o, after) == 0 {
			return true // the page before ended with it
		}
		out = append(out, o)
		return len(out) < n
	}
	if after != nil {
		t.AscendGreaterOrEqual(after, take)
	} else {
		t.Ascend(take)
	}
	return out
}

// bestOpen merges lists of open orders, each best first: it skips the
// best skip of them and returns the next limit, and whether more are left.
func bestOpen(lists [][]*orderRecord, skip, limit int) (out []*orderRecord, more bool) {
	h := make(orderHeads, 0, len(lists))
	for _, l := range lists {
		if len(l) > 0 {
			h = append(h, l)
		}
	}
	heap.Init(&h)
	for h.Len() > 0 {
		if len(out) == limit {
			return out, true
		}
		l := h[0]
		if skip > 0 {
			skip--
		} else {
			out = append(out, l[0])
		}
		if len(l) == 1 {
			heap.Pop(&h)
		} else {
			h[0] = l[1:]
			heap.Fix(&h, 0)
		}
	}
	return out, false
}

// orderHeads is a heap of lists of open orders by their best order.
type orderHeads [][]*orderRecord

func (h orderHeads) Len() int           { return len(h) }
func (h orderHeads) Less(i, j int) bool { return betterOrder(h[i][0], h[j][0]) < 0 }
func (h orderHeads) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *orderHeads) Push(x any)        { *h = append(*h, x.([]*orderRecord)) }
func (h *orderHeads) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}

// openAfter is the open orders, best first, that come after after (all of
// them for nil).
func openAfter(open []*orderRecord, after *orderRecord) []*orderRecord {
	if after == nil {
		return open
	}
	i, found := slices.BinarySearchFunc(open, after, betterOrder)
	if found {
		i++
	}
	return open[i:]
}

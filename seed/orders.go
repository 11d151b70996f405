package seed

import (
	"cmp"
	"fmt"
	"slices"
	"time"

	"github.com/rynek/rynek/market"
)

// Resting buy orders: players' wishes to buy plain stacks (commodities)
// of the materials on sale, each below its material's cheapest listing so
// that the book is never crossed, as the market keeps it (the market's
// timer would otherwise fill them at once). A third of them bid one cent
// below that listing, so that a player who lists the material a little
// cheaper, or sells into the order, sees it fill at once; a few are nearly
// filled, to close with the next sale.

// commodityBook is what the seed knows of one material's commodity
// listings: how many, and the highest unit price an order may bid without
// crossing any of them.
type commodityBook struct {
	m        *mat
	listings int
	// below is the most an order may pay an item and stay below every
	// listing: the largest limit with limit × amount < price for each.
	// The book shows a listing's unit price rounded up to the cent, so an
	// order at below stands a cent under the cheapest listing there (a
	// listing of 96 for 4.00 shows 0.05 an item, an order at 0.04 under it).
	below market.Money
}

// listedCommodity notes a fixed-price listing that orders could buy: a
// plain stack of a stackable material.
func (l *load) listedCommodity(m *mat, st market.ItemStack, price market.Money) {
	if m.maxStack <= 1 || st.DisplayName != "" || len(st.Lore) > 0 || len(st.Enchantments) > 0 || st.MaxStack != 0 {
		return
	}
	if l.books == nil {
		l.books = map[int]*commodityBook{}
	}
	n := market.Money(st.Amount)
	below := (price - 1) / n
	b := l.books[m.idx]
	if b == nil {
		b = &commodityBook{m: m, below: below}
		l.books[m.idx] = b
		l.bookOrder = append(l.bookOrder, m.idx)
	}
	b.listings++
	b.below = min(b.below, below)
}

// orderAmounts are what buyers ask for: from two stacks of 64 up to the
// rules' largest order.
var orderAmounts = [...]int{128, 160, 192, 256, 320, 500, 640, 1000, 1280, 2304}

// orders adds o.Orders resting buy orders, spread over the materials
// with commodity listings (the most listed first, each material once
// before any twice) and over the players, none above their order limit
// less one (so each can place another).
func (l *load) orders() error {
	o, g := l.o, l.g
	if o.Orders <= 0 || len(l.bookOrder) == 0 {
		return nil
	}
	r := newRand(o.Rand, streamOrders)
	rules := o.rules.Orders
	var books []*commodityBook
	for _, i := range l.bookOrder {
		if b := l.books[i]; b.below >= 1 {
			books = append(books, b)
		}
	}
	// The most listed materials first: their books are deep; ties in the
	// order the listings showed them.
	slices.SortStableFunc(books, func(a, b *commodityBook) int { return cmp.Compare(b.listings, a.listings) })
	if len(books) == 0 {
		return nil
	}
	perBuyer := make([]int, o.Players)
	most := rules.MaxPerPlayer - 1 // room for one more each
	if most <= 0 {
		return nil
	}
	nowMs := o.Now.UnixMilli()
	for i := 0; i < o.Orders; i++ {
		b := books[i%len(books)]
		buyer := r.IntN(o.Players)
		for try := 0; perBuyer[buyer] >= most && try < o.Players; try++ {
			buyer = (buyer + 1) % o.Players
		}
		if perBuyer[buyer] >= most {
			break // every player holds as many as the seed gives
		}
		limit := b.below
		if i%3 != 0 { // a third one cent below the cheapest listing, the rest lower
			limit = max(market.Money(float64(b.below)*(0.6+0.35*r.Float64())), 1)
		}
		amount := min(orderAmounts[r.IntN(len(orderAmounts))], rules.MaxAmount)
		// An escrow a player could afford: at most 20,000.00 in all.
		for amount > 1 && limit*market.Money(amount) > 20_000_00 {
			amount /= 2
		}
		filled := 0
		switch {
		case i%7 == 3 && amount > 1: // nearly filled: a stack or less to go
			filled = amount - 1 - r.IntN(min(amount-1, b.m.maxStack))
		case r.IntN(3) == 0:
			filled = r.IntN(amount)
		}
		created := nowMs - r.Int64N(max(min(3*dayMs, rules.DefaultDuration.Milliseconds()/2), 1))
		ord := market.BulkOrder{Buyer: g.ids[buyer], Material: b.m.key, Amount: amount, Filled: filled, UnitPrice: limit,
			Created: time.UnixMilli(created), Expires: time.UnixMilli(created + rules.DefaultDuration.Milliseconds())}
		if _, err := l.b.AddOrder(ord); err != nil {
			return fmt.Errorf("buy order %d (%s): %w", i+1, b.m.key, err)
		}
		perBuyer[buyer]++
		l.res.Orders++
		l.res.Money += limit * market.Money(amount-filled)
	}
	return nil
}

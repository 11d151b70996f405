package tui

import (
	"fmt"
	"math"

	"github.com/google/uuid"
	"github.com/rynek/rynek/market"
	"github.com/rynek/rynek/market/playertext"
)

// A book that looks crossed: an order at or above a listing of the sell
// side. The market never leaves a crossing it may fill, so such a pair is
// one it may not: a player's own listing and order (own listings never
// fill their orders), or a fill the purchase cap refuses, or a share worth
// less than a cent. The pane marks the buy levels at or above the cheapest
// listing (crossMark) and says why under the book, naming the order and
// its buyer's own listing when there is one.

// crossMark marks a buy level at or above the cheapest listing.
const crossMark = "⇅"

// crossedOrder is a resting order at or above the book's cheapest listing,
// and its buyer's own listing it is above (ID 0: none of theirs is).
type crossedOrder struct {
	order market.Order
	own   market.Listing
	unit  float64 // own's unit price, rounded up to the cent as the book's levels are
}

// ownListingsRead is how many of a buyer's listings of the material, the
// cheapest an item first, a crossing is looked for among.
const ownListingsRead = 20

// readCrossings finds the resting orders at or above the cheapest listing
// and, for each, its buyer's cheapest plain listing at or below its price.
func (p *ordersPane) readCrossings(c *Common) {
	p.crossed = nil
	if len(p.book.Buy) == 0 || len(p.book.Sell) == 0 || p.book.Buy[0].UnitPrice < p.book.Sell[0].UnitPrice {
		return
	}
	for _, o := range p.resting.Orders {
		if o.UnitPrice < p.book.Sell[0].UnitPrice {
			break // best first: the rest are below it too
		}
		x := crossedOrder{order: o}
		if own := ownListings(c, p.material, o.Buyer); len(own) > 0 && own[0].unit <= o.UnitPrice {
			x.own, x.unit = own[0].l, own[0].unit
		}
		p.crossed = append(p.crossed, x)
	}
}

// ownListing is a listing of a player's on the book's sell side, at its
// level: its unit price rounded up to the cent.
type ownListing struct {
	l    market.Listing
	unit float64
}

// ownListings are seller's plain fixed-price listings of material, the
// cheapest an item first, as the book counts them (ownListingsRead at
// most): their orders never buy them.
func ownListings(c *Common, material string, seller uuid.UUID) []ownListing {
	page, err := c.Svc.Query(market.Query{Material: material, Seller: seller, Kind: "fixed", Sort: market.SortUnitPrice, Limit: ownListingsRead})
	if err != nil {
		return nil
	}
	var out []ownListing
	for _, l := range page.Listings {
		st := l.Item
		if st.DisplayName != "" || len(st.Lore) > 0 || len(st.Enchantments) > 0 || st.Amount <= 0 {
			continue // orders buy plain stacks: not on the book
		}
		cents := int64(math.Round(l.Price * 100))
		out = append(out, ownListing{l: l, unit: float64((cents+int64(st.Amount)-1)/int64(st.Amount)) / 100})
	}
	return out
}

// crosses reports whether a buy level is at or above the cheapest listing.
func (p *ordersPane) crosses(l market.BookLevel) bool {
	return len(p.book.Sell) > 0 && l.UnitPrice >= p.book.Sell[0].UnitPrice
}

// levelMark is the mark of a buy level: crossMark at or above the cheapest
// listing, with "own" when an order of the level is above its buyer's own
// listing; "" below it.
func (p *ordersPane) levelMark(c *Common, l market.BookLevel) string {
	if !p.crosses(l) {
		return ""
	}
	for _, x := range p.crossed {
		if x.order.UnitPrice == l.UnitPrice && x.own.ID != 0 {
			return c.Styles.Warn.Render(crossMark + " own")
		}
	}
	return c.Styles.Warn.Render(crossMark)
}

// looksCrossed reports whether the best order is at or above the cheapest
// listing: the book then has a line saying why.
func (p *ordersPane) looksCrossed() bool { return len(p.book.Buy) > 0 && p.crosses(p.book.Buy[0]) }

// crossNote is the line under a book that looks crossed, saying why, the
// reason first, so that 80 columns show it whole.
func (p *ordersPane) crossNote(c *Common) string {
	s := c.Styles
	var own []crossedOrder
	for _, x := range p.crossed {
		if x.own.ID != 0 {
			own = append(own, x)
		}
	}
	const other = "a fill the purchase cap refuses, or a share under a cent"
	if len(own) == 0 {
		return s.Warn.Render(crossMark) + s.Dim.Render(" crossed where the market may not fill: "+other)
	}
	x := own[0]
	text := fmt.Sprintf(" own listings never fill own orders: #%d by %s at %s each is at or above their listing #%d at %s",
		x.order.ID, playertext.Sanitize(x.order.BuyerName), money(x.order.UnitPrice), x.own.ID, money(x.unit))
	if len(own) > 1 {
		text += fmt.Sprintf(" (and %d more such order%s)", len(own)-1, plural(len(own)-1))
	}
	if len(own) < len(p.crossed) {
		text += "; the rest: " + other
	}
	return s.Warn.Render(crossMark) + s.Dim.Render(text)
}

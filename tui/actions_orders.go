package tui

import (
	"fmt"

	"github.com/google/uuid"
	"github.com/rynek/rynek/market"
	"github.com/rynek/rynek/market/playertext"
)

// actCancelOrder cancels a buy order as actor: its buyer, or an admin.
type actCancelOrder struct {
	id    int
	actor market.Player
}

// runOrder runs the buy orders' actions on the main thread; handled is
// false for any other action.
func (m *Model) runOrder(a action) (handled bool, err error) {
	switch a := a.(type) {
	case actPlaceOrder:
		return true, m.placeOrder(a)
	case actSellToOrder:
		return true, m.sellToOrder(a)
	case actCancelOrder:
		return true, m.cancelOrder(a)
	}
	return false, nil
}

// cancelOrder runs actCancelOrder and says what came back to whom.
func (m *Model) cancelOrder(a actCancelOrder) error {
	c := m.c
	before, err := c.Svc.GetOrder(a.id)
	if err == nil {
		err = c.Svc.CancelOrder(a.id, a.actor)
	}
	if err != nil {
		m.fail(err)
		return err
	}
	m.changed = true
	m.setStatus(statusMsg{text: fmt.Sprintf("cancelled buy order #%d as %s: %s back to %s (%d of %d were bought) → BuyOrderClosedEvent reason %q",
		a.id, playerName(a.actor), money(before.Escrow), playertext.Sanitize(before.BuyerName), before.Filled, before.Amount, "cancelled")})
	return nil
}

// fillsIn counts the buy orders' fills among events, and the items they
// bought.
func fillsIn(events []market.Event) (items, fills int) {
	for _, e := range events {
		if f, ok := e.(market.BuyOrderFilledEvent); ok {
			items += f.Amount()
			fills++
		}
	}
	return items, fills
}

// filledAtOnce says what buy orders bought of a new listing as it was
// listed (the book is never crossed), from the events the listing
// brought; "" when none did.
func filledAtOnce(events []market.Event) string {
	items, fills := fillsIn(events)
	if fills == 0 {
		return ""
	}
	return fmt.Sprintf("; buy orders bought %d at once in %d fill%s, each BuyOrderFilledEvent", items, fills, plural(fills))
}

// heldByOrders is what a player's open buy orders hold: money that left
// the balance for the escrow, and comes back as they close.
type heldByOrders struct {
	orders int
	escrow float64
}

// heldBy reads what player's open orders hold (none when the market
// cannot say).
func heldBy(c *Common, player uuid.UUID) heldByOrders {
	page, err := c.Svc.Orders(market.OrderQuery{Buyer: player, Limit: 1000})
	if err != nil {
		return heldByOrders{}
	}
	h := heldByOrders{orders: page.Total}
	for _, o := range page.Orders {
		h.escrow += o.Escrow
	}
	return h
}

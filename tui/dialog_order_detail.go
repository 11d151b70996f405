package tui

import (
	"fmt"

	"github.com/rynek/rynek/market"
	"github.com/rynek/rynek/market/playertext"
)

// openOrder shows a buy order in a pager: everything the market holds of
// it, and its fills as the console's event log has them.
func (m *Model) openOrder(id int) error {
	o, err := m.c.Svc.GetOrder(id)
	if err != nil {
		return err
	}
	var fills []market.BuyOrderFilledEvent
	for _, evs := range [][]market.Event{m.log.all, m.log.pending} {
		for _, e := range evs {
			if f, ok := e.(market.BuyOrderFilledEvent); ok && f.Order().ID == id {
				fills = append(fills, f)
			}
		}
	}
	m.dialog = newPager(fmt.Sprintf("Buy order #%d", o.ID), orderLines(m.c, o, fills))
	return nil
}

// orderLines is everything about an order, a line per field, then its
// fills.
func orderLines(c *Common, o market.Order, fills []market.BuyOrderFilledEvent) []string {
	s := c.Styles
	var lines []string
	add := func(label, value string) {
		lines = append(lines, s.Dim.Render(fmt.Sprintf("%-12s", label))+value)
	}
	add("buy order", fmt.Sprintf("#%d", o.ID))
	add("material", materialName(o.Material)+s.Dim.Render("  ("+playertext.Sanitize(o.Material)+")"))
	add("buyer", playertext.Sanitize(o.BuyerName)+s.Dim.Render("  "+o.Buyer.String()))
	add("amount", fmt.Sprintf("%d, %d bought, %d wanted still", o.Amount, o.Filled, o.Amount-o.Filled))
	add("unit price", s.Price.Render(money(o.UnitPrice))+s.Dim.Render(" at most"))
	add("escrow", money(o.Escrow)+s.Dim.Render("  placing fee "+money(o.Fee)))
	add("placed", stamp(o.CreatedAt))
	if o.Open() {
		add("expires", stamp(o.ExpiresAt)+s.Dim.Render("  in "+Until(o.ExpiresAt, c.NowUnix)))
		add("state", s.OK.Render("open"))
	} else {
		add("expires", stamp(o.ExpiresAt))
		add("state", s.Warn.Render(o.State)+s.Dim.Render("  at "+stamp(o.ClosedAt)))
	}
	lines = append(lines, "", s.Title.Render(fmt.Sprintf("Fills in the event log (%d)", len(fills))))
	if len(fills) == 0 {
		lines = append(lines, s.Dim.Render("  none since the log this console read begins"))
	}
	for _, f := range fills {
		from := "from the inventory"
		if f.ListingID() != 0 {
			from = fmt.Sprintf("from listing #%d", f.ListingID())
		}
		lines = append(lines, fmt.Sprintf("  %s  %s sold %d at %s each, %s", f.At().UTC().Format("01-02 15:04:05"),
			playertext.Sanitize(f.SellerName()), f.Amount(), money(f.UnitPrice()), from)+s.Dim.Render("  "+shortID(f.TransactionID())))
	}
	return lines
}

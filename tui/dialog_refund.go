package tui

import (
	"errors"
	"fmt"

	"github.com/google/uuid"
	"github.com/rynek/rynek/market"
	"github.com/rynek/rynek/market/playertext"
)

// actRefund refunds a completed purchase as the console's admin.
type actRefund struct {
	id    string
	admin market.Player
	mode  market.RefundMode
}

// newRefundConfirm asks before a refund, saying what it will do: whether
// the buyer still holds the stack (it goes back to the seller) or not (y
// refunds the money only; n refunds nothing). The market decides again when
// it runs, so a stack sold meanwhile is refused, not copied.
func newRefundConfirm(c *Common, t market.Transaction) (*confirmDialog, error) {
	if t.State != market.StateCompleted {
		return nil, fmt.Errorf("only a COMPLETED purchase can be refunded; %s is %s", shortID(t.ID), t.State)
	}
	if c.Admin.ID == uuid.Nil {
		return nil, errNoAdmin
	}
	buyer, err := c.Svc.GetPlayer(t.Buyer)
	if err != nil {
		return nil, err
	}
	s := c.Styles
	buyerName, sellerName := playertext.Sanitize(t.BuyerName), playertext.Sanitize(t.SellerName)
	what := fmt.Sprintf("%s: %s ×%d, %s bought from %s for %s", shortID(t.ID), RenderMC(itemName(t.Item), lipglossPlain),
		t.Item.Amount, buyerName, sellerName, s.Price.Render(money(t.Price)))
	moneyLine := s.Dim.Render(fmt.Sprintf("%s gets %s back; %s gives back %s, the fee account %s", buyerName, money(t.Price),
		sellerName, money(t.SellerNet), money(t.Fee)))
	a := actRefund{id: t.ID, admin: c.Admin}
	item := s.Dim.Render(buyerName + " still holds the stack: it goes back to " + sellerName)
	if !holds(buyer, t.Item) {
		a.mode = market.RefundMoneyOnly
		item = s.Warn.Render("⚠ " + buyerName + " no longer holds the stack: y refunds the money only, n nothing")
	}
	return newConfirm(c, "Refund as admin "+playerName(c.Admin)+"?", a, what, moneyLine, item,
		s.Dim.Render("the purchase becomes ROLLED_BACK (REFUND:<time>) and leaves the market's figures")), nil
}

// holds reports whether p has the very stack, whole, in the inventory or
// the mailbox.
func holds(p market.PlayerState, it market.ItemStack) bool {
	for _, s := range p.Inventory {
		if s != nil && s.ID == it.ID {
			return s.Amount == it.Amount
		}
	}
	for _, m := range p.Mailbox {
		if m.Item.ID == it.ID {
			return m.Item.Amount == it.Amount
		}
	}
	return false
}

// refund runs actRefund on the main thread.
func (m *Model) refund(a actRefund) error {
	t, err := m.c.Svc.Refund(a.id, a.admin, a.mode)
	if err != nil {
		if errors.Is(err, &market.Error{Code: market.CodeItemGone}) {
			err = fmt.Errorf("%w (press U again to refund the money only)", err)
		}
		m.fail(err)
		return err
	}
	m.changed = true
	what := "the stack went back to " + playertext.Sanitize(t.SellerName)
	at, returned, _ := t.Refunded()
	if !returned {
		what = "money only"
	}
	// The code's own time is unix milliseconds (REFUND:1796772510842), which
	// nobody reads: the status says it as the rest of the console does.
	m.setStatus(statusMsg{text: fmt.Sprintf("refunded %s: %s got %s back, %s → ROLLED_BACK at %s UTC", shortID(t.ID),
		playertext.Sanitize(t.BuyerName), money(t.Price), what, stamp(at))})
	return nil
}

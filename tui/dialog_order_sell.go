package tui

import (
	"fmt"
	"math"
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"github.com/rynek/rynek/market"
	"github.com/rynek/rynek/market/playertext"
)

// actSellToOrder sells items of the acting player's stack into a buy
// order at the order's price.
type actSellToOrder struct {
	stack market.ItemStack // Amount: the items to sell
	order int
}

// orderSellDialog sells into a buy order from the acting player's
// inventory: choose a stack of the order's material (↑/↓) and the amount
// (proposed: what the order still wants, at most the stack); it shows what
// the seller receives after the sale fee and what the order then wants.
type orderSellDialog struct {
	dialogBase
	order  market.Order
	seller market.PlayerState
	stacks []market.ItemStack // the order's material
	pick   int
	amount textField
	n      int // the amount when err is empty
	sell   key.Binding
}

func newOrderSellDialog(c *Common, o market.Order, seller market.PlayerState) *orderSellDialog {
	d := &orderSellDialog{dialogBase: newDialogBase(typing), order: o, seller: seller, amount: newTextField("", "", 6, 6),
		sell: binding([]string{"enter"}, "enter", "sell into the order")}
	for _, st := range seller.Inventory {
		if st != nil && st.Material == o.Material {
			d.stacks = append(d.stacks, *st)
		}
	}
	d.amount.Focus()
	d.choose(0)
	return d
}

// choose selects stack i and proposes what the order takes of it.
func (d *orderSellDialog) choose(i int) {
	if len(d.stacks) == 0 {
		d.check()
		return
	}
	d.pick = (i + len(d.stacks)) % len(d.stacks)
	d.amount.Prefill(fmt.Sprint(max(1, min(d.stacks[d.pick].Amount, d.order.Amount-d.order.Filled))))
	d.check()
}

// check reads the amount: 1 to what the stack holds.
func (d *orderSellDialog) check() {
	d.err = ""
	if len(d.stacks) == 0 {
		d.err = fmt.Sprintf("nothing to sell: %s has no %s in the inventory (m claims the mailbox)", playerName(d.seller.Player),
			materialName(d.order.Material))
		return
	}
	n, err := stackAmount(d.amount.Value(), d.stacks[d.pick].Amount)
	if err != nil {
		d.err = err.Error()
		return
	}
	d.n = n
}

func (d *orderSellDialog) Help() []key.Binding {
	return []key.Binding{d.sell, d.keys.Up, d.keys.Down, d.closeKey()}
}

func (d *orderSellDialog) Update(_ *Common, msg tea.Msg) (action, bool) {
	if d.closes(msg) {
		return nil, true
	}
	if k, ok := msg.(tea.KeyPressMsg); ok {
		switch {
		case key.Matches(k, d.sell):
			if d.check(); d.err != "" {
				return nil, false
			}
			st := d.stacks[d.pick]
			st.Amount = d.n
			return actSellToOrder{stack: st, order: d.order.ID}, true
		case key.Matches(k, d.keys.Up):
			d.choose(d.pick - 1)
			return nil, false
		case key.Matches(k, d.keys.Down):
			d.choose(d.pick + 1)
			return nil, false
		}
	}
	if d.typeInto(&d.amount, msg) {
		d.check()
	}
	return nil, false
}

func (d *orderSellDialog) View(c *Common, w, _ int) string {
	s, o := c.Styles, d.order
	var b strings.Builder
	b.WriteString(s.Title.Render(fmt.Sprintf("Sell into buy order #%d as %s", o.ID, playerName(d.seller.Player))) +
		s.Dim.Render("  balance "+money(d.seller.Balance)))
	b.WriteString("\n" + orderSummary(c, o))
	b.WriteString("\n" + s.Dim.Render("↑/↓ stack · enter sell into the order · esc cancel"))
	for i, st := range d.stacks {
		line := fmt.Sprintf("%2d× %s", st.Amount, RenderMC(itemName(st), lipglossPlain))
		if e := enchants(st); e != "" {
			line += s.Dim.Render("  " + e)
		}
		b.WriteString("\n" + fit(pickLine(s, line, i == d.pick), max(w-6, 10)))
	}
	b.WriteString("\n\n" + s.Title.Render("amount") + " " + d.amount.View(s) + selectedHint(s, &d.amount))
	if d.err != "" {
		b.WriteString("\n" + s.Err.Render("✗ "+d.err))
		return box(c, b.String(), w)
	}
	for _, warn := range d.warnings(c) {
		b.WriteString("\n" + s.Warn.Render("⚠ "+warn))
	}
	left := o.Amount - o.Filled
	k := min(d.n, left)
	price := market.Money(k) * market.Money(math.Round(o.UnitPrice*100))
	fee := c.Svc.Config().SaleFee(price)
	line := fmt.Sprintf("ok · %s receives %s after the %s fee (%d × %s = %s)", playerName(d.seller.Player),
		money((price - fee).Float()), money(fee.Float()), k, money(o.UnitPrice), money(price.Float()))
	then := "that fills the order"
	if k < left {
		then = fmt.Sprintf("the order then wants %d more", left-k)
	}
	b.WriteString("\n" + s.OK.Render(line) + "\n" + s.Dim.Render(then))
	if k < d.n {
		b.WriteString("\n" + s.Dim.Render(fmt.Sprintf("the order wants %d: the other %d stay in the inventory", left, d.n-k)))
	}
	return box(c, b.String(), w)
}

// warnings are the market's refusals the dialog can foresee.
func (d *orderSellDialog) warnings(c *Common) []string {
	var out []string
	st := d.stacks[d.pick]
	if st.DisplayName != "" || len(st.Lore) > 0 || len(st.Enchantments) > 0 {
		out = append(out, "a named, lored or enchanted stack: the market will refuse (NOT_A_COMMODITY)")
	}
	if d.order.Buyer == d.seller.ID {
		out = append(out, "their own order: the market will refuse (NO_MATCHING_ORDER)")
	}
	if !d.order.Open() {
		out = append(out, "the order is "+d.order.State+": the market will refuse (ORDER_CLOSED)")
	}
	return out
}

// orderSummary is one line about an order: what, at what price, by whom,
// how far filled, and when it ends or how it closed.
func orderSummary(c *Common, o market.Order) string {
	s := c.Styles
	line := fmt.Sprintf("order #%d: %s at %s each by %s · %d/%d filled", o.ID, materialName(o.Material),
		s.Price.Render(money(o.UnitPrice)), playertext.Sanitize(o.BuyerName), o.Filled, o.Amount)
	if o.Open() {
		return line + s.Dim.Render(" · ends in "+Until(o.ExpiresAt, c.NowUnix))
	}
	return line + s.Dim.Render(" · "+o.State+" "+stamp(o.ClosedAt))
}

// sellToOrder runs actSellToOrder on the main thread; the dialog that
// asked stays open with the market's refusal.
func (m *Model) sellToOrder(a actSellToOrder) error {
	c := m.c
	tx, err := c.Svc.SellToOrder(c.Actor, a.stack, a.order)
	if err != nil {
		m.fail(err)
		return err
	}
	m.changed = true
	where := "inventory"
	if tx.DeliveredToMailbox {
		where = "mailbox"
	}
	text := fmt.Sprintf("sold %s ×%d into buy order #%d: received %s after the %s fee, items to the buyer's %s → TransactionCompletedEvent, BuyOrderFilledEvent",
		materialName(tx.Item.Material), tx.Item.Amount, a.order, money(tx.SellerNet), money(tx.Fee), where)
	if o, err := c.Svc.GetOrder(a.order); err == nil && !o.Open() {
		text += ", BuyOrderClosedEvent (filled)"
	}
	m.setStatus(statusMsg{text: text})
	return nil
}

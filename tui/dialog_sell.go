package tui

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"github.com/google/uuid"
	"github.com/rynek/rynek/market"
	"github.com/rynek/rynek/market/catalog"
	"github.com/rynek/rynek/market/playertext"
)

// sellDialog lists an item from the acting player's inventory: choose the
// stack (↑/↓), edit amount and price (tab moves between them). The price
// is validated as you type, with the market's own rules and messages.
type sellDialog struct {
	dialogBase
	player market.PlayerState
	stacks []market.ItemStack
	pick   int
	// summaries are the price summaries of the stacks' materials, read off
	// the event loop once the dialog opens (nil until then); typed is set
	// once the price was edited, which a suggestion then no longer replaces.
	summaries map[string]market.PriceSummary
	typed     bool
	amount    textField
	price     textField
	focus     int     // sellAmount or sellPrice: the stack list is ↑/↓'s, never a stop of tab
	ok        float64 // the validated price when err is empty (set in Update, read by View)
	list      key.Binding
	// auction: the stack goes up for auction, the price being its starting
	// bid, on the terms asked (kind toggles it).
	auction bool
	kind    key.Binding
	terms   auctionTerms
	// best is the best open buy order for the chosen stack that is not the
	// seller's own (ok false: none, or the stack is not a plain one);
	// toOrder sells into it.
	best    market.Order
	hasBest bool
	toOrder key.Binding
}

// The sell dialog's fields, in the order tab visits them; an auction's
// terms only while it is one.
const (
	sellAmount = iota
	sellPrice
	sellBuyNow
	sellLasts
)

// fields is how many fields tab visits.
func (d *sellDialog) fields() int {
	if d.auction {
		return sellLasts + 1
	}
	return sellPrice + 1
}

func newSellDialog(c *Common, ps market.PlayerState) *sellDialog {
	d := &sellDialog{dialogBase: newDialogBase(typing), player: ps, list: binding([]string{"enter"}, "enter", "list it"),
		kind:    binding([]string{"ctrl+t"}, "ctrl+t", "auction / fixed price"),
		toOrder: binding([]string{"ctrl+o"}, "ctrl+o", "sell into the best buy order"),
		// The amount takes any whole number typed and says when the stack
		// holds fewer; the price, what ParsePrice reads.
		amount: newTextField("", "", 9, 6), price: newTextField("", "", 16, 14), terms: newAuctionTerms(c.Svc.Config().Auctions)}
	for _, st := range ps.Inventory {
		if st != nil {
			d.stacks = append(d.stacks, *st)
		}
	}
	d.focus = sellPrice
	d.price.Focus()
	d.choose(c, 0)
	return d
}

// choose selects stack i, proposes the whole stack and suggests a price.
func (d *sellDialog) choose(c *Common, i int) {
	if len(d.stacks) == 0 {
		return
	}
	d.pick = (i + len(d.stacks)) % len(d.stacks)
	d.amount.Prefill(fmt.Sprint(d.stacks[d.pick].Amount))
	d.typed = false
	d.best, d.hasBest = bestOrderFor(c, d.stacks[d.pick], d.player.ID)
	d.suggest(c)
}

// bestOrderFor is the best open buy order that would buy st from seller:
// the highest price, then the oldest, not the seller's own. A named, lored
// or enchanted stack has none: orders buy plain stacks.
func bestOrderFor(c *Common, st market.ItemStack, seller uuid.UUID) (market.Order, bool) {
	if st.DisplayName != "" || len(st.Lore) > 0 || len(st.Enchantments) > 0 {
		return market.Order{}, false
	}
	page, err := c.Svc.Orders(market.OrderQuery{Material: st.Material})
	if err != nil {
		return market.Order{}, false
	}
	for _, o := range page.Orders {
		if o.Buyer != seller {
			return o, true
		}
	}
	return market.Order{}, false
}

// suggest proposes a price for the amount (the whole stack while the
// amount is not a valid one): what it sold at this week, else the
// material's base price. A price the user typed stays.
func (d *sellDialog) suggest(c *Common) {
	if d.typed || len(d.stacks) == 0 {
		return
	}
	st := d.stacks[d.pick]
	n, err := d.amountOf(st)
	if err != nil {
		n = st.Amount
	}
	price := 10.0
	if sum, ok := d.summaries[st.Material]; ok && sum.Week.Sales > 0 {
		price = sum.Week.Median * float64(n) // what it sold at this week
	} else if info, ok := catalog.LookupMaterial(st.Material); ok {
		price = float64(info.BasePrice) * float64(n) / 100
	}
	price = math.Round(price*100) / 100
	cfg := c.Svc.Config()
	price = max(min(price, cfg.MaxPrice.Float()), cfg.MinPrice.Float())
	d.price.Prefill(fmt.Sprintf("%.2f", price))
	d.validate(c)
}

// amountOf reads the amount typed for stack st: a whole number from 1 to
// what the stack holds, or why not.
func (d *sellDialog) amountOf(st market.ItemStack) (int, error) {
	return stackAmount(d.amount.Value(), st.Amount)
}

// stackAmount reads an amount typed to sell of a stack holding have: a
// whole number from 1 to have, or why not, in words that fit a stack of
// one ("sell that 1", not "sell 1 to 1 of it").
func stackAmount(typed string, have int) (int, error) {
	text := strings.TrimSpace(typed)
	span := fmt.Sprintf("1 to %d", have)
	if have == 1 {
		span = "1, the stack holds 1"
	}
	if text == "" {
		return 0, fmt.Errorf("type the amount: %s", span)
	}
	n, err := strconv.Atoi(text)
	switch {
	case (err != nil || n < 1) && have == 1:
		return 0, fmt.Errorf("the amount is 1, the stack holds 1, not %q", text)
	case err != nil || n < 1:
		return 0, fmt.Errorf("the amount is a whole number from 1 to %d, not %q", have, text)
	case n > have && have == 1:
		return 0, fmt.Errorf("the stack holds 1: sell that 1, not %d", n)
	case n > have:
		return 0, fmt.Errorf("the stack holds %d: sell 1 to %d of it, not %d", have, have, n)
	}
	return n, nil
}

func (d *sellDialog) validate(c *Common) (market.ItemStack, float64, bool) {
	d.err = ""
	if len(d.stacks) == 0 {
		d.err = "nothing to sell: the inventory is empty (claim the mailbox with m)"
		return market.ItemStack{}, 0, false
	}
	st := d.stacks[d.pick]
	n, err := d.amountOf(st)
	if err != nil {
		d.err = err.Error()
		return st, 0, false
	}
	cfg := c.Svc.Config()
	cents, err := market.ParsePrice(d.price.Value(), cfg.MinPrice, cfg.MaxPrice)
	if err != nil {
		d.err = err.Error()
		return st, 0, false
	}
	if d.auction {
		if why := d.terms.check(cfg, cents.Float()); why != "" {
			d.err = why
			return st, 0, false
		}
	}
	st.Amount = n
	d.ok = cents.Float()
	return st, cents.Float(), true
}

func (d *sellDialog) Help() []key.Binding {
	keys := []key.Binding{d.list, d.keys.Up, d.keys.Down, d.keys.NextField, d.kind}
	if d.hasBest {
		keys = append(keys, d.toOrder)
	}
	return append(keys, d.closeKey())
}

// priceSummariesMsg answers summarize.
type priceSummariesMsg map[string]market.PriceSummary

// summarize reads the price summaries of the stacks' materials off the
// event loop (they may wait for the history's background load).
func (d *sellDialog) summarize(c *Common) tea.Cmd {
	svc := c.Svc
	var mats []string
	for _, st := range d.stacks {
		mats = append(mats, st.Material)
	}
	return func() tea.Msg {
		out := priceSummariesMsg{}
		for _, m := range mats {
			if _, done := out[m]; done {
				continue
			}
			if sum, err := svc.PriceSummary(m); err == nil {
				out[m] = sum
			}
		}
		return dialogMsg{to: d, msg: out}
	}
}

// field is the text field with the focus.
func (d *sellDialog) field() *textField {
	switch d.focus {
	case sellAmount:
		return &d.amount
	case sellBuyNow:
		return &d.terms.buyNow
	case sellLasts:
		return &d.terms.lasts
	}
	return &d.price
}

func (d *sellDialog) Update(c *Common, msg tea.Msg) (action, bool) {
	switch msg := msg.(type) {
	case priceSummariesMsg:
		d.summaries = msg
		d.suggest(c)
		return nil, false
	case tea.PasteMsg:
		d.edit(c, msg)
		return nil, false
	}
	k, ok := msg.(tea.KeyPressMsg)
	if !ok {
		return nil, false
	}
	switch {
	case d.closes(k): // n and q are text here: esc alone closes
		return nil, true
	case key.Matches(k, d.list):
		if st, price, ok := d.validate(c); ok {
			if d.auction {
				return actStartAuction{stack: st, start: price, buyNow: d.terms.now, duration: d.terms.duration}, true
			}
			return actSell{stack: st, price: price}, true
		}
		return nil, false
	case key.Matches(k, d.kind):
		d.auction = !d.auction
		if d.focus >= d.fields() { // an auction's term had the cursor
			d.field().Blur()
			d.focus = sellPrice
			d.field().Focus()
		}
		d.validate(c)
		return nil, false
	case key.Matches(k, d.toOrder) && d.hasBest:
		st := d.stacks[d.pick]
		n, err := d.amountOf(st)
		if err != nil {
			d.err = err.Error()
			return nil, false
		}
		st.Amount = n
		return actSellToOrder{stack: st, order: d.best.ID}, true
	case key.Matches(k, d.keys.NextField, d.keys.PrevField):
		step := 1
		if key.Matches(k, d.keys.PrevField) {
			step = d.fields() - 1
		}
		d.field().Blur()
		d.focus = (d.focus + step) % d.fields()
		d.field().Focus()
		return nil, false
	case key.Matches(k, d.keys.Up, d.keys.Down):
		delta := 1
		if key.Matches(k, d.keys.Up) {
			delta = -1
		}
		d.choose(c, d.pick+delta)
		return nil, false
	}
	d.edit(c, msg)
	return nil, false
}

// edit passes a key or a paste to the focused field. A new amount gets a
// new suggested price, until a price is typed.
func (d *sellDialog) edit(c *Common, msg tea.Msg) {
	_, changed := d.field().Update(msg)
	if changed && d.focus == sellPrice {
		d.typed = true
	}
	if changed && d.focus == sellAmount {
		d.suggest(c)
	}
	d.validate(c)
}

func (d *sellDialog) View(c *Common, w, _ int) string {
	s := c.Styles
	var b strings.Builder
	title, priceLabel := "Sell as ", "price"
	if d.auction {
		title, priceLabel = "Auction as ", "starting bid"
	}
	b.WriteString(s.Title.Render(title + playerName(d.player.Player)))
	b.WriteString(s.Dim.Render(fmt.Sprintf("  balance %s", money(d.player.Balance))))
	b.WriteString("\n" + s.Dim.Render("↑/↓ stack · tab field · enter list it · ctrl+t auction / fixed price · esc cancel"))
	show := 8
	start := max(0, min(d.pick-show/2, len(d.stacks)-show))
	for i := start; i < min(len(d.stacks), start+show); i++ {
		st := d.stacks[i]
		line := fmt.Sprintf("%2d× %s", st.Amount, RenderMC(itemName(st), lipglossPlain))
		if e := enchants(st); e != "" {
			line += s.Dim.Render("  " + e)
		}
		b.WriteString("\n" + fit(pickLine(s, line, i == d.pick), max(w-6, 10)))
	}
	field := func(label string, in *textField, focused bool) string {
		l := s.Dim.Render(label)
		if focused {
			l = s.Title.Render(label)
		}
		return l + " " + in.View(s)
	}
	b.WriteString("\n\n" + d.summaryLine(c))
	if line := d.orderLine(c); line != "" {
		b.WriteString("\n" + line)
	}
	b.WriteString("\n" + field("amount", &d.amount, d.focus == sellAmount) + "   " + field(priceLabel, &d.price, d.focus == sellPrice))
	if d.auction {
		b.WriteString("\n" + field("buy now", &d.terms.buyNow, d.focus == sellBuyNow) + "   " +
			field("lasts", &d.terms.lasts, d.focus == sellLasts) + "\n" + s.Dim.Render(d.terms.bounds(c.Svc.Config())))
	}
	b.WriteString(selectedHint(s, d.field()))
	if d.err != "" {
		b.WriteString("\n" + s.Err.Render(d.err))
	} else if price := d.ok; price > 0 && d.auction {
		for _, line := range d.terms.summary(price) {
			b.WriteString("\n" + s.OK.Render(line))
		}
	} else if price > 0 {
		cfg := c.Svc.Config()
		fee := float64(cfg.SaleFeeBasisPoints) / 100
		line := fmt.Sprintf("ok · on sale you receive %s after the %.0f%% fee", money(price*(1-fee/100)), fee)
		if st := d.stacks[d.pick]; d.hasBest && st.Amount > 0 {
			if n, err := d.amountOf(st); err == nil && price <= d.best.UnitPrice*float64(n)+0.005 {
				line += fmt.Sprintf("; buy order #%d buys up to %d of it at once", d.best.ID, d.best.Amount-d.best.Filled)
			}
		}
		b.WriteString("\n" + s.OK.Render(line))
	}
	return box(c, b.String(), w)
}

// orderLine is the best buy order for the chosen stack ("best buy order:
// 2.50 each"), and what selling into it pays: the amount typed, up to what
// the order wants.
func (d *sellDialog) orderLine(c *Common) string {
	if !d.hasBest {
		return ""
	}
	s, o := c.Styles, d.best
	line := s.Title.Render("best buy order: "+money(o.UnitPrice)+" each") +
		s.Dim.Render(fmt.Sprintf(" · order #%d by %s wants %d", o.ID, playertext.Sanitize(o.BuyerName), o.Amount-o.Filled))
	n, err := d.amountOf(d.stacks[d.pick])
	if err != nil {
		return line
	}
	k := min(n, o.Amount-o.Filled)
	price := market.Money(k) * market.Money(math.Round(o.UnitPrice*100))
	fee := c.Svc.Config().SaleFee(price)
	return line + "\n" + s.Dim.Render(fmt.Sprintf("ctrl+o sells %d into it: you receive %s after the %s fee", k,
		money((price-fee).Float()), money(fee.Float())))
}

// summaryLine is the selected stack's price summary: the last 7 days'
// unit prices and the cheapest listing of the material on sale now.
func (d *sellDialog) summaryLine(c *Common) string {
	s := c.Styles
	if len(d.stacks) == 0 {
		return ""
	}
	if d.summaries == nil {
		return s.Dim.Render("reading the price summary…")
	}
	sum, ok := d.summaries[d.stacks[d.pick].Material]
	if !ok {
		return s.Dim.Render("no price summary for this item")
	}
	week := s.Dim.Render("7 days: no sales")
	if w := sum.Week; w.Sales > 0 {
		week = s.Dim.Render(fmt.Sprintf("7 days: %d sale%s, each ", w.Sales, plural(w.Sales))) +
			fmt.Sprintf("%s / %s / %s", money(w.Min), money(w.Median), money(w.Max)) + s.Dim.Render(" min/median/max")
	}
	now := s.Dim.Render(" · none on sale")
	if l := sum.Cheapest; l != nil {
		now = s.Dim.Render(" · cheapest now ") + money(l.Price/float64(l.Item.Amount)) + s.Dim.Render(fmt.Sprintf(" each (#%d)", l.ID))
	}
	return week + now
}

package tui

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"github.com/rynek/rynek/market"
	"github.com/rynek/rynek/market/catalog"
)

// actPlaceOrder places the acting player's buy order.
type actPlaceOrder struct {
	material string
	amount   int
	unit     float64
	duration time.Duration
}

// orderDialog places a buy order: the material, the amount, the most it
// pays for one item and how long it rests, each checked as it is typed
// with the market's rules. It shows the escrow the order takes and the
// balance after, like the bid dialog, and what of the material's book it
// meets: an order at or above the cheapest listing buys at once.
type orderDialog struct {
	dialogBase
	balance float64
	fields  [orderFields]textField
	focus   int
	place   key.Binding
	// What the fields hold once checked (valid when err is empty).
	mat      string
	amount   int
	unit     market.Money
	duration time.Duration
	book     market.OrderBook // the material's book, read when the material changes
	own      []ownListing     // the acting player's listings on the book, which the order never buys
	bookOf   string
	typed    bool // the price was typed: a new material's book no longer replaces it
}

// The order dialog's fields, in the order tab visits them.
const (
	orderMaterial = iota
	orderAmount
	orderPrice
	orderDuration
	orderFields
)

var orderFieldLabels = [orderFields]string{"material", "amount  ", "price   ", "lasts   "}

// newOrderDialog opens on material (a catalogue key; "" none) with a stack
// of 64 at the best order's price, for the rules' default duration.
func newOrderDialog(c *Common, material string) *orderDialog {
	d := &orderDialog{dialogBase: newDialogBase(typing), place: binding([]string{"enter"}, "enter", "place the order")}
	d.fields[orderMaterial] = newTextField("", "", 64, 24)
	d.fields[orderAmount] = newTextField("", "", 6, 8)
	d.fields[orderPrice] = newTextField("", "", 16, 14)
	d.fields[orderDuration] = newTextField("", "", 12, 8)
	if st, err := c.Svc.GetPlayer(c.Actor.ID); err == nil {
		d.balance = st.Balance
	}
	d.fields[orderMaterial].Prefill(material)
	d.fields[orderAmount].Prefill("64")
	d.fields[orderDuration].Prefill(durText(c.Svc.Config().Orders.DefaultDuration))
	d.focus = orderAmount
	if material == "" {
		d.focus = orderMaterial
	}
	d.fields[d.focus].Focus()
	d.check(c)
	return d
}

// suggestPrice proposes the best order's price (a new order joins the top
// of the book), else just under the cheapest listing, else the material's
// base price.
func (d *orderDialog) suggestPrice() string {
	switch {
	case len(d.book.Buy) > 0:
		return fmt.Sprintf("%.2f", d.book.Buy[0].UnitPrice)
	case len(d.book.Sell) > 0 && d.book.Sell[0].UnitPrice > 0.01:
		return fmt.Sprintf("%.2f", d.book.Sell[0].UnitPrice-0.01)
	}
	if info, ok := catalog.LookupMaterial(d.mat); ok && info.BasePrice > 0 {
		return fmt.Sprintf("%.2f", float64(info.BasePrice)/100)
	}
	return "1.00"
}

func (d *orderDialog) Help() []key.Binding {
	return []key.Binding{d.place, d.keys.NextField, d.closeKey(), d.keys.PrevField}
}

// materialKey reads a material as typed: its key ("oak_log",
// "minecraft:oak_log"), its name ("Oak Log") or the words search finds it
// by ("diament"), as the market resolves them (market.MaterialNamed).
func materialKey(text string) (string, error) {
	if strings.TrimSpace(text) == "" {
		return "", fmt.Errorf("type the material: a key like OAK_LOG or a name like Oak Log")
	}
	return market.MaterialNamed(text)
}

// durText writes a duration as parseDuration reads it: "7d", "1d12h",
// "90m" → "1h30m", "1m".
func durText(d time.Duration) string {
	if d <= 0 || d%time.Minute != 0 {
		return d.String()
	}
	var b strings.Builder
	for _, u := range []struct {
		d    time.Duration
		name string
	}{{24 * time.Hour, "d"}, {time.Hour, "h"}, {time.Minute, "m"}} {
		if n := d / u.d; n > 0 {
			fmt.Fprintf(&b, "%d%s", n, u.name)
			d -= n * u.d
		}
	}
	return b.String()
}

// parseDuration reads "7d", "12h", "30m", "1d12h" or Go's "90m0s".
func parseDuration(text string) (time.Duration, error) {
	t := strings.ToLower(strings.ReplaceAll(strings.TrimSpace(text), " ", ""))
	bad := fmt.Errorf("the duration is like 7d, 12h, 30m or 1d12h, not %q", strings.TrimSpace(text))
	if t == "" {
		return 0, bad
	}
	if d, err := time.ParseDuration(t); err == nil {
		return d, nil
	}
	var total time.Duration
	for t != "" {
		i := strings.IndexFunc(t, func(r rune) bool { return r < '0' || r > '9' })
		if i <= 0 {
			return 0, bad
		}
		n, err := strconv.Atoi(t[:i])
		if err != nil {
			return 0, bad
		}
		unit := map[byte]time.Duration{'d': 24 * time.Hour, 'h': time.Hour, 'm': time.Minute}[t[i]]
		if unit == 0 {
			return 0, bad
		}
		total += time.Duration(n) * unit
		t = t[i+1:]
	}
	return total, nil
}

// check reads every field as the market will, and reads the material's
// book when the material changed. The first field that is wrong says why.
func (d *orderDialog) check(c *Common) {
	d.err = ""
	cfg := c.Svc.Config()
	rules := cfg.Orders
	mat, err := materialKey(d.fields[orderMaterial].Value())
	if err != nil {
		d.mat, d.book, d.bookOf = "", market.OrderBook{}, ""
		d.err = err.Error()
		return
	}
	d.mat = mat
	if d.bookOf != mat {
		d.book, _ = c.Svc.GetOrderBook(mat, 5)
		d.own = ownListings(c, mat, c.Actor.ID)
		d.bookOf = mat
		if !d.typed {
			d.fields[orderPrice].Prefill(d.suggestPrice())
		}
	}
	text := strings.TrimSpace(d.fields[orderAmount].Value())
	n, err := strconv.Atoi(text)
	if err != nil || n < 1 || n > rules.MaxAmount {
		d.err = fmt.Sprintf("the amount is a whole number from 1 to %s, not %q", count(rules.MaxAmount), text)
		return
	}
	d.amount = n
	unit, err := market.ParsePrice(d.fields[orderPrice].Value(), 1, cfg.MaxPrice)
	if err != nil {
		d.err = err.Error()
		return
	}
	d.unit = unit
	dur, err := parseDuration(d.fields[orderDuration].Value())
	if err != nil {
		d.err = err.Error()
		return
	}
	if dur < rules.MinDuration || dur > rules.MaxDuration {
		d.err = fmt.Sprintf("an order lasts %s to %s, not %s", durText(rules.MinDuration), durText(rules.MaxDuration), durText(dur))
		return
	}
	d.duration = dur
}

func (d *orderDialog) Update(c *Common, msg tea.Msg) (action, bool) {
	if d.closes(msg) {
		return nil, true
	}
	if k, ok := msg.(tea.KeyPressMsg); ok {
		switch {
		case key.Matches(k, d.place):
			d.check(c)
			if d.err != "" {
				return nil, false
			}
			return actPlaceOrder{material: d.mat, amount: d.amount, unit: d.unit.Float(), duration: d.duration}, true
		case key.Matches(k, d.keys.NextField, d.keys.PrevField):
			step := 1
			if key.Matches(k, d.keys.PrevField) {
				step = orderFields - 1
			}
			d.fields[d.focus].Blur()
			d.focus = (d.focus + step) % orderFields
			d.fields[d.focus].Focus()
			return nil, false
		}
	}
	if d.typeInto(&d.fields[d.focus], msg) {
		if d.focus == orderPrice {
			d.typed = true
		}
		d.check(c)
	}
	return nil, false
}

func (d *orderDialog) View(c *Common, w, _ int) string {
	s := c.Styles
	rules := c.Svc.Config().Orders
	var b strings.Builder
	b.WriteString(s.Title.Render("Place a buy order as "+playerName(c.Actor)) + s.Dim.Render("  balance "+money(d.balance)))
	b.WriteString("\n" + s.Dim.Render("tab field · enter place the order · esc cancel"))
	hints := [orderFields]string{"", fmt.Sprintf("1 to %s", count(rules.MaxAmount)), "each, at most",
		fmt.Sprintf("%s to %s", durText(rules.MinDuration), durText(rules.MaxDuration))}
	if d.mat != "" {
		hints[orderMaterial] = materialName(d.mat)
	}
	if stacks := stacksOf(d.mat, d.amount); stacks != "" && d.err == "" {
		hints[orderAmount] += " · " + stacks
	}
	for i := range d.fields {
		label := s.Dim.Render(orderFieldLabels[i])
		if i == d.focus {
			label = s.Title.Render(orderFieldLabels[i])
		}
		b.WriteString("\n" + label + " " + d.fields[i].View(s) + "  " + s.Dim.Render(hints[i]) + selectedHint(s, &d.fields[i]))
	}
	if d.mat != "" {
		b.WriteString("\n\n" + d.bookLine(c))
	}
	if d.err != "" {
		b.WriteString("\n" + s.Err.Render("✗ "+d.err))
		return box(c, b.String(), w)
	}
	value := d.unit * market.Money(d.amount)
	fee := c.Svc.Config().OrderFee(value)
	after := d.balance - (value + fee).Float()
	escrow := s.Dim.Render("escrow ") + money(value.Float())
	if fee > 0 {
		escrow += s.Dim.Render(" + fee ") + money(fee.Float())
	}
	b.WriteString("\n" + escrow + s.Dim.Render(" · balance ") + money(d.balance) + s.Dim.Render(" → after ") + money(after))
	b.WriteString("\n" + s.Dim.Render("the escrow pays the fills; what is left comes back when the order closes"))
	if after < 0 {
		b.WriteString("\n" + s.Warn.Render("⚠ funds are short: the market will refuse (INSUFFICIENT_FUNDS)"))
	}
	n, lo, hi, own := d.crossing()
	if n > 0 {
		b.WriteString("\n" + s.OK.Render(fmt.Sprintf("crosses the book: buys at once from the %s on sale at %s to %s each",
			count(n), money(lo), money(hi))))
	}
	if own > 0 {
		b.WriteString("\n" + s.Dim.Render(fmt.Sprintf("%s of the acting player's own on sale at or below it: own listings never fill own orders", count(own))))
	}
	return box(c, b.String(), w)
}

// bookLine is the material's book at a glance: the best order and the
// cheapest listing.
func (d *orderDialog) bookLine(c *Common) string {
	s := c.Styles
	best := s.Dim.Render("no buy order")
	if len(d.book.Buy) > 0 {
		l := d.book.Buy[0]
		best = s.Dim.Render("best order ") + money(l.UnitPrice) + s.Dim.Render(fmt.Sprintf(" each (%s wanted by %d)", count(l.Amount), l.Count))
	}
	cheapest := s.Dim.Render("no listing")
	if len(d.book.Sell) > 0 {
		l := d.book.Sell[0]
		cheapest = s.Dim.Render("cheapest listing ") + money(l.UnitPrice) + s.Dim.Render(fmt.Sprintf(" each (%s on sale)", count(l.Amount)))
	}
	return s.Dim.Render("book: ") + best + s.Dim.Render(" · ") + cheapest
}

// stacksOf says n items of material in its full stacks and what is left
// over: "1 stack of 64 and 36", "2 stacks of 16"; "" under a stack, and
// for a material that does not stack.
func stacksOf(material string, n int) string {
	size := 64
	if info, ok := catalog.LookupMaterial(material); ok && info.MaxStack > 0 {
		size = info.MaxStack
	}
	full, rest := n/size, n%size
	if size == 1 || full == 0 {
		return ""
	}
	text := fmt.Sprintf("%d stack%s of %d", full, plural(full), size)
	if rest > 0 {
		text += fmt.Sprintf(" and %d", rest)
	}
	return text
}

// crossing is what of the book's sell side the order's price reaches: the
// items on sale at or below it, and their lowest and highest unit prices;
// and the acting player's own items among them, which it never buys.
func (d *orderDialog) crossing() (n int, lo, hi float64, own int) {
	for _, l := range d.book.Sell {
		if l.UnitPrice > d.unit.Float() {
			break
		}
		k := l.Amount
		for _, o := range d.own {
			if o.unit == l.UnitPrice {
				k -= o.l.Item.Amount
				own += o.l.Item.Amount
			}
		}
		if k <= 0 {
			continue
		}
		if n == 0 {
			lo = l.UnitPrice
		}
		n += k
		hi = l.UnitPrice
	}
	return n, lo, hi, own
}

// placeOrder runs actPlaceOrder on the main thread; the dialog stays open
// with the market's refusal.
func (m *Model) placeOrder(a actPlaceOrder) error {
	c := m.c
	from := len(m.log.pending)
	o, err := c.Svc.PlaceOrder(c.Actor, a.material, a.amount, a.unit, a.duration)
	if err != nil {
		m.fail(err)
		return err
	}
	m.changed = true
	text := fmt.Sprintf("buy order #%d: %s ×%d at up to %s each, ends in %s → BuyOrderPlacedEvent", o.ID,
		materialName(o.Material), o.Amount, money(o.UnitPrice), Until(o.ExpiresAt, c.NowUnix))
	if _, fills := fillsIn(m.log.pending[from:]); fills > 0 {
		text += fmt.Sprintf("; bought %d at once in %d fill%s, each BuyOrderFilledEvent", o.Filled, fills, plural(fills))
		if !o.Open() {
			text += ", filled: BuyOrderClosedEvent"
		}
	}
	m.setStatus(statusMsg{text: text})
	return nil
}

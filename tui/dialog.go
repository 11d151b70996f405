package tui

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"github.com/rynek/rynek/market"
	"github.com/rynek/rynek/market/catalog"
	"github.com/rynek/rynek/market/playertext"
)

// dialog is a modal box. Like crush's dialogs it does not act itself: it
// returns an action for the root model to run (or nil), and whether it is
// done. Its keys are key.Bindings, shown in the footer while it is open.
type dialog interface {
	Update(c *Common, msg tea.Msg) (a action, done bool)
	// View renders the dialog at most w cells wide and h lines high.
	View(c *Common, w, h int) string
	Help() []key.Binding
}

// dialogMsg is an answer for the dialog that asked for it (to); the root
// drops it when that dialog has closed.
type dialogMsg struct {
	to  dialog
	msg tea.Msg
}

// refusalKeeper is a dialog that stays open when the market refuses its
// action, showing the error and keeping what was typed.
type refusalKeeper interface {
	Refused(err error)
}

// graceQuiet is the grace period of confirmations: a confirming key counts
// only when no key came for graceQuiet before it, and never when it is the
// terminal's auto-repeat, so a held key or a keystroke already in flight
// cannot buy or remove. (crush also confirms after 1.5 s regardless; a key
// held that long would then confirm, so there is no such cap here.)
const graceQuiet = 400 * time.Millisecond

// confirmDialog asks y/n for the action it carries. When that action can be
// armed with a QA failure (a purchase), keys 1-6 arm one at a saga step, so
// FAILED and ROLLED_BACK are three keystrokes away (b, 3, y).
type confirmDialog struct {
	title   string
	lines   []string
	yes     action
	arm     bool
	failAt  market.State
	lastKey time.Time
	keys    dialogKeys
}

var armSteps = []market.State{market.StateCreated, market.StateListingReserved, market.StateMoneyWithdrawn,
	market.StateSellerPaid, market.StateItemDelivered, market.StateCompleted}

func newConfirm(c *Common, title string, yes action, lines ...string) *confirmDialog {
	_, arm := yes.(armable)
	return &confirmDialog{title: title, lines: lines, yes: yes, arm: arm, lastKey: c.Wall(), keys: newDialogKeys()}
}

// ready reports whether the keyboard has been quiet long enough.
func (d *confirmDialog) ready(now time.Time) bool { return now.Sub(d.lastKey) >= graceQuiet }

func (d *confirmDialog) Help() []key.Binding {
	if d.arm {
		return []key.Binding{d.keys.Confirm, d.keys.Cancel, d.keys.Arm, d.keys.Disarm}
	}
	return []key.Binding{d.keys.Confirm, d.keys.Cancel}
}

func (d *confirmDialog) Update(c *Common, msg tea.Msg) (action, bool) {
	k, ok := msg.(tea.KeyPressMsg)
	if !ok {
		return nil, false
	}
	now := c.Wall()
	quiet := d.ready(now) && !k.IsRepeat
	d.lastKey = now
	switch {
	case key.Matches(k, d.keys.Cancel):
		return nil, true
	case key.Matches(k, d.keys.Confirm) && quiet:
		if a, ok := d.yes.(armable); ok {
			return a.withFailure(d.failAt), true
		}
		return d.yes, true
	case d.arm && key.Matches(k, d.keys.Disarm):
		d.failAt = ""
	case d.arm && key.Matches(k, d.keys.Arm):
		d.failAt = armSteps[k.String()[0]-'1']
	}
	return nil, false
}

func (d *confirmDialog) View(c *Common, w, _ int) string {
	s := c.Styles
	var b strings.Builder
	b.WriteString(s.Title.Render(d.title))
	for _, l := range d.lines {
		b.WriteString("\n" + l)
	}
	if d.arm {
		b.WriteString("\n\n" + s.QA.Render("QA · fail this purchase at a step") + s.Dim.Render(" (0 none):"))
		for i, st := range armSteps {
			label := fmt.Sprintf("%d %s", i+1, st)
			if st == d.failAt {
				label = s.Cursor.Render(label)
			}
			if i%3 == 0 {
				b.WriteString("\n ")
			}
			b.WriteString(" " + label)
		}
		if d.failAt != "" {
			outcome := "ROLLED_BACK"
			if d.failAt == market.StateCreated || d.failAt == market.StateListingReserved {
				outcome = "FAILED"
			}
			b.WriteString("\n" + s.QA.Render(fmt.Sprintf("armed: fails at %s → expect %s", d.failAt, outcome)))
		}
	}
	// Both hints take the same width, so the box keeps its size when the
	// grace period ends.
	hint, wait := "y/enter confirm · n/esc cancel", "wait… (keys count after 0.4 s without one) · n/esc cancel"
	if !d.ready(c.Wall()) {
		hint, wait = wait, hint
	}
	b.WriteString("\n\n" + s.Dim.Render(fit(hint, max(width(hint), width(wait)))))
	return box(c, b.String(), w)
}

// box draws dialog content in a rounded border with one cell of padding, at
// most w cells wide. It measures and cuts lines with the terminal's width
// method (cells), so an emoji sequence in a name cannot push the right
// border out of line.
func box(c *Common, content string, w int) string {
	lines := strings.Split(content, "\n")
	inner := 0
	for _, l := range lines {
		inner = max(inner, width(l))
	}
	inner = min(inner, max(w, 20)-4)
	bs := c.Styles.Border
	var b strings.Builder
	b.WriteString(bs.Render("╭" + strings.Repeat("─", inner+2) + "╮"))
	for _, l := range lines {
		b.WriteString("\n" + bs.Render("│") + " " + fit(l, inner) + " " + bs.Render("│"))
	}
	b.WriteString("\n" + bs.Render("╰"+strings.Repeat("─", inner+2)+"╯"))
	return b.String()
}

// sellDialog lists an item from the acting player's inventory: choose the
// stack (↑/↓), edit amount and price (tab moves between them). The price
// is validated as you type, with the market's own rules and messages.
type sellDialog struct {
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
	focus     int // sellAmount or sellPrice: the stack list is ↑/↓'s, never a stop of tab
	err       string
	ok        float64 // the validated price when err is empty (set in Update, read by View)
	keys      dialogKeys
	list      key.Binding
}

// The sell dialog's fields, in the order tab visits them.
const (
	sellAmount = iota
	sellPrice
	sellFields
)

func newSellDialog(c *Common, ps market.PlayerState) *sellDialog {
	d := &sellDialog{player: ps, keys: newDialogKeys(), list: binding([]string{"enter"}, "enter", "list it"),
		// The amount takes any whole number typed and says when the stack
		// holds fewer; the price, what ParsePrice reads.
		amount: newTextField("", "", 9, 6), price: newTextField("", "", 16, 14)}
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
	d.suggest(c)
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
	text := strings.TrimSpace(d.amount.Value())
	if text == "" {
		return 0, fmt.Errorf("type the amount: 1 to %d", st.Amount)
	}
	n, err := strconv.Atoi(text)
	if err != nil || n < 1 {
		return 0, fmt.Errorf("the amount is a whole number from 1 to %d, not %q", st.Amount, text)
	}
	if n > st.Amount {
		return 0, fmt.Errorf("the stack holds %d: sell 1 to %d of it, not %d", st.Amount, st.Amount, n)
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
	st.Amount = n
	d.ok = cents.Float()
	return st, cents.Float(), true
}

func (d *sellDialog) Help() []key.Binding {
	return []key.Binding{d.list, d.keys.Up, d.keys.Down, d.keys.NextField, d.keys.Quit}
}

// Refused shows the market's refusal (a cooldown, the listing limit) and
// keeps the dialog, with what was typed, open.
func (d *sellDialog) Refused(err error) { d.err = err.Error() + codeSuffix(err) }

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
	if d.focus == sellAmount {
		return &d.amount
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
	case key.Matches(k, d.keys.Quit): // n and q are text here: not the shared Cancel
		return nil, true
	case key.Matches(k, d.list):
		if st, price, ok := d.validate(c); ok {
			return actSell{stack: st, price: price}, true
		}
		return nil, false
	case key.Matches(k, d.keys.NextField, d.keys.PrevField):
		step := 1
		if key.Matches(k, d.keys.PrevField) {
			step = sellFields - 1
		}
		d.field().Blur()
		d.focus = (d.focus + step) % sellFields
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
	b.WriteString(s.Title.Render("Sell as " + playerName(d.player.Player)))
	b.WriteString(s.Dim.Render(fmt.Sprintf("  balance %s", money(d.player.Balance))))
	b.WriteString("\n" + s.Dim.Render("↑/↓ stack · tab field · enter list it · esc cancel"))
	show := 8
	start := max(0, min(d.pick-show/2, len(d.stacks)-show))
	for i := start; i < min(len(d.stacks), start+show); i++ {
		st := d.stacks[i]
		line := fmt.Sprintf("%2d× %s", st.Amount, RenderMC(itemName(st), lipglossPlain))
		if e := enchants(st); e != "" {
			line += s.Dim.Render("  " + e)
		}
		if i == d.pick {
			line = s.Cursor.Render("▶") + " " + line
		} else {
			line = "  " + line
		}
		b.WriteString("\n" + fit(line, max(w-6, 10)))
	}
	field := func(label string, in *textField, focused bool) string {
		l := s.Dim.Render(label)
		if focused {
			l = s.Title.Render(label)
		}
		return l + " " + in.View(s)
	}
	b.WriteString("\n\n" + d.summaryLine(c))
	b.WriteString("\n" + field("amount", &d.amount, d.focus == sellAmount) + "   " + field("price", &d.price, d.focus == sellPrice) +
		selectedHint(s, d.field()))
	if d.err != "" {
		b.WriteString("\n" + s.Err.Render(d.err))
	} else if price := d.ok; price > 0 {
		cfg := c.Svc.Config()
		fee := float64(cfg.SaleFeeBasisPoints) / 100
		b.WriteString("\n" + s.OK.Render(fmt.Sprintf("ok · on sale you receive %s after the %.0f%% fee", money(price*(1-fee/100)), fee)))
	}
	return box(c, b.String(), w)
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

// playerPicker chooses the acting player: type to filter (diacritics-folded),
// ↑/↓ to move, enter to pick.
type playerPicker struct {
	all    []market.Player
	shown  []market.Player
	cursor int
	filter textField
	keys   dialogKeys
}

func newPlayerPicker(c *Common) *playerPicker {
	ps, _ := c.Svc.Players()
	d := &playerPicker{all: ps, filter: newTextField("find: ", "", 32, 0), keys: newDialogKeys()}
	d.filter.Focus()
	d.apply()
	return d
}

func (d *playerPicker) apply() {
	q := playertext.Fold(strings.TrimSpace(d.filter.Value()))
	d.shown = d.shown[:0]
	for _, p := range d.all {
		if q == "" || strings.Contains(playertext.Fold(p.Name), q) {
			d.shown = append(d.shown, p)
		}
	}
	d.cursor = max(0, min(d.cursor, len(d.shown)-1))
}

func (d *playerPicker) Help() []key.Binding {
	return []key.Binding{d.keys.Enter, d.keys.Up, d.keys.Down, d.keys.Quit}
}

func (d *playerPicker) Update(c *Common, msg tea.Msg) (action, bool) {
	if p, ok := msg.(tea.PasteMsg); ok {
		d.filter.Update(p)
		d.apply()
		return nil, false
	}
	k, ok := msg.(tea.KeyPressMsg)
	if !ok {
		return nil, false
	}
	switch {
	case key.Matches(k, d.keys.Quit): // letters are the filter's here
		return nil, true
	case key.Matches(k, d.keys.Enter):
		if len(d.shown) > 0 {
			return actPickPlayer{p: d.shown[d.cursor]}, true
		}
		return nil, false
	case key.Matches(k, d.keys.Up):
		d.cursor = max(0, d.cursor-1)
		return nil, false
	case key.Matches(k, d.keys.Down):
		d.cursor = min(len(d.shown)-1, d.cursor+1)
		return nil, false
	}
	d.filter.Update(msg)
	d.apply()
	return nil, false
}

func (d *playerPicker) View(c *Common, w, _ int) string {
	s := c.Styles
	var b strings.Builder
	b.WriteString(s.Title.Render("Act as player") + s.Dim.Render(fmt.Sprintf("  %d of %d", len(d.shown), len(d.all))))
	b.WriteString("\n" + d.filter.View(s))
	show := 10
	start := max(0, min(d.cursor-show/2, len(d.shown)-show))
	for i := start; i < min(len(d.shown), start+show); i++ {
		p := d.shown[i]
		line := playerName(p)
		if p.HasPermission(market.PermAdmin) {
			line += s.Warn.Render(" admin")
		}
		if i == d.cursor {
			line = s.Cursor.Render("▶") + " " + line
		} else {
			line = "  " + line
		}
		b.WriteString("\n" + line)
	}
	switch {
	case len(d.all) == 0:
		b.WriteString("\n" + s.Warn.Render(noPlayersText))
	case len(d.shown) == 0:
		b.WriteString("\n" + s.Dim.Render("no player matches"))
	}
	return box(c, b.String(), w)
}

// overlay draws a dialog centred over the screen content. The screen's
// lines are cut around the dialog with the terminal's width method, so what
// shows on either side of the dialog stays where it was.
func overlay(bg, fg string, w, h int) string {
	fgLines := strings.Split(fg, "\n")
	fw := 0
	for _, l := range fgLines {
		fw = max(fw, width(l))
	}
	fw = min(fw, w)
	x, y := max((w-fw)/2, 0), max((h-len(fgLines))/2, 0)
	lines := strings.Split(bg, "\n")
	for i, l := range fgLines {
		if y+i >= len(lines) {
			break
		}
		under := lines[y+i]
		left := fit(truncate(under, x, ""), x)
		right := cells.TruncateLeft(truncate(under, w, ""), x+fw, "")
		lines[y+i] = left + resetStyle + fit(l, fw) + resetStyle + fit(right, w-x-fw)
	}
	return strings.Join(lines, "\n")
}

// resetStyle ends every style, so that the colours of the screen under a
// dialog never leak into it.
const resetStyle = "\x1b[m"

package tui

import (
	"errors"
	"fmt"
	"slices"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"github.com/google/uuid"
	"github.com/rynek/rynek/market"
	"github.com/rynek/rynek/market/playertext"
)

// ordersPane shows buy orders: one material's book with its depth (the
// orders' prices highest first beside the matching listings' unit prices
// cheapest first), the orders resting on it, and the acting player's
// orders, open and recently closed. The cursor runs over both lists of
// orders; the selected one is what f sells into and d cancels.
type ordersPane struct {
	material string // the book shown, a catalogue key; "" none yet
	chosen   bool   // the material was chosen (c, , .), not defaulted
	book     market.OrderBook
	crossed  []crossedOrder // the resting orders at or above the book's cheapest listing
	resting  market.OrderPage
	mine     market.OrderPage
	player   uuid.UUID
	cursor   int // index into the orders of both lists, resting first
	top      int // first visible line of the lists
	err      error
	keys     ordersKeys
	// rows caches rendered rows: styling them is most of a frame, and a
	// row changes only with its order, the width, the palette or the
	// second its time left shows.
	rows map[orderRowKey]string
	// gen counts the reads (Refresh); drawn caches the book's lines of
	// the last read for a width, a depth shown and a palette.
	gen   int
	drawn struct {
		gen, w, depth, epoch int
		lines                []string
	}
}

// orderRowKey is what a rendered row of an order depends on.
type orderRowKey struct {
	o     market.Order
	mine  bool // the acting player's list, not the resting one
	w     int
	epoch int
	now   int64
}

// orderRowsMax bounds the row cache; it starts over when full.
const orderRowsMax = 1024

type ordersKeys struct {
	Place, Fill, Cancel, AdminCancel, Material, PrevMaterial, NextMaterial, Open, Book key.Binding
	nav                                                                                tableKeys
}

// bookDepth is the levels of each side the pane reads; it shows as many as
// fit.
const bookDepth = 10

// The lists show this many orders at most: the resting ones of the
// material best first, the acting player's open ones and then their
// newest closed ones.
const (
	restingShown = 200
	mineShown    = 50
)

// orderMaterialMsg is the material prompt's answer.
type orderMaterialMsg struct{ text string }

func newOrdersPane() *ordersPane {
	return &ordersPane{keys: ordersKeys{
		Place:        binding([]string{"o"}, "o", "place a buy order…"),
		Fill:         binding([]string{"f"}, "f", "sell into the order…"),
		Cancel:       binding([]string{"d"}, "d", "cancel the order…"),
		AdminCancel:  binding([]string{"ctrl+d"}, "ctrl+d", "cancel the order as admin…"),
		Material:     binding([]string{"c"}, "c", "another material's book…"),
		PrevMaterial: binding([]string{","}, ",", "previous material with orders"),
		NextMaterial: binding([]string{"."}, ".", "next material with orders"),
		Open:         binding([]string{"enter"}, "enter", "the order's details and fills"),
		Book:         binding([]string{"v"}, "v", "the order's book"),
		nav:          newTableKeys(),
	}}
}

func (p *ordersPane) Title() string { return "Orders" }

func (p *ordersPane) Help() []key.Binding {
	n := p.keys.nav
	return append([]key.Binding{p.keys.Place, p.keys.Fill, p.keys.Cancel, p.keys.AdminCancel, p.keys.Material, p.keys.NextMaterial,
		p.keys.PrevMaterial, p.keys.Open, p.keys.Book}, n.all()...)
}

func (p *ordersPane) TextFocused() bool { return false }

// Selected: the pane's rows are orders, not listings.
func (p *ordersPane) Selected() (market.Listing, bool) { return market.Listing{}, false }

// SelectedID is the selected order's "#id", which jump (:) opens:
// listings and orders share one sequence of numbers.
func (p *ordersPane) SelectedID() string {
	if o, ok := p.selected(); ok {
		return fmt.Sprintf("#%d", o.ID)
	}
	return ""
}

// orders is every order the lists show, resting first.
func (p *ordersPane) orders() []market.Order {
	return append(slices.Clip(p.resting.Orders), p.mine.Orders...)
}

// selected is the order under the cursor.
func (p *ordersPane) selected() (market.Order, bool) {
	all := p.orders()
	if p.cursor < 0 || p.cursor >= len(all) {
		return market.Order{}, false
	}
	return all[p.cursor], true
}

// Refresh reads the book, its resting orders and the acting player's
// orders. Without a material chosen it shows the material of the acting
// player's best open order, else the first material with orders. The
// cursor stays on its order while orders come and go around it.
func (p *ordersPane) Refresh(c *Common) {
	p.err = nil
	p.gen++
	before, had := p.selected()
	inMine := p.cursor >= len(p.resting.Orders)
	if p.player != c.Actor.ID {
		had = false
	}
	defer func() {
		if !had {
			return
		}
		list, first := p.resting.Orders, 0
		if inMine {
			list, first = p.mine.Orders, len(p.resting.Orders)
		}
		for i, o := range list {
			if o.ID == before.ID {
				p.cursor = first + i
				p.scroll(c)
				return
			}
		}
	}()
	if p.player != c.Actor.ID {
		p.player = c.Actor.ID
		p.cursor, p.top = 0, 0
		if !p.chosen {
			p.material = ""
		}
	}
	p.mine = market.OrderPage{}
	if p.player != uuid.Nil {
		mine, err := c.Svc.Orders(market.OrderQuery{Buyer: p.player, All: true, Limit: mineShown})
		if err != nil {
			p.err = err
			return
		}
		p.mine = mine
	}
	if p.material == "" {
		for _, o := range p.mine.Orders {
			if o.Open() {
				p.material = o.Material
				break
			}
		}
	}
	if p.material == "" {
		mats, err := c.Svc.OrderMaterials()
		if err != nil {
			p.err = err
			return
		}
		if len(mats) > 0 {
			p.material = mats[0]
		}
	}
	p.book, p.resting = market.OrderBook{}, market.OrderPage{}
	if p.material != "" {
		book, err := c.Svc.GetOrderBook(p.material, bookDepth)
		if err != nil {
			p.err = err
			return
		}
		resting, err := c.Svc.Orders(market.OrderQuery{Material: p.material, Limit: restingShown})
		if err != nil {
			p.err = err
			return
		}
		p.book, p.resting = book, resting
	}
	p.readCrossings(c)
	p.cursor = max(0, min(p.cursor, len(p.orders())-1))
	p.scroll(c)
}

// show switches the book to material, the cursor to the first order.
func (p *ordersPane) show(c *Common, material string) {
	p.material, p.chosen = material, true
	p.cursor, p.top = -1, 0 // no order to keep the cursor on: the first
	p.Refresh(c)
}

// step shows the next (or previous) material that has open orders.
func (p *ordersPane) step(c *Common, delta int) tea.Cmd {
	mats, err := c.Svc.OrderMaterials()
	if err != nil {
		return refusal(err)
	}
	if len(mats) == 0 {
		return refusal(errors.New("no material has open buy orders: o places one"))
	}
	i, found := slices.BinarySearch(mats, p.material)
	switch {
	case delta > 0 && found:
		i++
	case delta < 0:
		i--
	}
	p.show(c, mats[(i+len(mats))%len(mats)])
	return nil
}

func (p *ordersPane) Update(c *Common, msg tea.Msg) tea.Cmd {
	switch msg := msg.(type) {
	case orderMaterialMsg:
		if msg.text == "" {
			return nil
		}
		mat, err := materialKey(msg.text)
		if err != nil {
			return refusal(err)
		}
		p.show(c, mat)
		return nil
	case tea.KeyPressMsg:
		return p.key(c, msg)
	case tea.MouseWheelMsg:
		switch msg.Button {
		case tea.MouseWheelUp:
			p.move(c, -3)
		case tea.MouseWheelDown:
			p.move(c, 3)
		}
	case tea.MouseClickMsg:
		// A click on an order's row selects it.
		if i := p.orderAt(p.top + msg.Y - paneTop - p.headLines(paneHeight(c.H))); i >= 0 {
			p.move(c, i-p.cursor)
		}
	}
	return nil
}

func (p *ordersPane) key(c *Common, msg tea.KeyPressMsg) tea.Cmd {
	k, n := p.keys, p.keys.nav
	h := p.listRows(c)
	switch {
	case key.Matches(msg, k.Place):
		if c.Actor.ID == uuid.Nil {
			return refusal(errors.New(noPlayersText))
		}
		d := newOrderDialog(c, p.material)
		return func() tea.Msg { return openDialogMsg{d} }
	case key.Matches(msg, k.Fill):
		return p.openSell(c)
	case key.Matches(msg, k.Cancel, k.AdminCancel):
		return p.openCancel(c, key.Matches(msg, k.AdminCancel))
	case key.Matches(msg, k.Material):
		return func() tea.Msg {
			return openDialogMsg{newTextPrompt("Show the book of", "material: ", "OAK_LOG or Oak Log",
				"a material's key or name; , and . step through the materials with orders", "show",
				func(text string) action { return actForPane{msg: orderMaterialMsg{text}} })}
		}
	case key.Matches(msg, k.NextMaterial):
		return p.step(c, 1)
	case key.Matches(msg, k.PrevMaterial):
		return p.step(c, -1)
	case key.Matches(msg, k.Open):
		if o, ok := p.selected(); ok {
			return request(actOpen{order: o.ID})
		}
	case key.Matches(msg, k.Book):
		if o, ok := p.selected(); ok && o.Material != p.material {
			p.show(c, o.Material)
		}
	case key.Matches(msg, n.Up):
		p.move(c, -1)
	case key.Matches(msg, n.Down):
		p.move(c, 1)
	case key.Matches(msg, n.PgUp):
		p.move(c, -h)
	case key.Matches(msg, n.PgDown):
		p.move(c, h)
	case key.Matches(msg, n.Home):
		p.move(c, -len(p.orders()))
	case key.Matches(msg, n.End):
		p.move(c, len(p.orders()))
	}
	return nil
}

func (p *ordersPane) move(c *Common, d int) {
	p.cursor = max(0, min(p.cursor+d, len(p.orders())-1))
	p.scroll(c)
}

// openSell opens the sell-into dialog on the selected order; with none
// selected, on the best order of the book the acting player may sell into.
func (p *ordersPane) openSell(c *Common) tea.Cmd {
	o, ok := p.selected()
	if !ok {
		for _, r := range p.resting.Orders {
			if r.Buyer != c.Actor.ID {
				o, ok = r, true
				break
			}
		}
	}
	if !ok {
		return refusal(errors.New("select an order first: no order here to sell into"))
	}
	if now, err := c.Svc.GetOrder(o.ID); err == nil {
		o = now // as it is, not as the list last read it
	}
	st, err := c.Svc.GetPlayer(c.Actor.ID)
	if err != nil {
		return refusal(err)
	}
	d := newOrderSellDialog(c, o, st)
	return func() tea.Msg { return openDialogMsg{d} }
}

// openCancel asks before cancelling the selected order, as the acting
// player or as the console's admin, saying what comes back to whom.
func (p *ordersPane) openCancel(c *Common, admin bool) tea.Cmd {
	o, ok := p.selected()
	if !ok {
		return refusal(errors.New("select an order first"))
	}
	o, err := c.Svc.GetOrder(o.ID)
	if err != nil {
		return refusal(err)
	}
	s := c.Styles
	actor, title := c.Actor, "Cancel buy order #%d as the acting player %s?"
	if admin {
		if c.Admin.ID == uuid.Nil {
			return refusal(errNoAdmin)
		}
		actor, title = c.Admin, "Cancel buy order #%d as admin %s?"
	}
	lines := []string{orderSummary(c, o),
		s.Dim.Render(fmt.Sprintf("%s gets the escrow back: %s", playertext.Sanitize(o.BuyerName), money(o.Escrow))),
		s.Dim.Render(`publishes BuyOrderClosedEvent, reason "cancelled"`)}
	switch {
	case !o.Open():
		lines = append(lines, s.Warn.Render("⚠ the order is "+o.State+": the market will refuse (ORDER_CLOSED)"))
	case !admin && o.Buyer != actor.ID && !actor.HasPermission(market.PermAdmin):
		lines = append(lines, s.Warn.Render("⚠ not "+playerName(actor)+"'s order: the market will refuse (NOT_ORDER_OWNER)"))
	}
	d := newConfirm(c, fmt.Sprintf(title, o.ID, playerName(actor)), actCancelOrder{id: o.ID, actor: actor}, lines...)
	return func() tea.Msg { return openDialogMsg{d} }
}

// headLines is the lines above the lists on a pane h lines high: the
// title, and the book's header and depth, and the line saying why it looks
// crossed when it does.
func (p *ordersPane) headLines(h int) int {
	if p.material == "" {
		return 1
	}
	n := 2 + p.depthRows(h)
	if p.looksCrossed() {
		n++
	}
	return n
}

// listRows is the lines the lists of orders get under the book.
func (p *ordersPane) listRows(c *Common) int {
	h := paneHeight(c.H)
	return max(h-p.headLines(h), 1)
}

// depthRows is the book's levels shown: as many as the larger side has,
// at least one (that says a side is empty), at most a third of the pane.
func (p *ordersPane) depthRows(h int) int {
	return max(1, min(max(len(p.book.Buy), len(p.book.Sell)), max(3, (h-2)/3)))
}

// The lists' lines: the resting orders under their heading (and a line
// saying how many more there are), then the acting player's heading and
// orders (or a line saying there are none). lineOf and orderAt map an
// order's index in orders() to its line and back.

// restingLines is the lines of the resting list.
func (p *ordersPane) restingLines() int {
	if p.material == "" {
		return 0
	}
	n := 1 + len(p.resting.Orders)
	if p.resting.Total > len(p.resting.Orders) {
		n++
	}
	return n
}

func (p *ordersPane) lineCount() int { return p.restingLines() + 1 + max(len(p.mine.Orders), 1) }

func (p *ordersPane) lineOf(i int) int {
	if i < len(p.resting.Orders) {
		return 1 + i
	}
	return p.restingLines() + 1 + i - len(p.resting.Orders)
}

// orderAt is the order on line j, -1 when it is a heading or a note.
func (p *ordersPane) orderAt(j int) int {
	switch r := p.restingLines(); {
	case j >= 1 && j <= len(p.resting.Orders) && p.material != "":
		return j - 1
	case j > r && j-r-1 < len(p.mine.Orders):
		return len(p.resting.Orders) + j - r - 1
	}
	return -1
}

// scroll keeps the cursor's line among the rows shown.
func (p *ordersPane) scroll(c *Common) {
	rows := p.listRows(c)
	at := p.lineOf(p.cursor)
	if at < p.top {
		p.top = at
	}
	if at >= p.top+rows {
		p.top = at - rows + 1
	}
	if p.cursor == 0 {
		p.top = 0 // the first order: its heading shows too
	}
	if p.cursor >= len(p.orders())-1 {
		p.top = max(p.top, p.lineCount()-rows) // the last order: the lines after it show too
	}
	p.top = max(0, min(p.top, max(p.lineCount()-rows, 0)))
}

func (p *ordersPane) View(c *Common, w, h int) string {
	s := c.Styles
	if p.err != nil {
		return block([]string{s.Err.Render(p.err.Error() + codeSuffix(p.err))}, w, h)
	}
	var lines []string
	if p.material == "" {
		lines = append(lines, s.Title.Render("No open buy orders")+s.Dim.Render(" · o places one · c shows any material's book"))
	} else {
		title := s.Title.Render(fmt.Sprintf("Order book · %s (%s)", materialName(p.material), playertext.Sanitize(p.material)))
		lines = append(lines, title+s.Dim.Render(" · , . step through materials with orders · c choose"))
		lines = append(lines, p.bookLines(c, w, h)...)
	}
	return p.lists(c, lines, w, h)
}

// bookLines are the two sides of the book side by side, with a header;
// drawn once a read.
func (p *ordersPane) bookLines(c *Common, w, h int) []string {
	d := &p.drawn
	if d.lines != nil && d.gen == p.gen && d.w == w && d.depth == p.depthRows(h) && d.epoch == c.Epoch {
		return d.lines
	}
	d.gen, d.w, d.depth, d.epoch = p.gen, w, p.depthRows(h), c.Epoch
	d.lines = p.drawBook(c, w, h)
	return d.lines
}

func (p *ordersPane) drawBook(c *Common, w, h int) []string {
	s := c.Styles
	half := w / 2
	level := func(l market.BookLevel, noun string) string {
		return fitLeft(s.Price.Render(money(l.UnitPrice)), 12) + fitLeft(count(l.Amount), 8) + s.Dim.Render(fmt.Sprintf("  %d %s%s", l.Count, noun, plural(l.Count)))
	}
	out := []string{fit(s.Dim.Render("  buy orders, highest first"), half) + s.Dim.Render("│  listings, cheapest first")}
	for i := range p.depthRows(h) {
		left, right := "", ""
		if i < len(p.book.Buy) {
			left = level(p.book.Buy[i], "order")
			if mark := p.levelMark(c, p.book.Buy[i]); mark != "" {
				left += " " + mark
			}
		} else if i == 0 {
			left = s.Dim.Render("  no buy order")
		}
		if i < len(p.book.Sell) {
			right = level(p.book.Sell[i], "listing")
		} else if i == 0 {
			right = s.Dim.Render("  no listing of a plain stack")
		}
		out = append(out, fit(left, half)+s.Dim.Render("│")+right)
	}
	if p.looksCrossed() {
		out = append(out, fit(p.crossNote(c), w))
	}
	return out
}

// lists lays the resting orders and the acting player's orders under head,
// from the first line scroll chose.
func (p *ordersPane) lists(c *Common, head []string, w, h int) string {
	s := c.Styles
	rows := max(h-len(head), 1)
	open := 0
	for _, o := range p.mine.Orders {
		if o.Open() {
			open++
		}
	}
	out := head
	for j := p.top; j < min(p.lineCount(), p.top+rows); j++ {
		i := p.orderAt(j)
		var text string
		switch {
		case i >= 0 && i < len(p.resting.Orders):
			text = p.row(c, p.resting.Orders[i], false, w)
		case i >= 0:
			text = p.row(c, p.mine.Orders[i-len(p.resting.Orders)], true, w)
		case j == 0 && p.material != "":
			text = s.Title.Render(fmt.Sprintf("Resting orders of %s (%s)", materialName(p.material), count(p.resting.Total)))
		case j < p.restingLines():
			text = s.Dim.Render(fmt.Sprintf("  … and %s more, cheaper", count(p.resting.Total-len(p.resting.Orders))))
		case j == p.restingLines() && p.player == uuid.Nil:
			text = s.Title.Render("No player yet")
		case p.player == uuid.Nil && j > p.restingLines():
			text = s.Dim.Render("  " + noPlayerHow)
		case j == p.restingLines():
			who := playerName(market.Player{ID: p.player, Name: c.Actor.Name})
			text = s.Title.Render(fmt.Sprintf("%s's orders (%d open, newest closed after)", who, open))
		default:
			text = s.Dim.Render("  none · o places one")
		}
		switch {
		case i < 0:
			out = append(out, text)
		case i == p.cursor:
			out = append(out, highlight(c, "▶ "+text, w))
		default:
			out = append(out, "  "+text)
		}
	}
	return block(out, w, h)
}

// row is an order's row, from the cache when it is there.
func (p *ordersPane) row(c *Common, o market.Order, mine bool, w int) string {
	k := orderRowKey{o: o, mine: mine, w: w, epoch: c.Epoch, now: c.NowUnix}
	if text, ok := p.rows[k]; ok {
		return text
	}
	if p.rows == nil || len(p.rows) >= orderRowsMax {
		p.rows = make(map[orderRowKey]string, 64)
	}
	text := p.restingRow(c, o, w)
	if mine {
		text = p.mineRow(c, o, w)
	}
	p.rows[k] = text
	return text
}

// nameWidth is the cells of a name column: a buyer's, a material's.
func nameWidth(w int) int {
	if w >= 120 {
		return 16
	}
	return 12
}

// restingRow is an order on the book: who wants how many at what price.
func (p *ordersPane) restingRow(c *Common, o market.Order, w int) string {
	s := c.Styles
	row := fmt.Sprintf("#%-6d %s%s each  wants %s of %s", o.ID, fit(playertext.Sanitize(o.BuyerName), nameWidth(w)),
		fitLeft(s.Price.Render(money(o.UnitPrice)), 10), fitLeft(count(o.Amount-o.Filled), 5), fit(count(o.Amount), 5))
	if w >= 120 {
		row += s.Dim.Render("  escrow ") + fitLeft(money(o.Escrow), 10)
	}
	return row + s.Dim.Render("  ends in "+Until(o.ExpiresAt, c.NowUnix))
}

// mineRow is one of the acting player's orders, open or closed.
func (p *ordersPane) mineRow(c *Common, o market.Order, w int) string {
	s := c.Styles
	row := fmt.Sprintf("#%-6d %s%s each  %s", o.ID, fit(materialName(o.Material), nameWidth(w)),
		fitLeft(s.Price.Render(money(o.UnitPrice)), 10), fitLeft(fmt.Sprintf("%d/%d", o.Filled, o.Amount), 9))
	if o.Open() {
		row += "  " + s.OK.Render(fit("open", 9))
		if w >= 120 {
			row += s.Dim.Render("  escrow ") + fitLeft(money(o.Escrow), 10)
		}
		return row + s.Dim.Render("  ends in "+Until(o.ExpiresAt, c.NowUnix))
	}
	return row + "  " + s.Warn.Render(fit(o.State, 9)) + s.Dim.Render("  closed "+o.ClosedAt.UTC().Format("01-02 15:04"))
}

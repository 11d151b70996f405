package tui

import (
	"fmt"
	"strings"
	"time"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
	"github.com/rynek/rynek/market"
)

// transactionsPane shows the transaction history, newest first: the
// contract's getCompletedTransactions (COMPLETED only) by default, every
// state after "a". Like listingTable it is virtualized: it keeps only a
// window of about three screens of transactions around the cursor, fetched
// with TxQuery's offset (O(page) at any offset), and caches rendered rows per
// transaction id and width, so View only concatenates strings. Enter toggles
// a detail view with the state timeline.
type transactionsPane struct {
	tableNav
	all      bool // every state, not only COMPLETED
	win      []market.Transaction
	rowCache map[string]string
	cacheW   int
	err      error
	detail   bool
	keys     txKeys
}

type txKeys struct {
	All, Detail, Back key.Binding
}

func newTransactionsPane() *transactionsPane {
	return &transactionsPane{rowCache: map[string]string{}, tableNav: tableNav{nav: newTableKeys()}, keys: txKeys{
		All:    key.NewBinding(key.WithKeys("a"), key.WithHelp("a", "all states / completed")),
		Detail: key.NewBinding(key.WithKeys("enter"), key.WithHelp("enter", "details")),
		Back:   key.NewBinding(key.WithKeys("esc"), key.WithHelp("esc", "close details")),
	}}
}

func (p *transactionsPane) Title() string { return "Transactions" }

func (p *transactionsPane) Help() []key.Binding {
	return []key.Binding{p.keys.All, p.keys.Detail, p.nav.Up, p.nav.Down, p.nav.PgUp, p.nav.PgDown, p.nav.Home, p.nav.End}
}

func (p *transactionsPane) TextFocused() bool { return false }

func (p *transactionsPane) Selected() (market.Listing, bool) { return market.Listing{}, false }

// rows is the number of table rows on the screen: the pane minus the title
// line and the table header.
func (p *transactionsPane) rows(c *Common) int { return max(paneHeight(c.H)-2, 1) }

// Refresh re-reads the window (the market changed), keeping the cursor index
// clamped to the new total.
func (p *transactionsPane) Refresh(c *Common) {
	clear(p.rowCache) // a transaction's state may have moved on
	p.win = nil
	p.fetch(c, p.rows(c))
}

// fetch makes sure the rows [top, top+h) are in the window.
func (p *transactionsPane) fetch(c *Common, h int) {
	h = max(h, 1)
	if p.covers(p.win != nil, len(p.win), h) {
		return
	}
	start := max(0, p.top-h)
	var page market.TxPage
	err := errHistoryLoading
	if c.Svc.HistoryLoaded() { // never block the event loop on the background load
		page, err = c.Svc.Transactions(market.TxQuery{AllStates: p.all, Offset: start, Limit: 3 * h})
	}
	p.err = err
	if err != nil {
		p.win, p.total, p.winStart = nil, 0, 0
		p.cursor, p.top = 0, 0
		return
	}
	p.total = page.Total
	p.win, p.winStart = page.Transactions, start
	if p.win == nil {
		p.win = []market.Transaction{}
	}
	old := p.top
	p.clamp(h)
	if p.top < old && p.total > 0 { // the total shrank: read the clamped window
		p.win = nil
		p.fetch(c, h)
	}
}

// move moves the cursor by delta rows (clamped) and fetches if needed.
func (p *transactionsPane) move(c *Common, delta, h int) {
	p.cursor += delta
	p.clamp(h)
	p.fetch(c, h)
}

// selected returns the transaction under the cursor.
func (p *transactionsPane) selected() (market.Transaction, bool) {
	i := p.cursor - p.winStart
	if p.total == 0 || i < 0 || i >= len(p.win) {
		return market.Transaction{}, false
	}
	return p.win[i], true
}

func (p *transactionsPane) Update(c *Common, msg tea.Msg) tea.Cmd {
	h := p.rows(c)
	if msg, ok := msg.(tea.KeyPressMsg); ok {
		switch {
		case key.Matches(msg, p.keys.All):
			p.all = !p.all
			p.cursor, p.top, p.detail = 0, 0, false
			p.Refresh(c)
			return nil
		case key.Matches(msg, p.keys.Detail):
			p.detail = !p.detail
			return nil
		case key.Matches(msg, p.keys.Back):
			p.detail = false
			return nil
		}
	}
	if _, click := msg.(tea.MouseClickMsg); click && p.detail {
		return nil
	}
	// The first data row is below the title line and the table header.
	if d, ok := p.delta(msg, h, paneTop+2); ok {
		p.move(c, d, h)
	}
	return nil
}

// txColumns are the widths of time, id, state, listing, item, price and
// parties for a table w cells wide (gutter excluded).
type txColumns struct {
	time, id, state, listing, item, price, parties int
	wide                                           bool
}

func txColumnsFor(w int) txColumns {
	c := txColumns{time: 11, id: 8, state: 11, listing: 6, price: 10}
	if w >= 120 {
		c = txColumns{time: 19, id: 8, state: 13, listing: 8, price: 13, wide: true}
	}
	rest := w - 2 - (c.time + c.id + c.state + c.listing + c.price + 6)
	c.item = max(rest*45/100, 6)
	c.parties = max(rest-c.item, 6)
	return c
}

// lastAt is the time of the transaction's last state.
func lastAt(t market.Transaction) time.Time {
	if len(t.Timeline) == 0 {
		return time.Time{}
	}
	return t.Timeline[len(t.Timeline)-1].At
}

// txState renders a state in its colour; the wide form adds a mark, so the
// colour is never the only sign (the text itself always is one).
func txState(s Styles, st market.State, wide bool) string {
	mark, style := "·", s.Dim
	switch st {
	case market.StateCompleted:
		mark, style = "✓", s.OK
	case market.StateFailed:
		mark, style = "✗", s.Err
	case market.StateRolledBack:
		mark, style = "↺", s.Warn
	}
	text := string(st)
	if wide {
		text = mark + " " + text
	}
	return style.Render(text)
}

func (p *transactionsPane) header(c *Common, w int) string {
	cols := txColumnsFor(w)
	listing := "lst #"
	if cols.wide {
		listing = "listing"
	}
	h := "  " + fit("time", cols.time) + " " + fit("tx", cols.id) + " " + fit("state", cols.state) + " " +
		fitLeft(listing, cols.listing) + " " + fit("item", cols.item) + " " + fitLeft("price", cols.price) + " " +
		fit("seller → buyer", cols.parties)
	return c.Styles.Dim.Render(fit(h, w))
}

// row renders (and caches) one transaction row, w cells wide without the
// gutter.
func (p *transactionsPane) row(c *Common, t market.Transaction, w int) string {
	if r, ok := p.rowCache[t.ID]; ok {
		return r
	}
	cols := txColumnsFor(w + 2)
	s := c.Styles
	when := lastAt(t).UTC()
	ts := when.Format("01-02 15:04")
	if cols.wide {
		ts = stamp(when)
	}
	amount := fmt.Sprintf(" ×%d", t.Item.Amount)
	item := fit(RenderMC(itemName(t.Item), lipglossPlain), max(cols.item-ansi.StringWidth(amount), 1)) + amount
	r := s.Dim.Render(fit(ts, cols.time)) + " " + fit(Sanitize(shortID(t.ID)), cols.id) + " " +
		fit(txState(s, t.State, cols.wide), cols.state) + " " + fitLeft(fmt.Sprintf("#%d", t.ListingID), cols.listing) + " " +
		fit(item, cols.item) + " " + s.Price.Render(fitLeft(money(t.Price), cols.price)) + " " +
		fit(parties(t, cols.parties), cols.parties)
	r = fit(r, w)
	if len(p.rowCache) > 4096 {
		clear(p.rowCache)
	}
	p.rowCache[t.ID] = r
	return r
}

// parties renders "seller → buyer" in w cells, shortening both names evenly
// when they do not fit.
func parties(t market.Transaction, w int) string {
	seller, buyer := Sanitize(t.SellerName), Sanitize(t.BuyerName)
	const arrow = " → "
	if ansi.StringWidth(seller)+ansi.StringWidth(buyer)+3 > w {
		half := max((w-3)/2, 1)
		if ansi.StringWidth(seller) > half {
			seller = ansi.Truncate(seller, half, "…")
		}
		buyer = ansi.Truncate(buyer, max(w-3-ansi.StringWidth(seller), 1), "…")
	}
	return seller + arrow + buyer
}

func (p *transactionsPane) View(c *Common, w, h int) string {
	s := c.Styles
	var title string
	if p.all {
		title = fmt.Sprintf("%s transactions · all states", count(p.total))
	} else {
		title = fmt.Sprintf("%s completed transactions", count(p.total))
		if w >= 100 {
			title += " (getCompletedTransactions)"
		}
	}
	if p.total > 0 {
		title = s.Title.Render(title) + s.Dim.Render(fmt.Sprintf(" · row %s of %s", count(p.cursor+1), count(p.total)))
	} else {
		title = s.Title.Render(title)
	}
	if p.all {
		title += s.Dim.Render(" · a: completed only")
	} else {
		title += s.Dim.Render(" · a: all states")
	}
	head := fit(title, w)
	if h <= 1 {
		return head
	}
	if p.detail && p.err == nil {
		if t, ok := p.selected(); ok {
			return head + "\n" + txDetail(c, t, w, h-1)
		}
	}
	return head + "\n" + p.table(c, w, h-1)
}

// table renders the header and h-1 rows.
func (p *transactionsPane) table(c *Common, w, h int) string {
	if w != p.cacheW {
		clear(p.rowCache)
		p.cacheW = w
	}
	var b strings.Builder
	b.Grow((h + 1) * (w + 48))
	b.WriteString(p.header(c, w))
	blank := strings.Repeat(" ", w)
	rows := h - 1
	if p.err != nil || p.total == 0 {
		msg := c.Styles.Dim.Render("No transactions yet.")
		if p.err != nil {
			msg = c.Styles.Err.Render(p.err.Error())
		}
		if rows > 0 {
			b.WriteString("\n" + fit(msg, w))
		}
		for i := 1; i < rows; i++ {
			b.WriteString("\n" + blank)
		}
		return b.String()
	}
	// The screen may be another height than Update assumed: keep the cursor
	// visible without fetching (View never calls the market).
	top := p.top
	if p.cursor >= top+rows {
		top = p.cursor - rows + 1
	}
	top = max(0, min(top, p.cursor))
	for i := 0; i < rows; i++ {
		b.WriteByte('\n')
		idx := top + i
		j := idx - p.winStart
		if idx >= p.total || j < 0 || j >= len(p.win) {
			b.WriteString(blank)
			continue
		}
		if idx == p.cursor {
			b.WriteString(c.Styles.Cursor.Render("▶") + " ")
		} else {
			b.WriteString("  ")
		}
		b.WriteString(p.row(c, p.win[j], w-2))
	}
	return b.String()
}

// sinceDur renders the time between two states: "+1ms", "+2.5s", "+3m0s".
func sinceDur(d time.Duration) string {
	switch {
	case d < 0:
		return "-" + sinceDur(-d)[1:]
	case d < time.Millisecond:
		return "+<1ms" // timestamps have millisecond resolution
	case d < time.Second:
		return "+" + d.Round(time.Millisecond).String()
	case d < time.Minute:
		return "+" + d.Round(10*time.Millisecond).String()
	}
	return "+" + d.Round(time.Second).String()
}

// txDetail renders everything about a transaction in h lines.
func txDetail(c *Common, t market.Transaction, w, h int) string {
	s := c.Styles
	var lines []string
	add := func(label, value string) {
		lines = append(lines, s.Dim.Render(fmt.Sprintf("%-12s", label))+value)
	}
	add("transaction", Sanitize(t.ID))
	add("listing", fmt.Sprintf("#%d", t.ListingID))
	add("item", RenderMC(itemName(t.Item), lipglossPlain)+fmt.Sprintf(" ×%d", t.Item.Amount)+
		s.Dim.Render("  ("+Sanitize(t.Item.Material)+")"))
	if e := enchants(t.Item); e != "" {
		add("enchants", e)
	}
	add("seller", Sanitize(t.SellerName)+s.Dim.Render("  "+t.Seller.String()))
	add("buyer", Sanitize(t.BuyerName)+s.Dim.Render("  "+t.Buyer.String()))
	add("price", s.Price.Render(money(t.Price))+s.Dim.Render("  fee ")+money(t.Fee)+
		s.Dim.Render("  seller's net ")+money(t.SellerNet))
	state := txState(s, t.State, true)
	if t.ErrorCode != "" {
		state += "  " + s.Err.Render("error "+Sanitize(t.ErrorCode))
	}
	add("state", state)
	switch {
	case t.State != market.StateCompleted:
		add("delivered", s.Dim.Render("not delivered"))
	case t.DeliveredToMailbox:
		add("delivered", s.Warn.Render("to the buyer's mailbox")+s.Dim.Render(" (inventory full)"))
	default:
		add("delivered", "to the buyer's inventory")
	}
	// "CREATED 2026-11-01 12:00:00", then "LISTING_RESERVED +1ms  2026-11-01 12:00:00".
	for i, st := range t.Timeline {
		label, line := "", txStateText(s, st.State)+" "
		if i == 0 {
			label, line = "timeline", line+stamp(st.At)
		} else {
			line += sinceDur(st.At.Sub(t.Timeline[i-1].At)) + s.Dim.Render("  "+stamp(st.At))
		}
		add(label, line)
	}
	if n := len(t.Timeline); n > 1 && len(lines) < h {
		add("", s.Dim.Render("total "+strings.TrimPrefix(sinceDur(t.Timeline[n-1].At.Sub(t.Timeline[0].At)), "+")))
	}
	if len(lines)+2 <= h {
		lines = append(lines, "", s.Dim.Render("enter/esc back · ↑/↓ previous/next transaction"))
	}
	return block(lines, w, h)
}

// txStateText renders a timeline state, coloured when terminal.
func txStateText(s Styles, st market.State) string {
	switch st {
	case market.StateCompleted:
		return s.OK.Render(string(st))
	case market.StateFailed:
		return s.Err.Render(string(st))
	case market.StateRolledBack:
		return s.Warn.Render(string(st))
	}
	return string(st)
}

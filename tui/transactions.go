package tui

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"github.com/google/uuid"
	"github.com/rynek/rynek/market"
	"github.com/rynek/rynek/market/playertext"
)

// txTable is a virtualized table of transactions, newest first: the
// Transactions pane's and the Seller pane's sales and purchases. Like
// listingTable it keeps only a window of about three screens around the
// cursor, fetched with TxQuery's offset (O(page) at any offset), and caches
// rendered rows per transaction id, so View only concatenates strings.
type txTable struct {
	tableNav
	q        market.TxQuery
	win      []market.Transaction
	rowCache map[string]string
	cacheKey [2]int // width and Common.Epoch of the cached rows
	err      error
}

func newTxTable(q market.TxQuery) *txTable {
	return &txTable{q: q, rowCache: map[string]string{}, tableNav: tableNav{nav: newTableKeys()}}
}

// refresh re-reads the window (the market changed), keeping the cursor
// index clamped to the new total. If the market refuses (it is disabled),
// the rows read before stay, marked stale, as in the listing tables.
func (t *txTable) refresh(c *Common, h int) {
	clear(t.rowCache) // a transaction's state may have moved on
	old := t.win
	t.win = nil
	t.fetch(c, h)
	if t.stale() && t.win == nil {
		t.win = old
	}
}

// stale reports whether the rows shown are the last ones read before the
// market refused to answer.
func (t *txTable) stale() bool { return t.err != nil && !t.loading() }

// loading reports whether the table waits for the background history load.
func (t *txTable) loading() bool { return errors.Is(t.err, errHistoryLoading) }

// fetch makes sure the rows [top, top+h) are in the window.
func (t *txTable) fetch(c *Common, h int) {
	h = max(h, 1)
	if t.covers(t.win != nil, len(t.win), h) {
		return
	}
	start := max(0, t.top-h)
	var page market.TxPage
	err := errHistoryLoading
	if c.Svc.HistoryLoaded() { // never block the event loop on the background load
		q := t.q
		q.Offset, q.Limit = start, 3*h
		page, err = c.Svc.Transactions(q)
	}
	t.err = err
	if t.stale() {
		return // keep the rows read before, shown as stale
	}
	if err != nil {
		t.win, t.total, t.winStart = nil, 0, 0
		t.cursor, t.top = 0, 0
		return
	}
	t.total = page.Total
	t.win, t.winStart = page.Transactions, start
	if t.win == nil {
		t.win = []market.Transaction{}
	}
	old := t.top
	t.clamp(h)
	if t.top < old && t.total > 0 { // the total shrank: read the clamped window
		t.win = nil
		t.fetch(c, h)
	}
}

// move moves the cursor by delta rows (clamped) and fetches if needed.
func (t *txTable) move(c *Common, delta, h int) {
	t.cursor += delta
	t.clamp(h)
	t.fetch(c, h)
}

// selected returns the transaction under the cursor.
func (t *txTable) selected() (market.Transaction, bool) {
	i := t.cursor - t.winStart
	if t.total == 0 || i < 0 || i >= len(t.win) {
		return market.Transaction{}, false
	}
	return t.win[i], true
}

// transactionsPane shows the transaction history: the contract's
// getCompletedTransactions (COMPLETED only) by default; "a" cycles through
// every state and the failed and rolled-back ones, "f" filters by a player
// or an id. Enter toggles a detail view with the state timeline.
type transactionsPane struct {
	*txTable
	states int    // index into txStateFilters
	player string // the player filter's name, "" none
	detail bool
	keys   txKeys
}

type txKeys struct {
	States, Filter, Detail, Back, Refund, Rate key.Binding
}

// txStateFilters are what "a" cycles through.
var txStateFilters = []struct {
	label     string
	allStates bool
	state     market.State
}{
	{"completed", false, ""},
	{"all states", true, ""},
	{"FAILED", true, market.StateFailed},
	{"ROLLED_BACK", true, market.StateRolledBack},
}

// txFilterMsg is the filter prompt's answer: a player's name, a
// transaction id or a part of one, or nothing to clear the filter.
type txFilterMsg struct{ text string }

func newTransactionsPane() *transactionsPane {
	return &transactionsPane{txTable: newTxTable(market.TxQuery{}), keys: txKeys{
		States: binding([]string{"a"}, "a", "cycle states"),
		Filter: binding([]string{"f"}, "f", "filter player/id…"),
		Detail: binding([]string{"enter"}, "enter", "details"),
		Back:   binding([]string{"esc"}, "esc", "close details, then clear the filter"),
		Refund: binding([]string{"U"}, "U", "refund the purchase as admin…"),
		Rate:   binding([]string{"*"}, "*", "rate the purchase as its buyer…"),
	}}
}

func (p *transactionsPane) Title() string { return "Transactions" }

func (p *transactionsPane) Help() []key.Binding {
	return []key.Binding{p.keys.Detail, p.keys.States, p.keys.Filter, p.keys.Refund, p.keys.Rate, p.nav.PgDown, p.nav.End, p.nav.Up, p.nav.Down,
		p.nav.PgUp, p.nav.Home, p.keys.Back}
}

func (p *transactionsPane) TextFocused() bool { return false }

func (p *transactionsPane) Selected() (market.Listing, bool) { return market.Listing{}, false }

// SelectedID is the selected transaction's id, for y.
func (p *transactionsPane) SelectedID() string {
	if t, ok := p.selected(); ok {
		return t.ID
	}
	return ""
}

// rows is the number of table rows on the screen: the pane minus the title
// line and the table header.
func (p *transactionsPane) rows(c *Common) int { return max(paneHeight(c.H)-2, 1) }

func (p *transactionsPane) Refresh(c *Common) { p.refresh(c, p.rows(c)) }

func (p *transactionsPane) Update(c *Common, msg tea.Msg) tea.Cmd {
	h := p.rows(c)
	switch msg := msg.(type) {
	case txFilterMsg:
		return p.filterBy(c, msg.text)
	case tea.KeyPressMsg:
		switch {
		case key.Matches(msg, p.keys.States):
			next := (p.states + 1) % len(txStateFilters)
			f := txStateFilters[next]
			q := p.q
			q.AllStates, q.State = f.allStates, f.state
			if err := p.setQuery(c, q); err != nil {
				return refusal(err)
			}
			p.states = next
			return nil
		case key.Matches(msg, p.keys.Filter):
			return func() tea.Msg {
				return openDialogMsg{newTextPrompt("Filter transactions", "player or id: ", "Kowalski, 2f1c0a9e, or empty for none",
					"a player's name, or any part of a transaction id (rows show its last 8 characters)", "filter",
					func(text string) action { return actForPane{msg: txFilterMsg{text}} })}
			}
		case key.Matches(msg, p.keys.Detail):
			p.detail = !p.detail
			return nil
		case key.Matches(msg, p.keys.Refund):
			t, ok := p.selected()
			if !ok {
				return refusal(errors.New("select a purchase first"))
			}
			d, err := newRefundConfirm(c, t)
			if err != nil {
				return refusal(err)
			}
			return func() tea.Msg { return openDialogMsg{d} }
		case key.Matches(msg, p.keys.Rate):
			t, ok := p.selected()
			if !ok {
				return refusal(errors.New("select a purchase first"))
			}
			d, err := newRateDialog(t)
			if err != nil {
				return refusal(err)
			}
			return func() tea.Msg { return openDialogMsg{d} }
		case key.Matches(msg, p.keys.Back) && p.detail:
			p.detail = false
			return nil
		case key.Matches(msg, p.keys.Back) && p.filtered():
			return p.filterBy(c, "")
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

// setQuery shows the first row of a new query. A query the market refuses
// (it is disabled) changes nothing and returns the refusal.
func (p *transactionsPane) setQuery(c *Common, q market.TxQuery) error {
	saved, detail := *p.txTable, p.detail
	p.q = q
	p.cursor, p.top, p.detail = 0, 0, false
	p.Refresh(c)
	if p.stale() {
		err := p.err
		*p.txTable, p.detail = saved, detail
		return err
	}
	return nil
}

// filterBy applies the filter prompt's answer: a player's name, else a part
// of a transaction id; "" clears both. Text that is neither is refused and
// changes nothing.
func (p *transactionsPane) filterBy(c *Common, text string) tea.Cmd {
	q := p.q
	q.Player, q.IDPart = uuid.Nil, ""
	player := ""
	if text != "" {
		pl, err := c.Svc.PlayerByName(text)
		switch {
		case err == nil:
			q.Player, player = pl.ID, pl.Name
		case errors.Is(err, market.ErrNotReady):
			return refusal(err)
		case strings.Trim(strings.ToLower(text), "0123456789abcdef-") == "":
			q.IDPart = text
		default:
			return refusal(fmt.Errorf("no player is called %q and it is not a part of a transaction id (hex digits and dashes)",
				playertext.Sanitize(text)))
		}
	}
	if err := p.setQuery(c, q); err != nil {
		return refusal(err)
	}
	p.player = player
	return nil
}

// txColumns are the widths of a transaction table's columns for a table w
// cells wide (gutter excluded); 0 is a column left out. A player's view
// (the Seller pane, a player filter) adds "in/out": the money the row moved
// into or out of their balance, the seller's net for a sale.
type txColumns struct {
	time, id, state, listing, item, price, money, parties int
	wide                                                  bool
}

// Below their minimum widths the item's and the parties' columns would cut
// what they show, so other columns give way first, in this order: the
// listing's id (the details show it), the state when the view is of one
// state (the title names it); in a player's view, the price (in/out shows
// the money) and the transaction's id (y copies it, the details show it).
// Everyone's transactions keep their ids, which status messages quote.
const (
	txItemMin = 12
	// Two names and the arrow; past it names shorten evenly.
	txPartiesMin, txPartiesMax = 24, 2*16 + 3
	// A player's view: "bought ← " and a name, never shortened.
	txSidePartiesMax = 9 + 16
)

func txColumnsFor(w int, q market.TxQuery) txColumns {
	c := txColumns{time: 11, id: 8, state: 11, listing: 6, price: 10}
	if w >= 120 {
		c = txColumns{time: 19, id: 8, state: 13, listing: 8, price: 13, wide: true}
	}
	minParties, maxParties := txPartiesMin, txPartiesMax
	mine := q.Player != uuid.Nil
	if mine {
		c.money = c.price
		minParties, maxParties = txSidePartiesMax, txSidePartiesMax
	}
	rest := func() int {
		n := 2 + 1 // the gutter; with the item and the parties, one separator more than the columns counted here
		for _, col := range []int{c.time, c.id, c.state, c.listing, c.price, c.money} {
			if col > 0 {
				n += col + 1
			}
		}
		return w - n
	}
	oneState := !q.AllStates || q.State != ""
	for _, drop := range []*int{&c.listing, &c.state, &c.price, &c.id} {
		if rest()-txItemMin >= minParties {
			break
		}
		switch {
		case drop == &c.state && !oneState, drop == &c.price && !mine, drop == &c.id && !mine:
			continue
		}
		*drop = 0
	}
	r := rest()
	c.parties = min(max(r*55/100, minParties), maxParties, max(r-txItemMin, 6))
	c.item = max(r-c.parties, 6)
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

func (t *txTable) header(c *Common, w int) string {
	cols := txColumnsFor(w, t.q)
	listing, parties := "lst #", "seller → buyer"
	if cols.wide {
		listing = "listing"
	}
	if cols.money > 0 {
		parties = "sold → / bought ←"
	}
	return c.Styles.Dim.Render(fit("  "+txLine(cols, fit("time", cols.time), fit("tx", cols.id), fit("state", cols.state),
		fitLeft(listing, cols.listing), fit("item", cols.item), fitLeft("price", cols.price), fitLeft("in/out", cols.money),
		fit(parties, cols.parties)), w))
}

// txLine joins the cells of the columns shown, one space apart.
func txLine(cols txColumns, time, id, state, listing, item, price, money, parties string) string {
	var b strings.Builder
	for i, col := range []struct {
		w    int
		cell string
	}{{cols.time, time}, {cols.id, id}, {cols.state, state}, {cols.listing, listing}, {cols.item, item},
		{cols.price, price}, {cols.money, money}, {cols.parties, parties}} {
		if col.w == 0 {
			continue
		}
		if i > 0 && b.Len() > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(col.cell)
	}
	return b.String()
}

// row renders (and caches) one transaction row, w cells wide without the
// gutter. Seen from one player (the Seller pane, a player filter), the
// parties column says what they did, "sold → buyer" or "bought ← seller",
// and in/out what it did to their balance: +the net of a sale, −the price
// of a purchase, — when nothing moved (FAILED, ROLLED_BACK).
func (tt *txTable) row(c *Common, t market.Transaction, w int) string {
	if r, ok := tt.rowCache[t.ID]; ok {
		return r
	}
	cols := txColumnsFor(w+2, tt.q)
	s := c.Styles
	when := lastAt(t).UTC()
	ts := when.Format("01-02 15:04")
	if cols.wide {
		ts = stamp(when)
	}
	amount := fmt.Sprintf(" ×%d", t.Item.Amount)
	item := fit(RenderMC(itemName(t.Item), lipglossPlain), max(cols.item-width(amount), 1)) + amount
	r := txLine(cols, s.Dim.Render(fit(ts, cols.time)), fit(playertext.Sanitize(shortID(t.ID)), cols.id),
		fit(txState(s, t.State, cols.wide), cols.state), fitLeft(fmt.Sprintf("#%d", t.ListingID), cols.listing),
		fit(item, cols.item), s.Price.Render(fitLeft(money(t.Price), cols.price)), tt.inOut(s, t, cols.money),
		fit(tt.parties(s, t, cols.parties), cols.parties))
	r = fit(r, w)
	if len(tt.rowCache) > 4096 {
		clear(tt.rowCache)
	}
	tt.rowCache[t.ID] = r
	return r
}

// inOut is the money a transaction moved into or out of the viewing
// player's balance, w cells wide.
func (tt *txTable) inOut(s Styles, t market.Transaction, w int) string {
	switch {
	case w == 0:
		return ""
	case t.State != market.StateCompleted:
		return s.Dim.Render(fitLeft("—", w))
	case t.Seller == tt.q.Player:
		return s.OK.Render(fitLeft("+"+money(t.SellerNet), w))
	}
	return fitLeft("−"+money(t.Price), w)
}

// parties is "seller → buyer", or, seen from a player, their side of it.
func (tt *txTable) parties(s Styles, t market.Transaction, w int) string {
	switch me := tt.q.Player; {
	case me == uuid.Nil:
	case t.Seller == me:
		return s.OK.Render("sold → ") + playertext.Sanitize(t.BuyerName)
	case t.Buyer == me:
		return s.Warn.Render("bought ← ") + playertext.Sanitize(t.SellerName)
	}
	return parties(t, w)
}

// parties renders "seller → buyer" in w cells, shortening both names evenly
// when they do not fit.
func parties(t market.Transaction, w int) string {
	seller, buyer := playertext.Sanitize(t.SellerName), playertext.Sanitize(t.BuyerName)
	const arrow = " → "
	if width(seller)+width(buyer)+3 > w {
		half := max((w-3)/2, 1)
		if width(seller) > half {
			seller = truncate(seller, half, "…")
		}
		buyer = truncate(buyer, max(w-3-width(seller), 1), "…")
	}
	return seller + arrow + buyer
}

func (p *transactionsPane) View(c *Common, w, h int) string {
	s := c.Styles
	f := txStateFilters[p.states]
	title := fmt.Sprintf("%s transaction%s · %s", count(p.total), plural(p.total), f.label)
	if !f.allStates && !p.filtered() && w >= 100 {
		title += " (getCompletedTransactions)"
	}
	if p.player != "" {
		title += " · player " + playertext.Sanitize(p.player)
	}
	if p.q.IDPart != "" {
		title += " · id contains " + playertext.Sanitize(p.q.IDPart)
	}
	title = s.Title.Render(title)
	if p.total > 0 {
		title += s.Dim.Render(fmt.Sprintf(" · row %s of %s", count(p.cursor+1), count(p.total)))
	}
	if p.loading() {
		title = s.Title.Render("Transactions") + s.Dim.Render(" · loading the history…")
	}
	if p.filtered() {
		title += s.Dim.Render(" · esc: no filter")
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
	return head + "\n" + p.view(c, w, h-1)
}

// view renders the header and h-1 rows.
func (t *txTable) view(c *Common, w, h int) string {
	if k := [2]int{w, c.Epoch}; k != t.cacheKey {
		clear(t.rowCache)
		t.cacheKey = k
	}
	var b strings.Builder
	b.Grow((h + 1) * (w + 48))
	if t.stale() && len(t.win) > 0 {
		b.WriteString(fit(c.Styles.Err.Render("✗ "+t.err.Error())+c.Styles.Dim.Render(" · stale: the rows as last read"), w))
	} else {
		b.WriteString(t.header(c, w))
	}
	blank := strings.Repeat(" ", w)
	rows := h - 1
	if (t.err != nil && len(t.win) == 0) || t.total == 0 {
		msg := c.Styles.Dim.Render("No transactions yet.")
		if t.q.State != "" || t.q.IDPart != "" {
			msg = c.Styles.Dim.Render("No transaction matches.")
		}
		switch {
		case t.loading():
			msg = c.Styles.Dim.Render(t.err.Error())
		case t.err != nil:
			msg = c.Styles.Err.Render(t.err.Error())
		}
		if rows > 0 {
			b.WriteString("\n" + fit(msg, w))
		}
		for i := 1; i < rows; i++ {
			b.WriteString("\n" + blank)
		}
		return b.String()
	}
	t.renderRows(&b, c, w, rows, len(t.win), func(j int) string { return t.row(c, t.win[j], w-2) })
	return b.String()
}

// filtered reports whether a player or id filter is set.
func (p *transactionsPane) filtered() bool { return p.q.Player != uuid.Nil || p.q.IDPart != "" }

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
	lines := txLines(c, t)
	if len(lines)+2 <= h {
		lines = append(lines, "", c.Styles.Dim.Render("enter/esc back · ↑/↓ previous/next transaction"))
	}
	return block(lines, w, h)
}

// txLines is everything about a transaction, a line per field.
func txLines(c *Common, t market.Transaction) []string {
	s := c.Styles
	var lines []string
	add := func(label, value string) {
		lines = append(lines, s.Dim.Render(fmt.Sprintf("%-12s", label))+value)
	}
	add("transaction", playertext.Sanitize(t.ID))
	add("listing", fmt.Sprintf("#%d", t.ListingID))
	add("item", RenderMC(itemName(t.Item), lipglossPlain)+fmt.Sprintf(" ×%d", t.Item.Amount)+
		s.Dim.Render("  ("+playertext.Sanitize(t.Item.Material)+")"))
	if e := enchants(t.Item); e != "" {
		add("enchants", e)
	}
	add("seller", playertext.Sanitize(t.SellerName)+s.Dim.Render("  "+t.Seller.String()))
	add("buyer", playertext.Sanitize(t.BuyerName)+s.Dim.Render("  "+t.Buyer.String()))
	add("price", s.Price.Render(money(t.Price))+s.Dim.Render("  fee ")+money(t.Fee)+
		s.Dim.Render("  seller's net ")+money(t.SellerNet))
	state := txState(s, t.State, true)
	if t.ErrorCode != "" {
		state += "  " + s.Err.Render("error "+playertext.Sanitize(t.ErrorCode))
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
	if t.Rating > 0 {
		add("rating", strings.Repeat("★", t.Rating)+s.Dim.Render(fmt.Sprintf("  %d of 5, by the buyer", t.Rating)))
	} else if t.State == market.StateCompleted {
		add("rating", s.Dim.Render("not rated (* rates it as the buyer)"))
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
	if n := len(t.Timeline); n > 1 {
		add("", s.Dim.Render("total "+strings.TrimPrefix(sinceDur(t.Timeline[n-1].At.Sub(t.Timeline[0].At)), "+")))
	}
	return lines
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

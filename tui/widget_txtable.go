package tui

import (
	"errors"
	"fmt"
	"strings"
	"time"

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

// shownAt is the time a row of a list of q shows: the time the list is in
// order of, so that the column reads newest first. The market lists
// completed transactions by completion and all states by creation
// (market.Transactions): a refund, which rolls a purchase back days after
// it was made, leaves it where it was made, and its row shows that time
// (the refund's is its last step, in the details).
func shownAt(t market.Transaction, q market.TxQuery) time.Time {
	if (q.AllStates || q.State != "") && len(t.Timeline) > 0 {
		return t.Timeline[0].At
	}
	return lastAt(t)
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
//
// A transaction the store has not saved yet (Pending: the console commits
// behind its tick) is marked "…" and dim whatever its state: it may still
// be undone.
func txState(s Styles, t market.Transaction, wide bool) string {
	st := t.State
	mark, style := "·", s.Dim
	switch {
	case t.Pending:
		mark = "…"
	case st == market.StateCompleted:
		mark, style = "✓", s.OK
	case st == market.StateFailed:
		mark, style = "✗", s.Err
	case st == market.StateRolledBack:
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
	when := shownAt(t, tt.q).UTC()
	ts := when.Format("01-02 15:04")
	if cols.wide {
		ts = stamp(when)
	}
	amount := fmt.Sprintf(" ×%d", t.Item.Amount)
	item := fit(RenderMC(itemName(t.Item), lipglossPlain), max(cols.item-width(amount), 1)) + amount
	r := txLine(cols, s.Dim.Render(fit(ts, cols.time)), fit(playertext.Sanitize(shortID(t.ID)), cols.id),
		fit(txState(s, t, cols.wide), cols.state), fitLeft(txListing(t, cols.listing), cols.listing),
		fit(item, cols.item), s.Price.Render(fitLeft(money(t.Price), cols.price)), tt.inOut(s, t, cols.money),
		fit(tt.parties(s, t, cols.parties), cols.parties))
	r = fit(r, w)
	if len(tt.rowCache) > 4096 {
		clear(tt.rowCache)
	}
	tt.rowCache[t.ID] = r
	return r
}

// txListing is the listing column's cell, w cells wide at most: "#12", or
// for a sale into a buy order from an inventory, which had no listing, the
// order ("ord #7"), "—" when that does not fit.
func txListing(t market.Transaction, w int) string {
	if t.ListingID != 0 || t.BuyOrder == 0 {
		return fmt.Sprintf("#%d", t.ListingID)
	}
	if cell := fmt.Sprintf("ord #%d", t.BuyOrder); width(cell) <= w {
		return cell
	}
	return "—"
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

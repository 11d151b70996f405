package tui

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"
	"github.com/rynek/rynek/market"
	"github.com/rynek/rynek/market/catalog"
	"github.com/rynek/rynek/market/playertext"
)

var lipglossPlain = lipgloss.NewStyle()

// listingTable is a virtualized table over a market query: it never holds
// more than a window of about three screens of listings around the cursor,
// fetched with Query's offset (or, near the far end of the order, with a
// reversed query, which is as cheap as a page near the start). Rendered rows
// are cached per listing id, width and minute (the expiry column), so View
// only concatenates cached strings.
type listingTable struct {
	tableNav
	q        market.Query
	win      []market.Listing
	rows     map[int]string
	cacheKey [3]int64 // width, minute and Common.Epoch the cache was rendered for
	// err is the last read's error. The rows read before it stay on screen,
	// marked stale, so that the actions on them still reach the market and
	// show its answer (the not-ready text while the service is disabled).
	err  error
	took time.Duration
}

// tableNav is the cursor arithmetic of a virtualized table, shared by the
// listing tables and the Transactions pane: the cursor and first visible
// row as absolute indexes into total rows, where the loaded window starts,
// and the navigation keys.
type tableNav struct {
	total    int
	cursor   int // absolute row index
	top      int // first visible row
	winStart int
	nav      tableKeys
}

// clamp keeps the cursor within the rows and the visible rows [top, top+h)
// around it.
func (n *tableNav) clamp(h int) {
	n.cursor = max(0, min(n.cursor, n.total-1))
	if n.cursor < n.top {
		n.top = n.cursor
	}
	if n.cursor >= n.top+h {
		n.top = n.cursor - h + 1
	}
	n.top = max(0, min(n.top, max(n.total-h, 0)))
}

// covers reports whether a loaded window of n rows holds the visible rows.
func (n *tableNav) covers(loaded bool, rows, h int) bool {
	return loaded && n.top >= n.winStart && n.top+h <= n.winStart+rows
}

// renderRows writes the visible rows of a virtualized table, each w cells
// wide, from the loaded window of `loaded` rows; row(j) renders the j-th row
// of the window without the 2-cell gutter. The cursor's row is highlighted
// across the whole width. View never fetches: if the screen is another
// height than Update assumed, the rows are shifted to keep the cursor
// visible and what is not loaded is blank. This is the one render loop of
// the listing tables, the Transactions pane and the Seller's history.
func (n *tableNav) renderRows(b *strings.Builder, c *Common, w, rows, loaded int, row func(j int) string) {
	top := n.top
	if n.cursor >= top+rows {
		top = n.cursor - rows + 1
	}
	top = max(0, min(top, n.cursor))
	blank := strings.Repeat(" ", w)
	for i := 0; i < rows; i++ {
		b.WriteByte('\n')
		idx := top + i
		j := idx - n.winStart
		if idx >= n.total || j < 0 || j >= loaded {
			b.WriteString(blank)
			continue
		}
		if idx == n.cursor {
			b.WriteString(highlight(c, "▶ "+row(j), w))
			continue
		}
		b.WriteString("  ")
		b.WriteString(row(j))
	}
}

// highlight renders a whole row as selected: its text without its own
// styles, in reverse video, so the mark runs the full width in every palette
// and under NO_COLOR.
func highlight(c *Common, row string, w int) string {
	return c.Styles.Selected.Render(fit(ansi.Strip(row), w))
}

// delta turns a navigation key, the wheel or a click on a row (y0 is the
// screen row of the first data row) into a cursor move; handled is false
// for anything else.
func (n *tableNav) delta(msg tea.Msg, h, y0 int) (d int, handled bool) {
	switch msg := msg.(type) {
	case tea.KeyPressMsg:
		switch {
		case key.Matches(msg, n.nav.Up):
			return -1, true
		case key.Matches(msg, n.nav.Down):
			return 1, true
		case key.Matches(msg, n.nav.PgUp):
			return -h, true
		case key.Matches(msg, n.nav.PgDown):
			return h, true
		case key.Matches(msg, n.nav.Home):
			return -n.total, true
		case key.Matches(msg, n.nav.End):
			return n.total, true
		}
	case tea.MouseWheelMsg:
		switch msg.Button {
		case tea.MouseWheelUp:
			return -3, true
		case tea.MouseWheelDown:
			return 3, true
		}
		return 0, true
	case tea.MouseClickMsg:
		if row := msg.Y - y0; row >= 0 && row < h {
			return n.top + row - n.cursor, true
		}
	}
	return 0, false
}

type tableKeys struct {
	Up, Down, PgUp, PgDown, Home, End key.Binding
}

func newTableKeys() tableKeys {
	return tableKeys{
		Up:     key.NewBinding(key.WithKeys("up", "k"), key.WithHelp("↑/k", "up")),
		Down:   key.NewBinding(key.WithKeys("down", "j"), key.WithHelp("↓/j", "down")),
		PgUp:   key.NewBinding(key.WithKeys("pgup", "ctrl+b"), key.WithHelp("pgup", "page up")),
		PgDown: key.NewBinding(key.WithKeys("pgdown", "ctrl+f"), key.WithHelp("pgdn", "page down")),
		Home:   key.NewBinding(key.WithKeys("home", "g"), key.WithHelp("home/g", "first")),
		End:    key.NewBinding(key.WithKeys("end", "G"), key.WithHelp("end/G", "last")),
	}
}

func newListingTable(q market.Query) *listingTable {
	return &listingTable{q: q, rows: map[int]string{}, tableNav: tableNav{nav: newTableKeys()}}
}

// setQuery replaces the query and moves to the first row.
func (t *listingTable) setQuery(c *Common, q market.Query, h int) {
	t.q = q
	t.cursor, t.top = 0, 0
	t.win = nil
	t.refresh(c, h)
}

// refresh re-runs the query for the current window (the market changed).
// The window read before stays if the read fails.
func (t *listingTable) refresh(c *Common, h int) {
	old := t.win
	t.win = nil
	t.fetch(c, h)
	if t.err != nil && t.win == nil {
		t.win = old
	}
}

// fetch makes sure the rows [top, top+h) are in the window.
func (t *listingTable) fetch(c *Common, h int) {
	h = max(h, 1)
	if t.covers(t.win != nil, len(t.win), h) {
		return
	}
	q := t.q
	start := max(0, t.top-h)
	q.Limit = 3 * h
	// Near the far end, read the reversed order from its start.
	if t.total > 0 && start > t.total/2 {
		end := min(t.total, start+q.Limit)
		q.Reverse = true
		q.Offset = t.total - end
		q.Limit = end - start
	} else {
		q.Offset = start
	}
	page, err := c.Svc.Query(q)
	t.err = err
	if err != nil {
		return // keep the rows read before, shown as stale
	}
	t.took = page.Took
	if q.Reverse {
		slices.Reverse(page.Listings)
		if page.Total != t.total { // the market changed under us: read again from the start
			t.total = page.Total
			q.Reverse, q.Offset = false, start
			page, err = c.Svc.Query(q)
			if err != nil {
				t.err = err
				return
			}
		}
	}
	t.total = page.Total
	t.win, t.winStart = page.Listings, start
	t.clamp(h)
}

// move moves the cursor by delta rows (clamped) and fetches if needed.
func (t *listingTable) move(c *Common, delta, h int) {
	t.cursor += delta
	t.clamp(h)
	t.fetch(c, h)
}

// update handles navigation keys and the mouse; it reports whether it did.
func (t *listingTable) update(c *Common, msg tea.Msg, h int, y0 int) bool {
	d, ok := t.delta(msg, h, y0)
	if ok {
		t.move(c, d, h)
	}
	return ok
}

// selected returns the listing under the cursor.
func (t *listingTable) selected() (market.Listing, bool) {
	i := t.cursor - t.winStart
	if i < 0 || i >= len(t.win) {
		return market.Listing{}, false
	}
	return t.win[i], true
}

// Column widths for rows w cells wide (the 2-cell cursor gutter excluded):
// id, item (flexible), amount, price, unit price, seller, expires, with one
// space between columns.
func columns(w int) [7]int {
	cols := [7]int{8, 0, 3, 12, 11, 14, 7}
	if w >= 148 {
		cols = [7]int{9, 0, 4, 14, 13, 20, 9}
	}
	fixed := len(cols) - 1 // separators
	for _, c := range cols {
		fixed += c
	}
	cols[1] = max(w-fixed, 8)
	return cols
}

// sortMarks puts the sort order on the column it orders: ▼ descending,
// ▲ ascending (ids grow with creation time).
func sortMarks(mode market.SortMode) (id, qty, price, unit string) {
	id, qty, price, unit = "id", "qty", "price", "unit"
	switch mode {
	case market.SortNewest:
		id = "▼id"
	case market.SortOldest:
		id = "▲id"
	case market.SortCheapest:
		price = "▲price"
	case market.SortExpensive:
		price = "▼price"
	case market.SortUnitPrice:
		unit = "▲unit"
	case market.SortAmount:
		qty = "▼qty"
	case market.SortLeastAmount:
		qty = "▲qty"
	}
	return id, qty, price, unit
}

func (t *listingTable) header(c *Common, w int) string {
	if t.err != nil {
		return fit(c.Styles.Err.Render("✗ "+t.err.Error())+c.Styles.Dim.Render(" · stale: the rows as last read"), w)
	}
	cols := columns(w - 2)
	id, qty, price, unit := sortMarks(t.q.Sort)
	h := "  " + fitLeft(id, cols[0]) + " " + fit("item", cols[1]) + " " + fitLeft(qty, cols[2]) + " " +
		fitLeft(price, cols[3]) + " " + fitLeft(unit, cols[4]) + " " + fit("seller", cols[5]) + " " + fitLeft("expires", cols[6])
	return c.Styles.Dim.Render(fit(h, w))
}

// row renders (and caches) one listing row without the gutter.
func (t *listingTable) row(c *Common, l market.Listing, w int) string {
	if r, ok := t.rows[l.ID]; ok {
		return r
	}
	cols := columns(w)
	s := c.Styles
	item := RenderMC(itemName(l.Item), lipglossPlain)
	if len(l.Item.Enchantments) > 0 {
		item += s.Dim.Render(" ✦")
	}
	exp := Until(l.ExpiresAt, c.NowUnix)
	if l.Reserved {
		exp = "held"
	}
	r := fitLeft(fmt.Sprintf("#%d", l.ID), cols[0]) + " " + fit(item, cols[1]) + " " + fitLeft(fmt.Sprint(l.Item.Amount), cols[2]) + " " +
		s.Price.Render(fitLeft(money(l.Price), cols[3])) + " " + fitLeft(money(l.UnitPrice()), cols[4]) + " " +
		fit(playertext.Sanitize(l.SellerName), cols[5]) + " " + s.Dim.Render(fitLeft(exp, cols[6]))
	t.rows[l.ID] = r
	return r
}

// view renders the header and h-1 rows.
func (t *listingTable) view(c *Common, w, h int) string {
	if k := [3]int64{int64(w), c.NowUnix / 60, int64(c.Epoch)}; k != t.cacheKey || len(t.rows) > 4096 {
		clear(t.rows)
		t.cacheKey = k
	}
	var b strings.Builder
	b.Grow((h + 1) * (w + 32))
	b.WriteString(t.header(c, w))
	rows := h - 1
	if t.total == 0 && t.err == nil {
		msg := "No active listings."
		if t.q.Text != "" || t.q.Category != catalog.CategoryAll {
			msg = "No listings match."
		}
		b.WriteString("\n" + fit(c.Styles.Dim.Render(msg), w))
		rows--
	}
	t.renderRows(&b, c, w, rows, len(t.win), func(j int) string { return t.row(c, t.win[j], w-2) })
	return b.String()
}

package tui

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"github.com/rynek/rynek/market"
	"github.com/rynek/rynek/market/catalog"
	"github.com/rynek/rynek/market/playertext"
)

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
func sortMarks(mode market.SortMode) (id, qty, price, unit, expires string) {
	id, qty, price, unit, expires = "id", "qty", "price", "unit", "expires"
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
	case market.SortEnding:
		expires = "▲expires"
	}
	return id, qty, price, unit, expires
}

func (t *listingTable) header(c *Common, w int) string {
	if t.err != nil {
		return fit(c.Styles.Err.Render("✗ "+t.err.Error())+c.Styles.Dim.Render(" · stale: the rows as last read"), w)
	}
	cols := columns(w - 2)
	id, qty, price, unit, expires := sortMarks(t.q.Sort)
	h := "  " + fitLeft(id, cols[0]) + " " + fit("item", cols[1]) + " " + fitLeft(qty, cols[2]) + " " +
		fitLeft(price, cols[3]) + " " + fitLeft(unit, cols[4]) + " " + fit("seller", cols[5]) + " " + fitLeft(expires, cols[6])
	return c.Styles.Dim.Render(fit(h, w))
}

// row renders (and caches) one listing row without the gutter. An
// auction's row is not cached: its time left ticks by the second.
func (t *listingTable) row(c *Common, l market.Listing, w int) string {
	if r, ok := t.rows[l.ID]; ok && l.Auction == nil {
		return r
	}
	cols := columns(w)
	s := c.Styles
	item := RenderMC(itemName(l.Item), lipglossPlain)
	if len(l.Item.Enchantments) > 0 {
		item += s.Dim.Render(" ✦")
	}
	if a := l.Auction; a != nil {
		item = s.Warn.Render("⚑ ") + item + s.Dim.Render(fmt.Sprintf(" · %d bid%s", a.Bids, plural(a.Bids)))
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

// queryKeys sort and filter a listing table: the Listings and Search panes
// share them.
type queryKeys struct {
	Sort, SortBack, Cat, CatAll key.Binding
}

func newQueryKeys() queryKeys {
	return queryKeys{
		Sort:     binding([]string{"o"}, "o", "sort"),
		SortBack: binding([]string{"O"}, "O", "sort back"),
		Cat:      binding([]string{"c"}, "c", "category…"),
		CatAll:   binding([]string{"C"}, "C", "all categories"),
	}
}

// queryKey applies a sort or category key to the table's query. A query the
// market refuses (the service is disabled) changes nothing and reports the
// error.
func (t *listingTable) queryKey(c *Common, k tea.KeyPressMsg, keys queryKeys, h int) (tea.Cmd, bool) {
	q := t.q
	n := market.SortMode(len(market.SortModes()))
	switch {
	case key.Matches(k, keys.Sort):
		q.Sort = (q.Sort + 1) % n
	case key.Matches(k, keys.SortBack):
		q.Sort = (q.Sort + n - 1) % n
	case key.Matches(k, keys.Cat):
		return func() tea.Msg { return openDialogMsg{newCategoryPicker(c, t.q)} }, true
	case key.Matches(k, keys.CatAll):
		q.Category = catalog.CategoryAll
	default:
		return nil, false
	}
	return t.trySetQuery(c, q, h), true
}

// trySetQuery moves to a new query, or stays on the old one and reports the
// market's refusal.
func (t *listingTable) trySetQuery(c *Common, q market.Query, h int) tea.Cmd {
	saved := *t
	t.setQuery(c, q, h)
	if t.err == nil {
		return nil
	}
	err := t.err
	*t = saved
	return refusal(err)
}

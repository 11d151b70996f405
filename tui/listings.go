package tui

import (
	"fmt"
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"github.com/rynek/rynek/market"
	"github.com/rynek/rynek/market/catalog"
	"github.com/rynek/rynek/market/playertext"
)

// pane is one screen of the console. Panes read the market; they never
// mutate it: actions go through the root model (actions.go), which runs them
// inside Update, on the main thread.
type pane interface {
	Title() string
	// Help lists every key of the pane, the most used first (the footer
	// shows as many as fit, the help all).
	Help() []key.Binding
	// TextFocused reports whether a text input has focus, so that the root
	// passes single-letter keys to it instead of treating them as commands.
	TextFocused() bool
	// Selected returns the listing under the cursor, the target of actions.
	Selected() (market.Listing, bool)
	// Refresh re-reads the market after it changed.
	Refresh(c *Common)
	Update(c *Common, msg tea.Msg) tea.Cmd
	View(c *Common, w, h int) string
}

// Optional pane interfaces: what the root may ask of some panes without
// knowing which they are.
type (
	// inputFocuser is a pane with a text box that "/" focuses.
	inputFocuser interface{ FocusInput() tea.Cmd }
	// badger is a pane whose tab shows a count.
	badger interface{ Badge() string }
	// idSelector is a pane whose selection has an id to copy (y) other than
	// a listing's.
	idSelector interface{ SelectedID() string }
	// actorViewer is the pane that shows the acting player.
	actorViewer interface{ showsActor() }
	// starter is a pane with work to begin when the program starts; its
	// command's answer comes back to it.
	starter interface{ Start(c *Common) tea.Cmd }
)

// openDialogMsg asks the root to open a dialog for the pane that sent it;
// the dialog's actions of type actForPane go back to that pane.
type openDialogMsg struct{ dialog dialog }

// actForPane delivers a dialog's answer to the pane that opened it.
type actForPane struct{ msg tea.Msg }

// paneTop is the screen row where panes start (below header and tabs).
const paneTop = 2

// paneHeight is the rows a pane gets on a screen h rows high (header, tabs,
// status and help lines take four).
func paneHeight(h int) int { return max(h-4, 3) }

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

// categoryMsg is the category picker's answer.
type categoryMsg struct{ cat catalog.Category }

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

// refusal is a command that shows the market's refusal of what a pane asked
// for in the footer, with its code.
func refusal(err error) tea.Cmd {
	return func() tea.Msg { return statusMsg{text: err.Error() + codeSuffix(err), err: true} }
}

// listingsPane shows every active listing with sort modes and a category
// filter; Enter toggles a detail view of the selected listing.
type listingsPane struct {
	table  *listingTable
	detail bool
	keys   listingKeys
}

type listingKeys struct {
	queryKeys
	Detail, Back key.Binding
}

func newListingsPane() *listingsPane {
	return &listingsPane{table: newListingTable(market.Query{}), keys: listingKeys{
		queryKeys: newQueryKeys(),
		Detail:    binding([]string{"enter"}, "enter", "details"),
		Back:      binding([]string{"esc"}, "esc", "close details"),
	}}
}

func (p *listingsPane) Title() string { return "Listings" }

func (p *listingsPane) Help() []key.Binding {
	n := p.table.nav
	return []key.Binding{p.keys.Detail, p.keys.Sort, p.keys.Cat, n.PgDown, n.End, p.keys.SortBack, p.keys.CatAll,
		n.Up, n.Down, n.PgUp, n.Home, p.keys.Back}
}

func (p *listingsPane) TextFocused() bool { return false }

func (p *listingsPane) Selected() (market.Listing, bool) { return p.table.selected() }

func (p *listingsPane) rows(c *Common) int { return paneHeight(c.H) - 2 } // title line + table header

func (p *listingsPane) Refresh(c *Common) { p.table.refresh(c, p.rows(c)) }

func (p *listingsPane) Update(c *Common, msg tea.Msg) tea.Cmd {
	h := p.rows(c)
	switch msg := msg.(type) {
	case categoryMsg:
		q := p.table.q
		q.Category = msg.cat
		return p.table.trySetQuery(c, q, h)
	case tea.KeyPressMsg:
		switch {
		case key.Matches(msg, p.keys.Detail):
			p.detail = !p.detail
			return nil
		case key.Matches(msg, p.keys.Back) && p.detail:
			p.detail = false
			return nil
		}
		if cmd, ok := p.table.queryKey(c, msg, p.keys.queryKeys, h); ok {
			return cmd
		}
	}
	p.table.update(c, msg, h, paneTop+2)
	return nil
}

func (p *listingsPane) View(c *Common, w, h int) string {
	t := p.table
	s := c.Styles
	title := fmt.Sprintf("%s listing%s · sort: %s · category: %s (%s)", count(t.total), plural(t.total), t.q.Sort,
		t.q.Category, t.q.Category.DisplayName())
	if t.total > 0 {
		title += s.Dim.Render(fmt.Sprintf(" · row %s of %s", count(t.cursor+1), count(t.total)))
	}
	head := fit(s.Title.Render(title), w)
	if p.detail {
		if l, ok := t.selected(); ok {
			return head + "\n" + listingDetail(c, l, w, h-1)
		}
	}
	return head + "\n" + t.view(c, w, h-1)
}

// listingDetail renders everything about a listing in h lines.
func listingDetail(c *Common, l market.Listing, w, h int) string {
	lines := append(listingLines(c, l), "", c.Styles.Dim.Render("enter/esc back · b buy · x remove (owner) · X remove (admin) · F force-expire"))
	return block(lines, w, h)
}

// listingLines is everything about a listing, a line per field.
func listingLines(c *Common, l market.Listing) []string {
	s := c.Styles
	var lines []string
	add := func(label, value string) {
		lines = append(lines, s.Dim.Render(fmt.Sprintf("%-12s", label))+value)
	}
	add("listing", fmt.Sprintf("#%d", l.ID))
	add("item", RenderMC(itemName(l.Item), lipglossPlain)+s.Dim.Render("  ("+playertext.Sanitize(l.Item.Material)+")"))
	add("amount", fmt.Sprint(l.Item.Amount))
	add("price", s.Price.Render(money(l.Price))+s.Dim.Render("  unit "+money(l.UnitPrice())))
	add("seller", playertext.Sanitize(l.SellerName)+s.Dim.Render("  "+l.Seller.String()))
	var cats []string
	for _, cat := range l.Categories {
		cats = append(cats, cat.String())
	}
	add("categories", strings.Join(cats, ", "))
	if e := enchants(l.Item); e != "" {
		add("enchants", e)
	}
	for i, lore := range l.Item.Lore {
		label := ""
		if i == 0 {
			label = "lore"
		}
		add(label, RenderMC(lore, s.Dim))
	}
	add("created", stamp(l.CreatedAt))
	add("expires", stamp(l.ExpiresAt)+s.Dim.Render("  in "+Until(l.ExpiresAt, c.NowUnix)))
	if l.Reserved {
		add("state", s.Warn.Render("reserved by a purchase in progress"))
	}
	add("stack id", s.Dim.Render(l.Item.ID.String()))
	return lines
}

// categoryPicker chooses a category from the twelve, with the number of
// active listings in each for the rest of the query.
type categoryPicker struct {
	cats   []catalog.Category
	counts []int
	cursor int
	keys   dialogKeys
	nav    tableKeys
}

func newCategoryPicker(c *Common, q market.Query) *categoryPicker {
	d := &categoryPicker{cats: c.Svc.GetCategories(), keys: newDialogKeys(), nav: newTableKeys()}
	current := q.Category
	for i, cat := range d.cats {
		q.Category, q.Offset, q.Limit = cat, 0, 1
		n := -1
		if page, err := c.Svc.Query(q); err == nil {
			n = page.Total
		}
		d.counts = append(d.counts, n)
		if cat == current {
			d.cursor = i
		}
	}
	return d
}

func (d *categoryPicker) Help() []key.Binding {
	return []key.Binding{d.keys.Enter, d.nav.Up, d.nav.Down, d.keys.Cancel}
}

func (d *categoryPicker) Update(_ *Common, msg tea.Msg) (action, bool) {
	k, ok := msg.(tea.KeyPressMsg)
	if !ok {
		return nil, false
	}
	switch {
	case key.Matches(k, d.keys.Cancel):
		return nil, true
	case key.Matches(k, d.keys.Enter):
		return actForPane{msg: categoryMsg{cat: d.cats[d.cursor]}}, true
	case key.Matches(k, d.nav.Up):
		d.cursor = (d.cursor + len(d.cats) - 1) % len(d.cats)
	case key.Matches(k, d.nav.Down):
		d.cursor = (d.cursor + 1) % len(d.cats)
	}
	return nil, false
}

func (d *categoryPicker) View(c *Common, w, _ int) string {
	s := c.Styles
	var b strings.Builder
	b.WriteString(s.Title.Render("Category"))
	for i, cat := range d.cats {
		n := "—"
		if d.counts[i] >= 0 {
			n = count(d.counts[i])
		}
		line := fmt.Sprintf("%-16s %-20s %10s", cat, cat.DisplayName(), n)
		if i == d.cursor {
			line = s.Selected.Render("▶ " + line)
		} else {
			line = "  " + line
		}
		b.WriteString("\n" + line)
	}
	return box(c, b.String(), w)
}

// actionMsg asks the root to run an action for a pane (Enter on an event
// opens its listing).
type actionMsg struct{ a action }

// request is a command that asks the root to run a.
func request(a action) tea.Cmd { return func() tea.Msg { return actionMsg{a} } }

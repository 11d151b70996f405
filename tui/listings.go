package tui

import (
	"fmt"
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"github.com/rynek/rynek/market"
)

// pane is one screen of the console. Panes read the market; they never
// mutate it: actions go through the root model (actions.go), which runs them
// inside Update, on the main thread.
type pane interface {
	Title() string
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

// paneTop is the screen row where panes start (below header and tabs).
const paneTop = 2

// paneHeight is the rows a pane gets on a screen h rows high (header, tabs,
// status and help lines take four).
func paneHeight(h int) int { return max(h-4, 3) }

// listingsPane shows every active listing with sort modes and a category
// filter; Enter toggles a detail view of the selected listing.
type listingsPane struct {
	table  *listingTable
	detail bool
	keys   listingKeys
}

type listingKeys struct {
	Sort, SortBack, Cat, CatBack, Detail key.Binding
}

func newListingsPane() *listingsPane {
	return &listingsPane{table: newListingTable(market.Query{}), keys: listingKeys{
		Sort:     key.NewBinding(key.WithKeys("o"), key.WithHelp("o", "sort")),
		SortBack: key.NewBinding(key.WithKeys("O"), key.WithHelp("O", "sort back")),
		Cat:      key.NewBinding(key.WithKeys("c"), key.WithHelp("c", "category")),
		CatBack:  key.NewBinding(key.WithKeys("C"), key.WithHelp("C", "category back")),
		Detail:   key.NewBinding(key.WithKeys("enter"), key.WithHelp("enter", "details")),
	}}
}

func (p *listingsPane) Title() string { return "Listings" }

func (p *listingsPane) Help() []key.Binding {
	return []key.Binding{p.keys.Detail, p.keys.Sort, p.keys.Cat, p.table.nav.PgDown, p.table.nav.End}
}

func (p *listingsPane) TextFocused() bool { return false }

func (p *listingsPane) Selected() (market.Listing, bool) { return p.table.selected() }

func (p *listingsPane) rows(c *Common) int { return paneHeight(c.H) - 2 } // title line + table header

func (p *listingsPane) Refresh(c *Common) { p.table.refresh(c, p.rows(c)) }

func (p *listingsPane) Update(c *Common, msg tea.Msg) tea.Cmd {
	h := p.rows(c)
	if k, ok := msg.(tea.KeyPressMsg); ok {
		q := p.table.q
		switch {
		case key.Matches(k, p.keys.Detail):
			p.detail = !p.detail
			return nil
		case key.Matches(k, p.keys.Sort):
			q.Sort = (q.Sort + 1) % market.SortMode(len(market.SortModes()))
		case key.Matches(k, p.keys.SortBack):
			q.Sort = (q.Sort + market.SortMode(len(market.SortModes())) - 1) % market.SortMode(len(market.SortModes()))
		case key.Matches(k, p.keys.Cat):
			q.Category = (q.Category + 1) % market.Category(len(c.Svc.GetCategories()))
		case key.Matches(k, p.keys.CatBack):
			n := market.Category(len(c.Svc.GetCategories()))
			q.Category = (q.Category + n - 1) % n
		case k.String() == "esc" && p.detail:
			p.detail = false
			return nil
		default:
			p.table.update(c, msg, h, paneTop+2)
			return nil
		}
		p.table.setQuery(c, q, h)
		return nil
	}
	p.table.update(c, msg, h, paneTop+2)
	return nil
}

func (p *listingsPane) View(c *Common, w, h int) string {
	t := p.table
	s := c.Styles
	title := fmt.Sprintf("%s listings · sort: %s · category: %s (%s)", count(t.total), t.q.Sort,
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
	s := c.Styles
	var lines []string
	add := func(label, value string) {
		lines = append(lines, s.Dim.Render(fmt.Sprintf("%-12s", label))+value)
	}
	add("listing", fmt.Sprintf("#%d", l.ID))
	add("item", RenderMC(itemName(l.Item), lipglossPlain)+s.Dim.Render("  ("+Sanitize(l.Item.Material)+")"))
	add("amount", fmt.Sprint(l.Item.Amount))
	add("price", s.Price.Render(money(l.Price))+s.Dim.Render("  unit "+money(l.UnitPrice())))
	add("seller", Sanitize(l.SellerName)+s.Dim.Render("  "+l.Seller.String()))
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
	lines = append(lines, "", s.Dim.Render("enter/esc back · b buy · x remove (owner) · X remove (admin) · F force-expire"))
	return block(lines, w, h)
}

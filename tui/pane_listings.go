package tui

import (
	"fmt"
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"github.com/rynek/rynek/market"
	"github.com/rynek/rynek/market/playertext"
)

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
	return append(append([]key.Binding{p.keys.Detail, p.keys.Sort, p.keys.SortBack, p.keys.Cat, p.keys.CatAll}, n.all()...), p.keys.Back)
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
	title := fmt.Sprintf("%s listing%s · sort: %s · category: %s", count(t.total), plural(t.total), t.q.Sort, t.q.Category)
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

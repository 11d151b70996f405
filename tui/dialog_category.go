package tui

import (
	"fmt"
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"github.com/rynek/rynek/market"
	"github.com/rynek/rynek/market/catalog"
)

// categoryMsg is the category picker's answer.
type categoryMsg struct{ cat catalog.Category }

// categoryPicker chooses a category from the twelve, with the number of
// active listings in each for the rest of the query.
type categoryPicker struct {
	dialogBase
	cats   []catalog.Category
	counts []int
	cursor int
	nav    tableKeys
}

func newCategoryPicker(c *Common, q market.Query) *categoryPicker {
	d := &categoryPicker{dialogBase: newDialogBase(choosing), cats: c.Svc.GetCategories(), nav: newTableKeys()}
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
	return []key.Binding{d.keys.Enter, d.nav.Up, d.nav.Down, d.closeKey()}
}

func (d *categoryPicker) Update(_ *Common, msg tea.Msg) (action, bool) {
	k, ok := msg.(tea.KeyPressMsg)
	if !ok {
		return nil, false
	}
	switch {
	case d.closes(k):
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
		line := fmt.Sprintf("%-16s %10s", cat, n)
		if i == d.cursor {
			line = s.Selected.Render("▶ " + line)
		} else {
			line = "  " + line
		}
		b.WriteString("\n" + line)
	}
	return box(c, b.String(), w)
}

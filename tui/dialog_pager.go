package tui

import (
	"fmt"
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
	"github.com/rynek/rynek/market/playertext"
)

// pagerDialog shows lines that may not fit: help, the status history, the
// details of a listing or a transaction. It scrolls, and "/" filters the
// lines (diacritics-folded, like search).
type pagerDialog struct {
	title     string
	lines     []string // rendered
	plain     []string // folded, for the filter
	shown     []int    // indexes of lines passing the filter
	top       int
	filter    textField
	filtering bool
	nav       tableKeys
	keys      pagerKeys
}

type pagerKeys struct {
	Filter, Close, KeepFilter, ClearFilter key.Binding
}

func newPager(title string, lines []string) *pagerDialog {
	d := &pagerDialog{title: title, lines: lines, filter: newTextField("filter: ", "", 64, 0), nav: newTableKeys(), keys: pagerKeys{
		Filter: binding([]string{"/"}, "/", "filter"),
		Close:  binding([]string{"esc", "q", "?", "enter"}, "esc/q", "close"),
		// While the filter is typed, and esc when one is set.
		KeepFilter:  binding([]string{"enter"}, "enter", "keep the filter"),
		ClearFilter: binding([]string{"esc"}, "esc", "clear the filter"),
	}}
	d.plain = make([]string, len(lines))
	for i, l := range lines {
		d.plain[i] = playertext.Fold(plainText(l))
	}
	d.apply()
	return d
}

// plainText is a rendered line without its styling.
func plainText(s string) string { return strings.TrimSpace(ansi.Strip(s)) }

func (d *pagerDialog) apply() {
	q := playertext.Fold(strings.TrimSpace(d.filter.Value()))
	d.shown = d.shown[:0]
	for i, p := range d.plain {
		if q == "" || strings.Contains(p, q) {
			d.shown = append(d.shown, i)
		}
	}
	d.top = 0
}

func (d *pagerDialog) Help() []key.Binding {
	if d.filtering {
		return []key.Binding{d.keys.KeepFilter, d.keys.ClearFilter}
	}
	if d.filter.Value() != "" {
		return append([]key.Binding{d.keys.ClearFilter, d.keys.Close, d.keys.Filter}, d.nav.all()...)
	}
	return append([]key.Binding{d.keys.Close, d.keys.Filter}, d.nav.all()...)
}

// pagerRows is how many lines of text a pager shows on a screen h high.
func pagerRows(h int) int { return max(h-6, 3) } // border, title, filter line, hint

func (d *pagerDialog) Update(c *Common, msg tea.Msg) (action, bool) {
	rows := pagerRows(c.H - 4)
	switch msg := msg.(type) {
	case tea.PasteMsg:
		if d.filtering {
			d.filter.Update(msg)
			d.apply()
		}
		return nil, false
	case tea.MouseWheelMsg:
		if msg.Button == tea.MouseWheelUp {
			d.scroll(-3, rows)
		} else if msg.Button == tea.MouseWheelDown {
			d.scroll(3, rows)
		}
		return nil, false
	case tea.KeyPressMsg:
		if d.filtering {
			switch {
			case key.Matches(msg, d.keys.ClearFilter):
				d.filter.Reset()
				d.filtering = false
				d.filter.Blur()
				d.apply()
			case key.Matches(msg, d.keys.KeepFilter):
				d.filtering = false
				d.filter.Blur()
			default:
				d.filter.Update(msg)
				d.apply()
			}
			return nil, false
		}
		switch {
		case key.Matches(msg, d.keys.Filter):
			d.filtering = true
			d.filter.Focus()
		case key.Matches(msg, d.keys.ClearFilter) && d.filter.Value() != "":
			d.filter.Reset()
			d.apply()
		case key.Matches(msg, d.keys.Close):
			return nil, true
		case key.Matches(msg, d.nav.Up):
			d.scroll(-1, rows)
		case key.Matches(msg, d.nav.Down):
			d.scroll(1, rows)
		case key.Matches(msg, d.nav.PgUp):
			d.scroll(-rows, rows)
		case key.Matches(msg, d.nav.PgDown):
			d.scroll(rows, rows)
		case key.Matches(msg, d.nav.Home):
			d.top = 0
		case key.Matches(msg, d.nav.End):
			d.scroll(len(d.shown), rows)
		}
	}
	return nil, false
}

func (d *pagerDialog) scroll(delta, rows int) {
	d.top = max(0, min(d.top+delta, len(d.shown)-rows))
}

func (d *pagerDialog) View(c *Common, w, h int) string {
	s := c.Styles
	rows := pagerRows(h)
	top := max(0, min(d.top, len(d.shown)-rows))
	var b strings.Builder
	title := s.Title.Render(d.title)
	if len(d.shown) > rows {
		title += s.Dim.Render(fmt.Sprintf("  %d–%d of %d", top+1, min(top+rows, len(d.shown)), len(d.shown)))
	}
	b.WriteString(title)
	if d.filtering || d.filter.Value() != "" {
		b.WriteString("\n" + d.filter.View(s))
	}
	inner := w - 4
	for i := 0; i < rows; i++ {
		line := ""
		if top+i < len(d.shown) {
			line = d.lines[d.shown[top+i]]
		}
		b.WriteString("\n" + fit(line, inner))
	}
	b.WriteString("\n" + s.Dim.Render("↑/↓ pgup/pgdn scroll · / filter · esc close"))
	return box(c, b.String(), w)
}

// newHelp is every key of the console: the panes and navigation, the
// actions, the QA controls and the active pane's own keys.
func newHelp(m *Model) *pagerDialog {
	s := m.c.Styles
	var lines []string
	section := func(title string, bs []key.Binding) {
		if len(lines) > 0 {
			lines = append(lines, "")
		}
		lines = append(lines, s.Title.Render(title))
		for _, b := range bs {
			lines = append(lines, fmt.Sprintf(" %-12s %s", b.Help().Key, b.Help().Desc))
		}
	}
	nav := newTableKeys()
	section("Panes and everywhere", m.keys.panes())
	section("Moving (every list and table)", nav.all())
	section("Actions (selected listing, acting player)", m.keys.actions())
	section("QA controls", m.keys.qa())
	if own := m.panes[m.active].Help(); len(own) > 0 { // the Webhooks pane without webhooks has none
		section("This pane: "+m.panes[m.active].Title(), own)
	}
	lines = append(lines, "", s.Dim.Render("Mouse: click a tab or a row, the wheel scrolls."))
	return newPager("Keys", lines)
}

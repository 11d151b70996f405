package tui

import (
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
)

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

// all is the keys in the order every footer and the help list them: each
// next to its opposite, the smallest steps first.
func (n tableKeys) all() []key.Binding {
	return []key.Binding{n.Up, n.Down, n.PgUp, n.PgDown, n.Home, n.End}
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

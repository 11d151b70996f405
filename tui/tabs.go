package tui

import (
	"fmt"
	"strings"
)

// The tab bar: a tab a pane, the active one highlighted, each clickable.

func (m *Model) tabAt(x int) int {
	labels, pad := m.tabLabels(m.c.W)
	pos := 0
	for i, label := range labels {
		w := width(label) + tabSpace(pad)
		if x >= pos && x < pos+w {
			return i
		}
		pos += w
	}
	return -1
}

// tabSpace is the cells a tab takes beside its label: its padding on both
// sides, or the space after it when there is no padding (the last tab's
// is the edge of the screen).
func tabSpace(pad int) int { return max(2*pad, 1) }

// tabLabels are the tabs' labels for a screen w cells wide: "7 Orders",
// with the pane's count when it has one ("6 Events (1 234)"), and the
// padding each side of a label. When the counts would push the last tab
// off a narrow screen, they are left out; when even the bare labels do
// not fit padded (eight tabs in 80 columns), a single space parts them:
// every tab stays whole and clickable.
func (m *Model) tabLabels(w int) (labels []string, pad int) {
	labels = make([]string, len(m.panes))
	total := 0
	for i, p := range m.panes {
		labels[i] = fmt.Sprintf("%d %s", i+1, p.Title())
		if b, ok := p.(badger); ok {
			if badge := b.Badge(); badge != "" {
				labels[i] += " (" + badge + ")"
			}
		}
		total += width(labels[i]) + tabSpace(1)
	}
	if total <= w {
		return labels, 1
	}
	total = 0
	for i, p := range m.panes {
		labels[i] = fmt.Sprintf("%d %s", i+1, p.Title())
		total += width(labels[i]) + tabSpace(1)
	}
	if total <= w {
		return labels, 1
	}
	return labels, 0 // total-len(labels)-1 cells: the labels and the spaces between them
}

func (m *Model) tabs(w int) string {
	s := m.c.Styles
	labels, pad := m.tabLabels(w)
	var b strings.Builder
	for i, label := range labels {
		style := s.Tab
		if i == m.active {
			style = s.TabActive
		}
		if pad == 0 && i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(style.Padding(0, pad).Render(label))
	}
	return fit(b.String(), w)
}

package tui

import (
	"strings"
	"testing"
)

// TestSelectionHighlightsTheWholeRow: the selected row is one reverse-video
// run across the width, in the Listings and the Events pane.
func TestSelectionHighlightsTheWholeRow(t *testing.T) {
	e := newEnv(t, 160, 48)
	e.key("s")
	e.key("enter")
	e.tick()
	for _, pane := range []string{"1", "6"} {
		e.key(pane)
		var row string
		for _, l := range strings.Split(e.m.View().Content, "\n") {
			if strings.HasPrefix(l, "\x1b[1;7m") {
				row = l
			}
		}
		if row == "" {
			t.Fatalf("pane %s: no highlighted row", pane)
		}
		if strings.Count(row, "\x1b[") != 2 || !strings.HasSuffix(row, "\x1b[m") || width(row) != 160 {
			t.Fatalf("pane %s: the highlight is not one run over 160 cells: %q", pane, row)
		}
	}
}

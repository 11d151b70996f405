package tui

import (
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
)

// A search whose text has an error shows the error where the count was,
// and says whose rows are still below: it showed "2 948 matches" for the
// text that had none.
func TestSearchErrorReplacesTheCount(t *testing.T) {
	e := newEnv(t, 120, 40)
	e.key("/")
	e.typeText("diamond")
	sp := e.m.panes[1].(*searchPane)
	if sp.pending || sp.table.total == 0 {
		t.Fatalf("diamond: pending %v, total %d", sp.pending, sp.table.total)
	}
	found := sp.table.total
	e.send(tea.PasteMsg{Content: " price:abc"}) // one edit: no search for "diamond p" and so on
	summary := strings.Split(e.view(), "\n")[3]
	want := `✗ price:abc: price "abc" is not a number · below, still: ` + count(found) + ` matches for "diamond"`
	if strings.TrimRight(summary, " ") != want {
		t.Fatalf("summary\n%q, want\n%q", strings.TrimRight(summary, " "), want)
	}
	if strings.Contains(e.view(), `matches for "diamond price:abc"`) {
		t.Fatal("a count shown for the text in error")
	}
	e.send(tea.KeyPressMsg{Code: 'w', Mod: tea.ModCtrl}) // deletes the word "price:abc"
	e.key("backspace")
	summary = strings.Split(e.view(), "\n")[3]
	if !strings.HasPrefix(summary, count(found)+` matches for "diamond"`) {
		t.Fatalf("after the fix: %q", summary)
	}
}

// While the search box has the cursor, ? and q are text: the footer offers
// what leaves the box and ctrl+c, not "? all keys · q quit".
func TestSearchBoxFooterOffersOnlyWhatWorks(t *testing.T) {
	e := newEnv(t, 120, 40)
	e.key("/")
	foot := func() string {
		lines := strings.Split(e.view(), "\n")
		return strings.TrimRight(lines[len(lines)-1], " ")
	}
	if want := "esc/enter/↓ to the results · ctrl+c quit, even while typing or in a dialog"; foot() != want {
		t.Fatalf("footer while typing\n%q, want\n%q", foot(), want)
	}
	e.typeText("?q")
	if v := e.m.panes[1].(*searchPane).input.Value(); v != "?q" || e.m.dialog != nil {
		t.Fatalf("box %q, dialog %T", v, e.m.dialog)
	}
	e.key("esc")
	if !strings.HasSuffix(foot(), "? all keys · q quit") {
		t.Fatalf("footer after esc %q", foot())
	}
}

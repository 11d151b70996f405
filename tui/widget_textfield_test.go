package tui

import (
	"testing"

	tea "charm.land/bubbletea/v2"
)

// Every text field takes typing at its cursor and a paste from the
// terminal, the same way: a dialog's paste went to the pane under it.
func TestEveryTextFieldTypesAndPastes(t *testing.T) {
	e := newEnv(t, 120, 40)
	for _, c := range []struct {
		name  string
		open  []string
		value func() string
	}{
		{"jump", []string{":"}, func() string { return e.m.dialog.(*textPrompt).input.Value() }},
		{"player picker", []string{"p"}, func() string { return e.m.dialog.(*playerPicker).filter.Value() }},
		{"add player", []string{"A"}, func() string { return e.m.dialog.(*addPlayerDialog).name.Value() }},
		{"alerts", []string{"P"}, func() string { return e.m.dialog.(*alertsDialog).input.Value() }},
		{"economy", []string{"$"}, func() string { return e.m.dialog.(*economyDialog).input.Value() }},
		{"transactions filter", []string{"5", "f"}, func() string { return e.m.dialog.(*textPrompt).input.Value() }},
		{"help filter", []string{"1", "?", "/"}, func() string { return e.m.dialog.(*pagerDialog).filter.Value() }},
		{"status history filter", []string{"1", "L", "/"}, func() string { return e.m.dialog.(*pagerDialog).filter.Value() }},
	} {
		for _, k := range c.open {
			e.key(k)
		}
		e.typeText("ab")
		e.send(tea.PasteMsg{Content: "cd"})
		e.typeText("e")
		if got := c.value(); got != "abcde" {
			t.Errorf("%s: %q after typing ab, pasting cd and typing e", c.name, got)
		}
		e.key("esc")
		e.key("esc")
		if e.m.dialog != nil {
			t.Fatalf("%s: still open", c.name)
		}
	}
	e.key("/")
	e.typeText("ab")
	e.send(tea.PasteMsg{Content: "cd"})
	if got := e.m.panes[1].(*searchPane).input.Value(); got != "abcd" {
		t.Errorf("search box: %q", got)
	}
}

// A keystroke refused at the limit leaves the field exactly as it was,
// wherever the cursor is.
func TestTextFieldRefusalInTheMiddleChangesNothing(t *testing.T) {
	e := envOn(t, emptyStore(t), 120, 40)
	e.key("A")
	d := e.m.dialog.(*addPlayerDialog)
	e.typeText("Jan_Kowalski_123")
	for range 3 {
		e.send(tea.KeyPressMsg{Code: tea.KeyLeft})
	}
	e.typeText("X")
	if d.name.Value() != "Jan_Kowalski_123" {
		t.Fatalf("name %q after a refused X", d.name.Value())
	}
	e.mustContain("⚠ at most 16 characters")
	e.key("backspace")
	e.typeText("Y")
	if d.name.Value() != "Jan_KowalskiY123" {
		t.Fatalf("name %q, want the Y at the cursor", d.name.Value())
	}
}

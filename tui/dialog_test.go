package tui

import (
	"testing"

	"charm.land/bubbles/v2/key"
)

// TestEveryDialogClosesWithTheKeyItsHelpShows: the footer of every dialog
// on dialogBase offers the one key that closes it, and that key does; in
// a dialog typed into, q is text and n too, so only esc closes it.
func TestEveryDialogClosesWithTheKeyItsHelpShows(t *testing.T) {
	e := newEnv(t, 120, 40)
	// An order to sell into and to cancel on the Orders pane.
	if _, err := e.svc.PlaceOrder(e.m.c.Actor, "OAK_LOG", 10, 1, 0); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name   string
		open   []string
		typing bool
	}{
		{"confirm", []string{"1", "b"}, false},
		{"category", []string{"1", "c"}, false},
		{"refund", []string{"5", "U"}, false},
		{"rate", []string{"5", "*"}, false},
		{"relist", []string{"1", "M"}, false},
		{"sell", []string{"1", "s"}, true},
		{"player picker", []string{"1", "p"}, true},
		{"add a player", []string{"1", "A"}, true},
		{"alerts", []string{"1", "P"}, true},
		{"economy", []string{"1", "$"}, true},
		{"jump", []string{"1", ":"}, true},
		{"transactions filter", []string{"5", "f"}, true},
		{"place a buy order", []string{"7", "o"}, true},
		{"sell into a buy order", []string{"7", "f"}, true},
		{"cancel a buy order", []string{"7", "d"}, false},
		{"the book's material", []string{"7", "c"}, true},
	} {
		for _, k := range c.open {
			e.key(k)
		}
		d := e.m.dialog
		if d == nil {
			t.Fatalf("%s: no dialog opened: %q", c.name, e.status())
		}
		var closing *key.Binding
		for _, b := range d.Help() {
			if b.Help().Desc == "cancel" {
				closing = &b
			}
		}
		if closing == nil {
			t.Fatalf("%s (%T): the help offers no key to cancel", c.name, d)
		}
		if c.typing {
			for _, k := range []string{"q", "n"} {
				e.key(k)
				if e.m.dialog != d {
					t.Fatalf("%s: %s closed a dialog typed into", c.name, k)
				}
			}
		}
		e.key(closing.Keys()[0])
		if e.m.dialog != nil {
			t.Fatalf("%s: %q, the help's cancel key, left %T open", c.name, closing.Keys()[0], e.m.dialog)
		}
	}
}

package tui

import (
	"strings"
	"testing"

	"github.com/rynek/rynek/market"
)

// TestRelistFromTheConsole: M lists the acting player's relistable mailbox
// entries; enter puts the chosen one back at its price. An empty choice is
// said, not shown as an empty dialog.
func TestRelistFromTheConsole(t *testing.T) {
	e := newEnv(t, 120, 40)
	actor := e.m.c.Actor
	e.key("M")
	if e.m.dialog != nil || !strings.HasPrefix(e.status(), "nothing in "+actor.Name+"'s mailbox was listed before") {
		// The seeded actor may have expired listings already; then the
		// picker is right to open.
		if _, ok := e.m.dialog.(*relistPicker); !ok {
			t.Fatalf("M: dialog %T, status %q", e.m.dialog, e.status())
		}
		e.key("esc")
	}
	l, err := e.svc.SellItem(actor, firstStack(t, e, actor), 77.7)
	must(t, err)
	e.key("}") // a day
	for range 7 {
		e.key("}")
	}
	// The timer sweeps the week's expiries a time-sized batch a tick.
	sweepUntilDone(t, e)
	e.key("M")
	d, ok := e.m.dialog.(*relistPicker)
	if !ok {
		t.Fatalf("M after an expiry: dialog %T, status %q", e.m.dialog, e.status())
	}
	for range d.entries {
		if d.entries[d.cursor].Item.ID == l.Item.ID {
			break
		}
		e.key("down")
	}
	e.mustContain("Relist from the mailbox")
	e.mustContain("77.70")
	e.key("enter")
	if e.m.dialog != nil || !strings.HasPrefix(e.status(), "relisted #") || !strings.Contains(e.status(), "for 77.70") {
		t.Fatalf("dialog %T, status %q", e.m.dialog, e.status())
	}
}

// firstStack is p's first inventory stack.
func firstStack(t *testing.T, e *testEnv, p market.Player) market.ItemStack {
	t.Helper()
	st, err := e.svc.GetPlayer(p.ID)
	must(t, err)
	for _, it := range st.Inventory {
		if it != nil {
			return *it
		}
	}
	t.Fatalf("%s has an empty inventory", p.Name)
	return market.ItemStack{}
}

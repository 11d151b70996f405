package tui

import (
	"strconv"
	"strings"
	"testing"
)

// TestEconomyDialog: $ moves money and items into and out of the market for
// the acting player, through the issuance account; what the console cannot
// read and what the market refuses keep the dialog open with the reason.
func TestEconomyDialog(t *testing.T) {
	e := newEnv(t, 120, 40)
	actor := e.m.c.Actor
	before, err := e.svc.GetPlayer(actor.ID)
	must(t, err)
	open := func() *economyDialog {
		t.Helper()
		e.key("$")
		d, ok := e.m.dialog.(*economyDialog)
		if !ok {
			t.Fatalf("$ opened %T", e.m.dialog)
		}
		return d
	}
	refused := func(d *economyDialog, typed, want string) {
		t.Helper()
		e.typeText(typed)
		e.key("enter")
		if e.m.dialog != d || d.err != want {
			t.Fatalf("%q: dialog %T, error %q, want %q", typed, e.m.dialog, d.err, want)
		}
		e.mustContain(want)
		for range len(typed) {
			e.key("backspace")
		}
	}

	d := open()
	e.mustContain("Money and items from outside")
	refused(d, "lots", `the amount must be a number like 100.00, not "lots"`)
	refused(d, "0.001", "deposit 0.001 has more than 2 decimals [INVALID_PRICE]")
	e.typeText("250.50")
	e.key("enter")
	if e.m.dialog != nil {
		t.Fatalf("the dialog stayed: %q", d.err)
	}
	want := "deposited 250.50 to " + actor.Name + ", balance now " + money(before.Balance+250.5) + " (issuance account: Stats pane)"
	if e.status() != want {
		t.Fatalf("status %q, want %q", e.status(), want)
	}

	d = open()
	e.key("right") // withdraw
	refused(d, "99999999", actor.Name+" has "+strings.ReplaceAll(money(before.Balance+250.5), " ", "")+
		", less than the withdrawal of 99999999.00 [INSUFFICIENT_FUNDS]")
	e.key("esc")

	d = open()
	e.key("left") // take an item (wraps around)
	if d.kind != issueTake {
		t.Fatalf("left from deposit chose %s", d.kind)
	}
	e.key("left") // give an item
	refused(d, "EMERALD many", `the amount must be a whole number, not "many"`)
	refused(d, "DIAMOND 65", "amount 65 of DIAMOND is outside 1..64 [INVALID_ITEM]")
	e.key("esc")
	d = open()
	e.key("right")
	e.key("right") // give
	e.typeText("EMERALD 16")
	e.key("enter")
	if e.m.dialog != nil || !strings.HasPrefix(e.status(), "gave Emerald ×16 to "+actor.Name+"'s ") {
		t.Fatalf("dialog %T, status %q", e.m.dialog, e.status())
	}

	d = open()
	e.key("left") // take
	refused(d, "0", "slot 0 is not an inventory slot (1 to 36) [ITEM_NOT_IN_INVENTORY]")
	st, err := e.svc.GetPlayer(actor.ID)
	must(t, err)
	slot := 0
	for i, it := range st.Inventory {
		if it != nil {
			slot = i + 1
			break
		}
	}
	e.typeText(strconv.Itoa(slot))
	e.key("enter")
	if e.m.dialog != nil || !strings.HasPrefix(e.status(), "took ") {
		t.Fatalf("dialog %T, status %q", e.m.dialog, e.status())
	}

	a, err := e.svc.Audit()
	must(t, err)
	if a.Issued.MoneyIn != 250_50 || a.Issued.MoneyOut != 0 || a.Issued.ItemsIn != 16 || a.Issued.ItemsOut != int64(st.Inventory[slot-1].Amount) {
		t.Fatalf("issued %v", a.Issued)
	}
	e.key("4")
	e.mustContain("Issued  money in 250.50")
}

package tui

import (
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
	"github.com/rynek/rynek/market"
)

// envWithSeller is a console over an empty market with one player, the
// acting one, holding the stacks given.
func envWithSeller(t *testing.T, w, h int, items ...market.ItemStack) *testEnv {
	t.Helper()
	e := envOn(t, emptyStore(t), w, h)
	p, err := e.svc.AddPlayer(market.NewPlayer{Name: "Sprzedawca", Balance: 1000, Items: items})
	must(t, err)
	e.m.c.Actor = p
	return e
}

// mustContainStyled checks the styled screen for s.
func (e *testEnv) mustContainStyled(s string) {
	e.t.Helper()
	if v := e.m.View().Content; !strings.Contains(v, s) {
		e.t.Fatalf("screen lacks %q:\n%s", s, e.view())
	}
}

// The sell dialog's fields start with values the console proposes: the
// whole stack and a price. They show selected and typing replaces them; a
// movement key keeps them, with the cursor after the value. Before, the
// cursor kept its index from the stack chosen before: "1" then "16" left it
// before the 6, and 9 made "196".
func TestSellDialogTypingReplacesTheProposal(t *testing.T) {
	e := envWithSeller(t, 120, 40, market.ItemStack{Material: "DIAMOND", Amount: 1},
		market.ItemStack{Material: "EMERALD", Amount: 16})
	e.key("s")
	d := e.m.dialog.(*sellDialog)
	e.key("down") // the 16 emeralds, after the single diamond
	if d.amount.Value() != "16" {
		t.Fatalf("amount %q, want the stack's 16", d.amount.Value())
	}
	e.send(tea.KeyPressMsg{Code: tea.KeyTab, Mod: tea.ModShift}) // from the price back to the amount
	e.mustContainStyled(e.m.c.Styles.Cursor.Render("16"))
	e.typeText("9")
	if d.amount.Value() != "9" {
		t.Fatalf("16 selected, then 9: amount %q, want 9", d.amount.Value())
	}
	e.typeText("1") // the user's own text: appended
	if d.amount.Value() != "91" || d.err != "the stack holds 16: sell 1 to 16 of it, not 91" {
		t.Fatalf("then 1: amount %q, error %q", d.amount.Value(), d.err)
	}

	// A proposal longer than the one before it (the price summary arrives):
	// replaced too.
	e.key("up")
	e.key("down")
	e.key("end") // keeps the proposal, the cursor after it
	e.typeText("0")
	if d.amount.Value() != "160" {
		t.Fatalf("end, then 0: amount %q, want 160", d.amount.Value())
	}
	e.key("tab")
	e.send(dialogMsg{to: d, msg: priceSummariesMsg{"EMERALD": market.PriceSummary{
		Week: market.PriceWindow{Sales: 3, Min: 10, Median: 16.255, Max: 20}}}})
	if d.price.Value() != "260.08" || d.amount.Value() != "160" {
		t.Fatalf("after the summary: price %q, want 16 × 16.255 = 260.08; amount %q, want the 160 typed", d.price.Value(), d.amount.Value())
	}
	e.typeText("9")
	if d.price.Value() != "9" {
		t.Fatalf("260.08 selected, then 9: price %q, want 9", d.price.Value())
	}
}

// The first tab goes to the first field that shows (the amount), not to an
// invisible stop where what was typed vanished.
func TestSellDialogTabMovesBetweenItsFields(t *testing.T) {
	e := envWithSeller(t, 120, 40, market.ItemStack{Material: "EMERALD", Amount: 16})
	e.key("s")
	d := e.m.dialog.(*sellDialog)
	e.key("tab")
	e.typeText("5")
	if d.amount.Value() != "5" {
		t.Fatalf("tab, then 5: amount %q", d.amount.Value())
	}
	e.key("tab")
	e.typeText("7")
	if d.price.Value() != "7" || d.amount.Value() != "5" {
		t.Fatalf("tab, then 7: amount %q, price %q", d.amount.Value(), d.price.Value())
	}
	e.key("tab")
	e.typeText("2")
	if d.amount.Value() != "52" {
		t.Fatalf("a third tab, then 2: amount %q", d.amount.Value())
	}
}

// The amount takes what is typed, and says why when it is more than the
// stack holds; before, it kept 3 characters (12345 became 123).
func TestSellAmountSaysWhyInsteadOfDroppingDigits(t *testing.T) {
	e := envWithSeller(t, 120, 40, market.ItemStack{Material: "EMERALD", Amount: 16})
	e.key("s")
	d := e.m.dialog.(*sellDialog)
	e.key("tab")
	e.typeText("12345")
	want := "the stack holds 16: sell 1 to 16 of it, not 12345"
	if d.amount.Value() != "12345" || d.err != want {
		t.Fatalf("amount %q, error %q", d.amount.Value(), d.err)
	}
	e.mustContain(want)
	e.key("enter")
	if e.m.dialog != d {
		t.Fatal("an amount beyond the stack was listed")
	}
	for _, c := range []struct{ typed, want string }{
		{"0", `the amount is a whole number from 1 to 16, not "0"`},
		{"x", `the amount is a whole number from 1 to 16, not "x"`},
		{"", "type the amount: 1 to 16"},
	} {
		for range 6 {
			e.key("backspace")
		}
		e.typeText(c.typed)
		if d.err != c.want {
			t.Errorf("%q: error %q, want %q", c.typed, d.err, c.want)
		}
	}
}

// The add-player dialog proposes a balance: typing replaces it. A name
// longer than the game allows is refused at its 17th character, and the
// field says so.
func TestAddPlayerDialogProposalAndLimit(t *testing.T) {
	e := envOn(t, emptyStore(t), 120, 40)
	e.key("A")
	d := e.m.dialog.(*addPlayerDialog)
	e.typeText("Jan_Kowalski_12345")
	if d.name.Value() != "Jan_Kowalski_123" {
		t.Fatalf("name %q", d.name.Value())
	}
	e.mustContain("⚠ at most 16 characters")
	e.key("backspace")
	if v := e.view(); strings.Contains(v, "at most 16") {
		t.Fatal("the note stayed after an edit")
	}
	e.key("tab")
	e.typeText("250")
	if d.balance.Value() != "250" {
		t.Fatalf("balance %q, want 250 typed over the proposed 1000.00", d.balance.Value())
	}
	e.key("enter")
	if e.status() != "added player Jan_Kowalski_12, balance 250.00, 5 stacks; acting as Jan_Kowalski_12 (p picks another)" {
		t.Fatalf("status %q", e.status())
	}
}

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

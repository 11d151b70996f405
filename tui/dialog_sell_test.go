package tui

import (
	"fmt"
	"math"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/rynek/rynek/market"
	"github.com/rynek/rynek/seed"
)

func TestSellFromDialogPublishesEvent(t *testing.T) {
	e := newEnv(t, 120, 40)
	before, _ := e.svc.GetActiveListingsCount()
	e.key("s")
	if _, ok := e.m.dialog.(*sellDialog); !ok {
		t.Fatalf("s opened %T", e.m.dialog)
	}
	e.mustContain("Sell as " + e.m.c.Actor.Name)
	e.key("enter")
	if e.m.dialog != nil {
		t.Fatalf("dialog still open: %s", e.view())
	}
	if !strings.Contains(e.status(), "ListingCreatedEvent") {
		t.Fatalf("status %q", e.status())
	}
	if n, _ := e.svc.GetActiveListingsCount(); n != before+1 {
		t.Fatalf("count %d, want %d", n, before+1)
	}
	e.tick()
	e.key("6")
	e.mustContain("ListingCreatedEvent")
	if len(e.m.log.all) != 1 || e.m.log.gaps != 0 {
		t.Fatalf("log %d events, %d gaps", len(e.m.log.all), e.m.log.gaps)
	}
}

func TestSellDialogValidatesInline(t *testing.T) {
	e := newEnv(t, 120, 40)
	e.key("s")
	d := e.m.dialog.(*sellDialog)
	for range 12 {
		e.key("backspace")
	}
	e.typeText("1.005")
	if d.err != "price 1.005 has more than 2 decimals" {
		t.Fatalf("inline error %q", d.err)
	}
	e.key("enter") // refused: stays open, nothing sold
	if e.m.dialog == nil {
		t.Fatal("an invalid price closed the dialog")
	}
	for range 8 {
		e.key("backspace")
	}
	e.typeText("abc")
	if d.err != `price "abc" is not a number` {
		t.Fatalf("inline error %q", d.err)
	}
	e.key("esc")
	if e.m.dialog != nil {
		t.Fatal("esc did not close")
	}
}

// TestSellDialogShowsThePriceSummary: before a price is typed, the sell
// dialog shows the week's unit prices and the cheapest listing on sale, and
// suggests the week's median; a typed price is never replaced.
func TestSellDialogShowsThePriceSummary(t *testing.T) {
	e := newEnv(t, 160, 48)
	e.key("s")
	d, ok := e.m.dialog.(*sellDialog)
	if !ok {
		t.Fatalf("s opened %T", e.m.dialog)
	}
	if d.summaries == nil {
		t.Fatal("the summaries never arrived")
	}
	// Down to a stack whose material sold this week: the seeded player's
	// last purchase is one.
	var sum market.PriceSummary
	for range d.stacks {
		var err error
		sum, err = e.svc.PriceSummary(d.stacks[d.pick].Material)
		must(t, err)
		if sum.Week.Sales > 0 {
			break
		}
		e.key("down")
	}
	st := d.stacks[d.pick]
	if sum.Week.Sales == 0 {
		t.Fatalf("the seeded market sold none of %s's stacks this week: the test needs a sale", e.m.c.Actor.Name)
	}
	e.mustContain("7 days: ")
	e.mustContain(money(sum.Week.Median))
	if want := fmt.Sprintf("%.2f", math.Round(sum.Week.Median*float64(st.Amount)*100)/100); d.price.Value() != want {
		t.Fatalf("suggested %s, want the median's %s", d.price.Value(), want)
	}
	if sum.Cheapest != nil {
		e.mustContain(fmt.Sprintf("each (#%d)", sum.Cheapest.ID))
	} else {
		e.mustContain("none on sale")
	}
	e.key("backspace")
	typed := d.price.Value()
	e.send(dialogMsg{to: d, msg: d.summaries}) // a late answer
	if d.price.Value() != typed {
		t.Fatalf("a summary replaced the typed price %q with %q", typed, d.price.Value())
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

// TestSellDialogKeepsACooldownRefusal: the market's COOLDOWN keeps the
// sell dialog open with the price typed, and the status line says it.
func TestSellDialogKeepsACooldownRefusal(t *testing.T) {
	e := envWith(t, seededStore(t, seed.Options{Players: 20, Listings: 100, Days: 2, Rand: 5}),
		market.Config{ListingCooldown: time.Minute}, 120, 40)
	e.key("s")
	e.key("enter")
	e.key("s")
	d := e.m.dialog.(*sellDialog)
	for range 12 {
		e.key("backspace")
	}
	e.typeText("12.34")
	e.key("enter")
	if e.m.dialog != d || d.err == "" || !strings.HasSuffix(e.status(), "[COOLDOWN]") || d.price.Value() != "12.34" {
		t.Fatalf("after a COOLDOWN: dialog %T, err %q, price %q", e.m.dialog, d.err, d.price.Value())
	}
}

// TestSellAmountWordsFitTheStack: a stack of one is not "1 to 1 of it".
func TestSellAmountWordsFitTheStack(t *testing.T) {
	e := envWithSeller(t, 160, 48, market.ItemStack{Material: "DIAMOND_SWORD", Amount: 1},
		market.ItemStack{Material: "DIAMOND", Amount: 64})
	e.key("s")
	e.key("tab") // the amount, "1", selected
	for _, c := range []struct{ typed, want string }{
		{"40", "the stack holds 1: sell that 1, not 40"},
		{"x", `the amount is 1, the stack holds 1, not "x"`},
		{"", "type the amount: 1, the stack holds 1"},
	} {
		e.key("backspace")
		e.key("backspace")
		e.typeText(c.typed)
		e.mustContain(c.want)
		if strings.Contains(e.view(), "1 to 1") {
			t.Fatalf("%q: 1 to 1:\n%s", c.typed, e.view())
		}
	}
	e.key("down") // the 64
	e.key("backspace")
	e.key("backspace")
	e.typeText("65")
	e.mustContain("the stack holds 64: sell 1 to 64 of it, not 65")
}

package tui

import (
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
	"github.com/rynek/rynek/market"
	"github.com/rynek/rynek/market/catalog"
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

// TestSearchSortsAndFilters: Search sorts and filters like Listings
// ("cheapest diamond sword" two keys away), and shows the sort on the column
// header.
func TestSearchSortsAndFilters(t *testing.T) {
	e := newEnv(t, 120, 40)
	e.key("/")
	e.typeText("diamond")
	e.key("esc")
	e.key("o")
	e.key("o")
	sp := e.m.panes[1].(*searchPane)
	if sp.table.q.Sort != market.SortCheapest || sp.table.q.Text != "diamond" {
		t.Fatalf("query %+v", sp.table.q)
	}
	e.mustContain("▲price")
	var last float64
	for _, l := range sp.table.win {
		if l.Price < last {
			t.Fatalf("not cheapest first: %v after %v", l.Price, last)
		}
		last = l.Price
	}
	e.key("c")
	if _, ok := e.m.dialog.(*categoryPicker); !ok {
		t.Fatalf("c opened %T", e.m.dialog)
	}
	e.key("down")
	e.key("enter")
	if sp.table.q.Category != catalog.CategoryTools || sp.table.q.Text != "diamond" {
		t.Fatalf("after the picker: %+v", sp.table.q)
	}
}

func TestSearchAsYouTypeDropsStaleResults(t *testing.T) {
	e := newEnv(t, 120, 40)
	e.key("/")
	sp := e.m.panes[1].(*searchPane)
	if !sp.TextFocused() {
		t.Fatal("search box not focused")
	}
	e.typeText("diamond")
	if sp.text != "diamond" || sp.table.total == 0 {
		t.Fatalf("result for %q: %d", sp.text, sp.table.total)
	}
	want := sp.table.total
	// A late answer for an older text is ignored.
	_, _ = e.m.Update(searchResultMsg{seq: sp.seq - 3, text: "d", page: market.Page{Total: 999999}})
	if sp.table.total != want || sp.text != "diamond" {
		t.Fatalf("stale result applied: %q %d", sp.text, sp.table.total)
	}
	e.mustContain("for \"diamond\"")
	// Typed letters go to the box, not to global commands.
	e.typeText(" q")
	if e.m.dialog != nil || sp.input.Value() != "diamond q" {
		t.Fatalf("input %q", sp.input.Value())
	}
}

// TestSearchWithRangeFilters: the search box's price: and amount: filters
// reach the market's Query, stay while paging and sorting, and a bad one is
// shown instead of results.
func TestSearchWithRangeFilters(t *testing.T) {
	e := newEnv(t, 120, 40)
	e.key("/")
	e.typeText("price:5..500 amount:2..32")
	e.key("esc")
	sp := e.m.panes[1].(*searchPane)
	if q := sp.table.q; q.MinPrice != 5_00 || q.MaxPrice != 500_00 || q.MinAmount != 2 || q.MaxAmount != 32 || q.Text != "" {
		t.Fatalf("query %+v", q)
	}
	if sp.table.total == 0 {
		t.Fatal("no listing matched")
	}
	e.key("o") // another sort keeps the filters
	for _, l := range sp.table.win {
		if l.Price < 5 || l.Price > 500 || l.Item.Amount < 2 || l.Item.Amount > 32 {
			t.Fatalf("listing #%d (%v, ×%d) passed the filters", l.ID, l.Price, l.Item.Amount)
		}
	}
	e.key("/")
	e.typeText(" price:nope")
	e.key("esc")
	e.mustContain(`price:nope: price "nope" is not a number`)
}

// The empty Search pane's hint says how to start typing: until / gives the
// box the cursor, letters and digits are keys (o sorts, 1-6 switch panes),
// and "type to search" had a new user type #61 into a pane switch.
func TestSearchHintSaysHowToType(t *testing.T) {
	e := newEnv(t, 160, 40)
	e.key("2")
	hint := func() string { return strings.TrimRight(strings.Split(e.view(), "\n")[3], " ") }
	want := "press / to search: words match names, lore, enchantments and sellers; #id finds one listing; price:lo..hi, amount:lo..hi filter"
	if got := hint(); got != want {
		t.Fatalf("before /:\n%q, want\n%q", got, want)
	}
	e.key("/")
	if got := hint(); !strings.HasPrefix(got, "type to search: words match") {
		t.Fatalf("after /: %q", got)
	}
}

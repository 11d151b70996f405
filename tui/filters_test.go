package tui

import "testing"

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

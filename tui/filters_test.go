package tui

import (
	"strings"
	"testing"

	"github.com/rynek/rynek/market"
)

func TestRangeFilters(t *testing.T) {
	cfg := market.Config{MinPrice: 1_00, MaxPrice: 1_000_000_00}
	for _, c := range []struct {
		text, words string
		want        market.Query
		err         string
	}{
		{"diamond sword", "diamond sword", market.Query{}, ""},
		{"diamond price:10..200", "diamond", market.Query{MinPrice: 10_00, MaxPrice: 200_00}, ""},
		{"PRICE:..50 łódź", "łódź", market.Query{MaxPrice: 50_00}, ""},
		{"price:100..", "", market.Query{MinPrice: 100_00}, ""},
		{"price:50", "", market.Query{MaxPrice: 50_00}, ""},
		{"amount:64 logs", "logs", market.Query{MinAmount: 64, MaxAmount: 64}, ""},
		{"amount:16..32", "", market.Query{MinAmount: 16, MaxAmount: 32}, ""},
		{"amount:32..", "", market.Query{MinAmount: 32}, ""},
		{"url:http://x", "url:http://x", market.Query{}, ""},
		{"price:abc", "", market.Query{}, `price:abc: price "abc" is not a number`},
		{"price:200..10", "", market.Query{}, "price:200..10: 200 is above 10"},
		{"price:..", "", market.Query{}, "price:..: give at least one end, as in 10..200"},
		{"amount:0", "", market.Query{}, `amount:0: an amount is a whole number from 1 to 99, not "0"`},
		{"amount:5..x", "", market.Query{}, `amount:5..x: an amount is a whole number from 1 to 99, not "x"`},
	} {
		var q market.Query
		words, err := rangeFilters(c.text, cfg, &q)
		if c.err != "" {
			if err == nil || err.Error() != c.err {
				t.Errorf("%q: error %v, want %q", c.text, err, c.err)
			}
			continue
		}
		if err != nil || words != c.words || q != c.want {
			t.Errorf("%q: %q %+v %v, want %q %+v", c.text, words, q, err, c.words, c.want)
		}
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

// FuzzRangeFilters checks that any text typed into the search box either
// gives filters the market accepts or an error, never a panic, and that the
// words it leaves are the text's own.
func FuzzRangeFilters(f *testing.F) {
	for _, s := range []string{"diamond price:10..200", "amount:64", "price:..", "price:1..2..3", "amount:-1", "PRICE:5,5", "price:", ":"} {
		f.Add(s)
	}
	cfg := market.Config{MinPrice: 1_00, MaxPrice: 1_000_000_00}
	f.Fuzz(func(t *testing.T, text string) {
		if len(text) > market.MaxQueryTextBytes {
			return // the search box holds no more (and the check below is quadratic)
		}
		var q market.Query
		words, err := rangeFilters(text, cfg, &q)
		if err != nil {
			return
		}
		if q.MinPrice < 0 || q.MaxPrice < 0 || q.MaxPrice > 0 && q.MinPrice > q.MaxPrice ||
			q.MinAmount < 0 || q.MaxAmount > market.MaxItemStack || q.MaxAmount > 0 && q.MinAmount > q.MaxAmount {
			t.Fatalf("%q gave the ranges %+v", text, q)
		}
		for _, w := range strings.Fields(words) {
			if !strings.Contains(text, w) {
				t.Fatalf("%q left the word %q", text, w)
			}
		}
	})
}

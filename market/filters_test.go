package market_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/rynek/rynek/market"
	"github.com/rynek/rynek/market/catalog"
)

// TestParseQuery: the search box's range filters become the Query's
// bounds, the rest its text; a bad filter is refused with its text and
// what it allows.
func TestParseQuery(t *testing.T) {
	const lo, hi = 1_00, 1_000_000_00
	for _, c := range []struct {
		text string
		want market.Query
		err  string
	}{
		{"diamond sword", market.Query{Text: "diamond sword"}, ""},
		{"diamond price:10..200", market.Query{Text: "diamond", MinPrice: 10_00, MaxPrice: 200_00}, ""},
		{"PRICE:..50 łódź", market.Query{Text: "łódź", MaxPrice: 50_00}, ""},
		{"price:100..", market.Query{MinPrice: 100_00}, ""},
		{"price:50", market.Query{MaxPrice: 50_00}, ""},
		{"price:12,50..1_000", market.Query{MinPrice: 12_50, MaxPrice: 1000_00}, ""},
		{"amount:64 logs", market.Query{Text: "logs", MinAmount: 64, MaxAmount: 64}, ""},
		{"amount:16..32 #12", market.Query{Text: "#12", MinAmount: 16, MaxAmount: 32}, ""},
		{"amount:32..", market.Query{MinAmount: 32}, ""},
		{"url:http://x", market.Query{Text: "url:http://x"}, ""},
		{"  diament   miecz  ", market.Query{Text: "diament miecz"}, ""},
		{"price:abc", market.Query{}, `price:abc: price "abc" is not a number`},
		{"price:-5", market.Query{}, `price:-5: price "-5" is negative; prices are 1.00 to 1000000.00`},
		{"price:0.001", market.Query{}, "price:0.001: price 0.001 has more than 2 decimals"},
		{"price:..2000000", market.Query{}, "price:..2000000: price 2000000 is outside 1.00..1000000.00"},
		{"price:200..10", market.Query{}, "price:200..10: 200 is above 10"},
		{"price:..", market.Query{}, "price:..: give at least one end, as in 10..200"},
		{"amount:0", market.Query{}, `amount:0: an amount is a whole number from 1 to 99, not "0"`},
		{"amount:5..x", market.Query{}, `amount:5..x: an amount is a whole number from 1 to 99, not "x"`},
		{"miecz kind:auction", market.Query{Text: "miecz", Kind: "auction"}, ""},
		{"KIND:Fixed", market.Query{Kind: "fixed"}, ""},
		{"kind:barter", market.Query{}, "kind:barter: a kind is auction or fixed"},
		{"#-1", market.Query{}, `#-1: a listing id is a whole number from 1 to 2147483647, got "-1"`},
		{"miecz #99999999999999999999", market.Query{}, `#99999999999999999999: a listing id is a whole number from 1 to 2147483647, got "99999999999999999999"`},
		{"#0", market.Query{}, `#0: a listing id is a whole number from 1 to 2147483647, got "0"`},
		{"#+5", market.Query{}, `#+5: a listing id is a whole number from 1 to 2147483647, got "+5"`},
		{"#2147483648", market.Query{}, `#2147483648: a listing id is a whole number from 1 to 2147483647, got "2147483648"`},
		{"#2147483647 #abc # #--1", market.Query{Text: "#2147483647 #abc # #--1"}, ""},
	} {
		q, err := market.ParseQuery(c.text, lo, hi)
		if c.err != "" {
			var me *market.Error
			if err == nil || err.Error() != c.err || !errors.As(err, &me) || me.Code != market.CodeInvalidQuery {
				t.Errorf("%q: error %v, want %q", c.text, err, c.err)
			}
			continue
		}
		if err != nil || q != c.want {
			t.Errorf("%q: %+v %v, want %+v", c.text, q, err, c.want)
		}
	}
}

// FuzzRangeFilters checks that any text typed into the search box either
// gives filters the market accepts or an error, never a panic, and that the
// words it leaves are the text's own.
func FuzzRangeFilters(f *testing.F) {
	for _, s := range []string{"diamond price:10..200", "amount:64", "price:..", "price:1..2..3", "amount:-1", "PRICE:5,5", "price:", ":"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		if len(text) > market.MaxQueryTextBytes {
			return // the search box holds no more (and the check below is quadratic)
		}
		q, err := market.ParseQuery(text, 1_00, 1_000_000_00)
		if err != nil {
			return
		}
		if q.MinPrice < 0 || q.MaxPrice < 0 || q.MaxPrice > 0 && q.MinPrice > q.MaxPrice ||
			q.MinAmount < 0 || q.MaxAmount > catalog.MaxItemStack || q.MaxAmount > 0 && q.MinAmount > q.MaxAmount {
			t.Fatalf("%q gave the ranges %+v", text, q)
		}
		for _, w := range strings.Fields(q.Text) {
			if !strings.Contains(text, w) {
				t.Fatalf("%q left the word %q", text, w)
			}
		}
	})
}

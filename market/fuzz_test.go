package market_test

import (
	"errors"
	"testing"

	"github.com/rynek/rynek/market"
)

// FuzzSearch runs arbitrary query text against a loaded market: no panic,
// results are typed errors or pages whose total matches the page.
func FuzzSearch(f *testing.F) {
	svc := searchWorld(f, 500, 9)
	for _, s := range []string{"", "a", "diamond sword", "#3", "łódź", "\x00", "§", "#-1", "zz zz zz"} {
		f.Add(s, uint8(0), 0)
	}
	f.Fuzz(func(t *testing.T, text string, sort uint8, offset int) {
		p, err := svc.Query(market.Query{Text: text, Sort: market.SortMode(sort % 8), Offset: offset % 1000, Limit: 50})
		if err != nil {
			var e *market.Error
			if !errors.As(err, &e) || e.Code != market.CodeInvalidQuery {
				t.Fatalf("untyped error %v", err)
			}
			return
		}
		if len(p.Listings) > 50 || p.Total < len(p.Listings) {
			t.Fatalf("page %d of total %d", len(p.Listings), p.Total)
		}
	})
}

package httpapi

import (
	"errors"
	"net/url"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/rynek/rynek/market"
)

// FuzzParseListingQuery: any query string is either refused with a 400
// problem naming what is wrong (404 player-not-found for the nil UUID as
// seller, which names nobody), or becomes a query within the API's
// bounds, and a cursor made for a query is accepted back with it.
func FuzzParseListingQuery(f *testing.F) {
	for _, s := range []string{"", "limit=10", "q=diament&sort=price&limit=500", "category=tools&material=oak_log",
		"min_price=1,50&max_price=1 000", "seller=01234567-89ab-4cde-8f01-23456789abcd", "cursor=AUwAAgqqqqqqqqqq",
		"q=%ff", "limit=-1", "sort=price_desc&cursor=", "a=1&a=2", "q=" + strings.Repeat("x", 1100), "%zz", "q=a;b",
		"limit=", "kind=", "min_price=", "q=", "q=%23-1", "q=%2399999999999999999999", "q=%230", "seller=00000000-0000-0000-0000-000000000000"} {
		f.Add(s)
	}
	cfg := market.DefaultConfig()
	f.Fuzz(func(t *testing.T, raw string) {
		q, err := parseListingQuery(raw, cfg.MinPrice, cfg.MaxPrice)
		if err != nil {
			var pe *problemError
			if !errors.As(err, &pe) || (pe.status != 400 && (pe.status != 404 || pe.code != CodePlayerNotFound)) || pe.detail == "" ||
				!utf8.ValidString(pe.detail) {
				t.Fatalf("%q: error %v is not a 400 problem", raw, err)
			}
			return
		}
		if q.Limit < 1 || q.Limit > MaxLimit || len(q.Text) > market.MaxQueryTextBytes || !utf8.ValidString(q.Text) ||
			q.MinPrice < 0 || q.MaxPrice < 0 || (q.MaxPrice > 0 && q.MinPrice > q.MaxPrice) {
			t.Fatalf("%q: out of bounds: %+v", raw, q)
		}
		if q.After != nil && (q.After.Sort != q.Sort || q.After.ID < 1) {
			t.Fatalf("%q: cursor %+v for sort %d", raw, q.After, q.Sort)
		}
		// A cursor this API makes for the query is accepted back with it.
		v, _ := url.ParseQuery(raw)
		v.Set("cursor", encodeListingCursor(market.Cursor{Sort: q.Sort, Key: 12345, ID: 77}, q))
		back, err := parseListingQuery(v.Encode(), cfg.MinPrice, cfg.MaxPrice)
		if err != nil || back.After == nil || back.After.ID != 77 || back.After.Key != 12345 {
			t.Fatalf("%q: its own cursor came back as %+v, %v", raw, back.After, err)
		}
	})
}

// FuzzHistoryCursor: any cursor text is refused as a bad cursor or is a
// position, and every position survives its round trip.
func FuzzHistoryCursor(f *testing.F) {
	f.Add("AUgF")
	f.Add("")
	f.Add(encodeHistoryCursor(1 << 20))
	f.Fuzz(func(t *testing.T, s string) {
		pos, err := decodeHistoryCursor(s)
		if err != nil {
			var pe *problemError
			if !errors.As(err, &pe) || pe.code != CodeBadCursor {
				t.Fatalf("%q: %v", s, err)
			}
			return
		}
		if pos < 1 {
			t.Fatalf("%q: position %d", s, pos)
		}
		if back, err := decodeHistoryCursor(encodeHistoryCursor(pos)); err != nil || back != pos {
			t.Fatalf("position %d came back as %d, %v", pos, back, err)
		}
	})
}

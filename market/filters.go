package market

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/rynek/rynek/market/catalog"
	"github.com/rynek/rynek/market/playertext"
)

// The search box's language, one for the console's search, the HTTP API's
// q parameter and the live board: the words and #ids that Query.Text
// holds, and range filters among them, "price:10..200" (the total price)
// and "amount:16..64" (items in the stack). Either end may be left out
// ("price:..50", "amount:32.."); one number is a price ceiling
// ("price:50") or an exact amount ("amount:64"). Filter names are matched
// without regard to case. What is not a filter is search text.

// ParseQuery turns text typed into a search box into a Query: its range
// filters set MinPrice, MaxPrice, MinAmount and MaxAmount, the rest is its
// Text; nothing else is set. A #id must name a possible listing (1 to
// 2³¹-1). Prices are read as ParsePrice reads them,
// within minPrice..maxPrice (the market's Config). A bad filter is refused
// with a CodeInvalidQuery error that quotes it and says what it allows.
func ParseQuery(text string, minPrice, maxPrice Money) (Query, error) {
	var q Query
	var words []string
	for _, f := range strings.Fields(text) {
		name, value, ok := strings.Cut(f, ":")
		switch {
		case ok && strings.EqualFold(name, "price"):
			lo, hi, err := bounds(value, func(s string) (int64, error) {
				m, err := ParsePrice(s, minPrice, maxPrice)
				return int64(m), err
			})
			if err != nil {
				return Query{}, errf(CodeInvalidQuery, "%s: %v", playertext.Excerpt(f), err)
			}
			if !strings.Contains(value, "..") { // "price:50": at most 50
				lo, hi = 0, lo
			}
			q.MinPrice, q.MaxPrice = Money(lo), Money(hi)
		case ok && strings.EqualFold(name, "amount"):
			lo, hi, err := bounds(value, func(s string) (int64, error) {
				n, err := strconv.Atoi(s)
				if err != nil || n < 1 || n > catalog.MaxItemStack {
					return 0, fmt.Errorf("an amount is a whole number from 1 to %d, not %q", catalog.MaxItemStack, playertext.Excerpt(s))
				}
				return int64(n), nil
			})
			if err != nil {
				return Query{}, errf(CodeInvalidQuery, "%s: %v", playertext.Excerpt(f), err)
			}
			if !strings.Contains(value, "..") { // "amount:64": exactly 64
				hi = lo
			}
			q.MinAmount, q.MaxAmount = int(lo), int(hi)
		case ok && strings.EqualFold(name, "kind"):
			switch strings.ToLower(value) {
			case "auction", "fixed":
				q.Kind = strings.ToLower(value)
			default:
				return Query{}, errf(CodeInvalidQuery, "%s: a kind is auction or fixed", playertext.Excerpt(f))
			}
		case isListingRef(f):
			if n, err := strconv.Atoi(f[1:]); err != nil || n < 1 || n > 1<<31-1 || f[1] == '+' {
				return Query{}, errf(CodeInvalidQuery, "%s: a listing id is a whole number from 1 to %d, got %q", playertext.Excerpt(f), 1<<31-1, playertext.Excerpt(f[1:]))
			}
			words = append(words, f)
		default:
			words = append(words, f)
		}
	}
	q.Text = strings.Join(words, " ")
	return q, nil
}

// isListingRef reports whether a word is meant as a listing's id: "#"
// then digits, perhaps signed. One that names no listing ("#0", "#-1", a
// number past the ids) is refused, as the same id in a path is, instead of
// being searched as text or for an id that cannot exist.
func isListingRef(f string) bool {
	digits := strings.TrimLeft(f[min(len(f), 1):], "+-")
	if len(f) < 2 || f[0] != '#' || len(digits) < len(f)-2 || digits == "" {
		return false
	}
	return strings.Trim(digits, "0123456789") == ""
}

// bounds reads "lo..hi", "lo..", "..hi" or "n" (returned as lo) with parse.
func bounds(value string, parse func(string) (int64, error)) (lo, hi int64, err error) {
	from, to, isRange := strings.Cut(value, "..")
	if !isRange {
		lo, err = parse(value)
		return lo, 0, err
	}
	if from == "" && to == "" {
		return 0, 0, fmt.Errorf("give at least one end, as in 10..200")
	}
	if from != "" {
		if lo, err = parse(from); err != nil {
			return 0, 0, err
		}
	}
	if to != "" {
		if hi, err = parse(to); err != nil {
			return 0, 0, err
		}
	}
	if hi > 0 && lo > hi {
		return 0, 0, fmt.Errorf("%s is above %s", playertext.Excerpt(from), playertext.Excerpt(to))
	}
	return lo, hi, nil
}

package tui

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/rynek/rynek/market"
)

// Range filters typed into the search box with the words: "price:10..200"
// (total price), "amount:16..64" (items in the stack). Either end may be
// left out ("price:..50", "amount:32.."); one number is an exact amount
// ("amount:64") or a price ceiling ("price:50"). What is not a filter is the
// search text.

// rangeFilters reads the filters out of text into q and returns the rest.
// cfg bounds prices as the market does.
func rangeFilters(text string, cfg market.Config, q *market.Query) (string, error) {
	var words []string
	for _, f := range strings.Fields(text) {
		name, value, ok := strings.Cut(f, ":")
		switch {
		case ok && strings.EqualFold(name, "price"):
			lo, hi, err := bounds(value, func(s string) (int64, error) {
				m, err := market.ParsePrice(s, cfg.MinPrice, cfg.MaxPrice)
				return int64(m), err
			})
			if err != nil {
				return "", fmt.Errorf("price:%s: %w", value, err)
			}
			if !strings.Contains(value, "..") { // "price:50": at most 50
				lo, hi = 0, lo
			}
			q.MinPrice, q.MaxPrice = market.Money(lo), market.Money(hi)
		case ok && strings.EqualFold(name, "amount"):
			lo, hi, err := bounds(value, func(s string) (int64, error) {
				n, err := strconv.Atoi(s)
				if err != nil || n < 1 || n > market.MaxItemStack {
					return 0, fmt.Errorf("an amount is a whole number from 1 to %d, not %q", market.MaxItemStack, s)
				}
				return int64(n), nil
			})
			if err != nil {
				return "", fmt.Errorf("amount:%s: %w", value, err)
			}
			if !strings.Contains(value, "..") { // "amount:64": exactly 64
				hi = lo
			}
			q.MinAmount, q.MaxAmount = int(lo), int(hi)
		default:
			words = append(words, f)
		}
	}
	return strings.Join(words, " "), nil
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
		return 0, 0, fmt.Errorf("%s is above %s", from, to)
	}
	return lo, hi, nil
}

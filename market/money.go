package market

import (
	"math"
	"strconv"
	"strings"

	"github.com/rynek/rynek/market/playertext"
)

// Money crosses the API as float64 prices and lives inside as integer cents:
// these convert between the two, and parse and format what people type and
// read.

// PriceToMoney converts a contract price to minor units, rejecting NaN,
// infinities, zero or negative values, more than two decimals, and values
// outside [min, max]. "More than two decimals" is judged on the shortest
// decimal that round-trips to the float64, so 19.99 is accepted and
// 0.1+0.2 (0.30000000000000004) is not.
func PriceToMoney(p float64, min, max Money) (Money, error) {
	return toMoney("price", p, min, max)
}

// toMoney is PriceToMoney for any amount, which errors call noun.
func toMoney(noun string, p float64, min, max Money) (Money, error) {
	switch {
	case math.IsNaN(p):
		return 0, errf(CodeInvalidPrice, "%s is not a number", noun)
	case math.IsInf(p, 0):
		return 0, errf(CodeInvalidPrice, "%s is infinite", noun)
	case p <= 0:
		return 0, errf(CodeInvalidPrice, "%s must be greater than 0, got %s", noun, strconv.FormatFloat(p, 'f', -1, 64))
	}
	s := strconv.FormatFloat(p, 'f', -1, 64)
	if i := strings.IndexByte(s, '.'); i >= 0 && len(s)-i-1 > 2 {
		return 0, errf(CodeInvalidPrice, "%s %s has more than 2 decimals", noun, s)
	}
	if p > float64(max)/100 || p < float64(min)/100 {
		return 0, outsideRange(noun, s, min, max)
	}
	return Money(math.Round(p * 100)), nil
}

// outsideRange is the error of an amount (as written) outside min..max.
func outsideRange(noun, amount string, min, max Money) error {
	return errf(CodeInvalidPrice, "%s %s is outside %s..%s", noun, amount, FormatMoney(min), FormatMoney(max))
}

// RoundToCents converts an amount that was stored unrounded to minor units,
// as the original plugin's economy did when it charged one of its prices:
// Java's Math.round(amount*100), halves rounded up. NaN, infinities and
// amounts whose cents do not fit in a float64's exact integers are refused.
func RoundToCents(p float64) (Money, error) {
	switch {
	case math.IsNaN(p):
		return 0, errf(CodeInvalidPrice, "amount is not a number")
	case math.IsInf(p, 0):
		return 0, errf(CodeInvalidPrice, "amount is infinite")
	case math.Abs(p) >= 1<<53/100:
		return 0, errf(CodeInvalidPrice, "amount %s is too large", strconv.FormatFloat(p, 'g', -1, 64))
	}
	return Money(math.Floor(p*100 + 0.5)), nil
}

// ParsePrice parses a price typed by a person: "12", "12.5", "12,50",
// "1 000,00" or "1_000.00". It then applies PriceToMoney's rules.
func ParsePrice(s string, min, max Money) (Money, error) {
	t := strings.TrimSpace(s)
	t = strings.NewReplacer(" ", "", "_", "", "\u00a0", "").Replace(t)
	t = strings.Replace(t, ",", ".", 1)
	if t == "" {
		return 0, errf(CodeInvalidPrice, "price is empty")
	}
	if t[0] == '-' {
		return 0, errf(CodeInvalidPrice, "price %q is negative; prices are %s to %s", playertext.Excerpt(s), FormatMoney(min), FormatMoney(max))
	}
	for _, r := range t {
		if (r < '0' || r > '9') && r != '.' {
			return 0, errf(CodeInvalidPrice, "price %q is not a number", playertext.Excerpt(s))
		}
	}
	p, err := strconv.ParseFloat(t, 64)
	if err != nil {
		return 0, errf(CodeInvalidPrice, "price %q is not a number", playertext.Excerpt(s))
	}
	return PriceToMoney(p, min, max)
}

// FormatMoney renders minor units as "1234.50".
func FormatMoney(m Money) string {
	neg := m < 0
	if neg {
		m = -m
	}
	s := strconv.FormatInt(int64(m/100), 10) + "." + twoDigits(int64(m%100))
	if neg {
		return "-" + s
	}
	return s
}

func twoDigits(v int64) string {
	if v < 10 {
		return "0" + strconv.FormatInt(v, 10)
	}
	return strconv.FormatInt(v, 10)
}

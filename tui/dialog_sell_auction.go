package tui

import (
	"fmt"
	"strings"
	"time"

	"github.com/rynek/rynek/market"
)

// auctionTerms are what the sell dialog asks of an auction beyond its
// starting bid: a buy-now price (none when empty) and how long it lasts,
// both within the market's rules (auctions: in rynek.yml, docs/rules.md),
// which the dialog says and checks as they are typed. The market checks
// them again when the auction starts.
type auctionTerms struct {
	buyNow textField
	lasts  textField
	// Read by check when err is empty: the buy-now price (0 none) and the
	// length.
	now      float64
	duration time.Duration
}

func newAuctionTerms(rules market.AuctionRules) auctionTerms {
	a := auctionTerms{buyNow: newTextField("", "none", 16, 14), lasts: newTextField("", "", 10, 8)}
	a.lasts.Prefill(durText(rules.DefaultDuration))
	return a
}

// bounds says the rules' limits, as the dialog shows them beside the
// fields.
func (a *auctionTerms) bounds(cfg market.Config) string {
	r := cfg.Auctions
	return fmt.Sprintf("buy now: empty for none, else above the starting bid · lasts %s to %s", durText(r.MinDuration),
		durText(r.MaxDuration))
}

// check reads both fields against the starting bid start, as the market
// will; it returns why not, or "".
func (a *auctionTerms) check(cfg market.Config, start float64) string {
	a.now, a.duration = 0, 0
	if text := strings.TrimSpace(a.buyNow.Value()); text != "" {
		cents, err := market.ParsePrice(text, cfg.MinPrice, cfg.MaxPrice)
		if err != nil {
			return "buy now: " + err.Error()
		}
		if cents.Float() <= start {
			return fmt.Sprintf("the buy-now price must be above the starting bid %s, not %s (empty: none)", money(start),
				money(cents.Float()))
		}
		a.now = cents.Float()
	}
	r := cfg.Auctions
	d, err := parseDuration(a.lasts.Value())
	if err != nil {
		return err.Error()
	}
	if d < r.MinDuration || d > r.MaxDuration {
		return fmt.Sprintf("an auction lasts %s to %s, not %s", durText(r.MinDuration), durText(r.MaxDuration), durText(d))
	}
	a.duration = d
	return ""
}

// summary is the ok lines of a valid auction starting at start: what it
// is and, with a buy-now price, what that does.
func (a *auctionTerms) summary(start float64) []string {
	lines := []string{fmt.Sprintf("ok · an auction for %s from %s: the highest bid at its end buys it, less the sale fee",
		durText(a.duration), money(start))}
	if a.now > 0 {
		lines = append(lines, "     or anyone buys it now for "+money(a.now)+", less the sale fee")
	}
	return lines
}

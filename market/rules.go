package market

import (
	"strconv"
	"strings"
	"time"

	"github.com/rynek/rynek/market/catalog"
	"github.com/rynek/rynek/market/internal/record"
)

// SetRules replaces the market's rules, as a reloaded config file does:
// everything in c but Name, Clock, EventRetention and LoadProgress, which
// belong to the process. Zero values take the defaults, as in New. It is
// refused while a purchase is in flight (its fee was computed under the old
// rules), and for rules that contradict themselves; either way nothing
// changes. Main thread.
func (s *Service) SetRules(c Config) error {
	if err := s.mutGuard(); err != nil {
		return err
	}
	c.Name, c.Clock, c.EventRetention, c.LoadProgress = s.cfg.Name, s.cfg.Clock, s.cfg.EventRetention, s.cfg.LoadProgress
	c = c.withDefaults()
	if err := c.check(); err != nil {
		return err
	}
	s.mu.Lock()
	open := len(s.openTxLocked())
	s.mu.Unlock()
	if open > 0 {
		return errf(CodeBusy, "%d purchase%s in flight; the rules change when none is", open, map[bool]string{true: "s are", false: " is"}[open > 1])
	}
	listing := NewListingRules(c)
	s.mu.Lock()
	s.cfg.setRules(c)
	s.listingRules = listing
	s.mu.Unlock()
	return nil
}

// setRules copies the rules of from into c, field by field: other
// goroutines read c's process fields (Name, Clock) without the lock, which
// a copy of the whole struct would race with.
func (c *Config) setRules(from Config) {
	c.ListingTTL, c.ListingCooldown, c.Blacklist = from.ListingTTL, from.ListingCooldown, from.Blacklist
	c.SaleFeeBasisPoints, c.ListingFeeBasisPoints, c.MinFee, c.MaxFee = from.SaleFeeBasisPoints, from.ListingFeeBasisPoints, from.MinFee, from.MaxFee
	c.RefundListingFee = from.RefundListingFee
	c.MinPrice, c.MaxPrice, c.MaxTransactionValue = from.MinPrice, from.MaxPrice, from.MaxTransactionValue
	c.MaxListingsPerPlayer, c.MaxAlertsPerPlayer, c.PurchaseCap = from.MaxListingsPerPlayer, from.MaxAlertsPerPlayer, from.PurchaseCap
	c.Auctions, c.Orders = from.Auctions, from.Orders
}

// check refuses rules that contradict themselves.
// Check reports whether rules c, with their defaults, contradict
// themselves, as SetRules and New would find: a rules file is refused for
// it as a whole.
func (c Config) Check() error { return c.check() }

func (c Config) check() error {
	switch {
	case c.MinPrice > c.MaxPrice:
		return errf(CodeInvalidPrice, "the lowest price %s is above the highest %s", FormatMoney(c.MinPrice), FormatMoney(c.MaxPrice))
	case c.MaxTransactionValue < 0:
		return errf(CodeInvalidPrice, "the maximum transaction value %s is below zero", FormatMoney(c.MaxTransactionValue))
	case c.MaxFee > 0 && c.MinFee > c.MaxFee:
		return errf(CodeInvalidPrice, "the minimum fee %s is above the maximum %s", FormatMoney(c.MinFee), FormatMoney(c.MaxFee))
	case c.SaleFeeBasisPoints > 10_000 || c.ListingFeeBasisPoints > 10_000:
		return errf(CodeInvalidPrice, "a fee is at most 100%%")
	case c.PurchaseCap.Max < 0 || c.PurchaseCap.Max > 0 && c.PurchaseCap.Window <= 0:
		return errf(CodeInvalidQuery, "a purchase cap needs a positive count and window, not %d in %s", c.PurchaseCap.Max, c.PurchaseCap.Window)
	}
	if err := c.Auctions.check(); err != nil {
		return err
	}
	return c.Orders.check()
}

func (o OrderRules) check() error {
	switch {
	case o.MaxAmount > record.MaxOrderAmount:
		return errf(CodeInvalidQuery, "an order buys at most %d items, not %d", record.MaxOrderAmount, o.MaxAmount)
	case o.MinDuration > o.MaxDuration:
		return errf(CodeInvalidQuery, "an order's shortest duration %s is above its longest %s", o.MinDuration, o.MaxDuration)
	case o.DefaultDuration < o.MinDuration || o.DefaultDuration > o.MaxDuration:
		return errf(CodeInvalidQuery, "an order's default duration %s is outside %s..%s", o.DefaultDuration, o.MinDuration, o.MaxDuration)
	case o.FeeBasisPoints > 10_000:
		return errf(CodeInvalidPrice, "a fee is at most 100%%")
	}
	return nil
}

func (a AuctionRules) check() error {
	switch {
	case a.MinDuration > a.MaxDuration:
		return errf(CodeInvalidQuery, "an auction's shortest duration %s is above its longest %s", a.MinDuration, a.MaxDuration)
	case a.DefaultDuration < a.MinDuration || a.DefaultDuration > a.MaxDuration:
		return errf(CodeInvalidQuery, "an auction's default duration %s is outside %s..%s", a.DefaultDuration, a.MinDuration, a.MaxDuration)
	case a.IncrementBasisPoints > record.MaxIncrementBP:
		return errf(CodeInvalidPrice, "an auction's increment is at most %d%%", record.MaxIncrementBP/100)
	case a.SaleFeeBasisPoints > 10_000 || a.ListingFeeBasisPoints > 10_000:
		return errf(CodeInvalidPrice, "a fee is at most 100%%")
	}
	return nil
}

// listingLimit is how many active listings p may have: the market's limit,
// or the highest market.limit.<n> among p's permissions.
func (s *Service) listingLimit(p *playerRecord) int {
	return permTier(p, PermListingLimit, s.cfg.MaxListingsPerPlayer)
}

// permTier is the largest n of p's permissions prefix<n>, or limit when
// p has none.
func permTier(p *playerRecord, prefix string, limit int) int {
	tier := -1
	for _, perm := range p.perms {
		if rest, ok := strings.CutPrefix(perm, prefix); ok {
			if n, err := strconv.Atoi(rest); err == nil && n >= 0 && n > tier {
				tier = n
			}
		}
	}
	if tier >= 0 {
		return tier
	}
	return limit
}

// purchaseCapped refuses buyer's purchase from seller when the cap is
// reached: their completed purchases from seller within the window, from
// the history (a purchase is refused with BUSY while it loads at start-up).
func (s *Service) purchaseCapped(buyer, seller *playerRecord, now int64) error {
	pc := s.cfg.PurchaseCap
	if pc.Max <= 0 {
		return nil
	}
	if err := s.requireHistory(); err != nil {
		return err
	}
	since := now - pc.Window.Milliseconds()
	n := 0
	s.mu.RLock()
	for _, t := range buyer.txs {
		if t.buyer == buyer.idx && t.seller == seller.idx && t.State() == StateCompleted && t.tl[len(t.tl)-1].At > since {
			n++
		}
	}
	s.mu.RUnlock()
	if n >= pc.Max {
		times := "times"
		if n == 1 {
			times = "time"
		}
		return errf(CodePurchaseCap, "%s bought from %s %d %s in the last %s; the market allows %d", buyer.name, seller.name, n, times,
			formatWindow(pc.Window), pc.Max)
	}
	return nil
}

// formatWindow writes a window as people say it: 24h, 90m, 45s.
func formatWindow(d time.Duration) string {
	switch {
	case d%time.Hour == 0:
		return strconv.FormatInt(int64(d/time.Hour), 10) + "h"
	case d%time.Minute == 0:
		return strconv.FormatInt(int64(d/time.Minute), 10) + "m"
	}
	return d.Round(time.Second).String()
}

// formatLength writes how long an auction or an order lasts as people say
// it, and as the console takes it: 7d, 36h, 90m.
func formatLength(d time.Duration) string {
	if day := 24 * time.Hour; d >= day && d%day == 0 {
		return strconv.FormatInt(int64(d/day), 10) + "d"
	}
	return formatWindow(d)
}

// ListingRules are the rules of what may be on the market, whoever lists
// it and however: the price range, the maximum transaction value and the
// blacklist. SellItem and RelistMail apply them together with the rules of
// who may list when (cooldown, listing limit, listing fee); a data load
// applies them alone, so that it brings no listing the market would refuse.
type ListingRules struct {
	minPrice, maxPrice, maxTransaction Money
	// blacklist holds the blacklisted materials' keys in their stored form
	// (CanonicalMaterialKey): a material outside the catalogue is banned
	// too, before any item of it has come to the market.
	blacklist map[string]bool
}

// NewListingRules compiles c's listing rules; c's zero values are the
// defaults, as in New. A blacklist entry that is no material key at all is
// left out: nothing has it.
func NewListingRules(c Config) *ListingRules {
	c = c.withDefaults()
	r := &ListingRules{minPrice: c.MinPrice, maxPrice: c.MaxPrice, maxTransaction: c.MaxTransactionValue, blacklist: map[string]bool{}}
	for _, k := range c.Blacklist {
		if canon, err := catalog.CanonicalMaterialKey(k); err == nil {
			r.blacklist[canon] = true
		}
	}
	return r
}

// Check returns why the rules refuse a listing of s at price (SellItem's
// error), or nil.
func (r *ListingRules) Check(s ItemStack, price Money) error {
	if price < r.minPrice || price > r.maxPrice {
		return outsideRange("price", FormatMoney(price), r.minPrice, r.maxPrice)
	}
	if err := aboveMaxTransaction(price, r.maxTransaction); err != nil {
		return err
	}
	if canon, err := catalog.CanonicalMaterialKey(s.Material); err == nil && r.blacklist[canon] {
		return blacklisted(canon)
	}
	return nil
}

// refuses reports whether the blacklist holds material mat.
func (r *ListingRules) refuses(mat uint16) bool { return r.blacklist[catalog.Material(mat).Key] }

// String says what the rules are, for a report.
func (r *ListingRules) String() string {
	s := "prices " + FormatMoney(r.minPrice) + ".." + FormatMoney(r.maxPrice)
	if r.maxTransaction > 0 {
		s += ", at most " + FormatMoney(r.maxTransaction) + " a transaction"
	}
	return s + ", " + strconv.Itoa(len(r.blacklist)) + " materials blacklisted"
}

// blacklisted is the error of listing a material (its stored key) that the
// blacklist holds.
func blacklisted(key string) error {
	return errf(CodeBlacklisted, "%s may not be sold on the market", key)
}

// aboveMaxTransaction refuses a listing price above the maximum
// transaction value max (0: none).
func aboveMaxTransaction(price, max Money) error {
	if max > 0 && price > max {
		return errf(CodeInvalidPrice, "price %s is above the market's maximum transaction value %s", FormatMoney(price), FormatMoney(max))
	}
	return nil
}

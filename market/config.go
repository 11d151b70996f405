package market

import (
	"time"

	"github.com/rynek/rynek/market/catalog"
)

// Config holds the market's rules. Zero values are replaced by the defaults
// of DefaultConfig, so Config{Name: "X"} is a complete configuration.
type Config struct {
	// Name is the service's own name; it prefixes the not-ready error.
	Name string
	// ListingTTL is how long a new listing stays on the market. Changing it
	// does not rewrite existing listings: each stores its own expiry.
	ListingTTL time.Duration
	// SaleFeeBasisPoints is the sale fee in 1/100 of a percent (500 = 5%),
	// taken from the seller's proceeds and paid to the fee account.
	SaleFeeBasisPoints int64
	// ListingFeeBasisPoints is an optional fee for listing, paid by the seller
	// to the fee account when the listing is created.
	ListingFeeBasisPoints int64
	// RefundListingFee gives a listing's fee back from the fee account when
	// the listing leaves the market unsold (removed, expired).
	RefundListingFee bool
	// MinFee and MaxFee bound each fee (MaxFee 0 = no cap). A fee is never
	// larger than the amount it is taken from.
	MinFee, MaxFee Money
	// MinPrice and MaxPrice bound a listing's total price (inclusive).
	MinPrice, MaxPrice Money
	// MaxListingsPerPlayer caps a player's active listings; a player with a
	// permission market.limit.<n> may have n instead (the highest such n).
	MaxListingsPerPlayer int
	// MaxTransactionValue refuses a listing priced above it, checked when
	// the listing is made (0: no such bound); the original plugin's
	// anti-abuse.max-transaction-value.
	MaxTransactionValue Money
	// PurchaseCap bounds how often one buyer buys from one seller.
	PurchaseCap PurchaseCap
	// MaxAlertsPerPlayer caps a player's price alerts (10 by default, as
	// the original plugin's price-alerts.max-per-player).
	MaxAlertsPerPlayer int
	// ListingCooldown is the minimum time between two listings of one player.
	// Negative disables it.
	ListingCooldown time.Duration
	// Blacklist holds material keys that may not be listed.
	Blacklist []string
	// Auctions are the rules of listings sold by auction.
	Auctions AuctionRules
	// Orders are the rules of buy orders.
	Orders OrderRules
	// Clock supplies the time; tests and the console's QA controls replace it.
	Clock Clock
	// EventRetention bounds the event log (TrimEventLog).
	EventRetention EventRetention
	// CommitBehind leaves commits to a committer goroutine: a mutation
	// changes memory and returns at once, its batch is committed behind
	// the tick with the others queued meanwhile, and the outcome reaches
	// memory, the log and the listeners when the main thread next calls
	// Settle (docs/commit-path.md). Off, a mutation waits
	// for its commit, as tools and tests that read the store after it
	// want. The console and rynek serve turn it on.
	CommitBehind bool
	// LoadProgress, if set, is told how many listings and transactions of
	// the total Enable has loaded, about every 65,536 rows and at the end.
	LoadProgress func(done, total int)
}

// PurchaseCap is the anti-abuse cap on one buyer's purchases from one
// seller: at most Max completed purchases within Window (Max 0: no cap).
// It counts the history, so a restart forgets nothing.
type PurchaseCap struct {
	Max    int
	Window time.Duration
}

// AuctionRules are the rules of auctions. An auction keeps the increments
// and the anti-snipe window it was started under: a rules change applies
// to the auctions started after it.
type AuctionRules struct {
	// MinDuration and MaxDuration bound an auction's duration;
	// DefaultDuration is the one a seller gets who names none.
	MinDuration, MaxDuration, DefaultDuration time.Duration
	// A bid beats the leading one by at least the larger of MinIncrement
	// and IncrementBasisPoints of it (negative: no such increment; a bid
	// is always at least a cent more).
	MinIncrement         Money
	IncrementBasisPoints int64
	// AntiSnipe: a bid closer than this to the end moves the end to the
	// bid's time plus AntiSnipe (negative: never).
	AntiSnipe time.Duration
	// SaleFeeBasisPoints and ListingFeeBasisPoints replace the market's
	// fees for auctions when not 0 (negative: none); 0 keeps the fees of
	// fixed-price listings.
	SaleFeeBasisPoints, ListingFeeBasisPoints int64
}

// OrderRules are the rules of buy orders.
type OrderRules struct {
	// MaxAmount bounds the items one order buys (default 2,304: 36
	// stacks of 64).
	MaxAmount int
	// MaxPerPlayer bounds a player's open orders (default 10); a
	// market.orders.<n> permission gives a player n.
	MaxPerPlayer int
	// MinDuration and MaxDuration bound how long an order rests;
	// DefaultDuration is the one a buyer gets who names none.
	MinDuration, MaxDuration, DefaultDuration time.Duration
	// FeeBasisPoints is the placement fee, of the order's whole value
	// (0: none); it goes to the fee account and never comes back.
	FeeBasisPoints int64
}

func (o OrderRules) withDefaults(d OrderRules) OrderRules {
	if o.MaxAmount <= 0 {
		o.MaxAmount = d.MaxAmount
	}
	if o.MaxPerPlayer <= 0 {
		o.MaxPerPlayer = d.MaxPerPlayer
	}
	if o.MinDuration <= 0 {
		o.MinDuration = d.MinDuration
	}
	if o.MaxDuration <= 0 {
		o.MaxDuration = d.MaxDuration
	}
	if o.DefaultDuration <= 0 {
		o.DefaultDuration = min(max(d.DefaultDuration, o.MinDuration), o.MaxDuration)
	}
	if o.FeeBasisPoints < 0 {
		o.FeeBasisPoints = 0
	}
	return o
}

// PermListingLimit prefixes the permissions that give a player a listing
// limit of their own: market.limit.50 allows 50 active listings.
const PermListingLimit = "market.limit."

// DefaultConfig returns the defaults of the original plugin where it had one
// (7-day expiry, 5% sale fee, prices 1.00..1,000,000.00, 5 s cooldown) and
// Rynek's own elsewhere.
func DefaultConfig() Config {
	return Config{
		Name:                 "Rynek",
		ListingTTL:           7 * 24 * time.Hour,
		SaleFeeBasisPoints:   500,
		MinPrice:             100,
		MaxPrice:             100_000_000,
		MaxListingsPerPlayer: 20,
		MaxAlertsPerPlayer:   10,
		ListingCooldown:      5 * time.Second,
		Blacklist:            catalog.DefaultBlacklist(),
		Clock:                SystemClock{},
		EventRetention:       EventRetention{MaxAge: 30 * 24 * time.Hour, MaxCount: 1_000_000, MaxUnread: 1_000_000},
		Auctions: AuctionRules{MinDuration: time.Minute, MaxDuration: 7 * 24 * time.Hour, DefaultDuration: 24 * time.Hour,
			MinIncrement: 100, IncrementBasisPoints: 500, AntiSnipe: time.Minute},
		Orders: OrderRules{MaxAmount: 2304, MaxPerPlayer: 10, MinDuration: time.Minute, MaxDuration: 30 * 24 * time.Hour,
			DefaultDuration: 7 * 24 * time.Hour},
	}
}

// WithDefaults returns c as a market started with it reads it: every zero
// value replaced by its default. A generator that must obey the rules (the
// demo seed) reads them here rather than repeating the defaults.
func (c Config) WithDefaults() Config { return c.withDefaults() }

func (c Config) withDefaults() Config {
	d := DefaultConfig()
	if c.Name == "" {
		c.Name = d.Name
	}
	if c.ListingTTL <= 0 {
		c.ListingTTL = d.ListingTTL
	}
	if c.SaleFeeBasisPoints == 0 {
		c.SaleFeeBasisPoints = d.SaleFeeBasisPoints
	}
	if c.SaleFeeBasisPoints < 0 {
		c.SaleFeeBasisPoints = 0 // negative means "no sale fee"
	}
	if c.MinPrice <= 0 {
		c.MinPrice = d.MinPrice
	}
	if c.MaxPrice <= 0 {
		c.MaxPrice = d.MaxPrice
	}
	if c.MaxAlertsPerPlayer <= 0 {
		c.MaxAlertsPerPlayer = d.MaxAlertsPerPlayer
	}
	if c.MaxListingsPerPlayer <= 0 {
		c.MaxListingsPerPlayer = d.MaxListingsPerPlayer
	}
	if c.ListingCooldown == 0 {
		c.ListingCooldown = d.ListingCooldown
	}
	if c.Blacklist == nil {
		c.Blacklist = d.Blacklist
	}
	if c.Clock == nil {
		c.Clock = d.Clock
	}
	if c.EventRetention.MaxAge == 0 {
		c.EventRetention.MaxAge = d.EventRetention.MaxAge
	}
	if c.EventRetention.MaxCount == 0 {
		c.EventRetention.MaxCount = d.EventRetention.MaxCount
	}
	if c.EventRetention.MaxUnread == 0 {
		c.EventRetention.MaxUnread = d.EventRetention.MaxUnread
	}
	c.Auctions = c.Auctions.withDefaults(d.Auctions)
	c.Orders = c.Orders.withDefaults(d.Orders)
	return c
}

func (a AuctionRules) withDefaults(d AuctionRules) AuctionRules {
	if a.MinDuration <= 0 {
		a.MinDuration = d.MinDuration
	}
	if a.MaxDuration <= 0 {
		a.MaxDuration = d.MaxDuration
	}
	if a.DefaultDuration <= 0 {
		a.DefaultDuration = min(max(d.DefaultDuration, a.MinDuration), a.MaxDuration)
	}
	if a.MinIncrement == 0 {
		a.MinIncrement = d.MinIncrement
	}
	a.MinIncrement = max(a.MinIncrement, 0)
	if a.IncrementBasisPoints == 0 {
		a.IncrementBasisPoints = d.IncrementBasisPoints
	}
	a.IncrementBasisPoints = max(a.IncrementBasisPoints, 0)
	if a.AntiSnipe == 0 {
		a.AntiSnipe = d.AntiSnipe
	}
	a.AntiSnipe = max(a.AntiSnipe, 0)
	return a
}

// fee computes a fee of bp basis points on amount, rounded half up to a
// whole cent, bounded by MinFee/MaxFee and never above amount.
func (c Config) fee(amount Money, bp int64) Money {
	if bp <= 0 && c.MinFee <= 0 {
		return 0
	}
	f := (int64(amount)*bp + 5000) / 10000
	if Money(f) < c.MinFee {
		f = int64(c.MinFee)
	}
	if c.MaxFee > 0 && Money(f) > c.MaxFee {
		f = int64(c.MaxFee)
	}
	if Money(f) > amount {
		f = int64(amount)
	}
	return Money(f)
}

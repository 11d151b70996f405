package rules

import (
	"os"
	"strings"
	"testing"
	"time"

	"github.com/rynek/rynek/market"
)

func TestParseTheExample(t *testing.T) {
	c, err := Parse([]byte(Example), FileName)
	if err != nil {
		t.Fatal(err)
	}
	want := market.Config{ListingTTL: 7 * 24 * time.Hour, MaxListingsPerPlayer: 20, ListingCooldown: 5 * time.Second,
		MinPrice: 1_00, MaxPrice: 1_000_000_00,
		SaleFeeBasisPoints: 500, MaxAlertsPerPlayer: 10, PurchaseCap: market.PurchaseCap{Window: 24 * time.Hour}}
	if c.ListingTTL != want.ListingTTL || c.MaxListingsPerPlayer != want.MaxListingsPerPlayer || c.ListingCooldown != want.ListingCooldown ||
		c.Blacklist != nil || c.MinPrice != want.MinPrice || c.MaxPrice != want.MaxPrice || c.SaleFeeBasisPoints != 500 ||
		c.ListingFeeBasisPoints != 0 || c.MinFee != 0 || c.MaxFee != 0 || c.MaxAlertsPerPlayer != 10 || c.PurchaseCap != want.PurchaseCap {
		t.Fatalf("parsed %+v", c)
	}
	d := market.DefaultConfig()
	if c.ListingTTL != d.ListingTTL || c.SaleFeeBasisPoints != d.SaleFeeBasisPoints || c.MinPrice != d.MinPrice ||
		c.MaxPrice != d.MaxPrice || c.MaxListingsPerPlayer != d.MaxListingsPerPlayer || c.ListingCooldown != d.ListingCooldown {
		t.Fatal("the example's values are not the market's defaults")
	}
}

func TestParseMeaningsOfNone(t *testing.T) {
	c, err := Parse([]byte("listings:\n  cooldown-seconds: 0\nfees:\n  sale-percent: 0\n  listing-percent: 2.5\nanti-abuse:\n  max-purchases-from-same-seller: 3\n"), "r.yml")
	if err != nil {
		t.Fatal(err)
	}
	if c.ListingCooldown != -1 || c.SaleFeeBasisPoints != -1 || c.ListingFeeBasisPoints != 250 || c.PurchaseCap != (market.PurchaseCap{Max: 3, Window: 24 * time.Hour}) {
		t.Fatalf("parsed %+v", c)
	}
	for _, empty := range []string{"", "# nothing\n", "---\n"} {
		if c, err := Parse([]byte(empty), "r.yml"); err != nil || c.MaxPrice != 0 {
			t.Errorf("%q: %+v, %v", empty, c, err)
		}
	}
}

// TestParseAuctions: the auctions' section, its meanings of none, and
// durations that contradict each other refused with the file's name.
func TestParseAuctions(t *testing.T) {
	c, err := Parse([]byte(Example), FileName)
	if err != nil {
		t.Fatal(err)
	}
	if d := market.DefaultConfig().Auctions; c.Auctions != d {
		t.Fatalf("the example's auctions %+v, the market's defaults %+v", c.Auctions, d)
	}
	c, err = Parse([]byte("auctions:\n  min-duration-seconds: 5\n  max-duration-hours: 2\n  min-increment: 0\n  increment-percent: 0\n  anti-snipe-seconds: 0\n  sale-percent: 0\n  listing-percent: 1.5\n"), "r.yml")
	if err != nil {
		t.Fatal(err)
	}
	want := market.AuctionRules{MinDuration: 5 * time.Second, MaxDuration: 2 * time.Hour, MinIncrement: -1, IncrementBasisPoints: -1,
		AntiSnipe: -1, SaleFeeBasisPoints: -1, ListingFeeBasisPoints: 150}
	if c.Auctions != want {
		t.Fatalf("parsed %+v, want %+v", c.Auctions, want)
	}
	if a := c.WithDefaults().Auctions; a.DefaultDuration != 2*time.Hour || a.MinIncrement != 0 || a.AntiSnipe != 0 {
		t.Fatalf("with its defaults %+v: want a default of the longest, 2 h, and no increment or anti-snipe", a)
	}
	for text, want := range map[string]string{
		"auctions:\n  min-duration-seconds: 7200\n  max-duration-hours: 1\n": "r.yml: an auction's shortest duration 2h0m0s is above its longest 1h0m0s",
		"auctions:\n  default-duration-hours: 200\n":                         "r.yml: an auction's default duration 200h0m0s is outside 1m0s..168h0m0s",
		"auctions:\n  anti-snipe-seconds: soon\n":                            `r.yml:2:23: auctions.anti-snipe-seconds: a whole number from 0 to 86400, not "soon"`,
	} {
		if _, err := Parse([]byte(text), "r.yml"); err == nil || err.Error() != want {
			t.Errorf("%q: %v, want %q", text, err, want)
		}
	}
}

// TestParseOrders: the buy orders' section, the example's values the
// market's defaults, a placement fee, and values out of range or that
// contradict each other refused with the file's name and the key's line.
func TestParseOrders(t *testing.T) {
	c, err := Parse([]byte(Example), FileName)
	if err != nil {
		t.Fatal(err)
	}
	if d := market.DefaultConfig().Orders; c.Orders != d {
		t.Fatalf("the example's orders %+v, the market's defaults %+v", c.Orders, d)
	}
	c, err = Parse([]byte("orders:\n  max-amount: 640\n  limit: 3\n  min-duration-seconds: 300\n  max-duration-hours: 48\n  fee-percent: 0.5\n"), "r.yml")
	if err != nil {
		t.Fatal(err)
	}
	want := market.OrderRules{MaxAmount: 640, MaxPerPlayer: 3, MinDuration: 5 * time.Minute, MaxDuration: 48 * time.Hour, FeeBasisPoints: 50}
	if c.Orders != want {
		t.Fatalf("parsed %+v, want %+v", c.Orders, want)
	}
	if o := c.WithDefaults().Orders; o.DefaultDuration != 48*time.Hour {
		t.Fatalf("with its defaults %+v: want a default of the longest, 48 h", o)
	}
	for text, want := range map[string]string{
		"orders:\n  min-duration-seconds: 7200\n  max-duration-hours: 1\n": "r.yml: an order's shortest duration 2h0m0s is above its longest 1h0m0s",
		"orders:\n  default-duration-hours: 800\n":                         "r.yml: an order's default duration 800h0m0s is outside 1m0s..720h0m0s",
		"orders:\n  max-amount: 2000000\n":                                 "r.yml: an order buys at most 1048576 items, not 2000000",
		"orders:\n  max-amount: 0\n":                                       `r.yml:2:15: orders.max-amount: a whole number from 1 to 2147483647, not "0"`,
		"orders:\n  limit: -1\n":                                           `r.yml:2:10: orders.limit: a whole number from 1 to 100000, not "-1"`,
		"orders:\n  fee-percent: 120\n":                                    `r.yml:2:16: orders.fee-percent: a percentage from 0 to 100 with at most two decimals, not "120"`,
		"orders:\n  fee: 1\n":                                              "r.yml:2:3: unknown key orders.fee (known: default-duration-hours, fee-percent, limit, max-amount, max-duration-hours, min-duration-seconds)",
	} {
		if _, err := Parse([]byte(text), "r.yml"); err == nil || err.Error() != want {
			t.Errorf("%q:\n got %v\nwant %s", text, err, want)
		}
	}
}

func TestParseRefusals(t *testing.T) {
	for _, c := range []struct{ text, want string }{
		{"listing:\n  limit: 5\n", "r.yml:1:1: unknown key listing (known: alerts, anti-abuse, auctions, fees, listings, orders, prices, webhooks)"},
		{"listings:\n  limit: many\n", `r.yml:2:10: listings.limit: a whole number from 1 to 100000, not "many"`},
		{"listings:\n  limits: 5\n", "r.yml:2:3: unknown key listings.limits (known: blacklist, cooldown-seconds, expiry-days, limit)"},
		{"listings:\n  limit: 5\n  limit: 6\n", "r.yml:3:3: listings.limit is given twice"},
		{"listings: 5\n", `r.yml:1:11: listings: a section holds keys, not a "5"`},
		{"listings:\n  blacklist: [DIAMOND, NOT_AN_ITEM]\n", `r.yml:2:24: listings.blacklist: unknown item "NOT_AN_ITEM"`},
		{"listings:\n  blacklist: BEDROCK\n", `r.yml:2:14: listings.blacklist: a list of items, not a "BEDROCK"`},
		{"prices:\n  min: 1.005\n", "r.yml:2:8: prices.min: price 1.005 has more than 2 decimals"},
		{"prices:\n  max: -5\n", `r.yml:2:8: prices.max: price "-5" is negative; prices are 0.01 to 1000000000.00`},
		{"prices:\n  min: 500\n  max: 100\n", "r.yml: prices.min 500.00 is above prices.max 100.00"},
		{"fees:\n  sale-percent: 101\n", `r.yml:2:17: fees.sale-percent: a percentage from 0 to 100 with at most two decimals, not "101"`},
		{"fees:\n  refund-listing-fee: maybe\n", `r.yml:2:23: fees.refund-listing-fee: true or false, not "maybe"`},
		{"fees:\n  sale-percent: 2.555\n", `r.yml:2:17: fees.sale-percent: a percentage from 0 to 100 with at most two decimals, not "2.555"`},
		{"alerts:\n  max-per-player:\n", "r.yml:2:18: alerts.max-per-player: a value, not a nothing"},
		{"- a\n- b\n", "r.yml:1:1: the rules are a map of sections (listings, prices, fees, anti-abuse, alerts, auctions, orders, webhooks)"},
		{"listings: [\n", "r.yml: not YAML: yaml: line 1: did not find expected node content"},
	} {
		_, err := Parse([]byte(c.text), "r.yml")
		if err == nil || err.Error() != c.want {
			t.Errorf("%q:\n got %v\nwant %s", c.text, err, c.want)
		}
	}
}

// FuzzParse checks that no file panics the parser and that rules it accepts
// are ones the market takes.
func FuzzParse(f *testing.F) {
	f.Add([]byte(Example))
	f.Add([]byte("fees:\n  sale-percent: 2.5\n"))
	f.Add([]byte("listings: {limit: 3, blacklist: [DIAMOND, BEDROCK]}\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		c, err := Parse(data, "f.yml")
		if err != nil {
			return
		}
		if c.MinPrice < 0 || c.MaxPrice < 0 || c.MaxListingsPerPlayer < 0 || c.SaleFeeBasisPoints > 10_000 || c.ListingFeeBasisPoints > 10_000 ||
			c.PurchaseCap.Max < 0 || c.PurchaseCap.Max > 0 && c.PurchaseCap.Window <= 0 ||
			c.Orders.MaxAmount < 0 || c.Orders.MaxPerPlayer < 0 || c.Orders.FeeBasisPoints > 10_000 {
			t.Fatalf("accepted %q as %+v", data, c)
		}
	})
}

// TestDocsShowTheExample keeps docs/rules.md's annotated file the one the
// program knows: a key added to Example shows in the guide.
func TestDocsShowTheExample(t *testing.T) {
	doc, err := os.ReadFile("../../docs/rules.md")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(doc), "```yaml\n"+Example+"```") {
		t.Errorf("docs/rules.md does not hold rules.Example verbatim in a yaml block; copy it from internal/rules/rules.go")
	}
}

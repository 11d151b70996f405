// Package rules reads the market's rules from a YAML file, the format
// server admins know from the original plugin's config.yml. Every key is
// optional; what is left out keeps the market's default. A file with an
// unknown key, a value of the wrong kind or one out of range is refused as a
// whole, with the key and its line, so that a typo never half-applies.
package rules

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/rynek/rynek/internal/webhook"
	"github.com/rynek/rynek/market"
	"github.com/rynek/rynek/market/catalog"
	"go.yaml.in/yaml/v3"
)

// FileName is the rules file's name beside a market's database.
const FileName = "rynek.yml"

// Example is a rules file with every key at its default, for docs/rules.md (a test keeps the two equal) and
// for admins to start from.
const Example = `# Rynek's rules. Every key is optional; a key left out keeps its default.
listings:
  expiry-days: 7
  limit: 20                 # active listings per player; a permission market.limit.<n> gives n
  cooldown-seconds: 5       # between two listings of one player; 0: none
  # blacklist: [BEDROCK, SPAWNER]  # replaces the default: bedrock, spawners, knowledge books and the operator items
prices:
  min: 1.00
  max: 1000000.00
  max-transaction-value: 0  # a listing priced above it is refused; 0: no such bound
fees:
  sale-percent: 5           # of the price, from the seller's proceeds
  listing-percent: 0        # of the price, paid when listing
  minimum: 0                # of each fee
  maximum: 0                # of each fee; 0: no cap
  refund-listing-fee: false # give the listing fee back when a listing leaves unsold
anti-abuse:
  max-purchases-from-same-seller: 0   # by one buyer within the window; 0: no cap
  window-hours: 24
alerts:
  max-per-player: 10
auctions:
  min-duration-seconds: 60
  max-duration-hours: 168
  default-duration-hours: 24
  min-increment: 1.00       # a bid beats the leading one by at least this
  increment-percent: 5      # or by this much of it, whichever is more
  anti-snipe-seconds: 60    # a bid in the last minute moves the end to a minute after it; 0: never
  # sale-percent: 5         # the auctions' own fees; the fees above when left out
  # listing-percent: 0
orders:
  max-amount: 2304          # items one buy order may want: 36 stacks of 64
  limit: 10                 # open buy orders per player; a permission market.orders.<n> gives n
  min-duration-seconds: 60
  max-duration-hours: 720
  default-duration-hours: 168
  fee-percent: 0            # of the order's whole value, paid when placing it and never given back
`

// File is everything the rules file holds: the market's rules and the
// process's webhooks (each server of a network delivers its own file's).
type File struct {
	Rules    market.Config
	Webhooks []webhook.Endpoint
}

// Load reads and parses the rules file at path. A missing file is an error
// that matches os.ErrNotExist.
func Load(path string) (market.Config, error) {
	f, err := LoadFile(path)
	return f.Rules, err
}

// LoadFile is Load with the webhooks.
func LoadFile(path string) (File, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return File{}, err
	}
	return ParseFile(data, path)
}

// Parse reads rules from data; name is what errors call the file. The
// Config holds the rules only (the process's settings are the caller's);
// zero fields take the market's defaults, and values that mean "none" (no
// cooldown, no sale fee) are the negative numbers Config reads so.
func Parse(data []byte, name string) (market.Config, error) {
	f, err := ParseFile(data, name)
	return f.Rules, err
}

// ParseFile is Parse with the webhooks.
func ParseFile(data []byte, name string) (File, error) {
	c, hooks, err := parse(data, name)
	if err != nil {
		return File{}, err
	}
	return File{Rules: c, Webhooks: hooks}, nil
}

func parse(data []byte, name string) (market.Config, []webhook.Endpoint, error) {
	var c market.Config
	var hooks []webhook.Endpoint
	var doc yaml.Node
	dec := yaml.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(&doc); err != nil {
		if errors.Is(err, io.EOF) {
			return c, nil, nil // an empty file: every default
		}
		return c, nil, fmt.Errorf("%s: not YAML: %v", name, err)
	}
	root := &doc
	if root.Kind == yaml.DocumentNode && len(root.Content) == 1 {
		root = root.Content[0]
	}
	if root.Kind == yaml.ScalarNode && root.Tag == "!!null" {
		return c, nil, nil
	}
	if root.Kind != yaml.MappingNode {
		return c, nil, fmt.Errorf("%s:%d:%d: the rules are a map of sections (listings, prices, fees, anti-abuse, alerts, auctions, orders, webhooks)", name, root.Line, root.Column)
	}
	p := parser{name: name}
	p.sections(root, map[string]func(*yaml.Node){
		"webhooks": func(n *yaml.Node) { hooks = p.webhooks(n) },
		"listings": func(n *yaml.Node) {
			p.keys("listings", n, map[string]func(string, *yaml.Node){
				"expiry-days": func(k string, v *yaml.Node) {
					if d := p.whole(k, v, 1, 365); d > 0 {
						c.ListingTTL = time.Duration(d) * 24 * time.Hour
					}
				},
				"limit": func(k string, v *yaml.Node) { c.MaxListingsPerPlayer = p.whole(k, v, 1, 100_000) },
				"cooldown-seconds": func(k string, v *yaml.Node) {
					c.ListingCooldown = time.Duration(p.whole(k, v, 0, 86_400)) * time.Second
					if c.ListingCooldown == 0 {
						c.ListingCooldown = -1 // none
					}
				},
				"blacklist": func(k string, v *yaml.Node) { c.Blacklist = p.materials(k, v) },
			})
		},
		"prices": func(n *yaml.Node) {
			p.keys("prices", n, map[string]func(string, *yaml.Node){
				"min":                   func(k string, v *yaml.Node) { c.MinPrice = p.money(k, v, false) },
				"max":                   func(k string, v *yaml.Node) { c.MaxPrice = p.money(k, v, false) },
				"max-transaction-value": func(k string, v *yaml.Node) { c.MaxTransactionValue = p.money(k, v, true) },
			})
		},
		"fees": func(n *yaml.Node) {
			p.keys("fees", n, map[string]func(string, *yaml.Node){
				"sale-percent": func(k string, v *yaml.Node) {
					if c.SaleFeeBasisPoints = p.percent(k, v); c.SaleFeeBasisPoints == 0 {
						c.SaleFeeBasisPoints = -1 // none
					}
				},
				"listing-percent":    func(k string, v *yaml.Node) { c.ListingFeeBasisPoints = p.percent(k, v) },
				"minimum":            func(k string, v *yaml.Node) { c.MinFee = p.money(k, v, true) },
				"maximum":            func(k string, v *yaml.Node) { c.MaxFee = p.money(k, v, true) },
				"refund-listing-fee": func(k string, v *yaml.Node) { c.RefundListingFee = p.boolean(k, v) },
			})
		},
		"anti-abuse": func(n *yaml.Node) {
			p.keys("anti-abuse", n, map[string]func(string, *yaml.Node){
				"max-purchases-from-same-seller": func(k string, v *yaml.Node) { c.PurchaseCap.Max = p.whole(k, v, 0, 1_000_000) },
				"window-hours": func(k string, v *yaml.Node) {
					c.PurchaseCap.Window = time.Duration(p.whole(k, v, 1, 24*366)) * time.Hour
				},
			})
		},
		"alerts": func(n *yaml.Node) {
			p.keys("alerts", n, map[string]func(string, *yaml.Node){
				"max-per-player": func(k string, v *yaml.Node) { c.MaxAlertsPerPlayer = p.whole(k, v, 1, 1000) },
			})
		},
		"auctions": func(n *yaml.Node) {
			a := &c.Auctions
			p.keys("auctions", n, map[string]func(string, *yaml.Node){
				"min-duration-seconds": func(k string, v *yaml.Node) {
					a.MinDuration = time.Duration(p.whole(k, v, 1, 366*86_400)) * time.Second
				},
				"max-duration-hours": func(k string, v *yaml.Node) {
					a.MaxDuration = time.Duration(p.whole(k, v, 1, 24*366)) * time.Hour
				},
				"default-duration-hours": func(k string, v *yaml.Node) {
					a.DefaultDuration = time.Duration(p.whole(k, v, 1, 24*366)) * time.Hour
				},
				"min-increment": func(k string, v *yaml.Node) {
					if a.MinIncrement = p.money(k, v, true); a.MinIncrement == 0 {
						a.MinIncrement = -1 // none
					}
				},
				"increment-percent": func(k string, v *yaml.Node) {
					if a.IncrementBasisPoints = p.percent(k, v); a.IncrementBasisPoints == 0 {
						a.IncrementBasisPoints = -1 // none
					}
				},
				"anti-snipe-seconds": func(k string, v *yaml.Node) {
					if a.AntiSnipe = time.Duration(p.whole(k, v, 0, 86_400)) * time.Second; a.AntiSnipe == 0 {
						a.AntiSnipe = -1 // never
					}
				},
				"sale-percent": func(k string, v *yaml.Node) {
					if a.SaleFeeBasisPoints = p.percent(k, v); a.SaleFeeBasisPoints == 0 {
						a.SaleFeeBasisPoints = -1 // none
					}
				},
				"listing-percent": func(k string, v *yaml.Node) {
					if a.ListingFeeBasisPoints = p.percent(k, v); a.ListingFeeBasisPoints == 0 {
						a.ListingFeeBasisPoints = -1 // none
					}
				},
			})
		},
		"orders": func(n *yaml.Node) {
			o := &c.Orders
			p.keys("orders", n, map[string]func(string, *yaml.Node){
				// The market's own bound on an amount (Config.Check) tells
				// a number above it.
				"max-amount": func(k string, v *yaml.Node) { o.MaxAmount = p.whole(k, v, 1, math.MaxInt32) },
				"limit":      func(k string, v *yaml.Node) { o.MaxPerPlayer = p.whole(k, v, 1, 100_000) },
				"min-duration-seconds": func(k string, v *yaml.Node) {
					o.MinDuration = time.Duration(p.whole(k, v, 1, 366*86_400)) * time.Second
				},
				"max-duration-hours": func(k string, v *yaml.Node) {
					o.MaxDuration = time.Duration(p.whole(k, v, 1, 24*366)) * time.Hour
				},
				"default-duration-hours": func(k string, v *yaml.Node) {
					o.DefaultDuration = time.Duration(p.whole(k, v, 1, 24*366)) * time.Hour
				},
				"fee-percent": func(k string, v *yaml.Node) { o.FeeBasisPoints = p.percent(k, v) },
			})
		},
	})
	if p.err != nil {
		return market.Config{}, nil, p.err
	}
	if c.PurchaseCap.Max > 0 && c.PurchaseCap.Window == 0 {
		c.PurchaseCap.Window = 24 * time.Hour
	}
	if c.MinPrice > 0 && c.MaxPrice > 0 && c.MinPrice > c.MaxPrice {
		return market.Config{}, nil, fmt.Errorf("%s: prices.min %s is above prices.max %s", name, market.FormatMoney(c.MinPrice), market.FormatMoney(c.MaxPrice))
	}
	if err := c.WithDefaults().Check(); err != nil {
		return market.Config{}, nil, fmt.Errorf("%s: %v", name, err)
	}
	return c, hooks, nil
}

// parser keeps the first error; every later step is skipped once it has one.
type parser struct {
	name string
	err  error
}

func (p *parser) fail(n *yaml.Node, format string, args ...any) {
	if p.err == nil {
		p.err = fmt.Errorf("%s:%d:%d: %s", p.name, n.Line, n.Column, fmt.Sprintf(format, args...))
	}
}

// sections walks the top level: each key must be a known section holding a
// map.
func (p *parser) sections(root *yaml.Node, known map[string]func(*yaml.Node)) {
	p.walk("", root, func(key string, v *yaml.Node) bool {
		f, ok := known[key]
		if ok {
			// webhooks is a list of endpoints; every other section a map.
			if key != "webhooks" && v.Kind != yaml.MappingNode {
				p.fail(v, "%s: a section holds keys, not a %s", key, kindName(v))
				return false
			}
			f(v)
		}
		return ok
	}, names(known))
}

// keys walks one section's keys.
func (p *parser) keys(section string, n *yaml.Node, known map[string]func(string, *yaml.Node)) {
	p.walk(section+".", n, func(key string, v *yaml.Node) bool {
		f, ok := known[key]
		if ok {
			f(section+"."+key, v)
		}
		return ok
	}, names(known))
}

func (p *parser) walk(prefix string, n *yaml.Node, each func(key string, v *yaml.Node) bool, known []string) {
	seen := map[string]bool{}
	for i := 0; i+1 < len(n.Content) && p.err == nil; i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		if seen[k.Value] {
			p.fail(k, "%s%s is given twice", prefix, k.Value)
			return
		}
		seen[k.Value] = true
		if !each(k.Value, v) {
			p.fail(k, "unknown key %s%s (known: %s)", prefix, k.Value, strings.Join(known, ", "))
		}
	}
}

func names[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

func kindName(n *yaml.Node) string {
	switch n.Kind {
	case yaml.MappingNode:
		return "map"
	case yaml.SequenceNode:
		return "list"
	}
	if n.Tag == "!!null" {
		return "nothing"
	}
	return fmt.Sprintf("%q", n.Value)
}

func (p *parser) scalar(key string, v *yaml.Node) (string, bool) {
	if v.Kind != yaml.ScalarNode || v.Tag == "!!null" {
		p.fail(v, "%s: a value, not a %s", key, kindName(v))
		return "", false
	}
	return strings.TrimSpace(v.Value), true
}

// whole reads a whole number in [lo, hi].
func (p *parser) whole(key string, v *yaml.Node, lo, hi int) int {
	s, ok := p.scalar(key, v)
	if !ok {
		return 0
	}
	n, err := strconv.Atoi(s)
	if err != nil || n < lo || n > hi {
		p.fail(v, "%s: a whole number from %d to %d, not %q", key, lo, hi, s)
		return 0
	}
	return n
}

// money reads an amount like a price (two decimals at most); zero only
// where it means "none".
func (p *parser) money(key string, v *yaml.Node, zeroOK bool) market.Money {
	s, ok := p.scalar(key, v)
	if !ok {
		return 0
	}
	if zeroOK {
		if f, err := strconv.ParseFloat(s, 64); err == nil && f == 0 {
			return 0
		}
	}
	m, err := market.ParsePrice(s, 1, 1_000_000_000_00)
	if err != nil {
		p.fail(v, "%s: %v", key, err)
		return 0
	}
	return m
}

// boolean reads true or false.
func (p *parser) boolean(key string, v *yaml.Node) bool {
	s, ok := p.scalar(key, v)
	if !ok {
		return false
	}
	b, err := strconv.ParseBool(s)
	if err != nil {
		p.fail(v, "%s: true or false, not %q", key, s)
	}
	return b
}

// percent reads a percentage with at most two decimals, as basis points.
func (p *parser) percent(key string, v *yaml.Node) int64 {
	s, ok := p.scalar(key, v)
	if !ok {
		return 0
	}
	f, err := strconv.ParseFloat(s, 64)
	bp := math.Round(f * 100)
	if err != nil || f < 0 || f > 100 || math.Abs(bp-f*100) > 1e-6 {
		p.fail(v, "%s: a percentage from 0 to 100 with at most two decimals, not %q", key, s)
		return 0
	}
	return int64(bp)
}

// materials reads a list of material keys the catalogue knows.
func (p *parser) materials(key string, v *yaml.Node) []string {
	return p.list(key, v, "items", func(e *yaml.Node, s string, _ []string) (string, bool) {
		info, found := catalog.LookupMaterial(s)
		if !found {
			p.fail(e, "%s: unknown item %q", key, s)
		}
		return info.Key, found
	})
}

// list reads a list of scalars, what is its words for them ("items"):
// each goes through one, which gets the ones before it and fails the
// node itself when it refuses one (ok false), refusing the list.
func (p *parser) list(key string, v *yaml.Node, what string, one func(e *yaml.Node, s string, before []string) (string, bool)) []string {
	if v.Kind != yaml.SequenceNode {
		p.fail(v, "%s: a list of %s, not a %s", key, what, kindName(v))
		return nil
	}
	out := []string{}
	for _, e := range v.Content {
		s, ok := p.scalar(key, e)
		if !ok {
			return nil
		}
		if s, ok = one(e, s, out); !ok {
			return nil
		}
		out = append(out, s)
	}
	return out
}

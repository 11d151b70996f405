package grzybcio

import (
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/rynek/rynek/internal/rules"
	"go.yaml.in/yaml/v3"
)

// ConfigFile is the plugin's rules file.
const ConfigFile = "config.yml"

// Rules is what the plugin's config.yml says in Rynek's rules file (YAML
// text, rules.Parse accepts it) and what of it has no counterpart.
type Rules struct {
	YAML     []byte
	Mapped   int      // keys carried over
	Unmapped []string // keys that mean nothing to Rynek, or that it does otherwise
	// ExpiryDays is the plugin's listing-expiry-days (0: not set): it
	// computed each listing's expiry from it, so an import does too.
	ExpiryDays int
}

// ReadRules maps dir's config.yml to Rynek's rules file. A folder without
// one is fs.ErrNotExist.
func ReadRules(dir string) (Rules, error) {
	f := &file{path: filepath.Join(dir, ConfigFile)}
	data, err := os.ReadFile(f.path)
	if err != nil {
		return Rules{}, err
	}
	root, err := f.parse(data)
	if err != nil {
		return Rules{}, err
	}
	var out Rules
	if root == nil {
		out.YAML = []byte("# " + ConfigFile + " was empty: every rule keeps its default\n")
		return out, nil
	}
	if root.Kind != yaml.MappingNode {
		return Rules{}, f.errorf(root, "%s is %s, not a map of settings", ConfigFile, kindName(root))
	}
	sections := map[string]map[string]string{}
	set := func(section, key, value string) {
		if sections[section] == nil {
			sections[section] = map[string]string{}
		}
		sections[section][key] = value
		out.Mapped++
	}
	num := func(path string) (float64, bool) {
		n := walk(root, path)
		if n == nil {
			return 0, false
		}
		v, ok := number(n)
		if !ok {
			out.Unmapped = append(out.Unmapped, path+" (not a number: "+kindName(n)+")")
		}
		return v, ok
	}
	money := func(v float64) string { return strconv.FormatFloat(math.Round(v*100)/100, 'f', 2, 64) }
	whole := func(v float64) string { return strconv.FormatInt(int64(math.Round(v)), 10) }
	if v, ok := num("settings.max-listings-per-player"); ok && v >= 1 {
		set("listings", "limit", whole(v))
	}
	if v, ok := num("settings.listing-expiry-days"); ok && v >= 1 {
		set("listings", "expiry-days", whole(v))
		out.ExpiryDays = int(math.Min(math.Round(v), 1<<30))
	}
	if v, ok := num("settings.min-price"); ok && v > 0 {
		set("prices", "min", money(v))
	}
	if v, ok := num("settings.max-price"); ok && v > 0 {
		set("prices", "max", money(v))
	}
	feesOn := enabled(root, "market-fee.enabled")
	for _, k := range []struct{ from, to string }{{"listing-fee-percent", "listing-percent"}, {"sale-fee-percent", "sale-percent"}} {
		if v, ok := num("market-fee." + k.from); ok && v >= 0 && v <= 100 {
			if !feesOn {
				v = 0
			}
			set("fees", k.to, strconv.FormatFloat(math.Round(v*100)/100, 'f', -1, 64))
		}
	}
	if !feesOn && walk(root, "market-fee.sale-fee-percent") == nil {
		set("fees", "sale-percent", "0")
	}
	if v, ok := num("market-fee.minimum-fee"); ok && v >= 0 {
		set("fees", "minimum", money(v))
	}
	if v, ok := num("market-fee.maximum-fee"); ok && v >= 0 {
		set("fees", "maximum", money(v))
	}
	abuseOn := enabled(root, "anti-abuse.enabled")
	if v, ok := num("anti-abuse.max-purchases-from-same-player"); ok && v >= 0 {
		if !abuseOn {
			v = 0
		}
		set("anti-abuse", "max-purchases-from-same-seller", whole(v))
	}
	if v, ok := num("anti-abuse.purchase-window-seconds"); ok && v > 0 {
		hours := math.Ceil(v / 3600)
		if hours*3600 != v {
			out.Unmapped = append(out.Unmapped, fmt.Sprintf("anti-abuse.purchase-window-seconds (%s s, rounded up to %s h: Rynek's window is in hours)", whole(v), whole(hours)))
		}
		set("anti-abuse", "window-hours", whole(hours))
	}
	if v, ok := num("anti-abuse.max-transaction-value"); ok && v > 0 && abuseOn {
		set("prices", "max-transaction-value", money(v))
	}
	if v, ok := num("anti-abuse.listing-cooldown-seconds"); ok && v >= 0 {
		if !abuseOn {
			v = 0
		}
		set("listings", "cooldown-seconds", whole(v))
	}
	if v, ok := num("price-alerts.max-per-player"); ok && v >= 1 {
		set("alerts", "max-per-player", whole(v))
	}
	for _, k := range []string{"market-fee.sink-account", "history.enabled", "history.retention-days", "favorites.enabled",
		"price-alerts.enabled", "transactions.logging", "mailbox.enabled", "ratings.enabled", "stats.enabled", "settings.gui-rows", "messages"} {
		if walk(root, k) != nil {
			out.Unmapped = append(out.Unmapped, k)
		}
	}
	var b strings.Builder
	fmt.Fprintf(&b, "# Rynek's rules, from the plugin's %s (every key: docs/rules.md).\n", ConfigFile)
	for _, section := range []string{"listings", "prices", "fees", "anti-abuse", "alerts"} {
		keys := sections[section]
		if len(keys) == 0 {
			continue
		}
		fmt.Fprintf(&b, "%s:\n", section)
		for _, k := range slices.Sorted(maps.Keys(keys)) {
			fmt.Fprintf(&b, "  %s: %s\n", k, keys[k])
		}
	}
	out.YAML = []byte(b.String())
	if _, err := rules.Parse(out.YAML, f.path); err != nil {
		return Rules{}, fmt.Errorf("%s maps to rules Rynek refuses: %w", f.path, err)
	}
	return out, nil
}

// WriteRules writes r as the rules file beside the market at dbPath, never
// over an existing one. It returns the path written.
func WriteRules(r Rules, dbPath string) (string, error) {
	path := filepath.Join(filepath.Dir(dbPath), rules.FileName)
	if _, err := os.Stat(path); err == nil {
		return "", fmt.Errorf("%s exists: it is left as it is (the plugin's rules are not written over it)", path)
	} else if !errors.Is(err, fs.ErrNotExist) {
		return "", err
	}
	if err := writeFiles([]string{path}, [][]byte{r.YAML}); err != nil {
		return "", err
	}
	return path, nil
}

// walk finds the node at a dotted path of map keys, or nil.
func walk(n *yaml.Node, path string) *yaml.Node {
	for _, k := range strings.Split(path, ".") {
		if n == nil || n.Kind != yaml.MappingNode {
			return nil
		}
		n = get(n, k)
	}
	if n == nil || isNull(n) {
		return nil
	}
	return n
}

// enabled reads a boolean switch that defaults to true, as the plugin's did.
func enabled(root *yaml.Node, path string) bool {
	n := walk(root, path)
	if n == nil {
		return true
	}
	v, err := strconv.ParseBool(n.Value)
	return err != nil || v
}

package grzybcio

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/rynek/rynek/internal/rules"
)

// TestReadRulesMapsThePluginsConfig: the plugin's config.yml becomes Rynek's
// rules file, key by key, and says what it leaves behind.
func TestReadRulesMapsThePluginsConfig(t *testing.T) {
	r, err := ReadRules("testdata/server")
	if err != nil {
		t.Fatal(err)
	}
	want := `# Rynek's rules, from the plugin's config.yml (every key: docs/rules.md).
listings:
  cooldown-seconds: 3
  expiry-days: 5
  limit: 15
prices:
  max: 250000.00
  max-transaction-value: 10000000.00
  min: 0.50
fees:
  listing-percent: 1.5
  maximum: 0.00
  minimum: 0.10
  sale-percent: 4
anti-abuse:
  max-purchases-from-same-seller: 20
  window-hours: 2
alerts:
  max-per-player: 5
`
	if string(r.YAML) != want {
		t.Fatalf("rules:\n%s\nwant:\n%s", r.YAML, want)
	}
	if r.Mapped != 13 || !strings.Contains(strings.Join(r.Unmapped, "|"), "anti-abuse.purchase-window-seconds (5400 s, rounded up to 2 h: Rynek's window is in hours)") ||
		!strings.Contains(strings.Join(r.Unmapped, "|"), "market-fee.sink-account") {
		t.Fatalf("mapped %d, not carried %q", r.Mapped, r.Unmapped)
	}
	c, err := rules.Parse(r.YAML, "rynek.yml")
	if err != nil {
		t.Fatal(err)
	}
	if c.MaxListingsPerPlayer != 15 || c.ListingTTL != 5*24*time.Hour || c.MinPrice != 50 || c.ListingFeeBasisPoints != 150 ||
		c.SaleFeeBasisPoints != 400 || c.MinFee != 10 || c.PurchaseCap.Max != 20 || c.PurchaseCap.Window != 2*time.Hour ||
		c.MaxAlertsPerPlayer != 5 || c.ListingCooldown != 3*time.Second {
		t.Fatalf("parsed %+v", c)
	}

	dir := t.TempDir()
	db := filepath.Join(dir, "m.db")
	where, err := WriteRules(r, db)
	if err != nil || where != filepath.Join(dir, "rynek.yml") {
		t.Fatalf("%q %v", where, err)
	}
	if _, err := WriteRules(Rules{YAML: []byte("x")}, db); err == nil || !strings.Contains(err.Error(), "exists: it is left as it is") {
		t.Fatalf("a second write: %v", err)
	}
	if b, _ := os.ReadFile(where); string(b) != want {
		t.Fatal("the rules file was changed")
	}
	if _, err := ReadRules(dir); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("a folder without config.yml: %v", err)
	}
}

// TestReadRulesSwitchedOff: the plugin's enabled: false switches become
// Rynek's zeros.
func TestReadRulesSwitchedOff(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, ConfigFile), []byte("market-fee:\n  enabled: false\n  sale-fee-percent: 5\nanti-abuse:\n  enabled: false\n  listing-cooldown-seconds: 5\n  max-purchases-from-same-player: 20\n  max-transaction-value: 100\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	r, err := ReadRules(dir)
	if err != nil {
		t.Fatal(err)
	}
	c, err := rules.Parse(r.YAML, "rynek.yml")
	if err != nil {
		t.Fatal(err)
	}
	if c.SaleFeeBasisPoints != -1 || c.ListingCooldown != -1 || c.PurchaseCap.Max != 0 || c.MaxTransactionValue != 0 {
		t.Fatalf("%s\nparsed %+v", r.YAML, c)
	}
}

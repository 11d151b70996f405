package grzybcio

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/rynek/rynek/market"
)

// TestExportRefusesAuctionsUnlessToldToLeaveThemOut: the plugin sells at
// fixed prices only, so an export of a market with an auction is refused,
// writing nothing; with --without-auctions it leaves the auction and the
// favourites of it out, and says so.
func TestExportRefusesAuctionsUnlessToldToLeaveThemOut(t *testing.T) {
	st := newStore(t)
	importDir(t, st, "testdata/server", ImportOptions{ExpiryDays: 36500})
	svc := market.New(st, market.Config{Clock: market.NewManualClock(now), ListingCooldown: -1})
	must(t, svc.BindMainThread())
	must(t, svc.Enable())
	players, err := svc.Players()
	must(t, err)
	stack, _, err := svc.GiveItem(players[0].ID, market.ItemStack{Material: "DIAMOND", Amount: 3})
	must(t, err)
	a, err := svc.StartAuction(players[0], stack, 10, 0, time.Hour)
	must(t, err)
	_, err = svc.ToggleFavorite(players[1].ID, a.ID)
	must(t, err)

	dir := filepath.Join(t.TempDir(), "GrzybcioRynek")
	_, err = Export(st, dir, ExportOptions{})
	if want := "the market has 1 auction, which the plugin cannot hold (it sells at fixed prices only); --without-auctions leaves them out: they stay in this market with their bids"; err == nil || err.Error() != want {
		t.Fatalf("an export of a market with an auction: %v, want %q", err, want)
	}
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Fatalf("the refused export left %s (%v)", dir, err)
	}
	sum, err := Export(st, dir, ExportOptions{WithoutAuctions: true})
	must(t, err)
	var out strings.Builder
	sum.WriteSummary(&out)
	if want := "  left out 1 auction, which the plugin cannot hold: they stay in this market with their bids\n"; !strings.Contains(out.String(), want) {
		t.Fatalf("the summary lacks %q:\n%s", want, out.String())
	}
	listings, err := os.ReadFile(filepath.Join(dir, ListingsFile))
	must(t, err)
	data, err := os.ReadFile(filepath.Join(dir, MarketDataFile))
	must(t, err)
	if !strings.Contains(string(listings), "\n    id: 1\n") || strings.Contains(string(listings), fmt.Sprintf("\n    id: %d\n", a.ID)) ||
		strings.Contains(string(data), fmt.Sprintf("- %d\n", a.ID)) {
		t.Fatalf("the auction #%d is in the export:\n%s\n%s", a.ID, listings, data)
	}
}

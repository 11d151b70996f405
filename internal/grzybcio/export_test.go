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

// TestExportRefusesOrdersUnlessToldToLeaveThemOut: the plugin has no buy
// orders, so an export of a market with an open one is refused, writing
// nothing; with --without-orders the orders stay in the market with their
// escrow, and the summary says how much each buyer's orders hold, so no
// money leaves unseen. A closed order holds nothing and is no refusal;
// its fills are among the exported transactions.
func TestExportRefusesOrdersUnlessToldToLeaveThemOut(t *testing.T) {
	st := newStore(t)
	importDir(t, st, "testdata/server", ImportOptions{ExpiryDays: 36500})
	svc := market.New(st, market.Config{Clock: market.NewManualClock(now), ListingCooldown: -1})
	must(t, svc.BindMainThread())
	must(t, svc.Enable())
	players, err := svc.Players()
	must(t, err)
	buyer, seller := players[0], players[1]
	_, err = svc.Deposit(buyer.ID, 1000)
	must(t, err)
	_, err = svc.PlaceOrder(buyer, "OAK_LOG", 640, 0.25, 0)
	must(t, err)
	_, err = svc.PlaceOrder(buyer, "COBBLESTONE", 200, 0.1, 0)
	must(t, err)
	done, err := svc.PlaceOrder(buyer, "STONE", 10, 1, 0)
	must(t, err)
	stone, _, err := svc.GiveItem(seller.ID, market.ItemStack{Material: "STONE", Amount: 10})
	must(t, err)
	sale, err := svc.SellToOrder(seller, stone, done.ID)
	must(t, err)
	before, err := svc.Audit()
	must(t, err)

	dir := filepath.Join(t.TempDir(), "GrzybcioRynek")
	_, err = Export(st, dir, ExportOptions{WithoutAuctions: true})
	if want := "the market has 2 open buy orders, which the plugin cannot hold (it has no buy orders); --without-orders leaves them out: they stay in this market with the 180.00 their escrow holds"; err == nil || err.Error() != want {
		t.Fatalf("an export of a market with open orders: %v, want %q", err, want)
	}
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Fatalf("the refused export left %s (%v)", dir, err)
	}
	sum, err := Export(st, dir, ExportOptions{WithoutOrders: true})
	must(t, err)
	var out strings.Builder
	sum.WriteSummary(&out)
	want := "  left out 2 open buy orders, which the plugin cannot hold: they stay in this market with the 180.00 their escrow holds, the buyers' money\n" +
		"  (cancelling an order in Rynek gives its escrow back to its buyer's balance); held for each buyer:\n" +
		"    " + buyer.ID.String() + " " + buyer.Name + ": 180.00 in 2 orders\n"
	if !strings.Contains(out.String(), want) {
		t.Fatalf("the summary lacks\n%s\n%s", want, out.String())
	}
	data, err := os.ReadFile(filepath.Join(dir, MarketDataFile))
	must(t, err)
	if !strings.Contains(string(data), "id: "+sale.ID) {
		t.Fatalf("the sale into the filled order, %s, is not among the exported transactions", sale.ID)
	}
	// The export wrote nothing to the market: the escrow is where it was.
	after, err := svc.Audit()
	must(t, err)
	if after.Money != before.Money || after.Items != before.Items {
		t.Fatalf("the market changed in the export: money %d -> %d", before.Money, after.Money)
	}
	for _, a := range after.Accounts {
		if a.Name == "held by buy orders" && (a.Money != 180_00 || a.Rows != 2) {
			t.Fatalf("the orders' escrow after the export: %+v", a)
		}
	}
}

package grzybcio

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/rynek/rynek/market"
)

// listingsOf writes a listings.yml of one seller's listings, each a
// material and a price as the file writes it, ids from 1.
func listingsOf(t *testing.T, entries ...string) string {
	t.Helper()
	var b strings.Builder
	b.WriteString("listings:\n")
	for i, e := range entries {
		mat, price, _ := strings.Cut(e, " ")
		fmt.Fprintf(&b, "- ==: com.example.marketplace.model.MarketListing\n  seller: %s\n  item:\n    ==: org.bukkit.inventory.ItemStack\n"+
			"    DataVersion: 4903\n    id: minecraft:%s\n    count: 2\n    schema_version: 1\n  price: %s\n  sellerName: Grzybek\n  id: %d\n  timestamp: %d\n",
			grzybek, mat, price, i+1, now.UnixMilli()-3_600_000)
	}
	fmt.Fprintf(&b, "next-id: %d\n", len(entries)+1)
	dir := t.TempDir()
	must(t, os.WriteFile(filepath.Join(dir, ListingsFile), []byte(b.String()), 0o644))
	return dir
}

// An imported listing obeys the market's rules as SellItem applies them:
// one they refuse (the plugin took a price of 99,999,999,999.99) is not
// listed, and its item goes back to its seller's mailbox, reported with
// why. The listing limit is not applied: a load keeps what the source had.
func TestImportedListingsObeyTheMarketsRules(t *testing.T) {
	dir := listingsOf(t, "diamond 99999999999.99", "bedrock 5.0", "oak_log 0.5", "golden_apple 20000.0", "bread 12.5",
		"dirt -3.0", "stone abc", "bread 4.25")
	st := newStore(t)
	r := importDir(t, st, dir, ImportOptions{Rules: market.Config{MaxTransactionValue: 10_000_00, MaxListingsPerPlayer: 1}, RulesFrom: "the test's rules"})
	if r.Listings != 2 || r.Refused != 6 || r.OverLimit != 1 || r.MostListings != 2 {
		t.Fatalf("%d listed, %d refused, %d over the limit (the most %d); want 2, 6, 1 and 2", r.Listings, r.Refused, r.OverLimit, r.MostListings)
	}
	var refused []string
	for _, n := range r.Notes {
		if n.Kind == NoteRefused {
			refused = append(refused, strings.TrimPrefix(n.Where, dir+"/")+": "+n.Text)
		}
	}
	want := []string{
		"listings.yml:2:3: listing #1 not listed: price 99999999999.99 is outside 1.00..1000000.00; its item (2xDIAMOND) is in its seller's mailbox",
		"listings.yml:14:3: listing #2 not listed: BEDROCK may not be sold on the market; its item (2xBEDROCK) is in its seller's mailbox",
		"listings.yml:26:3: listing #3 not listed: price 0.50 is outside 1.00..1000000.00; its item (2xOAK_LOG) is in its seller's mailbox",
		"listings.yml:38:3: listing #4 not listed: price 20000.00 is above the market's maximum transaction value 10000.00; its item (2xGOLDEN_APPLE) is in its seller's mailbox",
		"listings.yml:62:3: listing #6 not listed: price -3.00 is outside 1.00..1000000.00; its item (2xDIRT) is in its seller's mailbox",
		"listings.yml:74:3: listing #7 not listed: its price is \"abc\", not a number; its item (2xSTONE) is in its seller's mailbox",
	}
	if strings.Join(refused, "\n") != strings.Join(want, "\n") {
		t.Errorf("refused:\n%s\nwant:\n%s", strings.Join(refused, "\n"), strings.Join(want, "\n"))
	}
	c := contents(t, st)
	var mail []string
	for _, m := range c.Mail {
		mail = append(mail, fmt.Sprintf("%s %dx%s %.2f", m.Reason, m.Item.Amount, m.Item.Material, m.PreviousPrice))
	}
	slices.Sort(mail)
	wantMail := "admin-removed 2xBEDROCK 5.00, admin-removed 2xDIAMOND 99999999999.99, admin-removed 2xDIRT 0.00, " +
		"admin-removed 2xGOLDEN_APPLE 20000.00, admin-removed 2xOAK_LOG 0.50, admin-removed 2xSTONE 0.00"
	if got := strings.Join(mail, ", "); len(c.Listings) != 2 || got != wantMail {
		t.Errorf("%d listings and mail %s\nwant 2 and %s", len(c.Listings), got, wantMail)
	}
	var out strings.Builder
	r.WriteSummary(&out)
	for _, line := range []string{
		"                 each obeys the market's rules: prices 1.00..1000000.00, at most 10000.00 a transaction, 15 materials blacklisted (the test's rules)\n",
		"  refused        6 listings those rules refuse: not listed; each item is back in its seller's mailbox\n",
		"  over limit     1 seller has more listings than the limit of 1 (the most: 2): they keep them, and list again once under it\n",
	} {
		if !strings.Contains(out.String(), line) {
			t.Errorf("the summary lacks %q:\n%s", line, out.String())
		}
	}
	// The market opens with every item accounted for and no listing its
	// rules refuse.
	svc := market.New(st, market.Config{MaxTransactionValue: 10_000_00, Clock: market.NewManualClock(now)})
	must(t, svc.BindMainThread())
	must(t, svc.Enable())
	defer svc.Close()
	a, err := svc.Audit()
	must(t, err)
	if len(a.Problems) != 0 || a.Items != 16 {
		t.Fatalf("audit: %d items (want the files' 16), problems %v", a.Items, a.Problems)
	}
}

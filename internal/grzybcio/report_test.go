package grzybcio

import (
	"strings"
	"testing"
)

// TestSummaryCountsInWords: every count in the import's and the export's
// summaries reads as English counts, one in the singular, two and more in
// the plural ("1 mailbox entry", "2 mailbox entries").
func TestSummaryCountsInWords(t *testing.T) {
	for _, c := range []struct {
		n    int
		want []string
	}{
		{1, []string{
			"; each expires 1 day after it was created",
			"  expired        1 listing past that expiry",
			"  mail           1 mailbox entry, 1 expiry in flight, 1 item owed to offline sellers\n",
			"  ratings        1 rating of those sales by their buyers\n",
			"  rounded        1 amount to cents",
			"  shortened      1 field over Rynek's limits",
			"  already there  1 entry (listings, mail and transactions)",
			"  players' own   1 favourite (1 more was of listings that are not on the market), 1 price alert,",
			"; 1 player already in the market keeps their own\n",
			"  not imported   1 sale notice for offline sellers",
		}},
		{2, []string{
			"; each expires 2 days after it was created",
			"  expired        2 listings past that expiry",
			"  mail           2 mailbox entries, 2 expiries in flight, 2 items owed to offline sellers\n",
			"  ratings        2 ratings of those sales by their buyers\n",
			"  rounded        2 amounts to cents",
			"  shortened      2 fields over Rynek's limits",
			"  already there  2 entries (listings, mail and transactions)",
			"  players' own   2 favourites (2 more were of listings that are not on the market), 2 price alerts,",
			"; 2 players already in the market keep their own\n",
			"  not imported   2 sale notices for offline sellers",
		}},
	} {
		n := c.n
		r := &Report{Dir: "plugins/GrzybcioMarket", ExpiryDays: n, Listings: n, Expired: n, Mail: n, Outbox: n,
			PendingReturns: n, Ratings: n, Rounded: n, AlreadyThere: n, Favorites: n, FavoritesGone: n, Alerts: n,
			KeptPlayerData: n, SaleNotices: n, counts: map[NoteKind]int{NoteShortened: n}}
		var b strings.Builder
		r.WriteSummary(&b)
		for _, w := range c.want {
			if !strings.Contains(b.String(), w) {
				t.Errorf("%d of each: the summary lacks %q:\n%s", n, w, b.String())
			}
		}
		b.Reset()
		ExportSummary{Dir: "out", Listings: n, Mail: n, Transactions: n, Favorites: n, Alerts: n, Ratings: n}.WriteSummary(&b)
		want := map[int]string{1: "exported 1 listing, 1 mailbox entry and 1 transaction to ", 2: "exported 2 listings, 2 mailbox entries and 2 transactions to "}[n]
		if !strings.HasPrefix(b.String(), want) {
			t.Errorf("%d of each: the export says %q, want it to begin %q", n, b.String(), want)
		}
	}
}

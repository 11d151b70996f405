package seed_test

import (
	"testing"
	"time"

	"github.com/rynek/rynek/seed"
)

// TestStaplesTradeEveryDay: the demo's history has the shape of a real
// server's, where players look first. The popular materials (diamonds,
// netherite, enchanted books, food, building blocks) sell every day of
// the month, so their item pages and charts have a bar a day; the rest of
// the catalogue sells now and then. /item/DIAMOND showed 1 sale in 7 days.
func TestStaplesTradeEveryDay(t *testing.T) {
	svc, res := load(t, seed.Options{Rand: 1, Now: now}) // the demo's defaults
	must(t, svc.WaitHistory())
	for _, m := range []string{"DIAMOND", "NETHERITE_INGOT", "ENCHANTED_BOOK", "COOKED_BEEF", "BREAD", "OAK_LOG", "COBBLESTONE", "STONE"} {
		ph, err := svc.PriceHistory(m, 30*24*time.Hour, 24*time.Hour)
		must(t, err)
		// The first day's bucket began before the history did.
		for _, p := range ph.Points[1:] {
			if p.Sales == 0 {
				t.Errorf("%s: no sales on %s", m, p.Start.Format(time.DateOnly))
			}
		}
		t.Logf("%-16s 24h %3d  7d %3d  30d %4d", m, ph.Windows[0].Sales, ph.Windows[1].Sales, ph.Windows[2].Sales)
		if ph.Windows[1].Sales < 14 {
			t.Errorf("%s: %d sales in 7 days, want two a day or more", m, ph.Windows[1].Sales)
		}
	}
	// The rest sells rarely: most materials that sold at all sold a few
	// times in the month.
	done, err := svc.GetCompletedTransactions()
	must(t, err)
	per := map[string]int{}
	for _, tx := range done {
		per[tx.Item.Material]++
	}
	rare := 0
	for _, n := range per {
		if n <= 5 {
			rare++
		}
	}
	t.Logf("%d transactions, %d completed, of %d materials, %d of them 5 times or fewer", res.Transactions, len(done), len(per), rare)
	if rare < len(per)*2/3 {
		t.Errorf("%d of %d materials sold 5 times or fewer in 30 days, want most", rare, len(per))
	}
}

// TestNewestPurchasesWaitForARating: buyers rate later, so no sale of the
// last hour is rated and the newest purchase is one to rate; two in five
// older ones are. The console's Transactions pane opens on the newest,
// where * rates it; the staples' sales had made it a rated one.
func TestNewestPurchasesWaitForARating(t *testing.T) {
	svc, _ := load(t, seed.Options{Rand: 1, Now: now})
	must(t, svc.WaitHistory())
	done, err := svc.GetCompletedTransactions()
	must(t, err)
	recent, rated := 0, 0
	for _, tx := range done {
		if now.Sub(tx.CreatedAt()) < time.Hour {
			recent++
			if tx.Rating != 0 {
				t.Errorf("%s, %v before now, is rated %d", tx.ID, now.Sub(tx.CreatedAt()), tx.Rating)
			}
		} else if tx.Rating != 0 {
			rated++
		}
	}
	if recent == 0 || rated < len(done)/4 {
		t.Errorf("%d sales in the last hour, %d of %d rated", recent, rated, len(done))
	}
}

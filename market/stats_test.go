package market_test

import (
	"testing"
	"time"

	"github.com/rynek/rynek/market"
)

func TestStatsAndPriceHistory(t *testing.T) {
	w := newWorld(t)
	buy := func(seller, buyer market.Player, amount int, price float64) market.Transaction {
		t.Helper()
		d := w.stack(seller, 0)
		d.Amount = amount
		l, err := w.svc.SellItem(seller, d, price)
		must(t, err)
		tx, err := w.svc.Buy(buyer, l.ID)
		must(t, err)
		return tx
	}
	// Diamonds: unit prices 2, 3 and 10 at different times.
	buy(w.alice, w.bob, 10, 20) // unit 2.00, 30 days ago (clock moves below)
	w.clock.Advance(20 * 24 * time.Hour)
	buy(w.alice, w.admin, 5, 15) // unit 3.00, 10 days ago
	w.clock.Advance(9*24*time.Hour + 12*time.Hour)
	buy(w.bob, w.admin, 1, 10) // unit 10.00, 12 hours ago
	w.clock.Advance(12 * time.Hour)
	// A failed purchase counts nowhere.
	must(t, w.svc.ArmFailure(market.StateSellerPaid))
	d := w.stack(w.bob, 0)
	d.Amount = 1
	l, err := w.svc.SellItem(w.bob, d, 999)
	must(t, err)
	if _, err := w.svc.Buy(w.alice, l.ID); err == nil {
		t.Fatal("armed purchase succeeded")
	}

	st, err := w.svc.Stats(10)
	must(t, err)
	if st.TotalSales != 3 || st.MarketVolume != 45 || st.ActiveListings != 1 {
		t.Fatalf("stats %+v", st)
	}
	// Fees: 5% of 20, 15, 10 = 1.00 + 0.75 + 0.50.
	if st.FeeBalance != 2.25 {
		t.Fatalf("fee balance %v", st.FeeBalance)
	}
	if len(st.TopSellers) != 2 || st.TopSellers[0].Name != "Alice" || st.TopSellers[0].Earned != 33.25 || st.TopSellers[0].Sales != 2 ||
		st.TopSellers[1].Name != "Bob" || st.TopSellers[1].Earned != 9.5 {
		t.Fatalf("top sellers %+v", st.TopSellers)
	}
	if len(st.TopItems) != 1 || st.TopItems[0].Material != "DIAMOND" || st.TopItems[0].Amount != 16 || st.TopItems[0].Sales != 3 {
		t.Fatalf("top items %+v", st.TopItems)
	}
	if len(st.MostExpensive) != 3 || st.MostExpensive[0].Price != 20 || st.MostExpensive[2].Price != 10 {
		t.Fatalf("most expensive %+v", st.MostExpensive)
	}

	ph, err := w.svc.PriceHistory("diamond", 30*24*time.Hour, 30)
	must(t, err)
	want := []struct {
		sales            int
		min, median, max float64
	}{
		{1, 10, 10, 10}, // 24 h
		{1, 10, 10, 10}, // 7 d
		{3, 2, 3, 10},   // 30 d: the first sale is exactly 30 days old; windows include their start
	}
	for i, w := range want {
		got := ph.Windows[i]
		if got.Sales != w.sales || got.Min != w.min || got.Median != w.median || got.Max != w.max {
			t.Errorf("window %v: %+v, want %+v", got.Window, got, w)
		}
	}
	if len(ph.Points) != 30 {
		t.Fatalf("%d points", len(ph.Points))
	}
	sales := 0
	for _, p := range ph.Points {
		sales += p.Sales
	}
	if sales != 3 {
		t.Fatalf("chart holds %d sales, want 3", sales)
	}
	// A key no test gives an item: the market has never met that material.
	if _, err := w.svc.PriceHistory("NEVER_MET_BY_THE_MARKET", 0, 0); err == nil {
		t.Fatal("unknown material accepted")
	}
	// Stats survive a restart (rebuilt from transactions).
	w.reopen()
	st2, _ := w.svc.Stats(10)
	if st2.TotalSales != 3 || st2.MarketVolume != 45 || st2.TopSellers[0].Earned != 33.25 {
		t.Fatalf("after reopen %+v", st2)
	}
}

func TestTransactionsPages(t *testing.T) {
	w := newWorld(t)
	var ids []string
	for i := 0; i < 3; i++ {
		d := w.stack(w.alice, 0)
		d.Amount = 1
		l, err := w.svc.SellItem(w.alice, d, 5)
		must(t, err)
		if i == 1 {
			must(t, w.svc.ArmFailure(market.StateSellerPaid))
		}
		w.clock.Advance(time.Minute)
		tx, _ := w.svc.Buy(w.bob, l.ID)
		ids = append(ids, tx.ID)
	}
	done, err := w.svc.Transactions(market.TxQuery{})
	must(t, err)
	if done.Total != 2 || done.Transactions[0].ID != ids[2] || done.Transactions[1].ID != ids[0] {
		t.Fatalf("completed page %+v", done)
	}
	all, err := w.svc.Transactions(market.TxQuery{AllStates: true})
	must(t, err)
	if all.Total != 3 || all.Transactions[1].ID != ids[1] || all.Transactions[1].State != market.StateRolledBack {
		t.Fatalf("all page %+v", all)
	}
	bob, err := w.svc.Transactions(market.TxQuery{Player: w.bob.ID, AllStates: true, Offset: 1, Limit: 1})
	must(t, err)
	if bob.Total != 3 || len(bob.Transactions) != 1 || bob.Transactions[0].ID != ids[1] {
		t.Fatalf("bob page %+v", bob)
	}
	admin, err := w.svc.Transactions(market.TxQuery{Player: w.admin.ID})
	must(t, err)
	if admin.Total != 0 {
		t.Fatalf("admin page %+v", admin)
	}
	w.reopen()
	again, _ := w.svc.Transactions(market.TxQuery{Player: w.bob.ID, AllStates: true})
	if again.Total != 3 || again.Transactions[0].ID != ids[2] {
		t.Fatalf("after reopen %+v", again)
	}
}

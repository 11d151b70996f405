package market_test

import (
	"path/filepath"
	"testing"
	"time"

	"github.com/rynek/rynek/market"
	"github.com/rynek/rynek/market/sqlite"
)

// TestRefundDuringHistoryLoad: refunds and purchases made while the history
// loads in the background leave the completed list and the figures exact (a
// refund takes a purchase out of the list the load counts off the lock).
func TestRefundDuringHistoryLoad(t *testing.T) {
	path := filepath.Join(t.TempDir(), "h.db")
	st, err := sqlite.Open(path, sqlite.Options{})
	must(t, err)
	alice, bob := market.Player{ID: uid(1), Name: "Alice"}, market.Player{ID: uid(2), Name: "Bob"}
	admin := market.Player{ID: uid(3), Name: "Admin", Permissions: []string{market.PermAdmin}}
	b := newBulk(t, st)
	must(t, b.AddPlayer(alice, 1000_00))
	must(t, b.AddPlayer(bob, 1000_00))
	must(t, b.AddPlayer(admin, 0))
	must(t, b.SetSlot(alice.ID, 0, market.ItemStack{ID: uid(9), Material: "DIAMOND", Amount: 64}))
	n := 200_000 // long enough a load for many refunds to land in it
	if testing.Short() {
		n = 20_000
	}
	for i := 0; i < n; i++ {
		_, err := b.AddTransaction(market.HistoricSale{Buyer: bob.ID, Seller: alice.ID, Price: 1000, Fee: 50, State: market.StateCompleted,
			At: t0.Add(-time.Duration(n-i) * time.Second), Item: market.ItemStack{Material: "DIAMOND", Amount: 1}})
		must(t, err)
	}
	must(t, b.Finish())
	must(t, st.Close())

	st, err = sqlite.Open(path, sqlite.Options{})
	must(t, err)
	svc := market.New(st, market.Config{Clock: market.NewManualClock(t0), ListingCooldown: -1})
	svc.BindMainThread()
	must(t, svc.Enable())
	defer svc.Close()
	refunds := 0
	var last string
	for !svc.HistoryLoaded() {
		p, err := svc.GetPlayer(alice.ID)
		must(t, err)
		var stack market.ItemStack
		for _, s := range p.Inventory {
			if s != nil {
				stack = *s
				break
			}
		}
		stack.Amount = 1
		l, err := svc.SellItem(alice, stack, 20)
		must(t, err)
		tx, err := svc.Buy(bob, l.ID)
		must(t, err)
		if last != "" { // the purchase before this one
			_, err = svc.Refund(last, admin, market.RefundMoneyOnly)
			must(t, err)
			refunds++
		}
		last = tx.ID
	}
	done, err := svc.GetCompletedTransactions()
	must(t, err)
	stats, _ := svc.Stats(1)
	t.Logf("%d refunds during the load; %d completed, stats %d sales; history error %v", refunds, len(done), stats.TotalSales, svc.HistoryErr())
	for _, x := range done {
		if x.State != market.StateCompleted {
			t.Errorf("the completed list holds %s, %s %s", x.ID, x.State, x.ErrorCode)
		}
	}
	if len(done) == 0 || done[len(done)-1].ID != last {
		t.Errorf("the last purchase %s, not refunded, is not the newest completed", last)
	}
	if len(done) != n+1 || stats.TotalSales != int64(n+1) || svc.HistoryErr() != nil {
		t.Fatalf("after %d refunds during the load: %d completed, stats %d sales, want %d; history error %v", refunds, len(done), stats.TotalSales, n+1, svc.HistoryErr())
	}
}

// TestRefundOnlyDuringHistoryLoad: the history load's last step assumes
// the main thread only appends to the completed list; a refund deletes.
func TestRefundOnlyDuringHistoryLoad(t *testing.T) {
	path := filepath.Join(t.TempDir(), "h.db")
	st, err := sqlite.Open(path, sqlite.Options{})
	must(t, err)
	alice, bob := market.Player{ID: uid(1), Name: "Alice"}, market.Player{ID: uid(2), Name: "Bob"}
	admin := market.Player{ID: uid(3), Name: "Admin", Permissions: []string{market.PermAdmin}}
	b := newBulk(t, st)
	must(t, b.AddPlayer(alice, 1000_00))
	must(t, b.AddPlayer(bob, 1000_00))
	must(t, b.AddPlayer(admin, 0))
	must(t, b.SetSlot(alice.ID, 0, market.ItemStack{ID: uid(9), Material: "DIAMOND", Amount: 64}))
	n := 200_000 // long enough a load for many refunds to land in it
	if testing.Short() {
		n = 20_000
	}
	for i := 0; i < n; i++ {
		_, err := b.AddTransaction(market.HistoricSale{Buyer: bob.ID, Seller: alice.ID, Price: 1000, Fee: 50, State: market.StateCompleted,
			At: t0.Add(-time.Duration(n-i) * time.Second), Item: market.ItemStack{Material: "DIAMOND", Amount: 1}})
		must(t, err)
	}
	must(t, b.Finish())
	must(t, st.Close())

	st, err = sqlite.Open(path, sqlite.Options{})
	must(t, err)
	svc := market.New(st, market.Config{Clock: market.NewManualClock(t0), ListingCooldown: -1})
	svc.BindMainThread()
	must(t, svc.Enable())
	defer svc.Close()
	refunds := 0
	var last string
	for !svc.HistoryLoaded() {
		p, err := svc.GetPlayer(alice.ID)
		must(t, err)
		var stack market.ItemStack
		for _, s := range p.Inventory {
			if s != nil {
				stack = *s
				break
			}
		}
		if last != "" { // a refund alone, in every other turn
			_, err = svc.Refund(last, admin, market.RefundMoneyOnly)
			must(t, err)
			refunds++
			last = ""
			continue
		}
		stack.Amount = 1
		l, err := svc.SellItem(alice, stack, 20)
		must(t, err)
		tx, err := svc.Buy(bob, l.ID)
		must(t, err)
		last = tx.ID
	}
	done, err := svc.GetCompletedTransactions()
	must(t, err)
	stats, _ := svc.Stats(1)
	t.Logf("%d refunds during the load; %d completed, stats %d sales; history error %v", refunds, len(done), stats.TotalSales, svc.HistoryErr())
	for _, x := range done {
		if x.State != market.StateCompleted {
			t.Errorf("the completed list holds %s, %s %s", x.ID, x.State, x.ErrorCode)
		}
	}
	if len(done) == 0 || done[len(done)-1].ID != last {
		t.Errorf("the last purchase %s, not refunded, is not the newest completed", last)
	}
	if len(done) != n+1 || stats.TotalSales != int64(n+1) || svc.HistoryErr() != nil {
		t.Fatalf("after %d refunds during the load: %d completed, stats %d sales, want %d; history error %v", refunds, len(done), stats.TotalSales, n+1, svc.HistoryErr())
	}
}

package market_test

import (
	"errors"
	"path/filepath"
	"testing"
	"time"

	"github.com/rynek/rynek/market"
	"github.com/rynek/rynek/market/sqlite"
)

// TestRefundDuringHistoryLoad: while the history loads in the background,
// purchases go on and refunds and ratings are refused with BUSY, changing
// nothing (the load counts finished purchases off the lock); once it is
// loaded they go through, and the completed list and the figures are exact.
func TestRefundDuringHistoryLoad(t *testing.T) {
	path := filepath.Join(t.TempDir(), "h.db")
	st, err := sqlite.Open(path, sqlite.Options{})
	must(t, err)
	alice, bob := market.Player{ID: uid(1), Name: "Alice"}, market.Player{ID: uid(2), Name: "Bob"}
	admin := market.Player{ID: uid(3), Name: "Admin", Permissions: []string{market.PermAdmin}}
	b := newBulk(t, st)
	must(t, b.AddPlayer(alice, 1000_00))
	must(t, b.AddPlayer(bob, 10_000_000_00))
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
	var bought []string
	early := "" // a refund that went through as the load ended
	refused := 0
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
		if n := len(bought); n > 0 {
			before, _ := svc.GetPlayer(bob.ID)
			_, err := svc.Refund(bought[n-1], admin, market.RefundMoneyOnly)
			_, rateErr := svc.Rate(bob.ID, bought[n-1], 4)
			if svc.HistoryLoaded() {
				// The load ended meanwhile: either answer is right.
				if err == nil {
					early = bought[n-1]
				}
				break
			}
			for _, err := range []error{err, rateErr} {
				var me *market.Error
				if !errors.As(err, &me) || me.Code != market.CodeBusy {
					t.Fatalf("during the load: %v, want BUSY", err)
				}
			}
			if after, _ := svc.GetPlayer(bob.ID); after.Balance != before.Balance {
				t.Fatalf("a refused refund moved the buyer's balance %v -> %v", before.Balance, after.Balance)
			}
			refused++
		}
		if len(bought) == 60 { // Alice's stack holds 64
			continue
		}
		stack.Amount = 1
		l, err := svc.SellItem(alice, stack, 20)
		must(t, err)
		tx, err := svc.Buy(bob, l.ID)
		must(t, err)
		bought = append(bought, tx.ID)
	}
	// Loaded: the refunds go through now.
	refunded := 0
	for _, id := range bought[len(bought)/2:] {
		if id == early {
			refunded++
			continue
		}
		_, err := svc.Refund(id, admin, market.RefundMoneyOnly)
		must(t, err)
		refunded++
	}
	done, err := svc.GetCompletedTransactions()
	must(t, err)
	stats, _ := svc.Stats(1)
	t.Logf("%d refused during the load; %d bought, %d refunded", refused, len(bought), refunded)
	for _, x := range done {
		if x.State != market.StateCompleted {
			t.Errorf("the completed list holds %s, %s %s", x.ID, x.State, x.ErrorCode)
		}
	}
	want := n + len(bought) - refunded
	if len(done) != want || stats.TotalSales != int64(want) || svc.HistoryErr() != nil {
		t.Fatalf("%d completed, stats %d sales, want %d; history error %v", len(done), stats.TotalSales, want, svc.HistoryErr())
	}
}

// TestCappedBuyDuringHistoryLoad: while a purchase cap is set, a purchase
// during the start-up history load is refused with BUSY and changes
// nothing (the cap is counted from the history, and the main thread does
// not wait for it); once loaded, the same purchase goes through.
func TestCappedBuyDuringHistoryLoad(t *testing.T) {
	path := filepath.Join(t.TempDir(), "c.db")
	st, err := sqlite.Open(path, sqlite.Options{})
	must(t, err)
	alice, bob := market.Player{ID: uid(1), Name: "Alice"}, market.Player{ID: uid(2), Name: "Bob"}
	b := newBulk(t, st)
	must(t, b.AddPlayer(alice, 1000_00))
	must(t, b.AddPlayer(bob, 1000_00))
	must(t, b.SetSlot(alice.ID, 0, market.ItemStack{ID: uid(9), Material: "DIAMOND", Amount: 64}))
	_, err = b.AddTransaction(market.HistoricSale{Buyer: bob.ID, Seller: alice.ID, Price: 1000, Fee: 50, State: market.StateCompleted,
		At: t0.Add(-time.Hour), Item: market.ItemStack{Material: "DIAMOND", Amount: 1}})
	must(t, err)
	must(t, b.Finish())
	must(t, st.Close())

	st, err = sqlite.Open(path, sqlite.Options{})
	must(t, err)
	svc := market.New(st, market.Config{Clock: market.NewManualClock(t0), ListingCooldown: -1,
		PurchaseCap: market.PurchaseCap{Max: 2, Window: 24 * time.Hour}})
	counting, release := make(chan struct{}), make(chan struct{})
	market.SetWhileCountingHistory(svc, func() {
		close(counting)
		<-release
	})
	must(t, svc.BindMainThread())
	must(t, svc.Enable())
	defer svc.Close()
	<-counting
	p, err := svc.GetPlayer(alice.ID)
	must(t, err)
	stack := *p.Inventory[0]
	stack.Amount = 1
	l, err := svc.SellItem(alice, stack, 20)
	must(t, err)
	before, _ := svc.GetPlayer(bob.ID)
	_, err = svc.Buy(bob, l.ID)
	errText(t, err, "the market is still loading its history of purchases; try again in a moment")
	if after, _ := svc.GetPlayer(bob.ID); after.Balance != before.Balance {
		t.Errorf("a refused purchase moved the buyer's balance %v -> %v", before.Balance, after.Balance)
	}
	if _, err := svc.GetListing(l.ID); err != nil {
		t.Errorf("the listing left with a refused purchase: %v", err)
	}
	close(release)
	must(t, svc.WaitHistory())
	_, err = svc.Buy(bob, l.ID) // the second in the window: allowed
	must(t, err)
	l, err = svc.SellItem(alice, stack, 20)
	must(t, err)
	_, err = svc.Buy(bob, l.ID)
	errText(t, err, "Bob bought from Alice 2 times in the last 24h; the market allows 2")
}

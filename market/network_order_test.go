package market_test

import (
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/rynek/rynek/internal/pgtest"
	"github.com/rynek/rynek/market"
	"github.com/rynek/rynek/market/postgres"
)

// TestNetworkOrderRace: three servers on one PostgreSQL market fill one
// buy order at once, two ways: sellers selling into it from their
// inventories, and sellers listing stacks it would pay for. The order never
// buys more than it wants; its escrow is exact to the cent; every item and
// coin is where the market says. Then the book, which two servers may have
// crossed each adding one side, is uncrossed by the one with the duty.
//
// behind: the servers commit behind their ticks (Config.CommitBehind); a
// sale another server's change refuses is undone when the server takes
// its outcome, and counted as a conflict.
func TestNetworkOrderRace(t *testing.T) {
	t.Run("sync", func(t *testing.T) { orderRace(t, false) })
	t.Run("behind", func(t *testing.T) { orderRace(t, true) })
}

func orderRace(t *testing.T, behind bool) {
	dsn := pgtest.Database(t)
	const instances, sellersEach, rounds = 3, 2, 12
	np := seedNetwork(t, dsn, instances*sellersEach, 1, 0)
	clock := market.NewManualClock(t0)
	open := func(name string) *market.Service {
		st, err := postgres.Open(dsn, postgres.Options{Instance: name})
		must(t, err)
		svc := market.New(st, market.Config{Clock: clock, ListingCooldown: -1, SaleFeeBasisPoints: -1})
		svc.BindMainThread()
		must(t, svc.Enable())
		return svc
	}
	buyer := np.buyers[0]
	setup := open("setup")
	for _, p := range np.sellers {
		for range 4 {
			_, _, err := setup.GiveItem(p.ID, market.ItemStack{Material: "OAK_LOG", Amount: 64})
			must(t, err)
		}
	}
	const wanted = 200
	o, err := setup.PlaceOrder(buyer, "OAK_LOG", wanted, 2, 0)
	must(t, err)
	start := mustAudit(t, setup)
	must(t, setup.Close())

	type result struct {
		sold, refused, conflicts int
		failures                 []string
	}
	results := make([]result, instances)
	var ready, wg sync.WaitGroup
	ready.Add(instances)
	for i := range instances {
		wg.Add(1)
		go func() {
			defer wg.Done()
			res := &results[i]
			fail := func(format string, args ...any) { res.failures = append(res.failures, fmt.Sprintf(format, args...)) }
			st, err := postgres.Open(dsn, postgres.Options{Instance: fmt.Sprintf("server-%c", 'a'+i)})
			if err != nil {
				fail("open: %v", err)
				ready.Done()
				return
			}
			svc := market.New(st, market.Config{Clock: clock, ListingCooldown: -1, SaleFeeBasisPoints: -1, CommitBehind: behind})
			defer svc.Close()
			// A refusal that comes with the outcome: another server's
			// change first.
			undone := func(refused []market.Refusal) {
				for _, x := range refused {
					var me *market.Error
					if errors.As(x.Err, &me) && me.Code == market.CodeConflict {
						res.conflicts++
						res.sold--
					} else {
						fail("refused after it was made: %+v", x)
					}
				}
			}
			defer func() { undone(svc.Flush()) }()
			svc.BindMainThread()
			err = svc.Enable()
			ready.Done()
			if err != nil {
				fail("enable: %v", err)
				return
			}
			ready.Wait()
			sellers := np.sellers[i*sellersEach : (i+1)*sellersEach]
			for r := range rounds {
				if behind {
					// A tick's rest: the commits and the follower go on.
					time.Sleep(20 * time.Millisecond)
				}
				undone(svc.Settle())
				if _, err := svc.Follow(); err != nil {
					fail("follow: %v", err)
				}
				p := sellers[r%len(sellers)]
				ps, err := svc.GetPlayer(p.ID)
				if err != nil {
					fail("read %s: %v", p.Name, err)
					return
				}
				var stack *market.ItemStack
				for _, s := range ps.Inventory {
					if s != nil && s.Material == "OAK_LOG" {
						stack = s
						break
					}
				}
				if stack == nil {
					continue
				}
				part := *stack
				part.Amount = min(stack.Amount, 5+(r*7+i)%20)
				if r%2 == 0 {
					_, err = svc.SellToOrder(p, part, o.ID)
				} else {
					// A listing at 1.50 an item, which the order buys.
					_, err = svc.SellItem(p, part, 1.5*float64(part.Amount))
				}
				var me *market.Error
				switch {
				case err == nil:
					res.sold++
				case errors.Is(err, &market.Error{Code: market.CodeOrderClosed}) || errors.Is(err, &market.Error{Code: market.CodeNoMatchingOrder}):
					res.refused++
				case errors.As(err, &me) && me.Code == market.CodeConflict:
					res.conflicts++ // met another server's change twice
				default:
					fail("round %d: %v", r, err)
				}
			}
		}()
	}
	wg.Wait()
	sold, refused, conflicts := 0, 0, 0
	for i, r := range results {
		for _, f := range r.failures {
			t.Errorf("server-%c: %s", 'a'+i, f)
		}
		sold, refused, conflicts = sold+r.sold, refused+r.refused, conflicts+r.conflicts
	}
	t.Logf("%d sales and listings, %d refused (the order closed), %d conflicts twice over", sold, refused, conflicts)

	// The duty holder uncrosses what two servers crossed at once.
	truth := open("truth")
	defer truth.Close()
	other := open("other")
	defer other.Close()
	for range 3 {
		clock.Advance(2 * time.Second)
		for _, svc := range []*market.Service{truth, other} {
			if _, _, err := svc.SweepExpired(); err != nil {
				t.Fatal(err)
			}
			if _, err := svc.Follow(); err != nil {
				t.Fatal(err)
			}
		}
	}
	for deadline := time.Now().Add(10 * time.Second); other.Version() < truth.Version() || truth.Version() < other.Version(); time.Sleep(5 * time.Millisecond) {
		truth.Follow()
		other.Follow()
		if time.Now().After(deadline) {
			t.Fatal("the two never met")
		}
	}
	for _, svc := range []*market.Service{truth, other} {
		got, err := svc.GetOrder(o.ID)
		must(t, err)
		au := mustAudit(t, svc)
		ps, err := svc.GetPlayer(buyer.ID)
		must(t, err)
		logs := 0
		for _, s := range ps.Inventory {
			if s != nil && s.Material == "OAK_LOG" {
				logs += s.Amount
			}
		}
		for _, m := range ps.Mailbox {
			if m.Item.Material == "OAK_LOG" {
				logs += m.Item.Amount
			}
		}
		paid := 1_000_000 - ps.Balance
		if got.Filled > wanted || logs != got.Filled || au.Money != start.Money || au.Items != start.Items {
			t.Fatalf("the order bought %d of %d; the buyer holds %d logs; money %d (was %d), items %d (were %d)",
				got.Filled, wanted, logs, au.Money, start.Money, au.Items, start.Items)
		}
		if got.Open() && market.Money(got.Escrow*100+0.5) != orderEscrow(au) ||
			market.Money((paid-got.Escrow)*100+0.5) > market.Money(2*got.Filled*100) {
			t.Fatalf("escrow %.2f (the audit %d), the buyer paid %.2f in all for %d items", got.Escrow, orderEscrow(au), paid, got.Filled)
		}
		if book, err := svc.GetOrderBook("OAK_LOG", 1); err != nil || got.Open() && len(book.Sell) > 0 && book.Sell[0].UnitPrice <= got.UnitPrice {
			t.Fatalf("the book is crossed: %+v (%v)", book, err)
		}
	}
	if got, _ := truth.GetOrder(o.ID); got.Filled == 0 {
		t.Fatal("nothing filled the order")
	}
}

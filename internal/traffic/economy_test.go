package traffic_test

import (
	"path/filepath"
	"testing"
	"time"

	"github.com/rynek/rynek/internal/traffic"
	"github.com/rynek/rynek/market"
	"github.com/rynek/rynek/market/sqlite"
	"github.com/rynek/rynek/seed"
)

var start = time.Date(2026, 11, 1, 12, 0, 0, 0, time.UTC)

// demo opens the demo market (--seed 3000 is listings 3000) seeded and run
// under rules, on a clock the test moves.
func demo(t testing.TB, listings int, rules market.Config) (*market.Service, *market.ManualClock) {
	t.Helper()
	st, err := sqlite.Open(filepath.Join(t.TempDir(), "m.db"), sqlite.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := seed.Load(st, seed.Options{Listings: listings, Rand: 1, Now: start, Rules: rules}); err != nil {
		st.Close()
		t.Fatal(err)
	}
	clock := market.NewManualClock(start)
	rules.Clock = clock
	svc := market.New(st, rules)
	svc.BindMainThread()
	if err := svc.Enable(); err != nil {
		svc.Close()
		t.Fatal(err)
	}
	if err := svc.WaitHistory(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { svc.Close() })
	return svc, clock
}

// TestEconomyHoldsTheMarket runs the bots on the demo market, tick by tick
// on a test clock: slowly over two days of the market's time (listings
// expire into the mailboxes all along), and fast under the listing
// cooldown, and under tight rules (a blacklist of what players hold, a
// listing fee, a maximum transaction value, a purchase cap, a fee for
// placing a buy order and a smaller largest order). The active
// listings stay within 10% of where they began, money and items are
// conserved net of what came in and went out through the issuance
// account, and refusals stay under 1% of the turns, each a rule's.
func TestEconomyHoldsTheMarket(t *testing.T) {
	tight := market.Config{Blacklist: []string{"DIAMOND", "OAK_LOG", "COBBLESTONE"}, ListingFeeBasisPoints: 200, MinFee: 10,
		MaxTransactionValue: 2_000_00, PurchaseCap: market.PurchaseCap{Max: 2, Window: 24 * time.Hour},
		Orders: market.OrderRules{FeeBasisPoints: 100, MaxAmount: 200}}
	for _, c := range []struct {
		name  string
		rate  float64       // turns a second
		ticks int           // each one second of turns
		step  time.Duration // how far the clock moves a tick
		rules market.Config
		// crowd runs the turns off the test's goroutine, the main thread
		// (Crowd), with a few milliseconds between two ticks for them.
		crowd bool
	}{
		{"5 a second, a minute a tick", 5, 3000, time.Minute, market.Config{}, false},
		{"500 a second, a second a tick", 500, 120, time.Second, market.Config{}, false},
		{"tight rules, 50 a second, 10 seconds a tick", 50, 600, 10 * time.Second, tight, false},
		{"a crowd, 100 a second, a second a tick", 100, 600, time.Second, market.Config{}, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			svc, clock := demo(t, 3000, c.rules)
			players, err := svc.Players()
			if err != nil {
				t.Fatal(err)
			}
			before, err := svc.Audit()
			if err != nil {
				t.Fatal(err)
			}
			feesBefore, err := svc.FeeBalance()
			if err != nil {
				t.Fatal(err)
			}
			gen := traffic.New(7)
			crowd := gen.Crowd(svc, players)
			var total traffic.Result
			expired := 0
			lo, hi := before.Listings, before.Listings
			for tick := range c.ticks {
				clock.Advance(c.step)
				for {
					n, more, err := svc.SweepExpired()
					if err != nil {
						t.Fatal(err)
					}
					expired += n
					if !more {
						break
					}
				}
				if c.crowd {
					time.Sleep(2 * time.Millisecond)
					total.Add(crowd.Step(c.rate, time.Second, time.Time{}))
				} else {
					total.Add(gen.Step(svc, players, c.rate, time.Second))
				}
				n, err := svc.GetActiveListingsCount()
				if err != nil {
					t.Fatal(err)
				}
				lo, hi = min(lo, n), max(hi, n)
				if d := n - gen.Target(); gen.Target() > 0 && (d*10 > gen.Target() || -d*10 > gen.Target()) {
					t.Fatalf("tick %d: %d active listings, more than 10%% from the target %d (%s)", tick, n, gen.Target(), total.ActionText())
				}
			}
			total.Add(crowd.Close())
			turns := 0
			for _, n := range total.Actions {
				turns += n
			}
			t.Logf("target %d, active %d..%d, %d expired; %d turns: %s; refused %d (%s)",
				gen.Target(), lo, hi, expired, turns, total.ActionText(), total.Refused, total.RefusalText())
			after, err := svc.Audit()
			if err != nil {
				t.Fatal(err)
			}
			if len(after.Problems) > 0 {
				t.Fatalf("audit: %v", after.Problems)
			}
			if after.OpeningMoney != before.OpeningMoney || after.OpeningItems != before.OpeningItems {
				t.Fatalf("net of issuance, money %d -> %d, items %d -> %d", before.OpeningMoney, after.OpeningMoney,
					before.OpeningItems, after.OpeningItems)
			}
			t.Logf("issued: %s; money %d -> %d, items %d -> %d", after.Issued, before.Money, after.Money, before.Items, after.Items)
			// What the fee account took came back to the players as
			// wages: the money they hold stays within 1%.
			feesAfter, err := svc.FeeBalance()
			if err != nil {
				t.Fatal(err)
			}
			held, held0 := after.Money.Float()-feesAfter, before.Money.Float()-feesBefore
			if d := (held - held0) / held0; d > 0.01 || d < -0.01 {
				t.Errorf("the players held %.2f, now %.2f (the fees took %.2f)", held0, held, feesAfter-feesBefore)
			}
			if total.Refused*100 > turns {
				t.Fatalf("%d of %d turns refused: %s (the last: %v)", total.Refused, turns, total.RefusalText(), total.LastErr)
			}
			for code, n := range total.Refusals {
				switch {
				case code == market.CodePurchaseCap && c.rules.PurchaseCap.Max > 0:
				case c.crowd && (code == market.CodeUnknownListing || code == market.CodeOrderClosed) && n*2000 <= turns:
					// A crowd's turn makes its change a tick after it
					// looked, and the market's own work (expiry, the
					// sweep's fills of a crossed book) may come first.
				default:
					t.Errorf("refused %s %d times, a rule a player sees before acting: %v", code, n, total.LastErr)
				}
			}
			for _, a := range []traffic.Action{traffic.Sold, traffic.Bought, traffic.Removed} {
				if total.Actions[a] == 0 {
					t.Errorf("no turn %s: %s", a, total.ActionText())
				}
			}
			if c.step == time.Minute && (expired == 0 || total.Actions[traffic.Relisted] == 0) {
				t.Errorf("%d expired, %d relisted over two days", expired, total.Actions[traffic.Relisted])
			}
			// Buy orders: placed, cancelled, sold into and filled by
			// listings at their price; over two days some expire.
			for _, a := range []traffic.Action{traffic.Ordered, traffic.CancelledOrder, traffic.SoldToOrder, traffic.ListedToOrder} {
				if total.Actions[a] == 0 {
					t.Errorf("no turn %s: %s", a, total.ActionText())
				}
			}
			orders, err := svc.Orders(market.OrderQuery{All: true, Limit: 100_000})
			if err != nil {
				t.Fatal(err)
			}
			closed := map[string]int{}
			for _, o := range orders.Orders {
				closed[o.State]++
			}
			t.Logf("orders: %v", closed)
			if closed["filled"] == 0 || closed["cancelled"] == 0 || c.step == time.Minute && closed["expired"] == 0 {
				t.Errorf("orders %v: want some filled, cancelled and (over two days) expired", closed)
			}
		})
	}
}

// TestCrowdSpreadsChangesOverTicks: a Step makes the turns' changes for at
// most its budget, and not past the tick's deadline, and leaves the rest,
// in order, for the next: the first waiting change is made, and the second
// is first in line after it.
func TestCrowdSpreadsChangesOverTicks(t *testing.T) {
	for _, c := range []struct {
		name   string
		budget time.Duration
		until  func() time.Time
	}{
		{"no budget left", 0, func() time.Time { return time.Time{} }},
		{"the tick's deadline passed", time.Hour, func() time.Time { return time.Now().Add(-time.Millisecond) }},
	} {
		t.Run(c.name, func(t *testing.T) {
			svc, _ := demo(t, 3000, market.Config{})
			players, err := svc.Players()
			if err != nil {
				t.Fatal(err)
			}
			defer traffic.SetChangeBudget(c.budget)()
			crowd := traffic.New(3).Crowd(svc, players)
			defer crowd.Close()
			crowd.Step(1000, time.Second, time.Time{}) // as many turns as there are players
			var waiting []any
			for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(time.Millisecond) {
				if waiting = crowd.Waiting(); len(waiting) >= 2 {
					break
				}
				if time.Now().After(deadline) {
					t.Fatalf("%d changes wait after 10 s of %d turns", len(waiting), len(players))
				}
			}
			crowd.Step(0, 0, c.until())
			if after := crowd.Waiting(); len(after) == 0 || after[0] != waiting[1] {
				t.Fatalf("a Step left %d of %d changes waiting, the second not first in line", len(after), len(waiting))
			}
		})
	}
}

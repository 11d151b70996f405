package market_test

import (
	"errors"
	"math"
	"testing"
	"time"

	"github.com/rynek/rynek/market"
)

// TestRulesChangeWhileRunning: SetRules takes effect for the next action,
// waits for purchases in flight, refuses rules that contradict themselves,
// and keeps the process's own settings.
func TestRulesChangeWhileRunning(t *testing.T) {
	w := newWorld(t)
	rules := w.svc.Config()
	rules.MaxTransactionValue = 50_00
	rules.MaxListingsPerPlayer = 1
	must(t, w.svc.SetRules(rules))
	_, err := w.svc.SellItem(w.alice, w.stack(w.alice, 0), 50.01)
	errText(t, err, "price 50.01 is above the market's maximum transaction value 50.00")
	w.sell(w.alice, 0, 50)
	_, err = w.svc.SellItem(w.alice, w.stack(w.alice, 2), 5)
	errText(t, err, "Alice already has 1 active listings; the limit is 1")
	// A tier permission gives a player a limit of their own.
	_, _, err = w.svc.Join(w.alice.ID, "Alice", []string{"market.limit.3", "market.limit.2"})
	must(t, err)
	w.sell(w.alice, 2, 5)

	for _, c := range []struct {
		name   string
		change func(*market.Config)
		code   market.Code
		msg    string
	}{
		{"prices upside down", func(c *market.Config) { c.MinPrice, c.MaxPrice = 500_00, 100_00 }, market.CodeInvalidPrice, "the lowest price 500.00 is above the highest 100.00"},
		{"fees upside down", func(c *market.Config) { c.MinFee, c.MaxFee = 10_00, 1_00 }, market.CodeInvalidPrice, "the minimum fee 10.00 is above the maximum 1.00"},
		{"a cap without a window", func(c *market.Config) { c.PurchaseCap = market.PurchaseCap{Max: 3} }, market.CodeInvalidQuery, "a purchase cap needs a positive count and window, not 3 in 0s"},
	} {
		r := w.svc.Config()
		c.change(&r)
		err := w.svc.SetRules(r)
		var me *market.Error
		if !errors.As(err, &me) || me.Code != c.code || me.Msg != c.msg {
			t.Errorf("%s: got %v, want %s %q", c.name, err, c.code, c.msg)
		}
		if got := w.svc.Config(); got.MaxTransactionValue != 50_00 || got.MinPrice != rules.MinPrice {
			t.Errorf("%s: a refused change changed the rules", c.name)
		}
	}

	if got := w.svc.Config(); got.Name != "Rynek" || got.Clock != w.clock {
		t.Fatalf("the process's settings changed: %+v", got)
	}

	// A purchase left in flight (its step and its compensation both failed)
	// holds changes back until recovery finishes it.
	l := w.sell(w.bob, 0, 10)
	must(t, w.svc.Close())
	cs := &countingStore{Store: w.openStore(), fail: map[int]bool{2: true}}
	svc := market.New(cs, market.Config{Clock: w.clock, ListingCooldown: -1})
	svc.BindMainThread()
	must(t, svc.Enable())
	defer svc.Close()
	must(t, svc.ArmFailure(market.StateMoneyWithdrawn))
	if _, err := svc.Buy(w.admin, l.ID); err == nil {
		t.Fatal("the purchase went through")
	}
	err = svc.SetRules(svc.Config())
	errText(t, err, "1 purchase is in flight; the rules change when none is")
	must(t, svc.Recover())
	must(t, svc.SetRules(svc.Config()))
}

// TestPurchaseCapCountsTheHistory: one buyer's purchases from one seller are
// capped per window, counted from the history, so a restart does not reset
// them; another seller, or a later window, is free.
func TestPurchaseCapCountsTheHistory(t *testing.T) {
	cap2 := func(c *market.Config) { c.PurchaseCap = market.PurchaseCap{Max: 2, Window: 24 * time.Hour} }
	w := newWorld(t, cap2)
	buy := func(seller market.Player, slot int) error {
		t.Helper()
		st := w.stack(seller, slot)
		st.Amount = 1
		l, err := w.svc.SellItem(seller, st, 1)
		must(t, err)
		_, err = w.svc.Buy(w.bob, l.ID)
		return err
	}
	must(t, buy(w.alice, 0))
	must(t, buy(w.alice, 0))
	w.reopen(cap2)
	err := buy(w.alice, 0)
	errText(t, err, "Bob bought from Alice 2 times in the last 24h; the market allows 2")
	must(t, buy(w.admin, 0))
	w.clock.Advance(25 * time.Hour)
	must(t, buy(w.alice, 0))
	w.reopen(func(c *market.Config) { c.PurchaseCap = market.PurchaseCap{Max: 1, Window: 24 * time.Hour} })
	errText(t, buy(w.alice, 0), "Bob bought from Alice 1 time in the last 24h; the market allows 1")
}

// TestListingFeeRefundedWhenUnsold: with RefundListingFee, the fee a
// listing paid comes back when it leaves unsold (removed or expired), from
// the fee account; a sold one keeps it, and without the rule nothing comes
// back.
func TestListingFeeRefundedWhenUnsold(t *testing.T) {
	rules := func(refund bool) func(*market.Config) {
		return func(c *market.Config) { c.ListingFeeBasisPoints, c.RefundListingFee = 1000, refund }
	}
	w := newWorld(t, rules(true))
	balance := func(p market.Player) float64 {
		t.Helper()
		st, err := w.svc.GetPlayer(p.ID)
		must(t, err)
		return st.Balance
	}
	before := w.audit()
	removed := w.sell(w.alice, 0, 100) // fee 10.00
	w.sell(w.alice, 2, 50)             // fee 5.00; it expires
	sold := w.sell(w.alice, 1, 20)     // fee 2.00
	if got := balance(w.alice); got != 1000-17 {
		t.Fatalf("after three listings Alice has %v", got)
	}
	must(t, w.svc.RemoveListing(removed.ID, w.alice))
	_, err := w.svc.Buy(w.bob, sold.ID)
	must(t, err)
	w.clock.Advance(8 * 24 * time.Hour)
	if _, _, err := w.svc.SweepExpired(); err != nil {
		t.Fatal(err)
	}
	// 1000 - 17 + 10 + 5 back, + 19.00 for the sale (20 less the 5% fee).
	if got := balance(w.alice); got != 1000-17+15+19 {
		t.Fatalf("Alice has %v, want %v", got, 1000-17+15+19)
	}
	if fees, _ := w.svc.FeeBalance(); fees != 2+1 {
		t.Fatalf("the fee account holds %v, want the sold listing's 2.00 and the sale's 1.00", fees)
	}
	if a := w.audit(); a.Money != before.Money {
		t.Fatalf("money %d, was %d", a.Money, before.Money)
	}
	w.reopen(rules(true))
	if got := balance(w.alice); got != 1000-17+15+19 {
		t.Fatalf("after a restart Alice has %v", got)
	}

	w2 := newWorld(t, rules(false))
	l := w2.sell(w2.alice, 0, 100)
	must(t, w2.svc.RemoveListing(l.ID, w2.alice))
	if st, _ := w2.svc.GetPlayer(w2.alice.ID); st.Balance != 990 {
		t.Fatalf("without the rule the fee came back: %v", st.Balance)
	}
}

// TestListingRulesJudgeAsSellItem: the rules a data load applies alone
// refuse what SellItem refuses, in its words, and allow what it allows; a
// zero Config is the defaults.
func TestListingRulesJudgeAsSellItem(t *testing.T) {
	limits := func(c *market.Config) {
		c.MinPrice, c.MaxPrice, c.MaxTransactionValue, c.Blacklist = 2_00, 900_00, 500_00, []string{"oak_log"}
	}
	w := newWorld(t, limits)
	var cfg market.Config
	limits(&cfg)
	r := market.NewListingRules(cfg)
	for _, c := range []struct {
		slot  int
		price float64
	}{{0, 1.99}, {0, 500.01}, {0, 900.01}, {2, 10}} {
		stack := w.stack(w.alice, c.slot)
		_, sold := w.svc.SellItem(w.alice, stack, c.price)
		err := r.Check(stack, market.Money(math.Round(c.price*100)))
		if sold == nil || err == nil || err.Error() != sold.Error() || !errors.Is(err, &market.Error{Code: sold.(*market.Error).Code}) {
			t.Errorf("%s at %.2f: the rules say %v, SellItem %v", stack.Material, c.price, err, sold)
		}
	}
	for _, price := range []market.Money{2_00, 500_00} {
		if err := r.Check(w.stack(w.alice, 0), price); err != nil {
			t.Errorf("%s: %v", market.FormatMoney(price), err)
		}
	}
	if got, want := r.String(), "prices 2.00..900.00, at most 500.00 a transaction, 1 materials blacklisted"; got != want {
		t.Errorf("String %q, want %q", got, want)
	}
	defaults := market.NewListingRules(market.Config{})
	errText(t, defaults.Check(w.stack(w.alice, 0), 99), "price 0.99 is outside 1.00..1000000.00")
	errText(t, defaults.Check(market.ItemStack{Material: "BEDROCK", Amount: 1}, 5_00), "BEDROCK may not be sold on the market")
}

// TestBlacklistOutsideTheCatalogue: the rules blacklist a material by its
// key in any form the market reads keys in, also one outside the
// catalogue that no item had when the rules were set (a newer game's
// block, a plugin's item): SellItem and a data load's rules refuse it,
// and the rules count each material once.
func TestBlacklistOutsideTheCatalogue(t *testing.T) {
	banned := []string{"minecraft:blacklisted_future_block", "Rynektest:Blacklisted_Gem", "oak_log", "OAK_LOG"}
	w := newWorld(t, func(c *market.Config) { c.Blacklist = banned })
	r := market.NewListingRules(market.Config{Blacklist: banned})
	if got, want := r.String(), "prices 1.00..1000000.00, 3 materials blacklisted"; got != want {
		t.Errorf("String %q, want %q", got, want)
	}
	for _, c := range []struct{ material, key string }{
		{"BLACKLISTED_FUTURE_BLOCK", "BLACKLISTED_FUTURE_BLOCK"},
		{"rynektest:blacklisted_gem", "rynektest:blacklisted_gem"},
	} {
		given, _, err := w.svc.GiveItem(w.alice.ID, market.ItemStack{Material: c.material, Amount: 1})
		must(t, err)
		want := c.key + " may not be sold on the market"
		_, err = w.svc.SellItem(w.alice, given, 10)
		errText(t, err, want)
		if !errors.Is(err, market.ErrBlacklisted) {
			t.Errorf("%s: %v is not ErrBlacklisted", c.material, err)
		}
		errText(t, r.Check(given, 10_00), want)
	}
}

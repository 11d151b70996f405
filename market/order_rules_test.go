package market_test

import (
	"testing"
	"time"
)

// TestOrderRulesChangeWhileRunning: a reloaded rules file (SetRules)
// changes the buy orders' rules too, for the next order: the limit per
// player, the largest amount and the durations.
func TestOrderRulesChangeWhileRunning(t *testing.T) {
	w := newWorld(t)
	w.order(w.alice, "OAK_LOG", 100, 1)
	rules := w.svc.Config()
	rules.Orders.MaxPerPlayer = 1
	rules.Orders.MaxAmount = 64
	rules.Orders.MinDuration, rules.Orders.MaxDuration, rules.Orders.DefaultDuration = time.Hour, 2*time.Hour, time.Hour
	must(t, w.svc.SetRules(rules))
	if got := w.svc.Config().Orders; got != rules.Orders {
		t.Fatalf("the market's order rules are %+v after SetRules(%+v)", got, rules.Orders)
	}
	_, err := w.svc.PlaceOrder(w.alice, "DIAMOND", 1, 1, 0)
	errText(t, err, "Alice already has 1 open buy orders; the limit is 1")
	_, err = w.svc.PlaceOrder(w.bob, "DIAMOND", 65, 1, 0)
	errText(t, err, "an order buys 1 to 64 items, not 65")
	_, err = w.svc.PlaceOrder(w.bob, "DIAMOND", 1, 1, time.Minute)
	errText(t, err, "an order lasts 1h to 2h, not 1m")
	o := w.order(w.bob, "DIAMOND", 64, 1)
	if d := o.ExpiresAt.Sub(o.CreatedAt); d != time.Hour {
		t.Errorf("an order placed with no duration lasts %v, want the new default 1h", d)
	}
}

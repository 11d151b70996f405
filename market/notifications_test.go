package market_test

import (
	"testing"

	"github.com/rynek/rynek/market"
)

// TestNotificationsAreNeverMergedByContent: two equal sales are two
// notifications (the original plugin dropped the second).
func TestNotificationsAreNeverMergedByContent(t *testing.T) {
	w := newWorld(t)
	for range 2 {
		st := w.stack(w.alice, 0)
		st.Amount = 1
		l, err := w.svc.SellItem(w.alice, st, 5)
		must(t, err)
		_, err = w.svc.Buy(w.bob, l.ID)
		must(t, err)
	}
	page, err := w.svc.Notifications(w.alice.ID, 0)
	must(t, err)
	sales := 0
	for _, n := range page.Notifications {
		if n.Kind == market.NotifySale && n.Buyer == "Bob" && n.Price == 5 {
			sales++
		}
	}
	if sales != 2 {
		t.Fatalf("%d sale notifications for two equal sales", sales)
	}
}

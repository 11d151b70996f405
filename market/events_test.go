package market_test

import (
	"fmt"
	"slices"
	"testing"

	"github.com/rynek/rynek/market"
	"github.com/rynek/rynek/market/catalog"
)

func TestListenersAndCallerGetTheirOwnCopies(t *testing.T) {
	w := newWorld(t)
	var seen []market.Listing
	for i := 0; i < 2; i++ {
		w.svc.Subscribe(func(e market.Event) {
			l := e.(market.ListingCreatedEvent).Listing()
			seen = append(seen, l.Clone())
			// A rude listener scribbles on everything it was handed.
			l.Item.Lore[0] = "changed by a listener"
			l.Item.Enchantments[0].Level = 99
			l.Categories[0] = catalog.CategoryOther
		})
	}
	got := w.sell(w.alice, 1, 50) // the sword: lore, enchantments, categories
	for i, l := range append(seen, got) {
		if l.Item.Lore[0] != "Wykuty w Krakowie" || l.Item.Enchantments[0].Level != 5 || l.Categories[0] == catalog.CategoryOther {
			t.Fatalf("copy %d was changed by another listener: %+v", i, l)
		}
	}
	tx, err := w.svc.Buy(w.bob, got.ID)
	must(t, err)
	w.svc.Subscribe(func(e market.Event) {
		if c, ok := e.(market.TransactionCompletedEvent); ok {
			c.Transaction().Timeline[0].State = market.StateFailed
		}
	})
	l2 := w.sell(w.alice, 0, 10)
	tx2, err := w.svc.Buy(w.bob, l2.ID)
	must(t, err)
	for _, x := range []market.Transaction{tx, tx2} {
		if x.Timeline[0].State != market.StateCreated {
			t.Fatalf("the caller's timeline was changed by a listener: %+v", x.Timeline)
		}
	}
}

// The committer decodes a commit's events once the store has taken them:
// the main thread logs and delivers them as they are, and decodes none.
func TestEventsAreDecodedBehindTheTick(t *testing.T) {
	w := newWorld(t, func(c *market.Config) { c.CommitBehind = true })
	decoded := &threadCount{svc: w.svc}
	defer market.SetEventDecoded(decoded.count)()
	var got []string
	w.svc.Subscribe(func(e market.Event) { got = append(got, fmt.Sprintf("%d %T", e.Seq(), e)) })
	a := w.sell(w.alice, 0, 10)
	w.sell(w.alice, 1, 50)
	_, err := w.svc.Buy(w.bob, a.ID)
	must(t, err)
	w.flush()
	if onMain, off := decoded.counts(); onMain != 0 || off != 3 {
		t.Errorf("events decoded: %d on the main thread, %d off it; want 0 and 3 (two sells, a purchase)", onMain, off)
	}
	page, err := w.svc.EventsSince(0, 100)
	must(t, err)
	var want []string
	for _, e := range page.Events {
		want = append(want, fmt.Sprintf("%d %T", e.Seq(), e))
	}
	if len(got) != 3 || !slices.Equal(got, want) {
		t.Errorf("the listener heard %q, the log holds %q", got, want)
	}
}

package market_test

import (
	"errors"
	"math"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/rynek/rynek/market"
)

// TestAlertsReadWhileFiring: Alerts (any goroutine) copies the alert
// records that a new listing's check stamps on the main thread (under
// -race).
func TestAlertsReadWhileFiring(t *testing.T) {
	w := newWorld(t)
	_, err := w.svc.AddAlert(w.bob.ID, "diam", 100)
	must(t, err)
	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			select {
			case <-stop:
				return
			default:
			}
			w.svc.Alerts(w.bob.ID)
		}
	}()
	for range 15 {
		st := w.stack(w.alice, 0)
		st.Amount = 1
		_, err := w.svc.SellItem(w.alice, st, 5)
		must(t, err)
	}
	close(stop)
	wg.Wait()
}

// TestPriceAlerts: an alert fires once per matching new listing at or under
// its unit price, never for the owner's own listing, into notifications
// that survive a restart; refusals are exact.
func TestPriceAlerts(t *testing.T) {
	w := newWorld(t)
	alert, err := w.svc.AddAlert(w.bob.ID, "diam", 1.50)
	must(t, err)
	if alert.Query != "diam" || alert.MaxUnitPrice != 1.5 {
		t.Fatalf("alert %+v", alert)
	}
	sell := func(p market.Player, slot, amount int, price float64) market.Listing {
		t.Helper()
		st := w.stack(p, slot)
		st.Amount = amount
		l, err := w.svc.SellItem(p, st, price)
		must(t, err)
		return l
	}
	cheap := sell(w.alice, 0, 10, 15)  // 1.50 each: fires
	sell(w.alice, 0, 10, 15.10)        // 1.51 each: no
	sell(w.alice, 2, 10, 1)            // oak logs: no
	sell(w.bob, 0, 2, 1)               // Bob's own: no
	sword := sell(w.admin, 1, 1, 1.25) // "Diamond Sword": fires
	page, err := w.svc.Notifications(w.bob.ID, 0)
	must(t, err)
	var hits []int
	for _, n := range page.Notifications {
		if n.Kind == market.NotifyAlert {
			hits = append(hits, n.ListingID)
			if n.Query != "diam" || n.Alert != alert.ID {
				t.Fatalf("hit %+v", n)
			}
		}
	}
	if !equalInts(hits, []int{sword.ID, cheap.ID}) || page.Unread != len(page.Notifications) {
		t.Fatalf("alert hits %v (newest first), unread %d of %d", hits, page.Unread, len(page.Notifications))
	}
	w.clock.Advance(time.Second)
	must(t, w.svc.MarkNotificationsRead(w.bob.ID))
	w.reopen()
	page, err = w.svc.Notifications(w.bob.ID, 0)
	must(t, err)
	if page.Unread != 0 || len(page.Notifications) != 2 {
		t.Fatalf("after read and a restart: %d notifications, %d unread", len(page.Notifications), page.Unread)
	}
	// A sale is a notification of its own, unread.
	w.clock.Advance(time.Second)
	l := sell(w.bob, 0, 1, 3)
	_, err = w.svc.Buy(w.alice, l.ID)
	must(t, err)
	page, err = w.svc.Notifications(w.bob.ID, 0)
	must(t, err)
	if first := page.Notifications[0]; first.Kind != market.NotifySale || first.Buyer != "Alice" || first.Price != 3 || page.Unread != 1 {
		t.Fatalf("newest %+v, unread %d", first, page.Unread)
	}
	must(t, w.svc.RemoveAlert(w.bob.ID, alert.ID))
	sell(w.alice, 0, 1, 1)
	if p2, _ := w.svc.Notifications(w.bob.ID, 0); len(p2.Notifications) != len(page.Notifications) {
		t.Fatal("a removed alert fired")
	}

	w.svc.Close()
	w.start(func(c *market.Config) { c.MaxAlertsPerPlayer = 2 })
	for _, c := range []struct {
		name  string
		query string
		max   float64
		code  market.Code
		msg   string
	}{
		{"no words", "  ", 5, market.CodeInvalidQuery, `an alert needs words to look for (not #ids), not ""`},
		{"an id", "#5", 5, market.CodeInvalidQuery, `an alert needs words to look for (not #ids), not "#5"`},
		{"too long", strings.Repeat("a", 101), 5, market.CodeInvalidQuery, "an alert's search is at most 100 bytes, not 101"},
		{"NaN", "diamond", math.NaN(), market.CodeInvalidPrice, "maximum unit price is not a number"},
		{"zero", "diamond", 0, market.CodeInvalidPrice, "maximum unit price must be greater than 0, got 0"},
		{"fractions of a cent", "diamond", 0.001, market.CodeInvalidPrice, "maximum unit price 0.001 has more than 2 decimals"},
	} {
		version := w.svc.Version()
		_, err := w.svc.AddAlert(w.bob.ID, c.query, c.max)
		var me *market.Error
		if !errors.As(err, &me) || me.Code != c.code || me.Msg != c.msg {
			t.Errorf("%s: got %v, want %s %q", c.name, err, c.code, c.msg)
		}
		if w.svc.Version() != version {
			t.Errorf("%s: a refusal changed the log", c.name)
		}
	}
	for range 2 {
		_, err := w.svc.AddAlert(w.bob.ID, "stone", 0.05)
		must(t, err)
	}
	_, err = w.svc.AddAlert(w.bob.ID, "stone", 0.05)
	errText(t, err, "Bob has 2 price alerts; the limit is 2")
	err = w.svc.RemoveAlert(w.bob.ID, uuid.Nil)
	errText(t, err, "Bob has no price alert 00000000-0000-0000-0000-000000000000")
}

// TestAFiringAlertWritesWhatMemoryHas: the blob an alert firing writes
// holds what memory has, for an owner with a favourite gone and hits of
// earlier alerts (withHit shares the outbid notices and copies the rest);
// and so does the market opened again.
// TestAlertOwnersDataIsEncodedBehindTheTick: with commits behind the tick,
// a sell that fires alerts leaves the owners' data blobs (up to 200 hits
// each) to the committer, and the store gets what memory has. Encoded on
// the main thread, a sell firing a hundred owners' alerts cost it 1-2 ms.
func TestAlertOwnersDataIsEncodedBehindTheTick(t *testing.T) {
	w := newWorld(t, func(c *market.Config) { c.CommitBehind = true })
	bobs, err := w.svc.AddAlert(w.bob.ID, "diam", 100)
	must(t, err)
	_, err = w.svc.AddAlert(w.admin.ID, "diamond", 100)
	must(t, err)
	w.flush()
	encoded := &threadCount{svc: w.svc}
	defer market.SetDataEncoded(func(what string) {
		if what == "data" {
			encoded.count()
		}
	})()
	for i := range 3 {
		st := w.stack(w.alice, 0)
		st.Amount = 1 + i
		_, err := w.svc.SellItem(w.alice, st, float64(1+i))
		must(t, err)
	}
	w.flush()
	if onMain, off := encoded.counts(); onMain != 0 || off != 6 {
		t.Errorf("blobs encoded: %d on the main thread, %d off it; want 0 and 6 (two owners, three sells)", onMain, off)
	}
	if d := market.StoredDataDiffers(w.svc); d != "" {
		t.Fatal(d)
	}
	// The hits left the alerts where the index files them: Bob's, taken
	// out, fires no more.
	must(t, w.svc.RemoveAlert(w.bob.ID, bobs.ID))
	st := w.stack(w.alice, 0)
	st.Amount = 1
	_, err = w.svc.SellItem(w.alice, st, 1)
	must(t, err)
	w.flush()
	for _, c := range []struct {
		who  market.Player
		want int
	}{{w.bob, 3}, {w.admin, 4}} {
		n, err := w.svc.Notifications(c.who.ID, 0)
		must(t, err)
		if len(n.Notifications) != c.want {
			t.Errorf("%s has %d notifications, want %d", c.who.Name, len(n.Notifications), c.want)
		}
	}
}

func TestAFiringAlertWritesWhatMemoryHas(t *testing.T) {
	w := newWorld(t)
	_, err := w.svc.AddAlert(w.bob.ID, "diam", 100)
	must(t, err)
	_, err = w.svc.AddAlert(w.bob.ID, "diamond", 50)
	must(t, err)
	gone := w.sell(w.alice, 2, 10)
	_, err = w.svc.ToggleFavorite(w.bob.ID, gone.ID)
	must(t, err)
	must(t, w.svc.RemoveListing(gone.ID, w.alice))
	for i := range 5 {
		st := w.stack(w.alice, 0)
		st.Amount = 1 + i
		_, err := w.svc.SellItem(w.alice, st, float64(1+i))
		must(t, err)
		if d := market.StoredDataDiffers(w.svc); d != "" {
			t.Fatalf("after sell %d: %s", i, d)
		}
	}
	before, err := w.svc.Notifications(w.bob.ID, 0)
	must(t, err)
	w.reopen()
	after, err := w.svc.Notifications(w.bob.ID, 0)
	must(t, err)
	if len(before.Notifications) != 10 || !reflect.DeepEqual(before, after) {
		t.Fatalf("%d notifications, want 10 (two alerts, five sells); after reopening %+v, before %+v",
			len(before.Notifications), after, before)
	}
	if d := market.StoredDataDiffers(w.svc); d != "" {
		t.Fatalf("reopened: %s", d)
	}
}

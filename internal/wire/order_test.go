package wire

import (
	"bytes"
	"encoding/json"
	"fmt"
	"path/filepath"
	"slices"
	"testing"

	"github.com/google/uuid"
	"github.com/rynek/rynek/market"
	"github.com/rynek/rynek/market/sqlite"
)

// TestOrderEventsFromARealMarket publishes the buy orders' three events
// on a real market: an order placed, a listing it buys part of at once, a
// seller's stack sold into it from the inventory, its close when filled.
// Each event's wire form carries the order after it; a fill says who sold
// what for how much, and the listing's rest (null from an inventory); the
// fill's purchase names its order.
func TestOrderEventsFromARealMarket(t *testing.T) {
	st, err := sqlite.Open(filepath.Join(t.TempDir(), "m.db"), sqlite.Options{})
	must(t, err)
	b, err := market.NewBulk(st)
	must(t, err)
	must(t, b.AddPlayer(market.Player{ID: seller, Name: "Kowalski"}, 100_00))
	must(t, b.AddPlayer(market.Player{ID: buyer, Name: "Nowak"}, 1_000_00))
	logs := uuid.New()
	must(t, b.SetSlot(seller, 0, market.ItemStack{ID: uuid.New(), Material: "OAK_LOG", Amount: 64}))
	must(t, b.SetSlot(seller, 1, market.ItemStack{ID: logs, Material: "OAK_LOG", Amount: 16}))
	must(t, b.Finish())
	svc := market.New(st, market.Config{Clock: market.NewManualClock(at), ListingCooldown: -1})
	must(t, svc.BindMainThread())
	must(t, svc.Enable())
	defer svc.Close()
	var events []market.Event
	svc.Subscribe(func(e market.Event) { events = append(events, e) })
	a, err := svc.PlaceOrder(market.Player{ID: buyer}, "OAK_LOG", 20, 2.5, 0)
	must(t, err)
	ps, _ := svc.GetPlayer(seller)
	l, err := svc.SellItem(market.Player{ID: seller}, *ps.Inventory[0], 160) // 2.50 a log: the order takes 20
	must(t, err)
	b2, err := svc.PlaceOrder(market.Player{ID: buyer}, "OAK_LOG", 10, 2, 0) // below the listing: it rests
	must(t, err)
	_, err = svc.SellToOrder(market.Player{ID: seller}, market.ItemStack{ID: logs, Material: "OAK_LOG", Amount: 16}, b2.ID)
	must(t, err)
	var got []map[string]json.RawMessage
	var names []string
	for _, e := range events {
		var m map[string]json.RawMessage
		must(t, json.Unmarshal(indent(t, NewEvent(e)), &m))
		got = append(got, m)
		names = append(names, e.EventName())
	}
	want := []string{"BuyOrderPlacedEvent", "ListingCreatedEvent", "TransactionCompletedEvent", "BuyOrderFilledEvent", "BuyOrderClosedEvent",
		"BuyOrderPlacedEvent", "TransactionCompletedEvent", "BuyOrderFilledEvent", "BuyOrderClosedEvent"}
	if !slices.Equal(names, want) {
		t.Fatalf("events %v, want %v", names, want)
	}
	placed, fill, closed := []string{"at", "event", "order", "origin", "seq"}, []string{"at", "event", "fill", "order", "origin", "seq"},
		[]string{"at", "event", "order", "origin", "reason", "refund", "seq"}
	keys := map[string][]string{"BuyOrderPlacedEvent": placed, "BuyOrderFilledEvent": fill, "BuyOrderClosedEvent": closed}
	for i, m := range got {
		ks := keysOf(m)
		slices.Sort(ks)
		if k, ok := keys[names[i]]; ok && !slices.Equal(ks, k) {
			t.Errorf("%s has keys %v, want %v", names[i], ks, k)
		}
	}
	wantPlaced := fmt.Sprintf(`{"id":%d,"material":"OAK_LOG","name":"Oak Log","amount":20,"filled":0,"unitPrice":"2.50","buyer":"%s",`+
		`"buyerName":"Nowak","state":"open","createdAt":"2026-11-22T03:12:05.000Z","expiresAt":"2026-11-29T03:12:05.000Z"}`, a.ID, buyer)
	if o := compact(t, got[0]["order"]); o != wantPlaced {
		t.Errorf("the placed order\n%s\nwant\n%s", o, wantPlaced)
	}
	fromListing := fmt.Sprintf(`{"seller":{"uuid":"%s","name":"Kowalski"},"amount":20,"unitPrice":"2.50","price":"50.00",`+
		`"transactionId":"%s","listingId":%d,"listingLeft":44}`, seller, events[2].(market.TransactionCompletedEvent).Transaction().ID, l.ID)
	if f := compact(t, got[3]["fill"]); f != fromListing {
		t.Errorf("the fill from a listing\n%s\nwant\n%s", f, fromListing)
	}
	fromInventory := fmt.Sprintf(`{"seller":{"uuid":"%s","name":"Kowalski"},"amount":10,"unitPrice":"2.00","price":"20.00",`+
		`"transactionId":"%s","listingId":null,"listingLeft":null}`, seller, events[6].(market.TransactionCompletedEvent).Transaction().ID)
	if f := compact(t, got[7]["fill"]); f != fromInventory {
		t.Errorf("the fill from an inventory\n%s\nwant\n%s", f, fromInventory)
	}
	for i, x := range []struct {
		ev     int
		order  int
		filled int
		state  string
	}{{3, a.ID, 20, "filled"}, {4, a.ID, 20, "filled"}, {7, b2.ID, 10, "filled"}} {
		var o Order
		must(t, json.Unmarshal(got[x.ev]["order"], &o))
		if o.ID != x.order || o.Filled != x.filled || o.State != x.state || o.ClosedAt.IsZero() {
			t.Errorf("order %d after event %d: %+v", i, x.ev, o)
		}
	}
	if r, f := string(got[4]["reason"]), string(got[4]["refund"]); r != `"filled"` || f != `"0.00"` {
		t.Errorf("the close: reason %s, refund %s", r, f)
	}
	var tx Transaction
	must(t, json.Unmarshal(got[2]["transaction"], &tx))
	if tx.BuyOrder != a.ID || tx.ListingID != l.ID || tx.Item.Amount != 20 {
		t.Errorf("the fill's purchase: order %d, listing %d, %d items", tx.BuyOrder, tx.ListingID, tx.Item.Amount)
	}
	var plain map[string]json.RawMessage
	must(t, json.Unmarshal(got[1]["listing"], &plain))
	if _, ok := plain["buyOrder"]; ok {
		t.Error("a listing carries buyOrder")
	}
}

// compact is a JSON value on one line, its keys in their order.
func compact(t *testing.T, s json.RawMessage) string {
	t.Helper()
	var b bytes.Buffer
	must(t, json.Compact(&b, s))
	return b.String()
}

package httpapi

import (
	"encoding/json"
	"fmt"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/google/uuid"
	"github.com/rynek/rynek/internal/wire"
	"github.com/rynek/rynek/market"
	"github.com/rynek/rynek/seed"
)

// orderEnv is a market without seeded listings (so that no seeded stack
// fills the test's orders) whose first three players have money: two
// buyers and a seller.
func orderEnv(t *testing.T, so seed.Options) (e *env, a, b, seller market.Player) {
	t.Helper()
	so.Listings = -1
	e = newEnv(t, so, Options{})
	players, err := e.svc.Players()
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range players[:3] {
		if _, err := e.svc.Deposit(p.ID, 1000); err != nil {
			t.Fatal(err)
		}
	}
	return e, players[0], players[1], players[2]
}

// place places an order through the market, failing the test on an error.
func place(t *testing.T, e *env, p market.Player, material string, amount int, unit float64) market.Order {
	t.Helper()
	o, err := e.svc.PlaceOrder(p, material, amount, unit, 0)
	if err != nil {
		t.Fatal(err)
	}
	return o
}

// list gives p a plain stack of material and lists it for price.
func list(t *testing.T, e *env, p market.Player, material string, amount int, price float64) market.Listing {
	t.Helper()
	stack, _, err := e.svc.GiveItem(p.ID, market.ItemStack{ID: uuid.New(), Material: material, Amount: amount})
	if err != nil {
		t.Fatal(err)
	}
	l, err := e.svc.SellItem(p, stack, price)
	if err != nil {
		t.Fatal(err)
	}
	return l
}

func orderIDs(items []wire.Order) string {
	var ids []string
	for _, o := range items {
		ids = append(ids, fmt.Sprint(o.ID))
	}
	return strings.Join(ids, ",")
}

// TestOrderRoutes: the open orders best first across materials, filtered
// by material and buyer, paged by a cursor that refuses other filters; one
// order open and closed; a material's book with its depth on both sides;
// and every refusal with its code and exact words.
func TestOrderRoutes(t *testing.T) {
	e, a, b, seller := orderEnv(t, seed.Options{})
	o1 := place(t, e, a, "OAK_LOG", 100, 1.5)
	o2 := place(t, e, b, "OAK_LOG", 50, 2)
	e.clock.Advance(time.Second)
	o3 := place(t, e, a, "OAK_LOG", 10, 2)
	o4 := place(t, e, b, "STONE", 64, 0.1)
	list(t, e, seller, "OAK_LOG", 64, 192) // 3.00 a log: above every order
	list(t, e, seller, "OAK_LOG", 32, 96)
	list(t, e, seller, "OAK_LOG", 16, 64) // 4.00

	var all wire.OrderPage
	e.getJSON("/api/orders", &all)
	if got, want := orderIDs(all.Items), fmt.Sprintf("%d,%d,%d,%d", o2.ID, o3.ID, o1.ID, o4.ID); got != want || all.Total != 4 || all.NextCursor != "" {
		t.Errorf("/api/orders: %s of %d, want %s of 4", got, all.Total, want)
	}
	first := all.Items[0]
	if first.Material != "OAK_LOG" || first.Name != "Oak Log" || first.Amount != 50 || first.Filled != 0 || first.UnitPrice != "2.00" ||
		first.Buyer != b.ID.String() || first.BuyerName != b.Name || first.State != "open" || !first.ClosedAt.IsZero() ||
		!first.ExpiresAt.Equal(first.CreatedAt.Add(7*24*time.Hour)) || all.Version != e.svc.Version() {
		t.Errorf("the best order: %+v (version %d)", first, all.Version)
	}

	var p1, p2 wire.OrderPage
	e.getJSON("/api/orders?material=minecraft:oak_log&limit=2", &p1)
	if got := orderIDs(p1.Items); got != fmt.Sprintf("%d,%d", o2.ID, o3.ID) || p1.Total != 3 || p1.NextCursor == "" {
		t.Fatalf("the first page of oak logs: %s of %d, next %q", got, p1.Total, p1.NextCursor)
	}
	e.getJSON("/api/orders?material=minecraft:oak_log&limit=2&cursor="+p1.NextCursor, &p2)
	if got := orderIDs(p2.Items); got != fmt.Sprint(o1.ID) || p2.Total != 3 || p2.NextCursor != "" {
		t.Errorf("the second page of oak logs: %s of %d, next %q", got, p2.Total, p2.NextCursor)
	}
	var mine wire.OrderPage
	e.getJSON("/api/orders?buyer="+a.ID.String(), &mine)
	if got := orderIDs(mine.Items); got != fmt.Sprintf("%d,%d", o3.ID, o1.ID) {
		t.Errorf("%s's orders: %s", a.Name, got)
	}

	book := e.get("/api/order-book/OAK_LOG")
	want := fmt.Sprintf(`{"material":"OAK_LOG","name":"Oak Log","buy":[{"unitPrice":"2.00","amount":60,"orders":2},{"unitPrice":"1.50","amount":100,"orders":1}],`+
		`"sell":[{"unitPrice":"3.00","amount":96,"listings":2},{"unitPrice":"4.00","amount":16,"listings":1}],"version":%d}`+"\n", e.svc.Version())
	if book.status != 200 || string(book.body) != want {
		t.Errorf("the book: %d\n%s\nwant\n%s", book.status, book.body, want)
	}
	var empty wire.OrderBook
	e.getJSON("/api/order-book/DIAMOND", &empty)
	if empty.Material != "DIAMOND" || empty.Buy == nil || empty.Sell == nil || len(empty.Buy)+len(empty.Sell) != 0 {
		t.Errorf("an empty book: %+v", empty)
	}

	if err := e.svc.CancelOrder(o1.ID, a); err != nil {
		t.Fatal(err)
	}
	var closed wire.Order
	e.getJSON(fmt.Sprintf("/api/orders/%d", o1.ID), &closed)
	if closed.State != "cancelled" || closed.ClosedAt.IsZero() || closed.Filled != 0 || closed.Amount != 100 {
		t.Errorf("the cancelled order: %+v", closed)
	}
	// The page after o3 once o1 has gone: empty, and the last.
	var after wire.OrderPage
	e.getJSON("/api/orders?material=minecraft:oak_log&limit=2&cursor="+p1.NextCursor, &after)
	if len(after.Items) != 0 || after.Total != 2 || after.NextCursor != "" {
		t.Errorf("the second page after a cancel: %s of %d", orderIDs(after.Items), after.Total)
	}

	for _, c := range []struct {
		path, param, code, detail string
		status                    int
	}{
		{"/api/orders/0", "id", CodeBadParameter, `an order id is a whole number from 1 to 2147483647, got "0"`, 400},
		{"/api/orders/01", "id", CodeBadParameter, `an order id is a whole number from 1 to 2147483647, got "01"`, 400},
		{"/api/orders/999", "", CodeOrderNotFound, "no buy order 999", 404},
		{"/api/order-book/KRZESLO", "", CodeItemNotFound, `no item "KRZESLO" in the market's catalogue`, 404},
		{"/api/order-book/OAK_LOG?depth=5", "depth", CodeBadParameter, `unknown parameter "depth"; this route takes no parameters`, 400},
		{"/api/orders?material=KRZESLO", "material", CodeBadParameter, `unknown material "KRZESLO"`, 400},
		{"/api/orders?buyer=nope", "buyer", CodeBadParameter, `buyer must be a player UUID in canonical form, got "nope"`, 400},
		{"/api/orders?buyer=01234567-89ab-4cde-8f01-23456789abcd", "", CodePlayerNotFound, "no player 01234567-89ab-4cde-8f01-23456789abcd", 404},
		{"/api/orders?sort=price", "sort", CodeBadParameter, `unknown parameter "sort"; this route takes: material, buyer, limit, cursor`, 400},
		{"/api/orders?limit=0", "limit", CodeBadParameter, `limit must be a whole number from 1 to 500, got "0"`, 400},
		{"/api/orders?material=STONE&cursor=" + p1.NextCursor, "cursor", CodeBadCursor, "cursor was made for other filters; keep the parameters of the first page", 400},
		{"/api/orders?cursor=" + all.Items[0].Buyer, "cursor", CodeBadCursor, "cursor is not one this API gave out; pass nextCursor back unchanged", 400},
		{"/api/orders?cursor=" + url.QueryEscape(encodeHistoryCursor(3)), "cursor", CodeBadCursor, "cursor belongs to another collection", 400},
	} {
		got := e.get(c.path)
		p := got.problem(t)
		if got.status != c.status || p.Code != c.code || p.Detail != c.detail || p.Parameter != c.param {
			t.Errorf("%s: %d %s %q (%s), want %d %s %q (%s)", c.path, got.status, p.Code, p.Detail, p.Parameter, c.status, c.code, c.detail, c.param)
		}
	}
}

// TestOrderEventsOnTheStream: the stream carries the buy orders' three
// events as the market publishes them, named and shaped as the wire says
// and the OpenAPI document's Event describes, after the purchase a fill
// is, which names its order.
func TestOrderEventsOnTheStream(t *testing.T) {
	e, a, _, seller := orderEnv(t, seed.Options{})
	s := e.stream("/api/events")
	o := place(t, e, a, "OAK_LOG", 40, 2.5)
	l := list(t, e, seller, "OAK_LOG", 64, 128) // 2.00 a log: the order takes 40, 24 stay on sale
	doc, err := openapi3.NewLoader().LoadFromData(openAPIDoc)
	if err != nil {
		t.Fatal(err)
	}
	schema := doc.Components.Schemas["Event"].Value
	var names []string
	var got []wire.Event
	for range 5 {
		ev := s.next(t)
		var w wire.Event
		if err := json.Unmarshal([]byte(ev.data), &w); err != nil {
			t.Fatal(err)
		}
		var v any
		json.Unmarshal([]byte(ev.data), &v)
		if err := schema.VisitJSON(v, openapi3.EnableJSONSchema2020()); err != nil {
			t.Errorf("%s does not match the document's Event: %v", ev.event, err)
		}
		if w.Event != ev.event || fmt.Sprint(w.Seq) != ev.id {
			t.Errorf("event %s (id %s) carries %s (seq %d)", ev.event, ev.id, w.Event, w.Seq)
		}
		names = append(names, ev.event)
		got = append(got, w)
	}
	want := "BuyOrderPlacedEvent ListingCreatedEvent TransactionCompletedEvent BuyOrderFilledEvent BuyOrderClosedEvent"
	if strings.Join(names, " ") != want {
		t.Fatalf("events %v, want %s", names, want)
	}
	if got[0].Order == nil || got[0].Order.ID != o.ID || got[0].Order.State != "open" {
		t.Errorf("placed: %+v", got[0].Order)
	}
	tx, fill := got[2].Transaction, got[3].Fill
	if tx.BuyOrder != o.ID || tx.ListingID != l.ID || tx.Item.Amount != 40 || tx.Price != "80.00" {
		t.Errorf("the fill's purchase: %+v", tx)
	}
	if fill == nil || fill.TransactionID != tx.ID || fill.Amount != 40 || fill.UnitPrice != "2.00" || fill.Price != "80.00" ||
		fill.Seller.UUID != seller.ID.String() || fill.ListingID == nil || *fill.ListingID != l.ID || *fill.ListingLeft != 24 {
		t.Errorf("the fill: %+v", fill)
	}
	if c := got[4]; c.Reason != "filled" || c.Refund != "20.00" || c.Order.State != "filled" || c.Order.Filled != 40 {
		t.Errorf("closed: %s, refund %s, %+v", c.Reason, c.Refund, c.Order)
	}
}

// TestOrderResponsesMatchTheServedDocument validates the orders' routes'
// answers and errors against /api/openapi.json.
func TestOrderResponsesMatchTheServedDocument(t *testing.T) {
	e, a, b, seller := orderEnv(t, seed.Options{})
	c := loadContract(t, e)
	o := place(t, e, a, "OAK_LOG", 100, 1.5)
	place(t, e, b, "OAK_LOG", 10, 2)
	place(t, e, b, "STONE", 10, 2)
	list(t, e, seller, "OAK_LOG", 64, 192)
	var page wire.OrderPage
	e.getJSON("/api/orders?limit=1", &page)
	for _, path := range []string{"/api/orders", "/api/orders?material=OAK_LOG&buyer=" + a.ID.String(), "/api/orders?limit=1&cursor=" + page.NextCursor,
		fmt.Sprintf("/api/orders/%d", o.ID), "/api/order-book/OAK_LOG", "/api/order-book/DIAMOND"} {
		c.check(t, e, 200, path)
	}
	if err := e.svc.CancelOrder(o.ID, a); err != nil {
		t.Fatal(err)
	}
	c.check(t, e, 200, fmt.Sprintf("/api/orders/%d", o.ID))
	tag := e.get("/api/stats").header.Get("ETag")
	for _, path := range []string{"/api/orders", "/api/order-book/OAK_LOG", fmt.Sprintf("/api/orders/%d", o.ID)} {
		c.check(t, e, 304, path, "If-None-Match: "+tag)
	}
	for _, path := range []string{"/api/orders?limit=0", "/api/orders?cursor=zz", "/api/orders/0", "/api/orders?material=KRZESLO", "/api/order-book/OAK_LOG?x=1"} {
		c.check(t, e, 400, path)
	}
	for _, path := range []string{"/api/orders/999", "/api/order-book/KRZESLO", "/api/orders?buyer=01234567-89ab-4cde-8f01-23456789abcd"} {
		c.check(t, e, 404, path)
	}
	e.svc.Disable()
	for _, path := range []string{"/api/orders", "/api/orders/1", "/api/order-book/OAK_LOG"} {
		c.check(t, e, 503, path)
	}
}

package market_test

import (
	"cmp"
	"errors"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/rynek/rynek/market"
)

// orderEscrow is what the audit counts in the buy orders' escrow.
func orderEscrow(a market.Audit) market.Money {
	for _, acc := range a.Accounts {
		if acc.Name == "held by buy orders" {
			return acc.Money
		}
	}
	return -1
}

// eventNames lists the names of the events since the n-th.
func (w *world) eventNames(n int) []string {
	var out []string
	for _, e := range w.events[n:] {
		out = append(out, e.EventName())
	}
	return out
}

func (w *world) order(p market.Player, material string, amount int, unit float64) market.Order {
	w.t.Helper()
	o, err := w.svc.PlaceOrder(p, material, amount, unit, 0)
	must(w.t, err)
	return o
}

// TestOrderRefusals: every refusal of a placing and a cancelling, with its
// code and exact text, changes nothing.
func TestOrderRefusals(t *testing.T) {
	w := newWorld(t, func(c *market.Config) { c.Orders.MaxPerPlayer = 2 })
	o := w.order(w.alice, "OAK_LOG", 10, 1)
	w.order(w.alice, "DIAMOND", 1, 1)
	poor := market.Player{ID: w.bob.ID, Name: "Bob"}
	before := w.audit()
	for _, c := range []struct {
		name string
		err  error
		code market.Code
		text string
	}{
		{"unknown material", second(w.svc.PlaceOrder(w.bob, "KRZESLO", 1, 1, 0)), market.CodeInvalidItem, `unknown material "KRZESLO"`},
		{"no items", second(w.svc.PlaceOrder(w.bob, "OAK_LOG", 0, 1, 0)), market.CodeInvalidItem, "an order buys 1 to 2304 items, not 0"},
		{"too many", second(w.svc.PlaceOrder(w.bob, "OAK_LOG", 2305, 1, 0)), market.CodeInvalidItem, "an order buys 1 to 2304 items, not 2305"},
		{"free", second(w.svc.PlaceOrder(w.bob, "OAK_LOG", 1, 0, 0)), market.CodeInvalidPrice, "unit price must be greater than 0, got 0"},
		{"too short", second(w.svc.PlaceOrder(w.bob, "OAK_LOG", 1, 1, time.Second)), market.CodeInvalidQuery,
			"an order lasts 1m to 30d, not 1s"},
		{"more than the balance", second(w.svc.PlaceOrder(poor, "OAK_LOG", 2000, 0.51, 0)), market.CodeInsufficientFunds,
			"2000 × 0.51 is 1020.00 (and a fee of 0.00) but Bob has 1000.00"},
		{"the limit", second(w.svc.PlaceOrder(w.alice, "STONE", 1, 1, 0)), market.CodeOrderLimit,
			"Alice already has 2 open buy orders; the limit is 2"},
		{"someone else's", w.svc.CancelOrder(o.ID, w.bob), market.CodeNotOrderOwner, "Bob did not place order #1 and lacks market.admin"},
		{"no such order", w.svc.CancelOrder(99, w.alice), market.CodeUnknownOrder, "there is no buy order #99"},
	} {
		var e *market.Error
		if !errors.As(c.err, &e) || e.Code != c.code || e.Msg != c.text {
			t.Errorf("%s: %v, want %s %q", c.name, c.err, c.code, c.text)
		}
	}
	if after := w.audit(); after.Money != before.Money || orderEscrow(after) != orderEscrow(before) || orderEscrow(after) != 11_00 {
		t.Errorf("a refusal changed the money: escrow %d then %d", orderEscrow(before), orderEscrow(after))
	}
	must(t, w.svc.CancelOrder(o.ID, w.admin)) // an admin may
	var e *market.Error
	if err := w.svc.CancelOrder(o.ID, w.alice); !errors.As(err, &e) || e.Code != market.CodeOrderClosed || e.Msg != "buy order #1 is closed (cancelled)" {
		t.Errorf("cancelling twice: %v", err)
	}
}

// TestOrderBuysFromListings: an order placed above the cheapest listings
// buys them at once, cheapest first, a part of the last one, and closes
// filled with what it did not spend back to its buyer.
func TestOrderBuysFromListings(t *testing.T) {
	w := newWorld(t)
	cheap := w.sell(w.bob, 2, 64)  // 32 logs at 2.00
	dear := w.sell(w.admin, 2, 80) // 32 logs at 2.50
	w.sell(w.bob, 1, 5)            // a named sword: no commodity
	own := w.sell(w.alice, 2, 32)  // Alice's own logs at 1.00: never her order's
	before, n := w.audit(), len(w.events)
	o, err := w.svc.PlaceOrder(w.alice, "minecraft:oak_log", 40, 2.5, 0)
	must(t, err)
	if o.State != "filled" || o.Filled != 40 || o.Escrow != 0 {
		t.Errorf("the order after placing: %+v", o)
	}
	want := []string{"BuyOrderPlacedEvent", "TransactionCompletedEvent", "BuyOrderFilledEvent", "TransactionCompletedEvent",
		"BuyOrderFilledEvent", "BuyOrderClosedEvent"}
	if got := w.eventNames(n); fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("events %v, want %v", got, want)
	}
	f1, f2 := w.events[n+2].(market.BuyOrderFilledEvent), w.events[n+4].(market.BuyOrderFilledEvent)
	if f1.ListingID() != cheap.ID || f1.Amount() != 32 || f1.Price() != 64 || f1.ListingLeft() != 0 || f1.SellerName() != "Bob" {
		t.Errorf("first fill: #%d %d for %.2f, %d left", f1.ListingID(), f1.Amount(), f1.Price(), f1.ListingLeft())
	}
	if f2.ListingID() != dear.ID || f2.Amount() != 8 || f2.Price() != 20 || f2.UnitPrice() != 2.5 || f2.ListingLeft() != 24 {
		t.Errorf("second fill: #%d %d for %.2f, %d left", f2.ListingID(), f2.Amount(), f2.Price(), f2.ListingLeft())
	}
	closed := w.events[n+5].(market.BuyOrderClosedEvent)
	if closed.Reason() != "filled" || closed.Refund() != 16 {
		t.Errorf("closed %s with %.2f back", closed.Reason(), closed.Refund())
	}
	tx := w.events[n+3].(market.TransactionCompletedEvent).Transaction()
	if tx.Item.Amount != 8 || tx.Price != 20 || tx.State != market.StateCompleted {
		t.Errorf("the partial purchase: %d items for %.2f, %s", tx.Item.Amount, tx.Price, tx.State)
	}
	rest, err := w.svc.GetListing(dear.ID)
	must(t, err)
	if rest.Item.Amount != 24 || rest.Price != 60 || rest.Item.ID != dear.Item.ID {
		t.Errorf("the rest on sale: %d for %.2f (%s)", rest.Item.Amount, rest.Price, rest.Item.ID)
	}
	if _, err := w.svc.GetListing(own.ID); err != nil {
		t.Errorf("Alice's own listing went: %v", err)
	}
	if got := w.balance(w.alice); got != 1000-84 {
		t.Errorf("Alice has %.2f, want 916.00: 84.00 spent, the rest of the escrow back", got)
	}
	after := w.audit()
	if after.Money != before.Money || after.Items != before.Items || orderEscrow(after) != 0 {
		t.Errorf("audit: %+v", after)
	}
	w.reopen()
	if got, err := w.svc.GetOrder(o.ID); err != nil || got.State != "filled" || got.Filled != 40 {
		t.Errorf("after a reopen: %+v, %v", got, err)
	}
}

// TestNewListingFillsOrders: a listing at or below the best order's limit
// is created as usual, then bought by the orders at once.
func TestNewListingFillsOrders(t *testing.T) {
	w := newWorld(t)
	start := w.audit()
	best := w.order(w.alice, "OAK_LOG", 20, 3)
	low := w.order(w.admin, "OAK_LOG", 100, 1.5)
	n := len(w.events)
	l := w.sell(w.bob, 2, 64) // 32 at 2.00: Alice's order takes 20, Admin's pays too little
	want := []string{"ListingCreatedEvent", "TransactionCompletedEvent", "BuyOrderFilledEvent", "BuyOrderClosedEvent"}
	if got := w.eventNames(n); fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("events %v, want %v", got, want)
	}
	rest, err := w.svc.GetListing(l.ID)
	must(t, err)
	if rest.Item.Amount != 12 || rest.Price != 24 {
		t.Errorf("the rest on sale: %d for %.2f", rest.Item.Amount, rest.Price)
	}
	if o, _ := w.svc.GetOrder(best.ID); o.State != "filled" {
		t.Errorf("Alice's order: %+v", o)
	}
	if o, _ := w.svc.GetOrder(low.ID); o.State != "open" || o.Filled != 0 || o.Escrow != 150 {
		t.Errorf("Admin's order: %+v", o)
	}
	if got := w.balance(w.alice); got != 1000-40 {
		t.Errorf("Alice has %.2f, want 960.00", got)
	}
	page, err := w.svc.Orders(market.OrderQuery{Material: "oak_log"})
	must(t, err)
	if page.Total != 1 || page.Orders[0].ID != low.ID {
		t.Errorf("open oak log orders: %+v", page)
	}
	if page, _ = w.svc.Orders(market.OrderQuery{Material: "OAK_LOG", All: true}); page.Total != 2 || page.Orders[1].ID != best.ID {
		t.Errorf("all oak log orders: %+v", page)
	}
	book, err := w.svc.GetOrderBook("OAK_LOG", 0)
	must(t, err)
	if fmt.Sprint(book.Buy) != "[{1.5 100 1}]" || fmt.Sprint(book.Sell) != "[{2 12 1}]" {
		t.Errorf("book: buy %v sell %v", book.Buy, book.Sell)
	}
	if a := w.audit(); a.Money != start.Money || a.Items != start.Items || orderEscrow(a) != 150_00 {
		t.Errorf("audit: %+v", a)
	}
}

// TestOrderCancelAndExpiry: a cancelled order and an expired one give
// their escrow back, and say so.
func TestOrderCancelAndExpiry(t *testing.T) {
	w := newWorld(t, func(c *market.Config) { c.Orders.FeeBasisPoints = 100 })
	start := w.audit()
	a := w.order(w.alice, "STONE", 100, 0.5)
	if got := w.balance(w.alice); got != 1000-50-0.5 {
		t.Errorf("Alice has %.2f after placing, want 949.50 (50.00 held, 0.50 fee)", got)
	}
	must(t, w.svc.CancelOrder(a.ID, w.alice))
	if got := w.balance(w.alice); got != 999.5 {
		t.Errorf("Alice has %.2f after cancelling, want 999.50 (the fee stays)", got)
	}
	b, err := w.svc.PlaceOrder(w.bob, "STONE", 10, 1, time.Hour)
	must(t, err)
	n := len(w.events)
	w.clock.Advance(time.Hour)
	if _, _, err := w.svc.SweepExpired(); err != nil {
		t.Fatal(err)
	}
	if got := w.eventNames(n); fmt.Sprint(got) != "[BuyOrderClosedEvent]" {
		t.Fatalf("events %v", got)
	}
	if e := w.events[n].(market.BuyOrderClosedEvent); e.Reason() != "expired" || e.Refund() != 10 || e.Order().ID != b.ID {
		t.Errorf("closed: %s, %.2f", e.Reason(), e.Refund())
	}
	if got := w.balance(w.bob); got != 999.9 {
		t.Errorf("Bob has %.2f, want 999.90", got)
	}
	page, err := w.svc.Orders(market.OrderQuery{All: true})
	must(t, err)
	if page.Total != 2 || page.Orders[0].State != "expired" || page.Orders[1].State != "cancelled" {
		t.Errorf("orders: %+v", page)
	}
	if a := w.audit(); a.Money != start.Money || orderEscrow(a) != 0 {
		t.Errorf("audit: %+v", a)
	}
}

// TestSellToOrder: a seller sells into an order from the inventory at the
// order's price, less the fee; the order takes only what it still wants.
func TestSellToOrder(t *testing.T) {
	w := newWorld(t)
	start := w.audit()
	o := w.order(w.alice, "OAK_LOG", 40, 2.5)
	for _, c := range []struct {
		name string
		err  error
		code market.Code
		text string
	}{
		{"a named sword", second(w.svc.SellToOrder(w.bob, w.stack(w.bob, 1), 0)), market.CodeNotACommodity,
			"orders buy plain stacks of DIAMOND_SWORD: not one with a name, lore, enchantments or a stack size of its own"},
		{"nobody buys diamonds", second(w.svc.SellToOrder(w.bob, w.stack(w.bob, 0), 0)), market.CodeNoMatchingOrder, "no open buy order buys DIAMOND"},
		{"the wrong material", second(w.svc.SellToOrder(w.bob, w.stack(w.bob, 0), o.ID)), market.CodeNoMatchingOrder, "buy order #1 buys OAK_LOG, not DIAMOND"},
		{"one's own order", second(w.svc.SellToOrder(w.alice, w.stack(w.alice, 2), o.ID)), market.CodeNoMatchingOrder,
			"Alice cannot sell into their own buy order #1"},
		{"only Alice buys logs", second(w.svc.SellToOrder(w.alice, w.stack(w.alice, 2), 0)), market.CodeNoMatchingOrder, "no open buy order buys OAK_LOG"},
	} {
		var e *market.Error
		if !errors.As(c.err, &e) || e.Code != c.code || e.Msg != c.text {
			t.Errorf("%s: %v, want %s %q", c.name, c.err, c.code, c.text)
		}
	}
	n := len(w.events)
	tx, err := w.svc.SellToOrder(w.bob, w.stack(w.bob, 2), 0)
	must(t, err)
	if tx.Price != 80 || tx.Fee != 4 || tx.Item.Amount != 32 || tx.ListingID != 0 || tx.State != market.StateCompleted {
		t.Errorf("the sale: %+v", tx)
	}
	if got := w.eventNames(n); fmt.Sprint(got) != "[TransactionCompletedEvent BuyOrderFilledEvent]" {
		t.Fatalf("events %v", got)
	}
	if got := w.balance(w.bob); got != 1076 {
		t.Errorf("Bob has %.2f, want 1076.00", got)
	}
	tx, err = w.svc.SellToOrder(w.admin, w.stack(w.admin, 2), o.ID)
	must(t, err)
	if tx.Price != 20 || tx.Item.Amount != 8 {
		t.Errorf("the last 8: %+v", tx)
	}
	if left := w.stack(w.admin, 2); left.Amount != 24 {
		t.Errorf("Admin kept %d logs, want 24", left.Amount)
	}
	ps, err := w.svc.GetPlayer(w.alice.ID)
	must(t, err)
	if ps.Inventory[3] == nil || ps.Inventory[3].Amount != 32 || ps.Inventory[4] == nil || ps.Inventory[4].Amount != 8 {
		t.Errorf("Alice's inventory: %v %v", ps.Inventory[3], ps.Inventory[4])
	}
	var e *market.Error
	if _, err := w.svc.SellToOrder(w.admin, w.stack(w.admin, 2), o.ID); !errors.As(err, &e) || e.Code != market.CodeOrderClosed {
		t.Errorf("selling into a filled order: %v", err)
	}
	if a := w.audit(); a.Money != start.Money || a.Items != start.Items || orderEscrow(a) != 0 {
		t.Errorf("audit: %+v", a)
	}
	w.reopen()
	if got := w.balance(w.alice); got != 900 {
		t.Errorf("after a reopen Alice has %.2f, want 900.00", got)
	}
	// Alice, away meanwhile, finds both fills among her notifications.
	page, err := w.svc.Notifications(w.alice.ID, 0)
	must(t, err)
	var fills []string
	for _, n := range page.Notifications {
		if n.Kind == market.NotifyFill {
			fills = append(fills, fmt.Sprintf("#%d %s %d×%s %.2f", n.Order, n.Seller, n.Item.Amount, n.Item.Material, n.Price))
		}
	}
	if got := fmt.Sprint(fills); got != "[#1 Admin 8×OAK_LOG 20.00 #1 Bob 32×OAK_LOG 80.00]" {
		t.Errorf("Alice's fills: %s", got)
	}
}

// TestOrderLeavesACentsShare: a part of a listing worth less than a cent
// is not bought (its rest would be free); the order buys what it can
// elsewhere and rests.
func TestOrderLeavesACentsShare(t *testing.T) {
	w := newWorld(t, func(c *market.Config) { c.MinPrice = 1 })
	tiny := w.sell(w.bob, 2, 0.01) // 32 logs for a cent
	w.sell(w.admin, 2, 8)          // 32 logs at 0.25
	o, err := w.svc.PlaceOrder(w.alice, "OAK_LOG", 1, 0.25, 0)
	must(t, err)
	if o.State != "filled" {
		t.Fatalf("the order: %+v", o)
	}
	l, err := w.svc.GetListing(tiny.ID)
	must(t, err)
	if l.Item.Amount != 32 || l.Price != 0.01 {
		t.Errorf("the cent's listing: %d for %.2f", l.Item.Amount, l.Price)
	}
}

// TestPartialFillSharesTheListingFee: the rest of a listing keeps only its
// share of the listing fee, which a refund of it would give back.
func TestPartialFillSharesTheListingFee(t *testing.T) {
	w := newWorld(t, func(c *market.Config) { c.ListingFeeBasisPoints = 1000; c.RefundListingFee = true })
	l := w.sell(w.bob, 2, 64) // 32 logs, a fee of 6.40
	w.order(w.alice, "OAK_LOG", 31, 2)
	rest, err := w.svc.GetListing(l.ID)
	must(t, err)
	if rest.Item.Amount != 1 || rest.Price != 2 {
		t.Fatalf("the rest: %d for %.2f", rest.Item.Amount, rest.Price)
	}
	before := w.balance(w.bob)
	must(t, w.svc.RemoveListing(l.ID, w.bob))
	if got := w.balance(w.bob) - before; got < 0.199 || got > 0.201 {
		t.Errorf("the rest's fee refunded: %.2f, want 0.20 (a 32nd of 6.40)", got)
	}
	w.reopen() // every record as written decodes
}

// TestOrderFillsOverTicks: an order crossing more listings than one call
// fills (32) buys the rest on the timer's next look, so no tick waits for
// dozens of commits.
func TestOrderFillsOverTicks(t *testing.T) {
	w := newWorld(t, func(c *market.Config) { c.MaxListingsPerPlayer = 50 })
	_, _, err := w.svc.GiveItem(w.bob.ID, market.ItemStack{Material: "OAK_LOG", Amount: 64})
	must(t, err)
	for range 40 {
		s := w.stack(w.bob, 3)
		s.Amount = 1
		_, err := w.svc.SellItem(w.bob, s, 1)
		must(t, err)
	}
	o, err := w.svc.PlaceOrder(w.alice, "OAK_LOG", 40, 1, 0)
	must(t, err)
	if o.Filled != 32 || !o.Open() {
		t.Fatalf("after placing: %d filled, %s", o.Filled, o.State)
	}
	if _, _, err := w.svc.SweepExpired(); err != nil {
		t.Fatal(err)
	}
	if o, _ = w.svc.GetOrder(o.ID); o.Filled != 40 || o.State != "filled" {
		t.Fatalf("after a sweep: %d filled, %s", o.Filled, o.State)
	}
}

// TestOrderPagesAfterAPlace: a page after an order's place in the book
// starts behind it, even once that order has closed, so that paging while
// orders come and go neither skips nor repeats one, in a page of all
// orders too; a fill's purchase
// names the order it filled.
func TestOrderPagesAfterAPlace(t *testing.T) {
	w := newWorld(t)
	a := w.order(w.alice, "STONE", 10, 3)
	b := w.order(w.bob, "STONE", 10, 2)
	w.clock.Advance(time.Second)
	c := w.order(w.alice, "STONE", 10, 2)
	d := w.order(w.admin, "STONE", 10, 1)
	ids := func(p market.OrderPage) string {
		var out []int
		for _, o := range p.Orders {
			out = append(out, o.ID)
		}
		return fmt.Sprint(out)
	}
	first, err := w.svc.Orders(market.OrderQuery{Material: "STONE", Limit: 2})
	must(t, err)
	if ids(first) != fmt.Sprint([]int{a.ID, b.ID}) || first.Total != 4 || first.Next == nil || *first.Next != b.Place() {
		t.Fatalf("first page %s of %d, next %+v", ids(first), first.Total, first.Next)
	}
	must(t, w.svc.CancelOrder(b.ID, w.bob)) // the page's last order goes: the next page still starts behind it
	second, err := w.svc.Orders(market.OrderQuery{Material: "STONE", Limit: 2, After: first.Next})
	must(t, err)
	if ids(second) != fmt.Sprint([]int{c.ID, d.ID}) || second.Total != 3 || second.Next != nil {
		t.Errorf("second page %s of %d, next %+v", ids(second), second.Total, second.Next)
	}
	// A page of all orders after the same place: the open ones behind it,
	// then the closed (b itself, closed since).
	all, err := w.svc.Orders(market.OrderQuery{Material: "STONE", All: true, After: first.Next})
	must(t, err)
	if ids(all) != fmt.Sprint([]int{c.ID, d.ID, b.ID}) || all.Total != 4 || all.Next != nil {
		t.Errorf("all orders after b's place: %s of %d, next %+v", ids(all), all.Total, all.Next)
	}
	n := len(w.events)
	w.sell(w.bob, 2, 64) // 32 logs: no order for them
	if _, err := w.svc.PlaceOrder(w.admin, "OAK_LOG", 8, 2, 0); err != nil {
		t.Fatal(err)
	}
	var tx market.Transaction
	for _, ev := range w.events[n:] {
		if c, ok := ev.(market.TransactionCompletedEvent); ok {
			tx = c.Transaction()
		}
	}
	if tx.BuyOrder == 0 || tx.Item.Amount != 8 {
		t.Errorf("the fill's purchase: %d items, buy order %d", tx.Item.Amount, tx.BuyOrder)
	}
	got, err := w.svc.GetTransaction(tx.ID)
	must(t, err)
	if got.BuyOrder != tx.BuyOrder {
		t.Errorf("read back, the purchase names buy order %d, the event %d", got.BuyOrder, tx.BuyOrder)
	}
}

// TestOrderPagesMergeTheBook: the open orders of several materials, paged
// by place and by offset, come best first across the materials (the
// highest unit price, then the oldest, then the lowest id), each once,
// with and without a material and a buyer, however the pages fall.
func TestOrderPagesMergeTheBook(t *testing.T) {
	w := newWorld(t, func(c *market.Config) { c.Orders.MaxPerPlayer = 100 })
	mats := []string{"OAK_LOG", "STONE", "DIAMOND", "SAND"}
	var placed []market.Order
	for i := range 60 {
		if i%7 == 0 {
			w.clock.Advance(time.Second)
		}
		p := []market.Player{w.alice, w.bob, w.admin}[i%3]
		placed = append(placed, w.order(p, mats[(i*5)%len(mats)], 1, float64(1+(i*37)%9)/10))
	}
	must(t, w.svc.CancelOrder(placed[10].ID, w.bob))
	for _, c := range []struct {
		mat   string
		buyer uuid.UUID
	}{{"", uuid.Nil}, {"STONE", uuid.Nil}, {"", w.bob.ID}, {"STONE", w.alice.ID}} {
		mat := c.mat
		var want []int
		for _, o := range placed {
			if o.ID != placed[10].ID && (mat == "" || o.Material == mat) && (c.buyer == uuid.Nil || o.Buyer == c.buyer) {
				want = append(want, o.ID)
			}
		}
		byID := map[int]market.Order{}
		for _, o := range placed {
			byID[o.ID] = o
		}
		slices.SortFunc(want, func(a, b int) int {
			x, y := byID[a], byID[b]
			return cmp.Or(cmp.Compare(y.UnitPrice, x.UnitPrice), x.CreatedAt.Compare(y.CreatedAt), cmp.Compare(a, b))
		})
		for _, size := range []int{1, 7, 100} {
			var byPlace, byOffset []int
			var after *market.OrderPlace
			for pages := 0; ; pages++ {
				page, err := w.svc.Orders(market.OrderQuery{Material: mat, Buyer: c.buyer, Limit: size, After: after})
				must(t, err)
				if page.Total != len(want) || pages > len(want) {
					t.Fatalf("%q by %d: total %d, want %d (page %d)", mat, size, page.Total, len(want), pages)
				}
				for _, o := range page.Orders {
					byPlace = append(byPlace, o.ID)
				}
				if after = page.Next; after == nil {
					break
				}
			}
			for off := 0; off < len(want); off += size {
				page, err := w.svc.Orders(market.OrderQuery{Material: mat, Buyer: c.buyer, Limit: size, Offset: off})
				must(t, err)
				for _, o := range page.Orders {
					byOffset = append(byOffset, o.ID)
				}
			}
			if fmt.Sprint(byPlace) != fmt.Sprint(want) || fmt.Sprint(byOffset) != fmt.Sprint(want) {
				t.Errorf("%q of %s by %d:\nby place  %v\nby offset %v\nwant      %v", mat, c.buyer, size, byPlace, byOffset, want)
			}
		}
	}
}

// TestOrderBookNeverLooksCrossed: a listing a fraction of a cent an item
// above the best order stands in the book a cent above it, not at the
// order's own price, as rounding to the nearest cent put it.
func TestOrderBookNeverLooksCrossed(t *testing.T) {
	w := newWorld(t)
	w.order(w.bob, "OAK_LOG", 10, 1)
	w.sell(w.alice, 2, 32.01) // 32 oak logs at 1.0003 an item: above the order, not filled
	book, err := w.svc.GetOrderBook("OAK_LOG", 0)
	must(t, err)
	if fmt.Sprint(book.Buy) != "[{1 10 1}]" || fmt.Sprint(book.Sell) != "[{1.01 32 1}]" {
		t.Errorf("book: buy %v sell %v; want buy [{1 10 1}] sell [{1.01 32 1}]", book.Buy, book.Sell)
	}
}

package market_test

import (
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/rynek/rynek/internal/pgtest"
	"github.com/rynek/rynek/market"
)

// TestBulkOrders: a loaded order rests as a placed one does, its escrow
// (the unit price for what it still wants) counted in the opening account,
// so the audit balances; bad orders are refused with what is wrong.
func TestBulkOrders(t *testing.T) {
	spec := pgtest.Store(t)
	st, err := openSpec(spec)
	must(t, err)
	t.Cleanup(func() { st.Close() })
	b := newBulk(t, st)
	zosia, steve := market.Player{ID: uuid.New(), Name: "Zosia"}, market.Player{ID: uuid.New(), Name: "Steve"}
	must(t, b.AddPlayer(zosia, 100_00))
	must(t, b.AddPlayer(steve, 50_00))
	_, err = b.AddListing(steve.ID, market.ItemStack{Material: "OAK_LOG", Amount: 64}, 64_00, t0.Add(-time.Hour), t0.Add(24*time.Hour))
	must(t, err)
	good := market.BulkOrder{Buyer: zosia.ID, Material: "OAK_LOG", Amount: 640, Filled: 600, UnitPrice: 90,
		Created: t0.Add(-2 * time.Hour), Expires: t0.Add(48 * time.Hour)}
	for _, c := range []struct {
		name string
		edit func(*market.BulkOrder)
		want string
	}{
		{"an unknown buyer", func(o *market.BulkOrder) { o.Buyer = uuid.Nil }, "bulk: unknown buyer 00000000-0000-0000-0000-000000000000"},
		{"an unknown material", func(o *market.BulkOrder) { o.Material = "KRZESLO" }, `bulk: an order of unknown material "KRZESLO"`},
		{"no items", func(o *market.BulkOrder) { o.Amount, o.Filled = 0, 0 }, "bulk: an order buys 1 to 1048576 items, not 0"},
		{"filled", func(o *market.BulkOrder) { o.Filled = 640 }, "bulk: an open order of 640 items has bought 0 to 639, not 640"},
		{"free", func(o *market.BulkOrder) { o.UnitPrice = 0 }, "bulk: an order's unit price must be positive, not 0.00"},
		{"expired before placed", func(o *market.BulkOrder) { o.Expires = o.Created }, "bulk: an order expires after it is placed"},
	} {
		o := good
		c.edit(&o)
		if _, err := b.AddOrder(o); err == nil || err.Error() != c.want {
			t.Errorf("%s: got %v, want %q", c.name, err, c.want)
		}
	}
	id, err := b.AddOrder(good)
	must(t, err)
	other := market.BulkOrder{Buyer: steve.ID, Material: "DIAMOND", Amount: 10, UnitPrice: 2_50, Created: t0.Add(-time.Hour), Expires: t0.Add(time.Hour)}
	id2, err := b.AddOrder(other)
	must(t, err)
	if id != 2 || id2 != 3 || b.Summary().Orders != 2 {
		t.Fatalf("ids %d and %d after listing #1, summary %+v", id, id2, b.Summary())
	}
	must(t, b.Finish())
	// The integrity check (rynek check) holds the escrow against the
	// opening account the load wrote.
	snap, err := openSnapshotSpec(spec)
	must(t, err)
	r, err := market.Check(snap, market.NewManualClock(t0))
	snap.Close()
	must(t, err)
	if !r.Sound() {
		t.Fatalf("the check of the loaded market: %v", r.Problems)
	}

	svc := openLoaded(t, st)
	o, err := svc.GetOrder(id)
	must(t, err)
	if !o.Open() || o.Amount != 640 || o.Filled != 600 || o.Escrow != 36 || o.UnitPrice != 0.9 || o.BuyerName != "Zosia" ||
		!o.ExpiresAt.Equal(good.Expires) {
		t.Fatalf("loaded order %+v", o)
	}
	a, err := svc.Audit()
	must(t, err)
	if len(a.Problems) != 0 || orderEscrow(a) != 36_00+25_00 {
		t.Fatalf("audit: escrow %d (want 61.00), problems %v", orderEscrow(a), a.Problems)
	}
	book, err := svc.GetOrderBook("OAK_LOG", 0)
	must(t, err)
	if len(book.Buy) != 1 || book.Buy[0] != (market.BookLevel{UnitPrice: 0.9, Amount: 40, Count: 1}) {
		t.Fatalf("book %+v", book)
	}
	// A new listing at the order's price fills it, as any order.
	given, _, err := svc.GiveItem(steve.ID, market.ItemStack{Material: "OAK_LOG", Amount: 40})
	must(t, err)
	if _, err := svc.SellItem(steve, given, 36); err != nil {
		t.Fatal(err)
	}
	if o, _ := svc.GetOrder(id); o.State != "filled" || o.Filled != 640 {
		t.Fatalf("after a listing at its price the order is %+v", o)
	}
}

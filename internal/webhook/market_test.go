package webhook

import (
	"path/filepath"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/rynek/rynek/market"
	"github.com/rynek/rynek/market/sqlite"
)

// The players and the time of the test market.
var (
	testAt     = time.Date(2026, 11, 22, 3, 12, 5, 0, time.UTC)
	testSeller = uuid.MustParse("0190a1b2-0000-7000-8000-000000000001")
	testBuyer  = uuid.MustParse("0190a1b2-0000-7000-8000-000000000002")
	testBidder = uuid.MustParse("0190a1b2-0000-7000-8000-000000000003")
)

// testEvents are the events of a real market (SQLite, a manual clock)
// going through every kind: a listing put up and withdrawn, a sale, an
// auction bid on twice and won, one that ends without bids, buy orders
// filled, cancelled and expired. Their player text includes a hostile
// item name: § codes, Markdown, a mention, a link and a control character.
func testEvents(t *testing.T) []market.Event {
	t.Helper()
	st, err := sqlite.Open(filepath.Join(t.TempDir(), "m.db"), sqlite.Options{})
	must(t, err)
	b, err := market.NewBulk(st)
	must(t, err)
	must(t, b.AddPlayer(market.Player{ID: testSeller, Name: "Kowalski"}, 100_00))
	must(t, b.AddPlayer(market.Player{ID: testBuyer, Name: "Nowak_2"}, 1_000_000_00))
	must(t, b.AddPlayer(market.Player{ID: testBidder, Name: "Wisniewska"}, 1_000_000_00))
	axe := market.ItemStack{ID: uuid.New(), Material: "DIAMOND_AXE", Amount: 1, DisplayName: "§6Topór §lKowala",
		Enchantments: []market.Enchantment{{Key: "efficiency", Level: 5}}}
	hostile := market.ItemStack{ID: uuid.New(), Material: "NAME_TAG", Amount: 1,
		DisplayName: "§c**@everyone** [za darmo](https://evil.example)\x07 <@123>"}
	must(t, b.SetSlot(testSeller, 0, axe))
	must(t, b.SetSlot(testSeller, 1, market.ItemStack{ID: uuid.New(), Material: "DIAMOND", Amount: 64}))
	must(t, b.SetSlot(testSeller, 2, hostile))
	must(t, b.SetSlot(testSeller, 3, market.ItemStack{ID: uuid.New(), Material: "IRON_INGOT", Amount: 32}))
	must(t, b.SetSlot(testSeller, 4, market.ItemStack{ID: uuid.New(), Material: "OAK_LOG", Amount: 20}))
	must(t, b.Finish())
	clock := market.NewManualClock(testAt)
	svc := market.New(st, market.Config{Clock: clock, ListingCooldown: -1})
	must(t, svc.BindMainThread())
	must(t, svc.Enable())
	t.Cleanup(func() { svc.Close() })
	var events []market.Event
	svc.Subscribe(func(e market.Event) { events = append(events, e) })
	seller, buyer, bidder := market.Player{ID: testSeller}, market.Player{ID: testBuyer}, market.Player{ID: testBidder}
	inv := func(slot int) market.ItemStack {
		ps, err := svc.GetPlayer(testSeller)
		must(t, err)
		return *ps.Inventory[slot]
	}
	l, err := svc.SellItem(seller, inv(0), 703.2)
	must(t, err)
	must(t, svc.RemoveListing(l.ID, seller))
	l, err = svc.SellItem(seller, inv(1), 12345.5)
	must(t, err)
	_, err = svc.Buy(buyer, l.ID)
	must(t, err)
	a, err := svc.StartAuction(seller, inv(0), 100, 1000, time.Hour)
	must(t, err)
	_, err = svc.Bid(buyer, a.ID, 120)
	must(t, err)
	_, err = svc.Bid(bidder, a.ID, 150)
	must(t, err)
	_, err = svc.StartAuction(seller, inv(2), 5, 0, time.Hour)
	must(t, err)
	clock.Advance(time.Hour + time.Second)
	for more := true; more; {
		_, more, err = svc.SweepExpired()
		must(t, err)
	}
	o, err := svc.PlaceOrder(buyer, "OAK_LOG", 20, 2.5, 0)
	must(t, err)
	_, err = svc.SellToOrder(seller, inv(4), o.ID)
	must(t, err)
	o, err = svc.PlaceOrder(buyer, "IRON_INGOT", 10, 2, 0)
	must(t, err)
	must(t, svc.CancelOrder(o.ID, buyer))
	_, err = svc.PlaceOrder(buyer, "COBBLESTONE", 2304, 0.05, time.Hour)
	must(t, err)
	clock.Advance(time.Hour + time.Second)
	for more := true; more; {
		_, more, err = svc.SweepExpired()
		must(t, err)
	}
	return events
}

func must(t testing.TB, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

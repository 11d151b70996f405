package seed_test

import (
	"math"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/rynek/rynek/market"
	"github.com/rynek/rynek/market/catalog"
	"github.com/rynek/rynek/seed"
)

// cents is a price the market gave as a float, in cents.
func cents(f float64) market.Money { return market.Money(math.Round(f * 100)) }

// TestSeedOrdersNeverCrossTheBook: the seeded buy orders rest below every
// commodity listing of their material (for every material, the best open
// order pays less an item than the cheapest plain stack on sale asks), so
// the market's timer fills none of them; a third bid a cent below that
// listing, a few are nearly filled, they spread over materials and buyers
// within the order limit, and their escrow is the world's money.
func TestSeedOrdersNeverCrossTheBook(t *testing.T) {
	svc, res := load(t, seed.Options{Listings: 2000, Rand: 7, Now: now})
	if res.Orders != 40 {
		t.Fatalf("%d orders, want one for every 50 listings, 40", res.Orders)
	}
	all, err := svc.GetListings()
	if err != nil {
		t.Fatal(err)
	}
	// below[m] is the most an order of m may pay an item without crossing
	// a listing: limit × amount < price for every plain fixed-price stack.
	below := map[string]market.Money{}
	for _, l := range all {
		it := l.Item
		if l.Auction != nil || it.DisplayName != "" || len(it.Lore) > 0 || len(it.Enchantments) > 0 || it.MaxStack != 0 {
			continue
		}
		price, n := cents(l.Price), market.Money(it.Amount)
		b := (price - 1) / n
		if cur, ok := below[it.Material]; !ok || b < cur {
			below[it.Material] = b
		}
	}
	page, err := svc.Orders(market.OrderQuery{Limit: 1000})
	if err != nil {
		t.Fatal(err)
	}
	if page.Total != res.Orders {
		t.Fatalf("the market has %d open orders, the result says %d", page.Total, res.Orders)
	}
	materials, buyers := map[string]bool{}, map[uuid.UUID]int{}
	var atTheListing, nearlyFilled, overAStack int
	var escrow market.Money
	for _, o := range page.Orders {
		limit, most := cents(o.UnitPrice), below[o.Material]
		if _, ok := below[o.Material]; !ok {
			t.Errorf("order #%d is for %s, which no plain stack on sale offers", o.ID, o.Material)
		}
		if limit > most {
			t.Errorf("order #%d bids %.2f for %s, crossing the book: the most below its cheapest listing is %s", o.ID, o.UnitPrice, o.Material, market.FormatMoney(most))
		}
		if limit == most {
			atTheListing++ // a cent below the listing as the book shows it
		}
		if o.Filled >= o.Amount/2 && o.Amount-o.Filled <= 64 {
			nearlyFilled++
		}
		if o.Amount > 64 {
			overAStack++
		}
		if o.Amount > 2304 || !o.Open() || !o.ExpiresAt.After(now) || o.CreatedAt.After(now) {
			t.Errorf("order #%d: %+v", o.ID, o)
		}
		materials[o.Material] = true
		buyers[o.Buyer]++
		escrow += cents(o.Escrow)
		if cents(o.Escrow) != limit*market.Money(o.Amount-o.Filled) {
			t.Errorf("order #%d holds %.2f for %d items at %.2f", o.ID, o.Escrow, o.Amount-o.Filled, o.UnitPrice)
		}
	}
	// The book as it shows: every material's best order below its
	// cheapest listing's unit price rounded up to the cent, a cent below
	// it for a third of them.
	oneCent := 0
	for m := range materials {
		book, err := svc.GetOrderBook(m, 1)
		if err != nil {
			t.Fatal(err)
		}
		if len(book.Buy) == 0 || len(book.Sell) == 0 || cents(book.Buy[0].UnitPrice) >= cents(book.Sell[0].UnitPrice) {
			t.Errorf("the book of %s shows %+v against %+v", m, book.Buy, book.Sell)
		} else if cents(book.Buy[0].UnitPrice)+1 == cents(book.Sell[0].UnitPrice) {
			oneCent++
		}
	}
	if oneCent < res.Orders/3 {
		t.Errorf("%d books show their best order a cent below the cheapest listing, want a third of %d", oneCent, res.Orders)
	}
	for b, n := range buyers {
		if n > 9 {
			t.Errorf("player %s has %d orders: the limit is 10 and the seed leaves room for one more", b, n)
		}
	}
	t.Logf("%d orders over %d materials and %d buyers; %d a cent below the cheapest listing, %d nearly filled, %d for more than a stack; escrow %s",
		len(page.Orders), len(materials), len(buyers), atTheListing, nearlyFilled, overAStack, market.FormatMoney(escrow))
	if len(materials) < 20 || len(buyers) < 30 || atTheListing < res.Orders/3 || nearlyFilled < 3 || overAStack < res.Orders/2 {
		t.Errorf("want the orders spread over 20 materials and 30 buyers, a third at the cheapest listing, 3 nearly filled, most for more than a stack")
	}
	a, err := svc.Audit()
	if err != nil || len(a.Problems) > 0 || a.Money != res.Money {
		t.Fatalf("audit %v, %v: money %d, the result says %d", err, a.Problems, a.Money, res.Money)
	}
	// The timer's look for crossings finds none: no order fills.
	if _, _, err := svc.SweepExpired(); err != nil {
		t.Fatal(err)
	}
	if after, _ := svc.Orders(market.OrderQuery{Limit: 1000}); after.Total != page.Total {
		t.Fatalf("the sweep left %d of %d orders open", after.Total, page.Total)
	}
	for i, o := range page.Orders {
		if got := after(t, svc, o.ID); got.Filled != o.Filled {
			t.Fatalf("order %d (#%d) filled from %d to %d in the sweep", i, o.ID, o.Filled, got.Filled)
		}
	}

	// A player who lists the best order's material a cent an item cheaper
	// than anything on sale sells to it at once.
	best := page.Orders[0]
	seller := someoneElse(t, svc, best.Buyer)
	info, _ := catalog.LookupMaterial(best.Material)
	n := min(best.Amount-best.Filled, info.MaxStack)
	st, _, err := svc.GiveItem(seller.ID, market.ItemStack{Material: best.Material, Amount: n})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := svc.SellItem(seller, st, (cents(best.UnitPrice) * market.Money(n)).Float()); err != nil {
		t.Fatal(err)
	}
	if got := after(t, svc, best.ID); got.Filled != best.Filled+n {
		t.Errorf("a listing at the best order's price left it at %d of %d filled", got.Filled, got.Amount)
	}
}

// TestSeedWithoutOrders: Orders < 0 seeds none.
func TestSeedWithoutOrders(t *testing.T) {
	svc, res := load(t, seed.Options{Players: 20, Listings: 200, Days: -1, Rand: 3, Now: now, Orders: -1})
	page, err := svc.Orders(market.OrderQuery{})
	if err != nil || page.Total != 0 || res.Orders != 0 {
		t.Fatalf("%d orders (%v), the result says %d; want none", page.Total, err, res.Orders)
	}
}

func after(t *testing.T, svc *market.Service, id int) market.Order {
	t.Helper()
	o, err := svc.GetOrder(id)
	if err != nil {
		t.Fatal(err)
	}
	return o
}

// someoneElse is a seeded player other than id.
func someoneElse(t *testing.T, svc *market.Service, id uuid.UUID) market.Player {
	t.Helper()
	players, err := svc.Players()
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range players {
		if p.ID != id {
			return p
		}
	}
	t.Fatal("the market has one player")
	return market.Player{}
}

// TestSeedOrdersKeepTheRules: the seeded orders keep the rules' order
// section: the largest amount, the default duration, and room for one
// more order under each buyer's limit (so a limit of one seeds none).
func TestSeedOrdersKeepTheRules(t *testing.T) {
	rules := market.Config{Orders: market.OrderRules{MaxPerPlayer: 2, MaxAmount: 100, DefaultDuration: 36 * time.Hour}}
	svc, res := load(t, seed.Options{Players: 20, Listings: 1000, Days: -1, Rand: 5, Now: now, Rules: rules})
	page, err := svc.Orders(market.OrderQuery{Limit: 1000})
	if err != nil || page.Total != res.Orders || res.Orders == 0 {
		t.Fatalf("%d orders (%v), the result says %d", page.Total, err, res.Orders)
	}
	buyers := map[uuid.UUID]int{}
	for _, o := range page.Orders {
		if buyers[o.Buyer]++; buyers[o.Buyer] > 1 {
			t.Errorf("%s has %d orders under a limit of 2: no room for another", o.BuyerName, buyers[o.Buyer])
		}
		if o.Amount > 100 || o.ExpiresAt.Sub(o.CreatedAt) != 36*time.Hour {
			t.Errorf("order #%d: %d items, lasting %v; want at most 100 and 36h", o.ID, o.Amount, o.ExpiresAt.Sub(o.CreatedAt))
		}
	}
	rules.Orders.MaxPerPlayer = 1
	_, res = load(t, seed.Options{Players: 20, Listings: 1000, Days: -1, Rand: 5, Now: now, Rules: rules})
	if res.Orders != 0 {
		t.Errorf("a limit of one order a player: %d seeded, want none (each player keeps room to place one)", res.Orders)
	}
}

package httpapi

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/rynek/rynek/internal/wire"
	"github.com/rynek/rynek/market"
	"github.com/rynek/rynek/market/sqlite"
	"github.com/rynek/rynek/seed"
)

// benchOrders is how many buy orders rest in the orders' benchmark market;
// the figure is 100,000. RYNEK_BENCH_ORDERS changes it.
func benchOrders(b *testing.B) int {
	if s := os.Getenv("RYNEK_BENCH_ORDERS"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n < 100 {
			b.Fatalf("RYNEK_BENCH_ORDERS=%q: give a number of orders of 100 or more", s)
		}
		return n
	}
	return 100_000
}

// BenchmarkOrdersPage is the orders' routes in the handler (routing,
// parsing, the read, JSON), kept answers forgotten, on a market where n
// orders rest on 20 commodities at scattered prices: the best page of all
// of them, of one material, of one buyer, a page deep in the book by
// cursor, one order and a material's book.
func BenchmarkOrdersPage(b *testing.B) {
	n := benchOrders(b)
	st, err := sqlite.Open(filepath.Join(b.TempDir(), "m.db"), sqlite.Options{})
	if err != nil {
		b.Fatal(err)
	}
	if _, err := seed.Load(st, seed.Options{Players: 200, Listings: -1, Days: -1, Now: fixedNow}); err != nil {
		b.Fatal(err)
	}
	svc := market.New(st, market.Config{Clock: market.NewManualClock(fixedNow), ListingCooldown: -1,
		Orders: market.OrderRules{MaxAmount: 2304, MaxPerPlayer: n, MinDuration: time.Minute, MaxDuration: 30 * 24 * time.Hour,
			DefaultDuration: 7 * 24 * time.Hour}})
	if err := svc.BindMainThread(); err != nil {
		b.Fatal(err)
	}
	if err := svc.Enable(); err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { svc.Close() })
	players, err := svc.Players()
	if err != nil {
		b.Fatal(err)
	}
	for _, p := range players {
		if _, err := svc.Deposit(p.ID, 1_000_000); err != nil {
			b.Fatal(err)
		}
	}
	mats := []string{"OAK_LOG", "STONE", "COBBLESTONE", "BAMBOO", "BONE_MEAL", "HONEYCOMB", "SAND", "DIRT", "WHEAT", "IRON_INGOT",
		"DIAMOND", "EMERALD", "COAL", "REDSTONE", "GLASS", "BRICK", "FLINT", "FEATHER", "STRING", "LEATHER"}
	start := time.Now()
	var last market.Order
	for i := range n {
		last, err = svc.PlaceOrder(players[i%len(players)], mats[i%len(mats)], 1+i%64, float64(1+(i*7919)%5000)/100, 0)
		if err != nil {
			b.Fatal(err)
		}
	}
	b.Logf("placed %d orders in %s", n, time.Since(start).Round(time.Millisecond))
	api := New(svc, Options{})
	var deep wire.OrderPage
	{
		q := market.OrderQuery{Limit: 1, Offset: n / 2}
		page, err := svc.Orders(q)
		if err != nil || len(page.Orders) == 0 {
			b.Fatalf("no order half way: %v", err)
		}
		deep.NextCursor = encodeOrderCursor(page.Orders[0].Place(), market.OrderQuery{})
	}
	paths := []string{"/api/orders", "/api/orders?material=OAK_LOG", "/api/orders?buyer=" + players[7].ID.String(),
		"/api/orders?cursor=" + deep.NextCursor, fmt.Sprintf("/api/orders/%d", last.ID), "/api/order-book/OAK_LOG"}
	ds := make([]time.Duration, 0, b.N)
	byPath := make([][]time.Duration, len(paths))
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		d := serve(b, api, paths[i%len(paths)])
		ds = append(ds, d)
		byPath[i%len(paths)] = append(byPath[i%len(paths)], d)
	}
	b.StopTimer()
	for i, p := range byPath {
		if len(p) > 0 {
			slices.Sort(p)
			b.Logf("%-60.60s p50 %8s  max %8s", paths[i], p[len(p)/2], p[len(p)-1])
		}
	}
	reportPercentiles(b, ds)
}

package market_test

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/rynek/rynek/internal/tmpfs"
	"github.com/rynek/rynek/market"
	"github.com/rynek/rynek/market/sqlite"
	"github.com/rynek/rynek/seed"
)

// A seed that fills the disk (a real 12 MB tmpfs: room for its first chunk,
// not for all of it) fails with the store's error and leaves the market
// empty, not half-loaded: it opens, and a smaller seed then goes in.
func TestASeedOnAFullDiskLeavesAnEmptyMarket(t *testing.T) {
	sqliteOnly(t)
	path := filepath.Join(tmpfs.Mount(t, 12<<20, false), "m.db")
	st, err := sqlite.Open(path, sqlite.Options{})
	must(t, err)
	_, err = seed.Load(st, seed.Options{Listings: 60_000, Now: t0})
	if err == nil || !strings.Contains(err.Error(), "database or disk is full") {
		t.Fatalf("a seed of 60,000 listings into 12 MB: %v", err)
	}
	must(t, st.Close())
	st, err = sqlite.Open(path, sqlite.Options{})
	must(t, err)
	defer st.Close()
	c, err := market.ReadStore(st)
	if err != nil {
		t.Fatalf("the market after the failed seed cannot be read: %v", err)
	}
	if len(c.Players)+len(c.Listings)+len(c.Transactions) != 0 {
		t.Fatalf("the failed seed left %d players, %d listings, %d transactions", len(c.Players), len(c.Listings), len(c.Transactions))
	}
	if _, err := seed.Load(st, seed.Options{Players: 10, Listings: 100, Days: 1, Now: t0}); err != nil {
		t.Fatalf("a small seed after the failed one: %v", err)
	}
	svc := market.New(st, market.Config{Clock: market.NewManualClock(t0)})
	must(t, svc.BindMainThread())
	must(t, svc.Enable())
	if n, _ := svc.GetActiveListingsCount(); n != 100 {
		t.Fatalf("%d listings after the small seed", n)
	}
}

package seed_test

import (
	"os"
	"runtime/pprof"
	"strconv"
	"testing"
	"time"

	"github.com/rynek/rynek/market"
	"github.com/rynek/rynek/seed"
)

func TestTmpProf(t *testing.T) {
	if os.Getenv("TMPPROF") == "" {
		t.Skip()
	}
	days, _ := strconv.Atoi(os.Getenv("TMPDAYS"))
	n, _ := strconv.Atoi(os.Getenv("TMPN"))
	spd, _ := strconv.Atoi(os.Getenv("TMPSPD"))
	st := openStore(t)
	defer st.Close()
	t0 := time.Now()
	res, err := seed.Load(st, seed.Options{Listings: n, Days: days, SalesPerDay: spd, Rand: 1, Now: now})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%+v in %v", res, time.Since(t0))
}

type nullStore struct{ ops int }

func (n *nullStore) Load(market.Loader) error        { return nil }
func (n *nullStore) Commit(b *market.Batch) error     { n.ops += len(b.Ops); return nil }
func (n *nullStore) BulkLoad(b *market.Batch) error   { n.ops += len(b.Ops); return nil }
func (n *nullStore) Close() error                     { return nil }

func TestTmpNull(t *testing.T) {
	if os.Getenv("TMPPROF") == "" {
		t.Skip()
	}
	st := &nullStore{}
	res, err := seed.Load(st, seed.Options{Listings: 1_000_000, Rand: 1, Now: now})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("null store: %+v ops %d", res, st.ops)
	st = &nullStore{}
	res, _ = seed.Load(st, seed.Options{Listings: 1_000_000, Days: -1, Rand: 1, Now: now})
	t.Logf("null store, listings only: %v", res.Took)
}

func TestTmpEnable(t *testing.T) {
	if os.Getenv("TMPPROF") == "" {
		t.Skip()
	}
	days, _ := strconv.Atoi(os.Getenv("TMPDAYS"))
	st := openStore(t)
	res, err := seed.Load(st, seed.Options{Listings: 1_000_000, Days: days, Rand: 1, Now: now})
	if err != nil {
		t.Fatal(err)
	}
	f, _ := os.Create("/tmp/enable.prof")
	pprof.StartCPUProfile(f)
	t0 := time.Now()
	svc := market.New(st, market.Config{Clock: market.NewManualClock(now)})
	svc.BindMainThread()
	if err := svc.Enable(); err != nil {
		t.Fatal(err)
	}
	pprof.StopCPUProfile()
	f.Close()
	t.Logf("load %v, enable %v", res.Took, time.Since(t0))
	svc.Close()
}

func TestTmpShow(t *testing.T) {
	if os.Getenv("TMPPROF") == "" {
		t.Skip()
	}
	svc, _ := load(t, seed.Options{Listings: 3000, Rand: 1, Now: now})
	all, _ := svc.GetListings()
	for _, l := range all[:40] {
		t.Logf("#%d %-16s %-22s x%-2d %10.2f %q %q %v %v", l.ID, l.SellerName, l.Item.Material, l.Item.Amount, l.Price, l.Item.DisplayName, l.Item.Lore, l.Item.Enchantments, l.CreatedAt.Format("01-02 15:04"))
	}
	t.Log(seed.Names(seed.Options{})[:80])
	st, _ := svc.Stats(10)
	for _, s := range st.TopSellers {
		t.Logf("%+v", s)
	}
	for _, s := range st.TopItems {
		t.Logf("%+v", s)
	}
	ph, _ := svc.PriceHistory("DIAMOND", 30*24*time.Hour, 15)
	for _, p := range ph.Points {
		t.Logf("%v %d %.2f %.2f %.2f", p.Start.Format("01-02"), p.Sales, p.Min, p.Median, p.Max)
	}
	tx, _ := svc.GetCompletedTransactions()
	t.Logf("%+v", tx[len(tx)-1])
	pl, _ := svc.Players()
	for _, p := range pl {
		if len(p.Permissions) > 0 {
			t.Logf("admin %s", p.Name)
		}
	}
}

package market_test

import (
	"path/filepath"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/rynek/rynek/market"
	"github.com/rynek/rynek/market/sqlite"
)

func BenchmarkMainThreadCheck(b *testing.B) {
	svc := market.New(nil, market.Config{})
	svc.BindMainThread()
	for i := 0; i < b.N; i++ {
		if !svc.IsMainThread() {
			b.Fatal("not main")
		}
	}
}

// quickSellWorld: many players each with 36 single-item stacks so sells never run out.
func quickSellWorld(b *testing.B, players int) (*market.Service, []market.Player) {
	st, err := sqlite.Open(filepath.Join(b.TempDir(), "q.db"), sqlite.Options{})
	must(b, err)
	bk := market.NewBulk(st)
	var ps []market.Player
	for i := 0; i < players; i++ {
		p := market.Player{ID: uuid.New(), Name: "P" + uuid.NewString()[:6]}
		ps = append(ps, p)
		must(b, bk.AddPlayer(p, 1_000_000_00))
		for s := 0; s < 36; s++ {
			must(b, bk.SetSlot(p.ID, s, market.ItemStack{Material: "DIAMOND", Amount: 64}))
		}
	}
	must(b, bk.Finish())
	svc := market.New(st, market.Config{Clock: market.NewManualClock(t0), ListingCooldown: -1, MaxListingsPerPlayer: 1 << 30})
	svc.BindMainThread()
	must(b, svc.Enable())
	b.Cleanup(func() { svc.Close() })
	return svc, ps
}

func BenchmarkQuickSell(b *testing.B) {
	svc, ps := quickSellWorld(b, 2000)
	type src struct {
		p market.Player
		s market.ItemStack
	}
	var srcs []src
	for _, p := range ps {
		st, _ := svc.GetPlayer(p.ID)
		for _, x := range st.Inventory {
			if x != nil {
				one := *x
				one.Amount = 1
				srcs = append(srcs, src{p, one})
			}
		}
	}
	b.ResetTimer()
	start := time.Now()
	for i := 0; i < b.N; i++ {
		s := srcs[i%len(srcs)] // each stack has 64 items; 72,000 stacks
		if _, err := svc.SellItem(s.p, s.s, 10); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.N)/time.Since(start).Seconds(), "sells/s")
}

func BenchmarkQuickBuy(b *testing.B) {
	svc, ps := quickSellWorld(b, 2000)
	n := b.N
	ids := make([]int, 0, n)
	for i := 0; len(ids) < n; i++ {
		p := ps[i%len(ps)]
		st, _ := svc.GetPlayer(p.ID)
		for _, x := range st.Inventory {
			if x != nil {
				one := *x
				one.Amount = 1
				l, err := svc.SellItem(p, one, 10)
				if err != nil {
					b.Fatal(err)
				}
				ids = append(ids, l.ID)
				break
			}
		}
	}
	b.ResetTimer()
	start := time.Now()
	for i := 0; i < n; i++ {
		buyer := ps[(i+1)%len(ps)]
		tx, err := svc.Buy(buyer, ids[i])
		if err != nil || tx.State != market.StateCompleted {
			b.Fatal(err, tx.State)
		}
	}
	b.ReportMetric(float64(n)/time.Since(start).Seconds(), "purchases/s")
}

package market_test

import (
	"fmt"
	"path/filepath"
	"runtime"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/rynek/rynek/internal/pgtest"
	"github.com/rynek/rynek/market"
)

// The network's benchmarks run on the throwaway PostgreSQL cluster of
// internal/pgtest (loopback; fsync off, as a test cluster is) and skip
// without one.

// networkConfig is every instance's configuration in the benchmarks: no
// cooldown or listing limit to get in the way of a sell loop.
func networkConfig() market.Config {
	return market.Config{Clock: market.NewManualClock(t0), ListingCooldown: -1, MaxListingsPerPlayer: 1 << 30}
}

// seedSellers adds players with full inventories of 64-item stacks: each
// stack gives 63 sells of one item.
func seedSellers(tb testing.TB, dsn string, players int) []market.Player {
	tb.Helper()
	return seedSellersIn(tb, postgresMarket(dsn), players)
}

// seedSellersIn is seedSellers on any shared market.
func seedSellersIn(tb testing.TB, m sharedMarket, players int) []market.Player {
	tb.Helper()
	st, err := m.open("seed", true)
	must(tb, err)
	defer st.Close()
	k, err := market.NewMerge(st)
	must(tb, err)
	var out []market.Player
	for i := range players {
		p := market.Player{ID: uuid.New(), Name: fmt.Sprintf("Seller%d", i)}
		must(tb, k.AddPlayer(p, 1_000_000_00))
		for slot := range market.InventorySize {
			must(tb, k.SetSlot(p.ID, slot, market.ItemStack{ID: uuid.New(), Material: "COBBLESTONE", Amount: 64}))
		}
		out = append(out, p)
	}
	must(tb, k.Finish())
	return out
}

// openInstance opens an instance of the network market, bound to the
// calling goroutine's thread.
func openInstance(dsn, name string) (*market.Service, error) {
	return openInstanceIn(postgresMarket(dsn), name)
}

// openInstanceIn is openInstance on any shared market.
func openInstanceIn(m sharedMarket, name string) (*market.Service, error) {
	st, err := m.open(name, false)
	if err != nil {
		return nil, err
	}
	svc := market.New(st, networkConfig())
	if err := svc.BindMainThread(); err != nil {
		st.Close()
		return nil, err
	}
	if err := svc.Enable(); err != nil {
		st.Close()
		return nil, err
	}
	return svc, nil
}

// seller sells one item at a time from its players' stacks, round robin.
type seller struct {
	svc     *market.Service
	players []market.Player
	next    int
	stacks  map[uuid.UUID][]market.ItemStack
}

func newSeller(svc *market.Service, players []market.Player) (*seller, error) {
	s := &seller{svc: svc, players: players, stacks: map[uuid.UUID][]market.ItemStack{}}
	for _, p := range players {
		ps, err := svc.GetPlayer(p.ID)
		if err != nil {
			return nil, err
		}
		for _, it := range ps.Inventory {
			if it != nil {
				s.stacks[p.ID] = append(s.stacks[p.ID], *it)
			}
		}
	}
	return s, nil
}

// sell lists one item and reports how long the main thread spent on it.
func (s *seller) sell() (time.Duration, error) {
	p := s.players[s.next%len(s.players)]
	stacks := s.stacks[p.ID]
	st := &stacks[(s.next/len(s.players))%len(stacks)]
	s.next++
	one := *st
	one.Amount = 1
	start := time.Now()
	_, err := s.svc.SellItem(p, one, 5)
	d := time.Since(start)
	if err != nil {
		return d, fmt.Errorf("sell: %w", err)
	}
	st.Amount--
	return d, nil
}

// BenchmarkNetworkSell is one instance's sells on a PostgreSQL market:
// sells a second, and the main thread's time per sell (the commit's round
// trip included).
func BenchmarkNetworkSell(b *testing.B) {
	dsn := pgtest.Database(b)
	players := seedSellers(b, dsn, 1+b.N/(market.InventorySize*60))
	runtime.LockOSThread()
	svc, err := openInstance(dsn, "bench")
	must(b, err)
	defer svc.Close()
	s, err := newSeller(svc, players)
	must(b, err)
	ds := make([]time.Duration, 0, b.N)
	b.ResetTimer()
	start := time.Now()
	for range b.N {
		d, err := s.sell()
		must(b, err)
		ds = append(ds, d)
	}
	b.ReportMetric(float64(b.N)/time.Since(start).Seconds(), "sells/s")
	b.ReportMetric(float64(percentile(ds, 0.5).Microseconds()), "p50-µs")
	b.ReportMetric(float64(percentile(ds, 0.99).Microseconds()), "p99-µs")
}

// BenchmarkNetworkBuy is one instance's purchases on a PostgreSQL market,
// each one commit of its six steps.
func BenchmarkNetworkBuy(b *testing.B) {
	dsn := pgtest.Database(b)
	np := seedNetwork(b, dsn, 10, 8, b.N)
	runtime.LockOSThread()
	svc, err := openInstance(dsn, "bench")
	must(b, err)
	defer svc.Close()
	ds := make([]time.Duration, 0, b.N)
	b.ResetTimer()
	start := time.Now()
	for i, id := range np.listings {
		t := time.Now()
		if _, err := svc.Buy(np.buyers[i%len(np.buyers)], id); err != nil {
			b.Fatalf("buy #%d: %v", id, err)
		}
		ds = append(ds, time.Since(t))
	}
	b.ReportMetric(float64(b.N)/time.Since(start).Seconds(), "purchases/s")
	b.ReportMetric(float64(percentile(ds, 0.99).Microseconds()), "p99-µs")
}

// BenchmarkNetworkApply is how long a sell committed on one instance takes
// to reach the listeners of another, whose main loop is the headless
// server's: a 50 ms tick, and Follow as soon as Followed rings. On a SQLite
// file (instances on one machine) and on PostgreSQL (a network).
func BenchmarkNetworkApply(b *testing.B) {
	b.Run("sqlite", func(b *testing.B) { benchmarkApply(b, sqliteMarket(filepath.Join(b.TempDir(), "m.db"))) })
	b.Run("postgres", func(b *testing.B) { benchmarkApply(b, postgresMarket(pgtest.Database(b))) })
}

func benchmarkApply(b *testing.B, m sharedMarket) {
	players := seedSellersIn(b, m, 1+b.N/(market.InventorySize*60))
	var mu sync.Mutex
	// When each seq was committed (the writer's SellItem returned) and
	// reached the follower's listeners, whichever is recorded first.
	committed, arrived := map[uint64]time.Time{}, map[uint64]time.Time{}
	ready, done := make(chan struct{}), make(chan struct{})
	var openErr error
	go func() {
		runtime.LockOSThread()
		follower, err := openInstanceIn(m, "follower")
		if err != nil {
			openErr = err
			close(ready)
			return
		}
		defer follower.Close()
		follower.Subscribe(func(e market.Event) {
			now := time.Now()
			mu.Lock()
			arrived[e.Seq()] = now
			mu.Unlock()
		})
		close(ready)
		tick := time.NewTicker(50 * time.Millisecond)
		defer tick.Stop()
		for {
			select {
			case <-done:
				follower.Follow()
				return
			case <-follower.Followed():
			case <-tick.C:
			}
			follower.Follow()
		}
	}()
	<-ready
	must(b, openErr)
	runtime.LockOSThread()
	svc, err := openInstanceIn(m, "writer")
	must(b, err)
	defer svc.Close()
	s, err := newSeller(svc, players)
	must(b, err)
	b.ResetTimer()
	for range b.N {
		_, err := s.sell()
		now := time.Now()
		must(b, err)
		mu.Lock()
		committed[svc.Version()] = now // the only writer: its newest entry is the sell's
		mu.Unlock()
		time.Sleep(time.Millisecond) // a market's pace, not a flood
	}
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		mu.Lock()
		n := len(arrived)
		mu.Unlock()
		if n >= b.N {
			break
		}
	}
	close(done)
	mu.Lock()
	defer mu.Unlock()
	var ds []time.Duration
	for seq, at := range committed {
		if got, ok := arrived[seq]; ok {
			ds = append(ds, max(got.Sub(at), 0)) // below zero: faster than the clocks' order
		}
	}
	if len(ds) < b.N {
		b.Fatalf("%d of %d sells reached the other instance", len(ds), b.N)
	}
	b.ReportMetric(float64(percentile(ds, 0.5).Microseconds()), "p50-µs")
	b.ReportMetric(float64(percentile(ds, 0.99).Microseconds()), "p99-µs")
}

// BenchmarkNetworkSells is the network's total sell rate with 1, 2 and 3
// instances selling at once: the log's counter row, which every commit
// locks until it commits, serializes them by design.
func BenchmarkNetworkSells(b *testing.B) {
	for _, n := range []int{1, 2, 3} {
		b.Run(fmt.Sprintf("instances=%d", n), func(b *testing.B) {
			dsn := pgtest.Database(b)
			each := b.N/n + 1
			players := seedSellers(b, dsn, n*(1+each/(market.InventorySize*60)))
			per := len(players) / n
			var wg sync.WaitGroup
			start := make(chan struct{})
			opened := sync.WaitGroup{}
			opened.Add(n)
			var began time.Time
			for i := range n {
				wg.Add(1)
				go func() {
					defer wg.Done()
					runtime.LockOSThread()
					svc, err := openInstance(dsn, fmt.Sprintf("server-%d", i))
					var s *seller
					if err == nil {
						defer svc.Close()
						s, err = newSeller(svc, players[i*per:(i+1)*per])
					}
					opened.Done()
					<-start
					for j := 0; j < each && err == nil; j++ {
						_, err = s.sell()
						if i == 0 {
							svc.Follow() // one follows as it goes; the others at the end
						}
					}
					if err != nil {
						b.Errorf("server-%d: %v", i, err)
						return
					}
					svc.Follow()
				}()
			}
			opened.Wait()
			b.ResetTimer()
			began = time.Now()
			close(start)
			wg.Wait()
			b.ReportMetric(float64(n*each)/time.Since(began).Seconds(), "sells/s")
		})
	}
}

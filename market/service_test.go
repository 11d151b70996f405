package market_test

import (
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/rynek/rynek/market"
	"github.com/rynek/rynek/market/sqlite"
)

// TestConcurrentReaders runs 8 reader goroutines against every read
// operation while the main thread mutates. Run it with -race: reads must see
// consistent snapshots and never race with the writer.
func TestConcurrentReaders(t *testing.T) {
	st, err := sqlite.Open(filepath.Join(t.TempDir(), "r.db"), sqlite.Options{})
	must(t, err)
	b := newBulk(t, st)
	players := seedPlayers(t, b, 6, 5)
	must(t, b.Finish())
	clock := market.NewManualClock(t0)
	svc := market.New(st, market.Config{Clock: clock, ListingCooldown: -1})
	svc.BindMainThread()
	must(t, svc.Enable())
	defer svc.Close()
	initial := mustAudit(t, svc)

	var stop atomic.Bool
	var reads atomic.Int64
	var wg, started sync.WaitGroup
	for r := 0; r < 8; r++ {
		wg.Add(1)
		started.Add(1)
		go func(r int) {
			defer wg.Done()
			started.Done()
			for i := 0; !stop.Load(); i++ {
				var err error
				switch (i + r) % 9 {
				case 0:
					_, err = svc.GetListings()
				case 1:
					_, err = svc.Query(market.Query{Text: "diamond", Sort: market.SortCheapest, Limit: 20})
				case 2:
					var ls []market.Listing
					ls, err = svc.Search("a")
					if err == nil && len(ls) > 0 {
						_, _ = svc.GetListing(ls[0].ID) // may be gone by now: that is fine
					}
				case 3:
					_, err = svc.GetCompletedTransactions()
				case 4:
					_, err = svc.Stats(5)
				case 5:
					_, err = svc.GetPlayer(players[i%len(players)].ID)
					if err == nil {
						_, err = svc.ListingRoom(players[i%len(players)].ID)
					}
				case 6:
					var a market.Audit
					a, err = svc.Audit()
					if err == nil && (len(a.Problems) > 0 || a.OpeningMoney != initial.OpeningMoney) {
						t.Errorf("reader saw an inconsistent market: %v, money beyond issuance %d vs %d", a.Problems, a.OpeningMoney, initial.OpeningMoney)
					}
				case 7:
					_, err = svc.GetListingsBySeller(players[i%len(players)].ID)
				default:
					_, err = svc.PriceHistory("DIAMOND", 0, 0)
					if err == nil {
						_, err = svc.GetActiveListingsCount()
					}
				}
				if err != nil {
					t.Errorf("reader %d: %v", r, err)
					return
				}
				reads.Add(1)
			}
		}(r)
	}
	// On a busy machine the writer could finish before a reader ran: start
	// mutating once every reader runs, and go on until enough reads overlapped.
	started.Wait()
	wl := newWorkload(svc, players, clock, 11)
	steps := 300
	if testing.Short() {
		steps = 100
	}
	for i := 0; i < steps || (reads.Load() < 100 && i < 100*steps); i++ {
		if _, err := wl.step(); !acceptable(err) {
			t.Fatal(err)
		}
	}
	stop.Store(true)
	wg.Wait()
	checkInvariants(t, svc, initial, "end")
	if reads.Load() < 100 {
		t.Fatalf("only %d reads ran", reads.Load())
	}
	t.Logf("%d reads during %d mutations; ops %v", reads.Load(), steps, wl.ops)
}

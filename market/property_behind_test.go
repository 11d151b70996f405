package market_test

import (
	"errors"
	"math/rand/v2"
	"sync"
	"testing"

	"github.com/rynek/rynek/market"
)

// lockedFlaky fails a fraction of commits, like flakyStore, from the
// committer's goroutine while the test's sets the rate.
type lockedFlaky struct {
	market.Store
	mu      sync.Mutex
	rng     *rand.Rand
	rate    int
	hits    int
	commits int
}

func (f *lockedFlaky) Commit(b *market.Batch) error {
	f.mu.Lock()
	f.commits++
	fail := f.rate > 0 && f.rng.IntN(f.rate) == 0
	if fail {
		f.hits++
	}
	f.mu.Unlock()
	if fail {
		return errDisk
	}
	return f.Store.Commit(b)
}

func (f *lockedFlaky) setRate(n int) {
	f.mu.Lock()
	f.rate = n
	f.mu.Unlock()
}

// TestPropertyConservationBehind runs the random operation sequences of
// TestPropertyConservation with the commits behind the tick
// (Config.CommitBehind): the steps' batches queue up, the committer
// commits them in groups, and the test takes the outcomes (Flush) after
// a random number of steps. Money and items add up after every step, in
// memory that holds the batches in flight; a window of steps whose every
// batch the store refused leaves memory exactly as the window found it
// (the refused batch and every later one undone, newest first); events
// come only for what is durable; and at the end the store equals memory.
func TestPropertyConservationBehind(t *testing.T) {
	seeds := []uint64{1, 2, 3}
	steps := 500
	if testing.Short() {
		seeds, steps = seeds[:1], 300
	}
	windowsUndone, refusedTotal := 0, 0
	for _, seed := range seeds {
		openStore, st, players := propertyMarket(t, seed)
		clock := market.NewManualClock(t0)
		flaky := &lockedFlaky{Store: st, rng: rand.New(rand.NewPCG(seed, 9))}
		svc := market.New(flaky, market.Config{Clock: clock, ListingCooldown: -1, ListingTTL: 72 * 3600e9, CommitBehind: true})
		svc.BindMainThread()
		must(t, svc.Enable())
		completed := map[string]int{}
		svc.Subscribe(func(e market.Event) {
			if ce, ok := e.(market.TransactionCompletedEvent); ok {
				completed[ce.Transaction().ID]++
			}
		})
		initial := checkInvariants(t, svc, mustAudit(t, svc), "start")
		flaky.setRate(12)
		rng := rand.New(rand.NewPCG(seed, 77))
		wl := newWorkload(svc, players, clock, seed)
		window := market.MemoryDump(svc)
		for i := 0; i < steps; i++ {
			name, err := wl.step()
			if !acceptable(err) {
				t.Fatalf("seed %d step %d %s: unexpected error type %T: %v", seed, i, name, err, err)
			}
			checkInvariants(t, svc, initial, name)
			if rng.IntN(4) != 0 && i < steps-1 {
				continue
			}
			inflight := svc.InFlight()
			refused := svc.Flush()
			refusedTotal += len(refused)
			for _, r := range refused {
				var me *market.Error
				// The store fails (no other server: no conflict), and the
				// changes made after the failed one share its reason.
				if !errors.As(r.Err, &me) || me.Code != market.CodeStore || r.What == "" {
					t.Fatalf("seed %d step %d: refusal %+v", seed, i, r)
				}
			}
			if inflight > 0 && len(refused) == inflight {
				windowsUndone++
				if now := market.MemoryDump(svc); now != window {
					t.Fatalf("seed %d step %d %s: every batch since the last flush was refused, yet memory changed:\n%s", seed, i, name, dumpDiff(window, now))
				}
			}
			a := checkInvariants(t, svc, initial, "flush after "+name)
			if d := market.StoredDataDiffers(svc); d != "" {
				t.Fatalf("seed %d step %d %s: a player's stored data is not memory's: %s", seed, i, name, d)
			}
			if a.OpenTx > 0 {
				flaky.setRate(0)
				must(t, svc.Recover())
				svc.Flush()
				flaky.setRate(12)
				if a2 := checkInvariants(t, svc, initial, "recover"); a2.OpenTx != 0 {
					t.Fatalf("recovery left %d open transactions", a2.OpenTx)
				}
			}
			window = market.MemoryDump(svc)
		}
		done, _ := svc.GetCompletedTransactions()
		for _, tx := range done {
			if completed[tx.ID] != 1 {
				t.Fatalf("seed %d: completed transaction %s has %d events", seed, tx.ID, completed[tx.ID])
			}
		}
		if len(done)+wl.ops["refund"] < len(completed) {
			t.Fatalf("seed %d: %d events of completion for %d completed transactions and %d refunds: an event for a refused purchase", seed, len(completed), len(done), wl.ops["refund"])
		}
		before := mustAudit(t, svc)
		flaky.setRate(0)
		must(t, svc.Close())
		st2 := openStore()
		svc2 := market.New(st2, market.Config{Clock: clock})
		svc2.BindMainThread()
		must(t, svc2.Enable())
		must(t, svc2.WaitHistory())
		after := checkInvariants(t, svc2, initial, "reopen")
		if after.OpenTx != 0 || after.Stacks != before.Stacks || after.Listings != before.Listings || after.Money != before.Money {
			t.Fatalf("reopened %+v, before %+v", after, before)
		}
		for id, place := range before.StackPlace {
			if after.StackPlace[id] != place {
				t.Fatalf("stack %s was in %s, after reopen in %q", id, place, after.StackPlace[id])
			}
		}
		svc2.Close()
		t.Logf("seed %d: ops %v, refused %v, store failures %d of %d commits", seed, wl.ops, wl.errs, flaky.hits, flaky.commits)
	}
	if refusedTotal == 0 || windowsUndone == 0 {
		t.Errorf("%d batches refused, %d windows undone whole: the undo was not exercised", refusedTotal, windowsUndone)
	}
	t.Logf("%d batches refused behind the tick, %d windows undone whole", refusedTotal, windowsUndone)
}

package market_test

import (
	"errors"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/google/uuid"
	"github.com/rynek/rynek/market"
)

// flakyStore fails a fraction of commits before they reach SQLite, like a
// full disk or an I/O error would.
type flakyStore struct {
	market.Store
	rng     *rand.Rand
	rate    int // fail one commit in rate; 0 = never
	hits    int
	commits int // tried, refused ones included
}

var errDisk = errors.New("injected disk error")

func (f *flakyStore) Commit(b *market.Batch) error {
	f.commits++
	if f.rate > 0 && f.rng.IntN(f.rate) == 0 {
		f.hits++
		return errDisk
	}
	return f.Store.Commit(b)
}

// TestPropertyConservation runs random operation sequences — sells, removals,
// purchases with failures injected at every saga step, forced expiry, timer
// sweeps and claims, over a store that fails some commits — and checks after
// every step that no money and no item was created or destroyed, that every
// stack is in exactly one place, that a step whose every commit the store
// refused left memory exactly as it was (the undo of a change made before
// its commit, undo.go), and at the end that the durable state equals the
// in-memory state.
func TestPropertyConservation(t *testing.T) {
	seeds := []uint64{1, 2, 3}
	steps := 500
	if testing.Short() {
		seeds, steps = seeds[:1], 300
	}
	undone := map[string]int{} // steps whose every commit was refused, by name
	for _, seed := range seeds {
		openStore, st, players := propertyMarket(t, seed)
		clock := market.NewManualClock(t0)
		flaky := &flakyStore{Store: st, rng: rand.New(rand.NewPCG(seed, 9))}
		svc := market.New(flaky, market.Config{Clock: clock, ListingCooldown: -1, ListingTTL: 72 * 3600e9})
		svc.BindMainThread()
		must(t, svc.Enable())
		var events int
		completedEvents := map[string]int{}
		won, fills := 0, 0 // auctions settled with their winners; orders' fills
		svc.Subscribe(func(e market.Event) {
			events++
			if _, ok := e.(market.BuyOrderFilledEvent); ok {
				fills++
			}
			if ae, ok := e.(market.AuctionEndedEvent); ok && ae.Winner() != uuid.Nil {
				won++
			}
			if ce, ok := e.(market.TransactionCompletedEvent); ok {
				completedEvents[ce.Transaction().ID]++
				if ce.Transaction().State != market.StateCompleted {
					t.Errorf("TransactionCompletedEvent for state %s", ce.Transaction().State)
				}
			}
		})
		initial := checkInvariants(t, svc, mustAudit(t, svc), "start")
		flaky.rate = 25
		wl := newWorkload(svc, players, clock, seed)
		for i := 0; i < steps; i++ {
			was, commits, hits := market.MemoryDump(svc), flaky.commits, flaky.hits
			name, err := wl.step()
			if !acceptable(err) {
				t.Fatalf("seed %d step %d %s: unexpected error type %T: %v", seed, i, name, err, err)
			}
			if refused := flaky.hits - hits; refused > 0 && flaky.commits-commits == refused {
				undone[name]++
				if now := market.MemoryDump(svc); now != was {
					t.Fatalf("seed %d step %d %s: the store refused its commit, yet memory changed:\n%s", seed, i, name, dumpDiff(was, now))
				}
			}
			a := checkInvariants(t, svc, initial, name)
			if a.OpenTx > 0 {
				// A commit failed in the middle of a purchase and its compensation
				// failed too: recovery must finish it once the store works.
				flaky.rate = 0
				must(t, svc.Recover())
				flaky.rate = 25
				if a2 := checkInvariants(t, svc, initial, "recover"); a2.OpenTx != 0 {
					t.Fatalf("recovery left %d open transactions", a2.OpenTx)
				}
			}
		}
		covered := []string{"sell", "remove", "buy", "force-expire", "sweep", "claim", "auction", "bid", "order", "cancel order", "sell to order"}
		if !testing.Short() { // the rarer ones, in the long run
			covered = append(covered, "buy-now", "deposit", "withdraw", "give", "take", "join", "refund", "relist", "rate", "alert", "favorite", "rules")
		}
		for _, op := range covered {
			if wl.ops[op] == 0 {
				t.Errorf("seed %d: no successful %s in %d steps (errors %d)", seed, op, steps, wl.errs[op])
			}
		}
		if won == 0 {
			t.Errorf("seed %d: no auction was settled with its winner", seed)
		}
		if fills <= wl.ops["sell to order"] {
			t.Errorf("seed %d: %d fills of orders, %d of them sales into orders: no order bought from a listing", seed, fills, wl.ops["sell to order"])
		}
		if flaky.hits == 0 {
			t.Errorf("seed %d: no store failure was injected", seed)
		}

		done, _ := svc.GetCompletedTransactions()
		var volume float64
		for _, tx := range done {
			volume += tx.Price
		}
		if st, err := svc.Stats(5); err != nil || st.TotalSales != int64(len(done)) || math.Abs(st.MarketVolume-volume) > 0.001 {
			t.Fatalf("stats %d sales, volume %v; the completed list %d, %v (%v)", st.TotalSales, st.MarketVolume, len(done), volume, err)
		}
		// Each seller's rating is the mean of the ratings of their completed sales.
		stars, ratings := map[uuid.UUID]int{}, map[uuid.UUID]int{}
		for _, tx := range done {
			if tx.Rating > 0 {
				stars[tx.Seller] += tx.Rating
				ratings[tx.Seller]++
			}
		}
		for _, p := range players {
			pr, err := svc.Profile(p.ID)
			must(t, err)
			if pr.Ratings != int64(ratings[p.ID]) || ratings[p.ID] > 0 && math.Abs(pr.Rating-float64(stars[p.ID])/float64(ratings[p.ID])) > 1e-9 {
				t.Fatalf("%s's profile: %v of %d ratings; the completed sales say %d stars in %d", p.Name, pr.Rating, pr.Ratings, stars[p.ID], ratings[p.ID])
			}
		}
		for _, tx := range done { // a refunded purchase stays in the history, ROLLED_BACK
			if _, _, refunded := tx.Refunded(); refunded {
				t.Fatalf("refunded %s is in the completed list", tx.ID)
			}
		}
		if len(done)+wl.ops["refund"] != len(completedEvents) {
			t.Fatalf("%d completed transactions and %d refunds, %d distinct TransactionCompletedEvents", len(done), wl.ops["refund"], len(completedEvents))
		}
		for _, tx := range done {
			if completedEvents[tx.ID] != 1 {
				t.Fatalf("transaction %s: %d events", tx.ID, completedEvents[tx.ID])
			}
		}
		before := mustAudit(t, svc)
		listings, _ := svc.GetListings()
		flaky.rate = 0 // Close records how far delivery got
		must(t, svc.Close())

		// Memory equals what is durable.
		st2 := openStore()
		svc2 := market.New(st2, market.Config{Clock: clock})
		svc2.BindMainThread()
		must(t, svc2.Enable())
		after := checkInvariants(t, svc2, initial, "reopen")
		if after.Stacks != before.Stacks || after.Listings != before.Listings || after.OpenTx != 0 {
			t.Fatalf("reopened %+v, before %+v", after, before)
		}
		for id, place := range before.StackPlace {
			if after.StackPlace[id] != place {
				t.Fatalf("stack %s was in %s, after reopen in %q", id, place, after.StackPlace[id])
			}
		}
		listings2, _ := svc2.GetListings()
		if len(listings2) != len(listings) {
			t.Fatalf("listings %d vs %d", len(listings2), len(listings))
		}
		svc2.Close()
		t.Logf("seed %d: ops %v, refused %v, store failures %d, events %d", seed, wl.ops, wl.errs, flaky.hits, events)
	}
	// Every kind of mutation is undone in TestARefusedCommitLeavesMemoryAsItWas;
	// here the random sequences must have met the common ones (in the long
	// run; a short one, some).
	common := []string{"sell", "buy", "order", "auction"}
	if testing.Short() {
		common = nil
		if len(undone) == 0 {
			t.Error("no step was refused by the store and undone")
		}
	}
	for _, op := range common {
		if undone[op] == 0 {
			t.Errorf("no %s was refused by the store and undone (undone: %v)", op, undone)
		}
	}
	t.Logf("undone: %v", undone)
}

// propertyMarket is a new store of six seeded players for a property run:
// how to open the store again, the store, the players.
func propertyMarket(t *testing.T, seed uint64) (func() market.Store, market.Store, []market.Player) {
	openStore := testStore(t)
	st := openStore()
	b := newBulk(t, st)
	players := seedPlayers(t, b, 6, seed)
	must(t, b.Finish())
	return openStore, st, players
}

func mustAudit(t testing.TB, svc *market.Service) market.Audit {
	t.Helper()
	a, err := svc.Audit()
	must(t, err)
	return a
}

// countingStore fails the commits whose numbers are in fail.
type countingStore struct {
	market.Store
	n    int
	fail map[int]bool
	last []market.OpKind // the ops of the last batch
}

func (c *countingStore) Commit(b *market.Batch) error {
	c.n++
	c.last = c.last[:0]
	for _, op := range b.Ops {
		c.last = append(c.last, op.Kind)
	}
	if c.fail[c.n] {
		return errDisk
	}
	return c.Store.Commit(b)
}

// TestStepAndCompensationBothFail fails a saga step and then its
// compensation, leaving the purchase unfinished, and checks that Recover (or
// a restart) finishes it with money and items conserved and exactly one
// event if it completes. k = 1: the purchase's one commit fails; k > 1: the
// step entering States()[k-1] fails (armed), the steps before it are
// committed, and the compensation's commit fails.
func TestStepAndCompensationBothFail(t *testing.T) {
	for k := 1; k <= 6; k++ {
		w := newWorld(t)
		l := w.sell(w.alice, 1, 200)
		initial := w.audit()
		cs := &countingStore{Store: nil, fail: map[int]bool{1: true, 2: true}}
		if k > 1 {
			cs.fail = map[int]bool{2: true}
		}
		// Swap the store: reopen the service on a counting wrapper.
		must(t, w.svc.Close())
		st := w.openStore()
		cs.Store = st
		svc := market.New(cs, market.Config{Clock: w.clock, ListingCooldown: -1})
		svc.BindMainThread()
		must(t, svc.Enable())
		var completed int
		svc.Subscribe(func(e market.Event) {
			if _, ok := e.(market.TransactionCompletedEvent); ok {
				completed++
			}
		})
		if k > 1 {
			must(t, svc.ArmFailure(market.States()[k-1]))
		}
		tx, err := svc.Buy(w.bob, l.ID)
		if err == nil {
			t.Fatalf("k=%d: purchase succeeded despite failures", k)
		}
		checkInvariants(t, svc, initial, "after failed purchase")
		must(t, svc.Recover())
		a := checkInvariants(t, svc, initial, "after recover")
		if a.OpenTx != 0 {
			t.Fatalf("k=%d: %d open after recover", k, a.OpenTx)
		}
		got, err := svc.GetTransaction(tx.ID)
		if k == 1 {
			// The CREATED write itself failed: there is no transaction at all.
			if err == nil {
				t.Fatalf("k=1: transaction exists: %+v", got)
			}
		} else {
			must(t, err)
			if !got.State.Terminal() {
				t.Fatalf("k=%d: state %s", k, got.State)
			}
			if (got.State == market.StateCompleted) != (completed == 1) || completed > 1 {
				t.Fatalf("k=%d: state %s with %d completed events", k, got.State, completed)
			}
		}
		svc.Close()
	}
}

// dumpDiff is the lines of two memory dumps that differ.
func dumpDiff(was, now string) string {
	a, b := strings.Split(was, "\n"), strings.Split(now, "\n")
	var out []string
	for i := 0; i < max(len(a), len(b)); i++ {
		var x, y string
		if i < len(a) {
			x = a[i]
		}
		if i < len(b) {
			y = b[i]
		}
		if x != y {
			out = append(out, "- "+x, "+ "+y)
		}
		if len(out) > 20 {
			break
		}
	}
	return strings.Join(out, "\n")
}

package market_test

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/rynek/rynek/internal/pgtest"
	"github.com/rynek/rynek/market"
	"github.com/rynek/rynek/market/postgres"
)

// cutFor is how long TestNetworkResumesAfterACut keeps the link cut: longer
// than a store that waits for the server on the main thread would wait
// before giving up on a commit in flight (6.35 s).
const cutFor = 7 * time.Second

// cutInstance is one server of TestNetworkResumesAfterACut: its main loop
// buys what it can each tick, follows the others, and finishes what a
// failure interrupted, as the console and rynek serve do.
type cutInstance struct {
	name    string
	proxy   *pgtest.Proxy
	svc     *market.Service
	st      *postgres.Store
	bought  atomic.Int64
	refused atomic.Int64
	longest atomic.Int64 // the longest one call held the main thread, ns
	// longestCut is the longest call made once the link was known cut.
	longestCut atomic.Int64
	// doubted is set when a commit in flight at the cut was in doubt.
	doubted atomic.Bool
	err     error
	// behind: the instance commits behind its tick.
	behind bool
}

// TestNetworkResumesAfterACut: two servers buy on one PostgreSQL market
// (each its own listings, following the other's purchases) while the link
// to it is cut for longer than a commit may wait, at a moment when each has
// a commit in flight whose answer is lost (the proxy drops the server's
// answers first): the commit is saved, and its server must learn so. Meanwhile no call holds a main loop
// for long, and changes are refused at once; after the link is back every
// server buys again by itself, with no restart, and the market is sound:
// money conserved, no purchase left open, the check clean.
//
// behind: the servers commit behind their ticks (Config.CommitBehind), as
// the console and rynek serve do; a purchase refused after it returned
// (its commit in doubt, or refused with the link) is undone when the
// server takes its outcome.
func TestNetworkResumesAfterACut(t *testing.T) {
	t.Run("sync", func(t *testing.T) { resumesAfterACut(t, false) })
	t.Run("behind", func(t *testing.T) { resumesAfterACut(t, true) })
}

func resumesAfterACut(t *testing.T, behind bool) {
	dsn := pgtest.Database(t)
	np := seedNetwork(t, dsn, 4, 6, 3000)
	var (
		cut, over atomic.Bool // the link is cut; the test is over
		wg        sync.WaitGroup
		started   sync.WaitGroup
	)
	ins := []*cutInstance{{name: "north", behind: behind}, {name: "south", behind: behind}}
	for k, in := range ins {
		var linked string
		in.proxy, linked = pgtest.NewProxy(t, dsn)
		wg.Add(1)
		started.Add(1)
		go func() {
			defer wg.Done()
			in.err = in.run(linked, np, k, &cut, &over, started.Done)
		}()
	}
	started.Wait()
	time.Sleep(500 * time.Millisecond) // trading under way
	boughtBefore := []int64{ins[0].bought.Load(), ins[1].bought.Load()}
	for _, in := range ins {
		in.proxy.Freeze() // the commits in flight now are made, their answers lost
	}
	time.Sleep(300 * time.Millisecond)
	for _, in := range ins {
		in.proxy.Cut()
	}
	cut.Store(true)
	time.Sleep(cutFor)
	cut.Store(false)
	duringCut := []int64{ins[0].bought.Load(), ins[1].bought.Load()}
	for _, in := range ins {
		in.proxy.Restore()
	}
	restored := time.Now()
	// Every server buys again by itself, soon.
	for _, in := range ins {
		for want := in.bought.Load() + 5; in.bought.Load() < want; time.Sleep(10 * time.Millisecond) {
			if time.Since(restored) > 10*time.Second {
				over.Store(true)
				wg.Wait()
				t.Fatalf("%s has not bought again %s after the link came back (%d bought, %d refused, the longest call %s; %v); its store: %+v",
					in.name, time.Since(restored).Round(time.Millisecond), in.bought.Load(), in.refused.Load(),
					time.Duration(in.longest.Load()).Round(time.Millisecond), in.err, in.svc.StoreHealth())
			}
		}
	}
	resumed := time.Since(restored)
	time.Sleep(300 * time.Millisecond)
	over.Store(true)
	wg.Wait()
	for i, in := range ins {
		if in.err != nil {
			t.Fatalf("%s: %v", in.name, in.err)
		}
		if boughtBefore[i] == 0 {
			t.Fatalf("%s bought nothing before the cut", in.name)
		}
		t.Logf("%s: %d bought (%d before the cut, %d until it was restored), %d refused; the longest call %s, %s once the link was known cut",
			in.name, in.bought.Load(), boughtBefore[i], duringCut[i], in.refused.Load(),
			time.Duration(in.longest.Load()).Round(time.Microsecond), time.Duration(in.longestCut.Load()).Round(time.Microsecond))
	}
	t.Logf("every server bought again %s after the link came back", resumed.Round(time.Millisecond))
	for _, in := range ins {
		// One commit in flight when the answers were lost holds a main
		// loop until the link is cut (300 ms here); none may hold it longer
		// than the store's bound.
		if d := time.Duration(in.longest.Load()); d > 300*time.Millisecond+postgresCommitBound {
			t.Errorf("%s: a call held the main loop %s", in.name, d.Round(time.Millisecond))
		}
		if d := time.Duration(in.longestCut.Load()); d > 50*time.Millisecond {
			t.Errorf("%s: a call made while the link was known cut took %s, want a refusal at once", in.name, d.Round(time.Millisecond))
		}
		if in.refused.Load() == 0 {
			t.Errorf("%s: no change was refused while the link was cut", in.name)
		}
		if !in.doubted.Load() {
			t.Errorf("%s: no commit was in doubt at the cut", in.name)
		}
	}
	if t.Failed() {
		return
	}
	// Both servers end equal to the store, sound: a commit in doubt that
	// landed is in memory too.
	st, err := postgres.Open(dsn, postgres.Options{Instance: "checker"})
	must(t, err)
	checker := market.New(st, market.Config{Clock: market.NewManualClock(t0)})
	must(t, checker.BindMainThread())
	must(t, checker.Enable())
	defer checker.Close()
	for _, in := range ins {
		in.settle(t, np.money, checker, append(slices.Clone(np.sellers), np.buyers...))
	}
	snap, err := postgres.OpenSnapshot(dsn, "check")
	must(t, err)
	defer snap.Close()
	r, err := market.Check(snap, market.NewManualClock(t0))
	must(t, err)
	if !r.Sound() {
		t.Fatalf("the check after the cut: %v", r.Problems)
	}
}

// postgresCommitBound is the longest the PostgreSQL store lets a commit
// wait for the server's answer, with a margin for a busy machine.
const postgresCommitBound = time.Second + 500*time.Millisecond

// run is the instance's main loop until over.
func (in *cutInstance) run(dsn string, np networkPlayers, k int, cut, over *atomic.Bool, started func()) error {
	st, err := postgres.Open(dsn, postgres.Options{Instance: in.name})
	if err != nil {
		started()
		return err
	}
	in.st = st
	in.svc = market.New(st, market.Config{Clock: market.NewManualClock(t0), CommitBehind: in.behind})
	if err := in.svc.BindMainThread(); err != nil {
		started()
		return err
	}
	defer in.svc.ReleaseMainThread() // settle binds the test's
	if err := in.svc.Enable(); err != nil {
		started()
		return err
	}
	started()
	rng := rand.New(rand.NewPCG(uint64(k), 25))
	// Listings and buyers of its own, so that no conflict with the other
	// server (whose catch-up would wait for the follower) keeps its main
	// loop from having a commit in flight when the link freezes.
	var order []int
	for _, i := range rng.Perm(len(np.listings)) {
		if i%2 == k {
			order = append(order, i)
		}
	}
	next := 0
	for !over.Load() && next < len(order) {
		start := time.Now()
		in.undone(in.svc.Settle())
		in.svc.Follow()
		in.svc.RecoverInterrupted()
		in.held(time.Since(start), false)
		h := in.svc.StoreHealth()
		knownCut := cut.Load() && h.Unreachable
		if h.InDoubt {
			in.doubted.Store(true)
		}
		id := np.listings[order[next]]
		start = time.Now()
		_, err := in.svc.Buy(np.buyers[k+2*(next%(len(np.buyers)/2))], id)
		in.held(time.Since(start), knownCut)
		switch {
		case err == nil:
			in.bought.Add(1)
			next++
		case errors.Is(err, market.ErrStore):
			in.refused.Add(1) // the same listing again next tick
		case errors.Is(err, market.ErrUnknownListing), errors.Is(err, market.ErrConflictingChange), errors.Is(err, market.ErrListingReserved):
			next++ // the other server's, or sold by a commit whose answer was lost
		default:
			return fmt.Errorf("buy #%d: %w", id, err)
		}
		time.Sleep(2 * time.Millisecond) // the rest of the tick
	}
	return nil
}

// held records how long a call held the main loop.
func (in *cutInstance) held(d time.Duration, knownCut bool) {
	if d.Nanoseconds() > in.longest.Load() {
		in.longest.Store(d.Nanoseconds())
	}
	if knownCut && d.Nanoseconds() > in.longestCut.Load() {
		in.longestCut.Store(d.Nanoseconds())
	}
}

// undone counts the purchases refused after they returned (committing
// behind): bought no more.
func (in *cutInstance) undone(refused []market.Refusal) {
	for range refused {
		in.bought.Add(-1)
		in.refused.Add(1)
	}
}

// settle brings the instance up to the store, finishes what is left, and
// checks that it agrees with the store and conserves money and items.
func (in *cutInstance) settle(t *testing.T, money market.Money, checker *market.Service, players []market.Player) {
	t.Helper()
	must(t, in.svc.BindMainThread())
	defer in.svc.Close()
	in.undone(in.svc.Flush())
	rows := logRows(t, in.st)
	last := rows[len(rows)-1].Seq
	for deadline := time.Now().Add(10 * time.Second); in.svc.Version() < last; time.Sleep(5 * time.Millisecond) {
		if _, err := in.svc.Follow(); err != nil || time.Now().After(deadline) {
			t.Fatalf("%s is at %d of %d (%v)", in.name, in.svc.Version(), last, err)
		}
	}
	must(t, in.svc.Recover())
	for _, p := range players {
		mem, err := in.svc.GetPlayer(p.ID)
		must(t, err)
		stored, err := checker.GetPlayer(p.ID)
		must(t, err)
		if mem.Balance != stored.Balance {
			t.Errorf("%s: %s has %.2f in memory, %.2f in the store", in.name, p.Name, mem.Balance, stored.Balance)
		}
	}
	mine, err := in.svc.GetActiveListingsCount()
	must(t, err)
	theirs, err := checker.GetActiveListingsCount()
	must(t, err)
	if mine != theirs {
		t.Errorf("%s: %d active listings in memory, %d in the store", in.name, mine, theirs)
	}
	if mine, err := in.svc.FeeBalance(); err == nil {
		if theirs, _ := checker.FeeBalance(); mine != theirs {
			t.Errorf("%s: the fee account holds %.2f in memory, %.2f in the store", in.name, mine, theirs)
		}
	}
	a := mustAudit(t, in.svc)
	if len(a.Problems) > 0 || a.OpenTx != 0 || a.Money != money {
		t.Fatalf("%s after the cut: money %d (want %d), %d open, problems %v", in.name, a.Money, money, a.OpenTx, a.Problems)
	}
}

// TestNetworkIdleServerSeesTheCut: a server that changes nothing learns
// that its link is cut from its follower, whose reads fail: it says so
// (StoreHealth.Unreachable) and refuses a change at once, without trying
// the dead link; when the link is back it says so by itself, and the next
// change goes through.
func TestNetworkIdleServerSeesTheCut(t *testing.T) {
	dsn := pgtest.Database(t)
	np := seedNetwork(t, dsn, 1, 1, 10)
	proxy, linked := pgtest.NewProxy(t, dsn)
	st, err := postgres.Open(linked, postgres.Options{Instance: "idle"})
	must(t, err)
	svc := market.New(st, market.Config{Clock: market.NewManualClock(t0)})
	must(t, svc.BindMainThread())
	must(t, svc.Enable())
	defer svc.Close()
	tickUntil := func(what string, done func(market.StoreHealth) bool) time.Duration {
		t.Helper()
		start := time.Now()
		for !done(svc.StoreHealth()) {
			if time.Since(start) > 10*time.Second {
				t.Fatalf("%s: not after 10 s: %+v", what, svc.StoreHealth())
			}
			svc.Follow()
			time.Sleep(10 * time.Millisecond)
		}
		return time.Since(start)
	}
	proxy.Cut()
	seen := tickUntil("the cut seen", func(h market.StoreHealth) bool { return h.Unreachable })
	start := time.Now()
	if _, err := svc.Buy(np.buyers[0], np.listings[0]); !errors.Is(err, market.ErrUnreachable) || time.Since(start) > 50*time.Millisecond {
		t.Fatalf("a purchase while the link is known cut: %v after %s", err, time.Since(start))
	}
	proxy.Restore()
	back := tickUntil("the link back", func(h market.StoreHealth) bool { return !h.Unreachable })
	if _, err := svc.Buy(np.buyers[0], np.listings[0]); err != nil {
		t.Fatalf("a purchase once the link is back: %v", err)
	}
	t.Logf("the cut seen after %s by an idle server, the link back after %s", seen.Round(time.Millisecond), back.Round(time.Millisecond))
}

// TestASellThatLandedInDoubtKeepsItsID: a sell whose answer the broken link
// lost was saved; once the store is reached again the server learns of
// the listing, and its next sell takes a new id instead of the landed
// one's (which the store would refuse as a duplicate, sell after sell).
func TestASellThatLandedInDoubtKeepsItsID(t *testing.T) {
	dsn := pgtest.Database(t)
	np := seedNetwork(t, dsn, 1, 1, 1)
	proxy, linked := pgtest.NewProxy(t, dsn)
	st, err := postgres.Open(linked, postgres.Options{Instance: "seller"})
	must(t, err)
	svc := market.New(st, market.Config{Clock: market.NewManualClock(t0), ListingCooldown: -1})
	must(t, svc.BindMainThread())
	must(t, svc.Enable())
	defer svc.Close()
	seller := np.sellers[0]
	stack := func() market.ItemStack {
		given, _, err := svc.GiveItem(seller.ID, market.ItemStack{ID: uuid.New(), Material: "DIAMOND", Amount: 1})
		must(t, err)
		return given
	}
	if _, err := svc.SellItem(seller, stack(), 10); err != nil { // the first takes a block of ids
		t.Fatal(err)
	}
	first, second := stack(), stack()
	proxy.Freeze()
	go func() { time.Sleep(200 * time.Millisecond); proxy.Cut() }()
	if _, err := svc.SellItem(seller, first, 10); !errors.Is(err, market.ErrInDoubt) {
		t.Fatalf("a sell whose answer is lost: %v, want one in doubt", err)
	}
	proxy.Restore()
	// Changes go through again only once memory holds the landed sell: a
	// sell made in between would take its id again.
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(time.Millisecond) {
		svc.Follow()
		reachable := !svc.StoreHealth().Unreachable
		n, _ := svc.GetActiveListingsCount()
		if reachable && n != 3 {
			t.Fatalf("the store is reachable again with %d active listings in memory, before the landed sell's", n)
		}
		if reachable {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d active listings 10 s after the link came back, want the landed sell's too: %+v", n, svc.StoreHealth())
		}
	}
	if _, err := svc.SellItem(seller, second, 10); err != nil {
		t.Fatalf("the next sell: %v", err)
	}
	if n, _ := svc.GetActiveListingsCount(); n != 4 {
		t.Fatalf("%d active listings, want 4", n)
	}
}

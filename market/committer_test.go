package market_test

import (
	"errors"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/rynek/rynek/market"
)

// heldStore holds every commit until the test opens the gate: a store
// that is slow, or a link that is cut, as the committer meets them.
type heldStore struct {
	market.Store
	mu      sync.Mutex
	gate    chan struct{} // nil: open
	entered atomic.Int64  // Commit calls begun, held or not
	commits atomic.Int64  // Commit calls that reached the store
	ops     atomic.Int64  // their ops
}

func (g *heldStore) Commit(b *market.Batch) error {
	g.entered.Add(1)
	g.mu.Lock()
	gate := g.gate
	g.mu.Unlock()
	if gate != nil {
		<-gate
	}
	g.commits.Add(1)
	g.ops.Add(int64(len(b.Ops)))
	return g.Store.Commit(b)
}

func (g *heldStore) close() {
	g.mu.Lock()
	g.gate = make(chan struct{})
	g.mu.Unlock()
}

func (g *heldStore) open() {
	g.mu.Lock()
	close(g.gate)
	g.gate = nil
	g.mu.Unlock()
}

// behindWorld is newWorld's market committing behind the tick, over a
// gated store.
func behindWorld(t *testing.T, opts ...func(*market.Config)) (*world, *heldStore) {
	w := newWorld(t)
	must(t, w.svc.Close())
	g := &heldStore{Store: w.openStore()}
	w.store = g
	cfg := market.Config{Clock: w.clock, ListingCooldown: -1, MaxListingsPerPlayer: 1 << 20, CommitBehind: true}
	for _, o := range opts {
		o(&cfg)
	}
	w.svc = market.New(g, cfg)
	w.svc.BindMainThread()
	must(t, w.svc.Enable())
	must(t, w.svc.WaitHistory())
	w.events = nil
	w.svc.Subscribe(func(e market.Event) { w.events = append(w.events, e) })
	t.Cleanup(func() { w.svc.Close() })
	t.Cleanup(func() { // before Close, which waits for the commits: let them through
		g.mu.Lock()
		if g.gate != nil {
			close(g.gate)
			g.gate = nil
		}
		g.mu.Unlock()
	})
	return w, g
}

// TestCommitBehindNeverWaitsForTheStore: with every commit held by the
// store (a slow disk, a cut link), mutations still return at once, their
// changes visible in memory; their events come only once the commits are
// durable, in order; and what was queued meanwhile is committed in a group
// of one store transaction, not one each.
func TestCommitBehindNeverWaitsForTheStore(t *testing.T) {
	w, g := behindWorld(t)
	g.close()
	start := time.Now()
	ids := w.sellOneEach(2, 20)
	if took := time.Since(start); took > time.Second {
		t.Fatalf("20 sells took %s with the store holding every commit", took)
	}
	if n, _ := w.svc.GetActiveListingsCount(); n != 20 {
		t.Fatalf("%d listings in memory, want the 20 in flight", n)
	}
	if got := w.svc.InFlight(); got != 20 {
		t.Fatalf("%d in flight, want 20", got)
	}
	if len(w.events) != 0 || w.svc.Version() != 0 {
		t.Fatalf("events before the commits: %d, version %d", len(w.events), w.svc.Version())
	}
	if refused := w.svc.Settle(); len(refused) != 0 {
		t.Fatalf("refused while held: %+v", refused)
	}
	g.open()
	if refused := w.svc.Flush(); len(refused) != 0 {
		t.Fatalf("refused: %+v", refused)
	}
	if len(w.events) != 20 {
		t.Fatalf("%d events after the commits, want 20", len(w.events))
	}
	for i, e := range w.events {
		if c, ok := e.(market.ListingCreatedEvent); !ok || c.Listing().ID != ids[i] {
			t.Fatalf("event %d: %#v, want the creation of #%d", i, e, ids[i])
		}
	}
	// The first sell's commit was in the store's hands when the others
	// came: they follow in groups of up to 64, so far fewer than 20.
	if n := g.commits.Load(); n > 3 {
		t.Fatalf("%d store commits for 20 sells queued together", n)
	}
	w.restartAndCompare(t)
}

// sellOneEach has Alice sell n listings of one item each from her slot,
// and returns their ids.
func (w *world) sellOneEach(slot, n int) []int {
	w.t.Helper()
	var ids []int
	for range n {
		st := w.stack(w.alice, slot)
		st.Amount = 1
		l, err := w.svc.SellItem(w.alice, st, 1)
		must(w.t, err)
		ids = append(ids, l.ID)
	}
	return ids
}

// restartAndCompare closes the market and opens it again: what memory
// had is what the store has.
func (w *world) restartAndCompare(t *testing.T) {
	t.Helper()
	was := mustAudit(t, w.svc)
	must(t, w.svc.Close())
	w.svc = market.New(w.openStore(), market.Config{Clock: w.clock, ListingCooldown: -1})
	w.svc.BindMainThread()
	must(t, w.svc.Enable())
	now := mustAudit(t, w.svc)
	if now.Money != was.Money || now.Listings != was.Listings || now.Stacks != was.Stacks || len(now.Problems) > 0 {
		t.Fatalf("after a restart %+v, before %+v", now, was)
	}
	for id, place := range was.StackPlace {
		if now.StackPlace[id] != place {
			t.Fatalf("stack %s was in %s, after the restart in %q", id, place, now.StackPlace[id])
		}
	}
}

// TestCommitBehindTakesListingIDsAhead: listing ids come in blocks of
// 1,024 from the store; committing behind, the committer reserves the next
// block while half of the current one is left, so 3,000 sells never wait
// for an id, none is given twice, and a restart goes on after the last.
func TestCommitBehindTakesListingIDsAhead(t *testing.T) {
	w, _ := behindWorld(t)
	seen := map[int]bool{}
	last := 0
	for i := 0; i < 3000; i++ {
		// Sold and taken back: the stack goes round, the ids go up.
		l, err := w.svc.SellItem(w.alice, w.stackOf(w.alice, "OAK_LOG"), 1)
		must(t, err)
		if seen[l.ID] || l.ID <= last {
			t.Fatalf("sell %d got listing id %d after %d", i, l.ID, last)
		}
		seen[l.ID], last = true, l.ID
		must(t, w.svc.RemoveListing(l.ID, w.alice))
		if i%10 == 9 {
			w.svc.Settle() // a tick
		}
		if i%200 == 199 {
			// The store catching up, as ticks at a server's pace let it:
			// flat out under -race the committer fell a second behind,
			// and the market refused the next change.
			w.flush()
		}
	}
	w.svc.Flush()
	must(t, w.svc.Close())
	w.svc = market.New(w.openStore(), market.Config{Clock: w.clock, ListingCooldown: -1})
	w.svc.BindMainThread()
	must(t, w.svc.Enable())
	st := w.stack(w.alice, 2)
	st.Amount = 1
	l, err := w.svc.SellItem(w.alice, st, 1)
	must(t, err)
	if l.ID != last+1 {
		t.Fatalf("after a restart the next listing is #%d, want #%d", l.ID, last+1)
	}
}

// The next block of listing ids is asked for as soon as a sell begins the
// current one: sells made back to back faster than a group commit would
// otherwise use up the rest before it comes, and be refused.
func TestCommitBehindReservesTheNextBlockAtTheFirstSell(t *testing.T) {
	w, _ := behindWorld(t)
	l, err := w.svc.SellItem(w.alice, w.stackOf(w.alice, "OAK_LOG"), 1)
	must(t, err)
	w.svc.Flush()
	if !market.NextIDBlockReserved(w.svc) {
		t.Fatalf("after listing #%d the next block of ids is not reserved", l.ID)
	}
}

// stackOf is p's first stack of material.
func (w *world) stackOf(p market.Player, material string) market.ItemStack {
	w.t.Helper()
	st, err := w.svc.GetPlayer(p.ID)
	must(w.t, err)
	for _, it := range st.Inventory {
		if it != nil && it.Material == material {
			return *it
		}
	}
	w.t.Fatalf("%s has no %s", p.Name, material)
	return market.ItemStack{}
}

// TestCommitBehindRefusesWhileTheStoreDoesNotAnswer: with a commit held
// for longer than a second (a cut link, before its timeout), the market
// stops running ahead of the store: a new mutation is refused at once,
// changing nothing; the changes made before it commit once the store
// answers, and the market takes changes again.
func TestCommitBehindRefusesWhileTheStoreDoesNotAnswer(t *testing.T) {
	w, g := behindWorld(t)
	g.close()
	st := w.stack(w.alice, 2)
	st.Amount = 1
	l, err := w.svc.SellItem(w.alice, st, 1)
	must(t, err)
	time.Sleep(1100 * time.Millisecond)
	was := market.MemoryDump(w.svc)
	start := time.Now()
	_, err = w.svc.Buy(w.bob, l.ID)
	if !errorIs(err, market.CodeStore) || time.Since(start) > 100*time.Millisecond {
		t.Fatalf("a purchase while the store does not answer: %v after %s", err, time.Since(start))
	}
	if msg := err.(*market.Error).Msg; msg != "the store has not answered for a while; nothing was changed, try again" {
		t.Fatalf("the refusal says %q", msg)
	}
	if now := market.MemoryDump(w.svc); now != was {
		t.Fatalf("the refused purchase changed memory:\n%s", dumpDiff(was, now))
	}
	g.open()
	if refused := w.svc.Flush(); len(refused) != 0 {
		t.Fatalf("refused: %+v", refused)
	}
	must(t, second(w.svc.Buy(w.bob, l.ID)))
	w.svc.Flush()
	if len(w.events) != 2 {
		t.Fatalf("%d events, want the listing's and the purchase's", len(w.events))
	}
	w.restartAndCompare(t)
}

// TestCommitBehindTrimsTheLogOffTheTick: the log's retention deletes on
// the committer's goroutine, between commits: with a commit held by the
// store, TrimEventLog returns at once, and the entries go at a later tick,
// once the store answers.
func TestCommitBehindTrimsTheLogOffTheTick(t *testing.T) {
	defer market.SetTrimEvery(0)()
	w, g := behindWorld(t, func(c *market.Config) { c.EventRetention = market.EventRetention{MaxCount: 3, MaxAge: -1} })
	for i := 0; i < 3; i++ {
		w.sell(w.alice, i, 10)
		w.sell(w.bob, i, 10)
	}
	w.svc.Flush()
	g.close()
	w.sell(w.admin, 0, 10) // its commit is held
	start := time.Now()
	n, err := w.svc.TrimEventLog()
	if err != nil || n != 0 || time.Since(start) > 100*time.Millisecond {
		t.Fatalf("a trim while a commit is held: %d, %v, after %s", n, err, time.Since(start))
	}
	if _, err := w.svc.EventsSince(0, 10); err != nil {
		t.Fatalf("the log was trimmed while the store held a commit: %v", err)
	}
	g.open()
	w.svc.Flush()
	for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(5 * time.Millisecond) {
		// A tick: the outcomes, then the retention, which may delete
		// what has been recorded as delivered by now.
		w.svc.Settle()
		must(t, second(w.svc.TrimEventLog()))
		if _, err := w.svc.EventsSince(0, 10); errors.Is(err, market.ErrEventsTrimmed) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the log was never trimmed")
		}
	}
	checkLogGapFree(t, logRows(t, w.store), 5) // seven entries, the newest three kept
}

// TestSettleSpreadsAGroupOverTicks: the outcome of a group commit is
// settled a chunk at a time once Settle's budget is spent, the rest at the
// next calls, in order; Committed receives again while some wait, so a
// loop that waits on it never misses them.
func TestSettleSpreadsAGroupOverTicks(t *testing.T) {
	defer market.SetOutcomeBudget(time.Nanosecond)() // a chunk a call
	w, g := behindWorld(t)
	g.close()
	ids := w.sellOneEach(0, 40)
	g.open()
	calls := 0
	for left := w.svc.InFlight(); left > 0; calls++ {
		select {
		case <-w.svc.Committed():
		case <-time.After(10 * time.Second):
			t.Fatalf("no outcome in 10 s with %d in flight", left)
		}
		if refused := w.svc.Settle(); len(refused) != 0 {
			t.Fatalf("refused: %+v", refused)
		}
		now := w.svc.InFlight()
		if left-now > 16 {
			t.Fatalf("one Settle took %d outcomes, want at most a chunk of 16", left-now)
		}
		left = now
	}
	if calls < 3 {
		t.Fatalf("40 outcomes settled in %d calls, want at least 3", calls)
	}
	if len(w.events) != len(ids) {
		t.Fatalf("%d events, want %d", len(w.events), len(ids))
	}
	for i, e := range w.events {
		if c, ok := e.(market.ListingCreatedEvent); !ok || c.Listing().ID != ids[i] {
			t.Fatalf("event %d: %#v, want the creation of #%d: out of order", i, e, ids[i])
		}
	}
}

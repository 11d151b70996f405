package market_test

import (
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/rynek/rynek/market"
)

// otherServerStore: before the first commit it lets "another server"
// add gift to a player's balance in the store.
type otherServerStore struct {
	*heldStore
	once sync.Once
	inj  func()
}

func (o *otherServerStore) Commit(b *market.Batch) error {
	o.once.Do(o.inj)
	return o.heldStore.Commit(b)
}

// TestCommitBehindSettlesAnotherServersChangeOnce: two batches in
// flight write Bob's balance; another server adds 5.00 to it before they
// commit. Memory must end at the store's balance.
func TestCommitBehindSettlesAnotherServersChangeOnce(t *testing.T) {
	w, _ := behindWorld(t)
	w.svc.Close()
	g := &heldStore{Store: w.openStore()}
	inner := g.Store
	o := &otherServerStore{heldStore: g}
	o.inj = func() {
		must(t, inner.Commit(&market.Batch{Ops: []market.Op{{Kind: market.OpPlayerState, Delta: 500,
			Player: &market.PlayerRow{ID: w.bob.ID}}}}))
	}
	w.store = o
	w.svc = market.New(o, market.Config{Clock: w.clock, ListingCooldown: -1, CommitBehind: true})
	w.svc.BindMainThread()
	must(t, w.svc.Enable())
	t.Cleanup(func() { w.svc.Close() })
	g.close()
	if _, err := w.svc.Deposit(w.bob.ID, 1); err != nil {
		t.Fatal(err)
	}
	if _, err := w.svc.Deposit(w.bob.ID, 2); err != nil {
		t.Fatal(err)
	}
	g.open()
	if r := w.svc.Flush(); len(r) != 0 {
		t.Fatalf("refused %+v", r)
	}
	st, err := w.svc.GetPlayer(w.bob.ID)
	must(t, err)
	want := 1000.0 + 1 + 2 + 5
	if st.Balance != want {
		t.Fatalf("memory says Bob has %.2f, the store %.2f", st.Balance, want)
	}
}

// otherReserver: before each reservation after the first, "another
// server" reserves a block of its own from the same counter.
type otherReserver struct {
	market.Store
	n     int
	other []int64 // first ids of the other server's blocks
}

func (o *otherReserver) ReserveListingIDs(n int) (int64, error) {
	o.n++
	if o.n > 1 {
		first, err := o.Store.ReserveListingIDs(n)
		if err != nil {
			return 0, err
		}
		o.other = append(o.other, first)
	}
	return o.Store.ReserveListingIDs(n)
}

// TestCommitBehindCloseGivesBackOnlyItsOwnIDs: a block reserved ahead and
// not begun is given back on Close from its end down to nextID, over the
// block another server reserved in between.
func TestCommitBehindCloseGivesBackOnlyItsOwnIDs(t *testing.T) {
	w, _ := behindWorld(t)
	w.svc.Close()
	o := &otherReserver{Store: w.openStore()}
	w.store = o
	w.svc = market.New(o, market.Config{Clock: w.clock, ListingCooldown: -1, MaxListingsPerPlayer: 1 << 20, CommitBehind: true})
	w.svc.BindMainThread()
	must(t, w.svc.Enable())
	for i := 0; i < 600; i++ {
		l, err := w.svc.SellItem(w.alice, w.stackOf(w.alice, "OAK_LOG"), 1)
		must(t, err)
		must(t, w.svc.RemoveListing(l.ID, w.alice))
		if i%10 == 9 {
			w.svc.Settle()
		}
	}
	w.svc.Flush()
	if len(o.other) == 0 {
		t.Fatal("no block reserved ahead")
	}
	must(t, w.svc.Close())
	st := w.openStore()
	defer st.Close()
	first, err := st.ReserveListingIDs(1024)
	must(t, err)
	if b := o.other[0]; first < b+1024 {
		t.Fatalf("after Close the next block starts at %d, inside the other server's block [%d,%d)", first, b, b+1024)
	}
}

type failingReserver struct {
	*otherReserver
	fail atomic.Bool
}

func (f *failingReserver) Commit(b *market.Batch) error {
	if f.fail.Load() {
		return errors.New("disk full")
	}
	return f.otherReserver.Store.Commit(b)
}

// TestCommitBehindUndoesAcrossABlockOfIDs: sell A takes the last id
// of the block, sell B starts the block reserved ahead; both are refused.
// The undo puts nextID back into the old block but leaves idCeil at the new
// block's end, so the next sells hand out the ids in between, which
// another server reserved.
func TestCommitBehindUndoesAcrossABlockOfIDs(t *testing.T) {
	w, _ := behindWorld(t)
	w.svc.Close()
	f := &failingReserver{otherReserver: &otherReserver{Store: w.openStore()}}
	w.store = f
	w.svc = market.New(f, market.Config{Clock: w.clock, ListingCooldown: -1, MaxListingsPerPlayer: 1 << 20, CommitBehind: true})
	w.svc.BindMainThread()
	must(t, w.svc.Enable())
	t.Cleanup(func() { f.fail.Store(false); w.svc.Close() })
	last := 0
	for last < 1023 {
		l, err := w.svc.SellItem(w.alice, w.stackOf(w.alice, "OAK_LOG"), 1)
		must(t, err)
		last = l.ID
		must(t, w.svc.RemoveListing(l.ID, w.alice))
		w.svc.Flush()
	}
	if len(f.other) != 1 {
		t.Fatalf("other blocks %v", f.other)
	}
	f.fail.Store(true)
	a, err := w.svc.SellItem(w.alice, w.stackOf(w.alice, "OAK_LOG"), 1)
	must(t, err)
	b, err := w.svc.SellItem(w.alice, w.stackOf(w.alice, "DIAMOND"), 1)
	must(t, err)
	t.Logf("in flight: #%d, #%d", a.ID, b.ID)
	if r := w.svc.Flush(); len(r) != 2 {
		t.Fatalf("refused %d", len(r))
	}
	f.fail.Store(false)
	for i := 0; i < 3; i++ {
		l, err := w.svc.SellItem(w.alice, w.stackOf(w.alice, "OAK_LOG"), 1)
		must(t, err)
		must(t, w.svc.RemoveListing(l.ID, w.alice))
		w.svc.Flush()
		if o := f.other[0]; int64(l.ID) >= o && int64(l.ID) < o+1024 {
			t.Fatalf("after the refusal sell %d got listing #%d, in the other server's block [%d,%d)", i, l.ID, o, o+1024)
		}
	}
}

// slowHistoryStore holds the history load until released, and fails
// commits while fail is set, each after the gate opens.
type slowHistoryStore struct {
	market.Store
	history chan struct{}
	gate    chan struct{}
	fail    atomic.Bool
}

func (s *slowHistoryStore) LoadHistory(after [16]byte, n int, f func(market.TxRow) error) (int, error) {
	<-s.history
	return s.Store.LoadHistory(after, n, f)
}

func (s *slowHistoryStore) Commit(b *market.Batch) error {
	<-s.gate
	if s.fail.Load() {
		return errors.New("disk full")
	}
	return s.Store.Commit(b)
}

// TestCommitBehindUndoesAPlayerWhileTheHistoryCounts: a player added before the
// history load copies the players' lists and undone (its commit refused)
// while the load counts: the load puts its copies back by index, past the
// end of s.players.
func TestCommitBehindUndoesAPlayerWhileTheHistoryCounts(t *testing.T) {
	w, _ := behindWorld(t)
	w.svc.Close()
	st := &slowHistoryStore{Store: w.openStore(), history: make(chan struct{}), gate: make(chan struct{})}
	w.store = st
	w.svc = market.New(st, market.Config{Clock: w.clock, ListingCooldown: -1, CommitBehind: true})
	w.svc.BindMainThread()
	counting, goOn := make(chan struct{}), make(chan struct{})
	market.SetWhileCountingHistory(w.svc, func() { close(counting); <-goOn })
	must(t, w.svc.Enable())
	st.fail.Store(true)
	if _, err := w.svc.AddPlayer(market.NewPlayer{ID: uid(9), Name: "Celina", Balance: 10}); err != nil {
		t.Fatal(err)
	}
	close(st.history) // the load copies the lists with Celina's
	<-counting
	close(st.gate)
	if r := w.svc.Flush(); len(r) != 1 {
		t.Fatalf("refused %d", len(r))
	}
	st.fail.Store(false)
	close(goOn)
	must(t, w.svc.WaitHistory())
	t.Log("history load survived")
	w.svc.Close()
}

// TestCommitBehindFlushesAfterTheSignalWasTaken: the console keeps a goroutine
// on Committed() (wakeOn). When it takes the signal of the last outcome
// and no Settle follows (the console quits), Close's Flush waits on the
// same channel for a signal that never comes.
func TestCommitBehindFlushesAfterTheSignalWasTaken(t *testing.T) {
	w, g := behindWorld(t)
	g.close()
	st := w.stack(w.alice, 2)
	st.Amount = 1
	_, err := w.svc.SellItem(w.alice, st, 1)
	must(t, err)
	woke := make(chan struct{})
	go func() { <-w.svc.Committed(); close(woke) }() // tui's commitCmd
	g.open()
	<-woke
	done := make(chan struct{})
	timer := time.AfterFunc(3*time.Second, func() {
		select {
		case <-done:
		default:
			panic("Flush still waits 3s after the outcome was ready: InFlight=" + fmt.Sprint(w.svc.InFlight()))
		}
	})
	defer timer.Stop()
	w.svc.Flush()
	close(done)
}

// TestCommitBehindJoinsWhileAChangeIsInFlight: a profile change
// expects the row's version memory has; memory learns the version of a
// batch in flight only when it settles, so a Join right after any other
// change of the same player is refused.
func TestCommitBehindJoinsWhileAChangeIsInFlight(t *testing.T) {
	w, g := behindWorld(t)
	g.close()
	if _, err := w.svc.Deposit(w.alice.ID, 1); err != nil {
		t.Fatal(err)
	}
	if _, _, err := w.svc.Join(w.alice.ID, "Alice", []string{"vip"}); err != nil {
		t.Fatal(err)
	}
	g.open()
	if r := w.svc.Flush(); len(r) != 0 {
		t.Fatalf("refused: %+v", r)
	}
}

// TestCommitBehindRatesAPurchaseInFlight: the completion's durable work
// (completeLocked: stats.record) runs at Settle and reads the purchase as
// memory holds it then, with a rating that a later batch in flight made;
// that batch's durable work (stats.rated) counts it again.
func TestCommitBehindRatesAPurchaseInFlight(t *testing.T) {
	w, g := behindWorld(t)
	l := w.sell(w.alice, 0, 10)
	w.svc.Flush()
	g.close()
	tx, err := w.svc.Buy(w.bob, l.ID)
	must(t, err)
	if _, err := w.svc.Rate(w.bob.ID, tx.ID, 5); err != nil {
		t.Fatal(err)
	}
	g.open()
	if r := w.svc.Flush(); len(r) != 0 {
		t.Fatalf("refused: %+v", r)
	}
	pr, err := w.svc.Profile(w.alice.ID)
	must(t, err)
	if pr.Ratings != 1 {
		t.Fatalf("Alice's profile counts %d ratings of her one rated sale", pr.Ratings)
	}
}

// ratingRefuser refuses every batch that rates a purchase, as another
// server's change of the row would.
type ratingRefuser struct{ *heldStore }

func (r ratingRefuser) Commit(b *market.Batch) error {
	for _, op := range b.Ops {
		if op.Kind == market.OpTxState && op.ExpectState == market.StateCompleted {
			return market.ErrConflict
		}
	}
	return r.heldStore.Commit(b)
}

// TestCommitBehindMarksAPurchaseInFlight: a purchase committed behind the
// tick is Pending until the store holds it, wherever it is read; a
// rating of it, refused after the purchase itself settled, leaves it
// settled (the undo takes back the rating's write only).
func TestCommitBehindMarksAPurchaseInFlight(t *testing.T) {
	w, _ := behindWorld(t)
	must(t, w.svc.Close())
	g := &heldStore{Store: w.openStore()}
	w.store = ratingRefuser{g}
	w.svc = market.New(w.store, market.Config{Clock: w.clock, ListingCooldown: -1, CommitBehind: true})
	w.svc.BindMainThread()
	must(t, w.svc.Enable())
	must(t, w.svc.WaitHistory()) // a rating needs it
	t.Cleanup(func() {
		g.mu.Lock()
		if g.gate != nil { // a failure left it closed: Close waits for the commits
			close(g.gate)
			g.gate = nil
		}
		g.mu.Unlock()
		w.svc.Close()
	})
	l := w.sell(w.alice, 0, 10)
	w.svc.Flush()
	g.close()
	tx, err := w.svc.Buy(w.bob, l.ID)
	must(t, err)
	read, err := w.svc.GetTransaction(tx.ID)
	must(t, err)
	if !tx.Pending || !read.Pending {
		t.Fatalf("in flight: Buy says pending %v, GetTransaction %v; want both pending", tx.Pending, read.Pending)
	}
	if _, err := w.svc.Rate(w.bob.ID, tx.ID, 5); err != nil {
		t.Fatal(err)
	}
	g.open()
	if r := w.svc.Flush(); len(r) != 1 || r[0].What != "TransactionRated" || !errors.Is(r[0].Err, market.ErrConflict) {
		t.Fatalf("refused %+v, want the rating's conflict", r)
	}
	read, err = w.svc.GetTransaction(tx.ID)
	must(t, err)
	if read.Pending || read.State != market.StateCompleted || read.Rating != 0 {
		t.Fatalf("after the purchase settled and its rating was refused: pending %v, %s, rating %d; want settled, COMPLETED, unrated",
			read.Pending, read.State, read.Rating)
	}
	for _, e := range w.events {
		if c, ok := e.(market.TransactionCompletedEvent); ok && c.Transaction().Pending {
			t.Fatalf("event %d carries a pending transaction", e.Seq())
		}
	}
}

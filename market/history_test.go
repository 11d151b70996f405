package market_test

import (
	"database/sql"
	"math"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/rynek/rynek/market"
	"github.com/rynek/rynek/market/sqlite"
)

// gatedStore holds the background history load until the test opens gate.
type gatedStore struct {
	market.Store
	gate chan struct{}
}

func (g *gatedStore) LoadHistory(after [16]byte, limit int, fn func(market.TxRow) error) (int, error) {
	<-g.gate
	return g.Store.LoadHistory(after, limit, fn)
}

// historyWorld is a store with 30 historic sales between Alice and Bob (25
// completed at 10.00 each) and a diamond stack for Alice to sell.
func historyWorld(t *testing.T) (path string, alice, bob market.Player) {
	t.Helper()
	path = filepath.Join(t.TempDir(), "h.db")
	st, err := sqlite.Open(path, sqlite.Options{})
	must(t, err)
	alice, bob = market.Player{ID: uid(1), Name: "Alice"}, market.Player{ID: uid(2), Name: "Bob"}
	b := newBulk(t, st)
	must(t, b.AddPlayer(alice, 1000_00))
	must(t, b.AddPlayer(bob, 1000_00))
	must(t, b.SetSlot(alice.ID, 0, market.ItemStack{ID: uid(9), Material: "DIAMOND", Amount: 64}))
	for i := 0; i < 30; i++ {
		state := market.StateCompleted
		if i%6 == 5 {
			state = market.StateFailed
		}
		_, err := b.AddTransaction(market.HistoricSale{Buyer: bob.ID, Seller: alice.ID, Price: 1000, Fee: 50, State: state,
			At: t0.Add(-time.Duration(30-i) * time.Hour), Item: market.ItemStack{Material: "DIAMOND", Amount: 1}})
		must(t, err)
	}
	must(t, b.Finish())
	must(t, st.Close())
	return path, alice, bob
}

// openGated opens the market at path behind a gate that holds the history
// load until it is closed.
func openGated(t *testing.T, path string) (*market.Service, *gatedStore) {
	st, err := sqlite.Open(path, sqlite.Options{})
	must(t, err)
	gs := &gatedStore{Store: st, gate: make(chan struct{})}
	svc := market.New(gs, market.Config{Clock: market.NewManualClock(t0), ListingCooldown: -1})
	svc.BindMainThread()
	must(t, svc.Enable())
	t.Cleanup(func() { svc.Close() })
	return svc, gs
}

func TestHistoryLoadsInTheBackground(t *testing.T) {
	path, alice, bob := historyWorld(t)
	svc, gs := openGated(t, path)
	if !svc.IsReady() || svc.HistoryLoaded() {
		t.Fatalf("ready %v, history loaded %v", svc.IsReady(), svc.HistoryLoaded())
	}
	// The contract's O(1) figures are exact before the history is loaded.
	if v, _ := svc.GetMarketVolume(); v != 250 {
		t.Fatalf("volume %v before the history, want 250", v)
	}
	// The market works meanwhile: a sale completes.
	st0, _ := svc.GetPlayer(alice.ID)
	d := *st0.Inventory[0]
	d.Amount = 1
	l, err := svc.SellItem(alice, d, 20)
	must(t, err)
	tx, err := svc.Buy(bob, l.ID)
	must(t, err)
	if v, _ := svc.GetMarketVolume(); v != 270 {
		t.Fatalf("volume %v, want 270", v)
	}
	close(gs.gate)
	done, err := svc.GetCompletedTransactions() // waits for the history
	must(t, err)
	if len(done) != 26 || done[25].ID != tx.ID {
		t.Fatalf("%d completed, last %s (want 26, the new sale last)", len(done), done[len(done)-1].ID)
	}
	page, err := svc.Transactions(market.TxQuery{AllStates: true})
	must(t, err)
	if page.Total != 31 || page.Transactions[0].ID != tx.ID {
		t.Fatalf("all states: %d, newest %s", page.Total, page.Transactions[0].ID)
	}
	stats, err := svc.Stats(5)
	must(t, err)
	if stats.TotalSales != 26 || stats.MarketVolume != 270 || svc.HistoryErr() != nil {
		t.Fatalf("stats %d sales, %v volume, err %v", stats.TotalSales, stats.MarketVolume, svc.HistoryErr())
	}
	seen := map[string]bool{}
	for _, x := range done {
		if seen[x.ID] {
			t.Fatalf("transaction %s twice", x.ID)
		}
		seen[x.ID] = true
	}
	// The counters survive a restart, and GetTransaction finds old ones.
	must(t, svc.Close())
	st2, err := sqlite.Open(path, sqlite.Options{})
	must(t, err)
	svc2 := market.New(st2, market.Config{Clock: market.NewManualClock(t0)})
	svc2.BindMainThread()
	must(t, svc2.Enable())
	defer svc2.Close()
	if v, _ := svc2.GetMarketVolume(); v != 270 {
		t.Fatalf("volume after restart %v", v)
	}
	if got, err := svc2.GetTransaction(done[0].ID); err != nil || got.State != market.StateCompleted {
		t.Fatalf("old transaction: %v %v", got.State, err)
	}
	if _, err := svc2.GetTransaction(uuid.NewString()); err == nil {
		t.Fatal("unknown id found")
	}
}

func TestStoreWithoutCountersLoadsHistoryFirst(t *testing.T) {
	path, _, _ := historyWorld(t)
	// A store written before the counters existed.
	db, err := sql.Open("sqlite", path)
	must(t, err)
	_, err = db.Exec("DELETE FROM meta WHERE k IN ('market_volume', 'total_sales')")
	must(t, err)
	db.Close()
	st, err := sqlite.Open(path, sqlite.Options{})
	must(t, err)
	svc := market.New(st, market.Config{Clock: market.NewManualClock(t0)})
	svc.BindMainThread()
	must(t, svc.Enable())
	defer svc.Close()
	if !svc.HistoryLoaded() {
		t.Fatal("history not loaded eagerly")
	}
	if v, _ := svc.GetMarketVolume(); v != 250 {
		t.Fatalf("volume %v, want 250 computed from the history", v)
	}
}

// TestHistoryLoadRacesLiveMutations runs the random workload and a reader
// while the history is still loading (run with -race).
func TestHistoryLoadRacesLiveMutations(t *testing.T) {
	path := filepath.Join(t.TempDir(), "r.db")
	st, err := sqlite.Open(path, sqlite.Options{})
	must(t, err)
	b := newBulk(t, st)
	players := seedPlayers(t, b, 6, 21)
	for i := 0; i < 6000; i++ {
		_, err := b.AddTransaction(market.HistoricSale{Buyer: players[i%6].ID, Seller: players[(i+1)%6].ID, Price: 500, Fee: 25,
			State: market.StateCompleted, At: t0.Add(-time.Duration(i) * time.Minute), Item: market.ItemStack{Material: "DIAMOND", Amount: 1}})
		must(t, err)
	}
	must(t, b.Finish())
	clock := market.NewManualClock(t0)
	svc := market.New(st, market.Config{Clock: clock, ListingCooldown: -1})
	svc.BindMainThread()
	must(t, svc.Enable())
	defer svc.Close()
	initial := mustAudit(t, svc)
	stop := make(chan struct{})
	readerDone := make(chan struct{})
	go func() {
		defer close(readerDone)
		for {
			select {
			case <-stop:
				return
			default:
			}
			svc.GetMarketVolume()
			svc.Query(market.Query{Limit: 5})
			svc.Audit()
		}
	}()
	wl := newWorkload(svc, players, clock, 21)
	for i := 0; i < 150; i++ {
		if _, err := wl.step(); !acceptable(err) {
			t.Fatal(err)
		}
	}
	close(stop)
	<-readerDone
	svc.WaitHistory()
	if err := svc.HistoryErr(); err != nil {
		t.Fatal(err)
	}
	checkInvariants(t, svc, initial, "after history")
	done, _ := svc.GetCompletedTransactions()
	v, _ := svc.GetMarketVolume()
	var sum float64
	seen := map[string]bool{}
	for _, tx := range done {
		sum += tx.Price
		if seen[tx.ID] {
			t.Fatalf("transaction %s twice", tx.ID)
		}
		seen[tx.ID] = true
	}
	if len(done) < 6000 || math.Abs(sum-v) > 0.001 {
		t.Fatalf("%d completed summing to %v, volume %v", len(done), sum, v)
	}
}

// raceStore holds the background history load back until a purchase has
// committed, then lets it read the store before the purchase reaches
// memory: the window in which a purchase, inserted finished in one commit,
// could be loaded by the background and applied by the main thread both.
type raceStore struct {
	market.Store
	release chan struct{} // closed by the purchase's commit
	loaded  chan struct{} // closed when the held-back load has read
	once    sync.Once
}

func (r *raceStore) LoadHistory(after [16]byte, limit int, fn func(market.TxRow) error) (int, error) {
	<-r.release
	n, err := r.Store.LoadHistory(after, limit, fn)
	r.once.Do(func() { close(r.loaded) })
	return n, err
}

func (r *raceStore) Commit(b *market.Batch) error {
	if err := r.Store.Commit(b); err != nil {
		return err
	}
	for _, op := range b.Ops {
		if op.Kind == market.OpPutTx && op.Tx.State == market.StateCompleted {
			close(r.release)
			<-r.loaded
			time.Sleep(20 * time.Millisecond) // the load merges what it read
		}
	}
	return nil
}

// A purchase the background load reads from the store before the main
// thread has applied it is counted once, in every list and figure.
func TestHistoryLoadDuringAPurchaseCountsItOnce(t *testing.T) {
	w := newWorld(t)
	_, err := w.svc.Buy(w.bob, w.sell(w.alice, 1, 10).ID) // history to load
	must(t, err)
	must(t, w.svc.Close())
	rs := &raceStore{Store: w.openStore(), release: make(chan struct{}), loaded: make(chan struct{})}
	svc := market.New(rs, market.Config{Clock: w.clock, ListingCooldown: -1})
	svc.BindMainThread()
	must(t, svc.Enable())
	defer svc.Close()
	d, err := svc.GetPlayer(w.alice.ID) // slot 0: diamonds
	must(t, err)
	stack := *d.Inventory[0]
	stack.Amount = 1
	l, err := svc.SellItem(w.alice, stack, 20)
	must(t, err)
	tx, err := svc.Buy(w.bob, l.ID)
	must(t, err)
	must(t, svc.WaitHistory())
	done, err := svc.GetCompletedTransactions()
	must(t, err)
	seen := 0
	for _, c := range done {
		if c.ID == tx.ID {
			seen++
		}
	}
	st, err := svc.Stats(10)
	must(t, err)
	if seen != 1 || len(done) != 2 || st.TotalSales != 2 || st.TopSellers[0].Sales != 2 {
		t.Fatalf("the purchase is listed %d times among %d, stats %d sales, top seller %+v; want once, 2, 2, 2",
			seen, len(done), st.TotalSales, st.TopSellers[0])
	}
	if err := svc.HistoryErr(); err != nil {
		t.Fatal(err)
	}
}

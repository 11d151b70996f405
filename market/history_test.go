package market_test

import (
	"database/sql"
	"errors"
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

// TestTheHistoryListsAreSizedAtOpen checks that the lists the background
// load appends to under the write lock have room for the whole history
// before it starts. A store with counters does not count its transactions;
// sized from them, the lists grew as the load went, and each growth (a
// copy of a million pointers into fresh memory) held the main thread up to
// 52 ms on PostgreSQL.
func TestTheHistoryListsAreSizedAtOpen(t *testing.T) {
	path, _, _ := historyWorld(t)
	svc, gs := openGated(t, path)
	all, completed := market.HistoryRoom(svc)
	if all < 25 || completed < 25 {
		t.Fatalf("room before the load: %d in the list, %d among the completed; want at least the 25 sales", all, completed)
	}
	close(gs.gate)
	must(t, svc.WaitHistory())
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

func TestWaitHistoryBeforeEnableIsNotReady(t *testing.T) {
	st, err := sqlite.Open(filepath.Join(t.TempDir(), "m.db"), sqlite.Options{})
	must(t, err)
	svc := market.New(st, market.Config{Name: "Rynek"})
	t.Cleanup(func() { svc.Close() })
	done := make(chan error, 1)
	go func() { done <- svc.WaitHistory() }()
	select {
	case err := <-done:
		errText(t, err, "Rynek API nie jest gotowe")
	case <-time.After(5 * time.Second):
		t.Fatal("WaitHistory before Enable blocked")
	}
}

// TestRefundAndRateDuringHistoryLoad: Rate on the main thread while the
// background load adds transactions neither races with it nor waits for it
// (run under -race).
func TestRefundAndRateDuringHistoryLoad(t *testing.T) {
	path, _, bob := historyWorld(t)
	svc, gs := openGated(t, path)
	go func() { time.Sleep(20 * time.Millisecond); close(gs.gate) }()
	for !svc.HistoryLoaded() {
		svc.Rate(bob.ID, uuid.NewString(), 5) // refused while loading, never waiting
		svc.GetTransaction(uuid.NewString())
	}
}

// TestRefundDuringHistoryLoad: while the history loads in the background,
// purchases go on and refunds and ratings are refused with BUSY, changing
// nothing (the load counts finished purchases off the lock); once it is
// loaded they go through, and the completed list and the figures are exact.
func TestRefundDuringHistoryLoad(t *testing.T) {
	path := filepath.Join(t.TempDir(), "h.db")
	st, err := sqlite.Open(path, sqlite.Options{})
	must(t, err)
	alice, bob := market.Player{ID: uid(1), Name: "Alice"}, market.Player{ID: uid(2), Name: "Bob"}
	admin := market.Player{ID: uid(3), Name: "Admin", Permissions: []string{market.PermAdmin}}
	b := newBulk(t, st)
	must(t, b.AddPlayer(alice, 1000_00))
	must(t, b.AddPlayer(bob, 10_000_000_00))
	must(t, b.AddPlayer(admin, 0))
	must(t, b.SetSlot(alice.ID, 0, market.ItemStack{ID: uid(9), Material: "DIAMOND", Amount: 64}))
	n := 200_000 // long enough a load for many refunds to land in it
	if testing.Short() {
		n = 20_000
	}
	for i := 0; i < n; i++ {
		_, err := b.AddTransaction(market.HistoricSale{Buyer: bob.ID, Seller: alice.ID, Price: 1000, Fee: 50, State: market.StateCompleted,
			At: t0.Add(-time.Duration(n-i) * time.Second), Item: market.ItemStack{Material: "DIAMOND", Amount: 1}})
		must(t, err)
	}
	must(t, b.Finish())
	must(t, st.Close())

	st, err = sqlite.Open(path, sqlite.Options{})
	must(t, err)
	svc := market.New(st, market.Config{Clock: market.NewManualClock(t0), ListingCooldown: -1})
	svc.BindMainThread()
	must(t, svc.Enable())
	defer svc.Close()
	var bought []string
	early := "" // a refund that went through as the load ended
	refused := 0
	for !svc.HistoryLoaded() {
		p, err := svc.GetPlayer(alice.ID)
		must(t, err)
		var stack market.ItemStack
		for _, s := range p.Inventory {
			if s != nil {
				stack = *s
				break
			}
		}
		if n := len(bought); n > 0 {
			before, _ := svc.GetPlayer(bob.ID)
			_, err := svc.Refund(bought[n-1], admin, market.RefundMoneyOnly)
			_, rateErr := svc.Rate(bob.ID, bought[n-1], 4)
			if svc.HistoryLoaded() {
				// The load ended meanwhile: either answer is right.
				if err == nil {
					early = bought[n-1]
				}
				break
			}
			for _, err := range []error{err, rateErr} {
				var me *market.Error
				if !errors.As(err, &me) || me.Code != market.CodeBusy {
					t.Fatalf("during the load: %v, want BUSY", err)
				}
			}
			if after, _ := svc.GetPlayer(bob.ID); after.Balance != before.Balance {
				t.Fatalf("a refused refund moved the buyer's balance %v -> %v", before.Balance, after.Balance)
			}
			refused++
		}
		if len(bought) == 60 { // Alice's stack holds 64
			continue
		}
		stack.Amount = 1
		l, err := svc.SellItem(alice, stack, 20)
		must(t, err)
		tx, err := svc.Buy(bob, l.ID)
		must(t, err)
		bought = append(bought, tx.ID)
	}
	// Loaded: the refunds go through now.
	refunded := 0
	for _, id := range bought[len(bought)/2:] {
		if id == early {
			refunded++
			continue
		}
		_, err := svc.Refund(id, admin, market.RefundMoneyOnly)
		must(t, err)
		refunded++
	}
	done, err := svc.GetCompletedTransactions()
	must(t, err)
	stats, _ := svc.Stats(1)
	t.Logf("%d refused during the load; %d bought, %d refunded", refused, len(bought), refunded)
	for _, x := range done {
		if x.State != market.StateCompleted {
			t.Errorf("the completed list holds %s, %s %s", x.ID, x.State, x.ErrorCode)
		}
	}
	want := n + len(bought) - refunded
	if len(done) != want || stats.TotalSales != int64(want) || svc.HistoryErr() != nil {
		t.Fatalf("%d completed, stats %d sales, want %d; history error %v", len(done), stats.TotalSales, want, svc.HistoryErr())
	}
}

// TestCappedBuyDuringHistoryLoad: while a purchase cap is set, a purchase
// during the start-up history load is refused with BUSY and changes
// nothing (the cap is counted from the history, and the main thread does
// not wait for it); once loaded, the same purchase goes through.
func TestCappedBuyDuringHistoryLoad(t *testing.T) {
	path := filepath.Join(t.TempDir(), "c.db")
	st, err := sqlite.Open(path, sqlite.Options{})
	must(t, err)
	alice, bob := market.Player{ID: uid(1), Name: "Alice"}, market.Player{ID: uid(2), Name: "Bob"}
	b := newBulk(t, st)
	must(t, b.AddPlayer(alice, 1000_00))
	must(t, b.AddPlayer(bob, 1000_00))
	must(t, b.SetSlot(alice.ID, 0, market.ItemStack{ID: uid(9), Material: "DIAMOND", Amount: 64}))
	_, err = b.AddTransaction(market.HistoricSale{Buyer: bob.ID, Seller: alice.ID, Price: 1000, Fee: 50, State: market.StateCompleted,
		At: t0.Add(-time.Hour), Item: market.ItemStack{Material: "DIAMOND", Amount: 1}})
	must(t, err)
	must(t, b.Finish())
	must(t, st.Close())

	st, err = sqlite.Open(path, sqlite.Options{})
	must(t, err)
	svc := market.New(st, market.Config{Clock: market.NewManualClock(t0), ListingCooldown: -1,
		PurchaseCap: market.PurchaseCap{Max: 2, Window: 24 * time.Hour}})
	counting, release := make(chan struct{}), make(chan struct{})
	market.SetWhileCountingHistory(svc, func() {
		close(counting)
		<-release
	})
	must(t, svc.BindMainThread())
	must(t, svc.Enable())
	defer svc.Close()
	<-counting
	p, err := svc.GetPlayer(alice.ID)
	must(t, err)
	stack := *p.Inventory[0]
	stack.Amount = 1
	l, err := svc.SellItem(alice, stack, 20)
	must(t, err)
	before, _ := svc.GetPlayer(bob.ID)
	_, err = svc.Buy(bob, l.ID)
	errText(t, err, "the market is still loading its history of purchases; try again in a moment")
	if after, _ := svc.GetPlayer(bob.ID); after.Balance != before.Balance {
		t.Errorf("a refused purchase moved the buyer's balance %v -> %v", before.Balance, after.Balance)
	}
	if _, err := svc.GetListing(l.ID); err != nil {
		t.Errorf("the listing left with a refused purchase: %v", err)
	}
	close(release)
	must(t, svc.WaitHistory())
	_, err = svc.Buy(bob, l.ID) // the second in the window: allowed
	must(t, err)
	l, err = svc.SellItem(alice, stack, 20)
	must(t, err)
	_, err = svc.Buy(bob, l.ID)
	errText(t, err, "Bob bought from Alice 2 times in the last 24h; the market allows 2")
}

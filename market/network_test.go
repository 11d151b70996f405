package market_test

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/rynek/rynek/internal/pgtest"
	"github.com/rynek/rynek/market"
	"github.com/rynek/rynek/market/postgres"
)

// networkPlayers seeds a shared market: sellers whose listings the test
// races for, and buyers rich enough to buy everything.
type networkPlayers struct {
	sellers, buyers []market.Player
	listings        []int
	money           market.Money
}

func seedNetwork(t testing.TB, dsn string, sellers, buyers, listings int) networkPlayers {
	t.Helper()
	return seedShared(t, postgresMarket(dsn), sellers, buyers, listings)
}

// seedShared is seedNetwork on any shared market.
func seedShared(t testing.TB, m sharedMarket, sellers, buyers, listings int) networkPlayers {
	t.Helper()
	st, err := m.open("seed", true)
	must(t, err)
	defer st.Close()
	k, err := market.NewBulk(st)
	must(t, err)
	var np networkPlayers
	add := func(name string, balance market.Money) market.Player {
		p := market.Player{ID: uuid.New(), Name: name}
		must(t, k.AddPlayer(p, balance))
		np.money += balance
		return p
	}
	for i := range sellers {
		np.sellers = append(np.sellers, add(fmt.Sprintf("Seller%d", i), 0))
	}
	for i := range buyers {
		np.buyers = append(np.buyers, add(fmt.Sprintf("Buyer%d", i), 1_000_000_00))
	}
	for i := range listings {
		stack := market.ItemStack{ID: uuid.New(), Material: "DIAMOND", Amount: 1 + i%5}
		id, err := k.AddListing(np.sellers[i%sellers].ID, stack, market.Money(100+i), t0, t0.Add(30*24*time.Hour))
		must(t, err)
		np.listings = append(np.listings, id)
	}
	must(t, k.Finish())
	return np
}

// seen is one event as a listener got it.
type seen struct {
	seq     uint64
	name    string
	origin  string
	listing int
}

// TestNetworkSellsEachListingOnce: three instances on one PostgreSQL market,
// eight buyers each, race for the same 1,000 listings. Every listing is sold
// exactly once, money and items are conserved across the network, every
// instance's memory ends equal to the store, and every instance's listeners
// saw every event, in the same order, with the instance it came from.
func TestNetworkSellsEachListingOnce(t *testing.T) {
	forEachSharedMarket(t, testSellsEachListingOnce)
}

func testSellsEachListingOnce(t *testing.T, m sharedMarket) {
	const instances, buyersEach, listings = 3, 8, 1000
	np := seedShared(t, m, 10, instances*buyersEach, listings)

	type result struct {
		name     string
		events   []seen
		won      int
		states   map[uuid.UUID]string
		audit    market.Audit
		version  uint64
		failures []string
	}
	results := make([]result, instances)
	// Every instance is open before the race: a new instance's listeners
	// start at the log's end.
	var open sync.WaitGroup
	open.Add(instances)
	bought := make(chan struct{}, instances)
	target := make(chan uint64, instances)
	var wg sync.WaitGroup
	for i := range instances {
		wg.Add(1)
		go func() {
			defer wg.Done()
			res := &results[i]
			res.name = fmt.Sprintf("server-%c", 'a'+i)
			fail := func(format string, args ...any) { res.failures = append(res.failures, fmt.Sprintf(format, args...)) }
			defer func() { bought <- struct{}{} }() // also when it failed early
			st, err := m.open(res.name, false)
			if err != nil {
				fail("open: %v", err)
				open.Done()
				return
			}
			svc := market.New(st, market.Config{Clock: market.NewManualClock(t0), ListingCooldown: -1})
			defer svc.Close()
			svc.BindMainThread()
			svc.Subscribe(func(e market.Event) {
				s := seen{seq: e.Seq(), name: e.EventName(), origin: e.Origin()}
				if c, ok := e.(market.TransactionCompletedEvent); ok {
					s.listing = c.Transaction().ListingID
				}
				res.events = append(res.events, s)
			})
			err = svc.Enable()
			open.Done()
			if err != nil {
				fail("enable: %v", err)
				return
			}
			open.Wait()
			buyers := np.buyers[i*buyersEach : (i+1)*buyersEach]
			rng := rand.New(rand.NewPCG(uint64(i), 1))
			for deadline := time.Now().Add(2 * time.Minute); ; {
				if _, err := svc.Follow(); err != nil {
					fail("follow: %v", err)
				}
				open, err := svc.GetListings()
				if err != nil || len(open) == 0 || time.Now().After(deadline) {
					break
				}
				l := open[rng.IntN(len(open))]
				_, err = svc.Buy(buyers[rng.IntN(len(buyers))], l.ID)
				switch {
				case err == nil:
					res.won++
				case errors.Is(err, market.ErrConflictingChange), errors.Is(err, market.ErrUnknownListing),
					errors.Is(err, market.ErrListingReserved):
					// Another instance was first.
				default:
					fail("buy #%d: %v", l.ID, err)
				}
			}
			bought <- struct{}{}
			want := <-target
			for deadline := time.Now().Add(30 * time.Second); svc.Version() < want && time.Now().Before(deadline); {
				if _, err := svc.Follow(); err != nil {
					fail("follow: %v", err)
				}
				time.Sleep(5 * time.Millisecond)
			}
			res.version = svc.Version()
			res.audit, _ = svc.Audit()
			res.states = map[uuid.UUID]string{}
			for _, p := range append(slices.Clone(np.sellers), np.buyers...) {
				ps, err := svc.GetPlayer(p.ID)
				if err != nil {
					fail("player %s: %v", p.Name, err)
					continue
				}
				res.states[p.ID] = playerSummary(ps)
			}
		}()
	}
	for range instances {
		<-bought
	}
	// Every instance is done buying: the log's end is what each must reach.
	checker, err := m.open("checker", false)
	must(t, err)
	var log []market.EventRow
	_, err = checker.ReadEvents(0, 1<<30, func(e market.EventRow) error {
		e.Body = nil
		log = append(log, e)
		return nil
	})
	must(t, err)
	for range instances {
		target <- log[len(log)-1].Seq
	}
	wg.Wait()
	for range instances {
		<-bought // the deferred sends
	}

	// The truth: a fresh instance on the store.
	truth := market.New(checker, market.Config{Clock: market.NewManualClock(t0), ListingCooldown: -1})
	truth.BindMainThread()
	must(t, truth.Enable())
	defer truth.Close()
	audit, err := truth.Audit()
	must(t, err)
	if len(audit.Problems) > 0 || audit.Listings != 0 || audit.Money != np.money || audit.Stacks != listings {
		t.Fatalf("the store after the race: %d listings, money %d (want %d), %d stacks (want %d), problems %v",
			audit.Listings, audit.Money, np.money, audit.Stacks, listings, audit.Problems)
	}
	sold := map[int]int{}
	won := 0
	for i, r := range results {
		for _, f := range r.failures {
			t.Errorf("%s: %s", r.name, f)
		}
		won += r.won
		if r.version != log[len(log)-1].Seq {
			t.Errorf("%s stopped at version %d, the log is at %d", r.name, r.version, log[len(log)-1].Seq)
		}
		if len(r.audit.Problems) > 0 || r.audit.Money != np.money || r.audit.Listings != 0 {
			t.Errorf("%s's memory: money %d, %d listings, problems %v", r.name, r.audit.Money, r.audit.Listings, r.audit.Problems)
		}
		if i == 0 {
			for _, e := range r.events {
				if e.name == "TransactionCompletedEvent" {
					sold[e.listing]++
				}
			}
			continue
		}
		if !slices.Equal(r.events, results[0].events) {
			t.Errorf("%s's listeners saw %d events, %s's %d, or in another order", r.name, len(r.events), results[0].name, len(results[0].events))
		}
		for id, s := range r.states {
			if want := results[0].states[id]; s != want {
				t.Errorf("%s sees player %s as\n%s\n%s as\n%s", r.name, id, s, results[0].name, want)
				break
			}
		}
	}
	for id, s := range results[0].states {
		ps, err := truth.GetPlayer(id)
		must(t, err)
		if want := playerSummary(ps); s != want {
			t.Errorf("the instances see player %s as\n%s\nthe store as\n%s", id, s, want)
			break
		}
	}
	if won != listings || len(sold) != listings {
		t.Fatalf("%d purchases won, %d listings sold, want %d each", won, len(sold), listings)
	}
	byOrigin := map[string]int{}
	for _, e := range results[0].events {
		if e.name == "TransactionCompletedEvent" {
			byOrigin[e.origin]++
		}
	}
	for i, r := range results {
		if byOrigin[r.name] != r.won {
			t.Errorf("%s won %d purchases, its events say %d", results[i].name, r.won, byOrigin[r.name])
		}
	}
	for id, n := range sold {
		if n != 1 {
			t.Errorf("listing #%d sold %d times", id, n)
		}
	}
	t.Logf("purchases won: %s %d, %s %d, %s %d; %d log entries", results[0].name, results[0].won,
		results[1].name, results[1].won, results[2].name, results[2].won, len(log))
}

// playerSummary is what a player has, for comparing instances: the
// balance, the stacks in each slot and the stacks in the mailbox (as a set:
// entries made in the same millisecond have no order).
func playerSummary(ps market.PlayerState) string {
	s := fmt.Sprintf("%.2f", ps.Balance)
	for i, it := range ps.Inventory {
		if it != nil {
			s += fmt.Sprintf(" %d:%s", i, it.ID.String()[:8])
		}
	}
	var mail []string
	for _, m := range ps.Mailbox {
		mail = append(mail, m.Item.ID.String()[:8])
	}
	slices.Sort(mail)
	return s + fmt.Sprintf(" mail:%v", mail)
}

// failingStore is a shared store whose commits can be made to fail: the
// failAt-th commit from now fails without writing anything.
type failingStore struct {
	market.SharedStore
	failAt int
}

func (f *failingStore) Commit(b *market.Batch) error {
	if f.failAt > 0 {
		if f.failAt--; f.failAt == 0 {
			return errors.New("injected store failure")
		}
	}
	return f.SharedStore.Commit(b)
}

// TestNetworkDutyRunsTheTimersOnce: of the instances on one market, only the
// one holding the network's duty runs the expiry timer and takes over the
// purchases other instances left unfinished; when it goes, the duty passes
// to another.
func TestNetworkDutyRunsTheTimersOnce(t *testing.T) {
	forEachSharedMarket(t, testDutyRunsTheTimersOnce)
}

func testDutyRunsTheTimersOnce(t *testing.T, m sharedMarket) {
	defer market.SetTakeOverEvery(0)()
	np := seedShared(t, m, 2, 2, 20)
	open := func(name string, wrap func(market.SharedStore) market.Store) (*market.Service, market.SharedStore, *market.ManualClock) {
		st, err := m.open(name, false)
		must(t, err)
		var store market.Store = st
		if wrap != nil {
			store = wrap(st)
		}
		clock := market.NewManualClock(t0)
		svc := market.New(store, market.Config{Clock: clock})
		must(t, svc.BindMainThread())
		must(t, svc.Enable())
		return svc, st, clock
	}
	a, aStore, aClock := open("a", nil)
	b, bStore, bClock := open("b", nil)
	defer b.Close()
	if !aStore.Duty() || bStore.Duty() {
		t.Fatalf("duty: a %v, b %v; want the first instance only", aStore.Duty(), bStore.Duty())
	}
	followUntil := func(svc *market.Service, what string, done func() bool) {
		t.Helper()
		for deadline := time.Now().Add(10 * time.Second); !done(); time.Sleep(5 * time.Millisecond) {
			if _, err := svc.Follow(); err != nil || time.Now().After(deadline) {
				t.Fatalf("waiting for %s: %v", what, err)
			}
		}
	}

	// A purchase left half-done by an instance that then went away.
	failing := &failingStore{}
	c, _, _ := open("c", func(st market.SharedStore) market.Store { failing.SharedStore = st; return failing })
	defer c.Close()
	must(t, c.ArmFailure(market.StateSellerPaid))
	failing.failAt = 2 // the steps commit, the compensation does not
	if _, err := c.Buy(np.buyers[0], np.listings[0]); err == nil {
		t.Fatal("the armed purchase succeeded")
	}
	failing.SharedStore.Close() // the instance dies without recovering it
	followUntil(a, "a to see the open purchase", func() bool { return mustAudit(t, a).OpenTx == 1 })
	aClock.Advance(abandoned)
	followUntil(a, "a to take the purchase over", func() bool { return mustAudit(t, a).OpenTx == 0 })
	followUntil(b, "b to catch up with a", func() bool { return b.Version() >= a.Version() })
	taken, err := a.GetTransaction(mustOne(t, a).ID)
	must(t, err)
	if taken.State != market.StateCompleted {
		t.Fatalf("a took the purchase over to %s, want it finished", taken.State)
	}
	for _, svc := range []*market.Service{a, b} {
		if got := mustAudit(t, svc); got.OpenTx != 0 || got.Money != np.money || got.Listings != 19 || len(got.Problems) > 0 {
			t.Fatalf("after the takeover: %d open, money %d (want %d), %d listings, problems %v", got.OpenTx, got.Money, np.money, got.Listings, got.Problems)
		}
	}

	// The expiry timer: only a sweeps.
	aClock.Advance(31 * 24 * time.Hour)
	bClock.Advance(31 * 24 * time.Hour)
	if n, _, err := b.SweepExpired(); n != 0 || err != nil {
		t.Fatalf("b without the duty swept %d (%v)", n, err)
	}
	if n, _, err := a.SweepExpired(); n != 19 || err != nil {
		t.Fatalf("a swept %d (%v), want 19", n, err)
	}
	followUntil(b, "b to see the sweep", func() bool { n, _ := b.GetActiveListingsCount(); return n == 0 && mustAudit(t, b).Listings == 0 })

	// a goes: the duty passes to b.
	must(t, a.Close())
	followUntil(b, "the duty to pass to b", bStore.Duty)
}

// abandoned is more than a purchase must stand still to count as left.
const abandoned = 11 * time.Second

// mustOne is svc's only transaction.
func mustOne(t *testing.T, svc *market.Service) market.Transaction {
	t.Helper()
	page, err := svc.Transactions(market.TxQuery{})
	must(t, err)
	if len(page.Transactions) != 1 {
		t.Fatalf("%d transactions, want 1", len(page.Transactions))
	}
	return page.Transactions[0]
}

// TestNetworkCarriesTheAdminsChanges: what one instance brings into the
// market or takes out, the players that join or rename on it, and its
// refunds reach the other instance: balances, inventories, the issuance
// account, names (and so what finds a listing), the market's figures.
func TestNetworkCarriesTheAdminsChanges(t *testing.T) {
	dsn := pgtest.Database(t)
	np := seedNetwork(t, dsn, 1, 1, 3)
	open := func(name string) *market.Service {
		st, err := postgres.Open(dsn, postgres.Options{Instance: name})
		must(t, err)
		svc := market.New(st, market.Config{Clock: market.NewManualClock(t0)})
		must(t, svc.BindMainThread())
		must(t, svc.Enable())
		t.Cleanup(func() { svc.Close() })
		return svc
	}
	a, b := open("a"), open("b")
	before := mustAudit(t, b)
	seller, buyer := np.sellers[0], np.buyers[0]

	newcomer := uuid.New()
	_, _, err := a.Join(newcomer, "Przybysz", []string{"market.use"})
	must(t, err)
	_, _, err = a.Join(seller.ID, "Kupiec_Nowy", nil)
	must(t, err)
	_, err = a.Deposit(newcomer, 75.5)
	must(t, err)
	_, err = a.Withdraw(buyer.ID, 10)
	must(t, err)
	gift, _, err := a.GiveItem(newcomer, market.ItemStack{Material: "EMERALD", Amount: 9})
	must(t, err)

	want := market.Issuance{MoneyIn: 75_50, MoneyOut: 10_00, ItemsIn: 9}
	// Until b has followed all of a's log: a batch of the follower brings
	// the issuance counters as they are when it reads them, which may be
	// ahead of the entries it holds (the buyer's withdrawal counted before
	// the buyer's row comes with the next batch; one run in some thirty).
	for deadline := time.Now().Add(10 * time.Second); mustAudit(t, b).Issued != want || b.Version() < a.Version(); time.Sleep(5 * time.Millisecond) {
		if _, err := b.Follow(); err != nil || time.Now().After(deadline) {
			t.Fatalf("b never saw the issuance (%v): %v", err, mustAudit(t, b).Issued)
		}
	}
	st, err := b.GetPlayer(newcomer)
	must(t, err)
	if st.Name != "Przybysz" || st.Balance != 75.5 || st.Inventory[0] == nil || st.Inventory[0].ID != gift.ID {
		t.Fatalf("b sees the newcomer as %+v", st)
	}
	after := mustAudit(t, b)
	if after.OpeningMoney != before.OpeningMoney || after.OpeningItems != before.OpeningItems || len(after.Problems) > 0 {
		t.Fatalf("b's audit: opening %d/%d, was %d/%d; problems %v", after.OpeningMoney, after.OpeningItems, before.OpeningMoney, before.OpeningItems, after.Problems)
	}
	page, err := b.Query(market.Query{Text: "kupiec_nowy"})
	must(t, err)
	if len(page.Listings) != 3 || page.Listings[0].SellerName != "Kupiec_Nowy" {
		t.Fatalf("b finds %d listings by the seller's new name", len(page.Listings))
	}
	if page, _ := b.Query(market.Query{Text: "seller0"}); len(page.Listings) != 0 {
		t.Fatalf("b still finds %d listings by the old name", len(page.Listings))
	}
	// A rename on b, of a player a renamed: b's memory has the version a
	// wrote, so the conditional write goes through.
	if _, _, err := b.Join(seller.ID, "Kupiec_Stary", nil); err != nil {
		t.Fatal(err)
	}

	// A purchase on b, refunded on a by an admin who joined there: b's
	// figures drop the sale, and a second refund on b is refused.
	admin, _, err := a.Join(uuid.New(), "Admin_Sieci", []string{market.PermAdmin})
	must(t, err)
	tx, err := b.Buy(buyer, np.listings[0])
	must(t, err)
	// a waits for the purchase as b finished it: the saga commits step by
	// step, and a follower between two steps sees it in flight, the item
	// not yet in the buyer's inventory (a refund then finds ITEM_GONE).
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(5 * time.Millisecond) {
		if got, err := a.GetTransaction(tx.ID); err == nil && got.State == tx.State {
			break
		}
		if _, err := a.Follow(); err != nil || time.Now().After(deadline) {
			t.Fatalf("a never saw the purchase (%v)", err)
		}
	}
	_, err = a.Refund(tx.ID, admin, market.RefundWithItem)
	must(t, err)
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(5 * time.Millisecond) {
		if got, _ := b.GetTransaction(tx.ID); got.State == market.StateRolledBack {
			break
		}
		if _, err := b.Follow(); err != nil || time.Now().After(deadline) {
			t.Fatalf("b never saw the refund (%v)", err)
		}
	}
	if st, err := b.Stats(5); err != nil || st.TotalSales != 0 || st.MarketVolume != 0 {
		t.Fatalf("b's figures after the refund: %d sales, volume %v (%v)", st.TotalSales, st.MarketVolume, err)
	}
	if got := mustAudit(t, b); got.OpeningMoney != before.OpeningMoney || got.OpeningItems != before.OpeningItems || len(got.Problems) > 0 {
		t.Fatalf("b's audit after the refund: %+v", got)
	}
	if _, err := b.Refund(tx.ID, market.Player{ID: admin.ID}, market.RefundMoneyOnly); !errors.Is(err, &market.Error{Code: market.CodeNotRefundable}) {
		t.Fatalf("a second refund on b: %v", err)
	}
}

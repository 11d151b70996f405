package market_test

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
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
	st, err := postgres.Open(dsn, postgres.Options{Instance: "seed", Tool: true})
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
	dsn := pgtest.Database(t)
	const instances, buyersEach, listings = 3, 8, 1000
	np := seedNetwork(t, dsn, 10, instances*buyersEach, listings)

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
			st, err := postgres.Open(dsn, postgres.Options{Instance: res.name})
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
	checker, err := postgres.Open(dsn, postgres.Options{Instance: "checker"})
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

// TestNetworkSurvivorTakesOver kills an instance (a child process running
// the random workload, failures armed) again and again while another
// instance follows the market. After each kill the survivor catches up and
// recovers what the dead one left unfinished; the next child, the dead
// instance restarted, recovers whatever is left. Nothing is done twice:
// money and items are conserved, no transaction stays open, and each
// COMPLETED purchase has one TransactionCompletedEvent in the log.
func TestNetworkSurvivorTakesOver(t *testing.T) {
	cycles := 12
	if testing.Short() {
		cycles = 4
	}
	dsn := pgtest.Database(t)
	st, err := postgres.Open(dsn, postgres.Options{Instance: "survivor"})
	must(t, err)
	b := newBulk(t, st)
	players := seedPlayers(t, b, 8, 42)
	must(t, b.Finish())
	clock := market.NewManualClock(t0)
	survivor := market.New(st, market.Config{Clock: clock, ListingCooldown: -1, ListingTTL: 72 * time.Hour})
	must(t, survivor.BindMainThread())
	must(t, survivor.Enable())
	defer survivor.Close()
	initial := mustAudit(t, survivor)

	exe, err := os.Executable()
	must(t, err)
	rng := rand.New(rand.NewPCG(11, 11))
	events := filepath.Join(t.TempDir(), "delivered.txt")
	tookOver := 0
	for c := range cycles {
		setup := crashSetup{Store: dsn, Events: events, Players: players, Seed: uint64(100 + c), Start: t0, Instance: "victim"}
		child, _ := json.Marshal(setup)
		cmd := exec.Command(exe, "-test.run=^TestCrashChild$", "-test.count=1")
		cmd.Env = append(os.Environ(), crashEnv+"="+string(child))
		cmd.Stderr = os.Stderr
		out, err := cmd.StdoutPipe()
		must(t, err)
		must(t, cmd.Start())
		started := make(chan bool, 1)
		go func() {
			sc := bufio.NewScanner(out)
			ok := false
			for sc.Scan() {
				if sc.Text() == "ready" && !ok {
					ok = true
					started <- true
				}
				if strings.HasPrefix(sc.Text(), "error:") {
					t.Errorf("cycle %d: child: %s", c, sc.Text())
				}
			}
			if !ok {
				started <- false
			}
		}()
		if !<-started {
			cmd.Wait()
			t.Fatalf("cycle %d: the child did not start", c)
		}
		// The survivor follows while the victim works, then the kill.
		for end := time.Now().Add(time.Duration(20+rng.IntN(150)) * time.Millisecond); time.Now().Before(end); time.Sleep(2 * time.Millisecond) {
			if _, err := survivor.Follow(); err != nil {
				t.Fatalf("cycle %d: follow: %v", c, err)
			}
		}
		must(t, cmd.Process.Signal(syscall.SIGKILL))
		cmd.Wait()
		// A commit the victim sent before it died may still land: its
		// server connections end only when PostgreSQL has finished it.
		waitDisconnected(t, dsn, "victim")

		// Catch up with everything the victim committed, then take over.
		rows := logRows(t, st)
		last := rows[len(rows)-1].Seq
		for deadline := time.Now().Add(10 * time.Second); survivor.Version() < last; time.Sleep(5 * time.Millisecond) {
			if _, err := survivor.Follow(); err != nil || time.Now().After(deadline) {
				t.Fatalf("cycle %d: the survivor is at %d of %d (%v)", c, survivor.Version(), last, err)
			}
		}
		if a := mustAudit(t, survivor); a.OpenTx > 0 {
			tookOver += a.OpenTx
		}
		if err := survivor.Recover(); err != nil {
			t.Fatalf("cycle %d: the survivor's recovery: %v", c, err)
		}
		if a := checkInvariants(t, survivor, initial, fmt.Sprintf("cycle %d", c)); a.OpenTx != 0 {
			t.Fatalf("cycle %d: %d transactions open after the survivor's recovery", c, a.OpenTx)
		}
	}
	// Each COMPLETED purchase completed once, in the log.
	completions := map[string]int{}
	for after := uint64(0); ; {
		page, err := survivor.EventsSince(after, market.MaxEventsPage)
		must(t, err)
		for _, e := range page.Events {
			if c, ok := e.(market.TransactionCompletedEvent); ok {
				completions[c.Transaction().ID]++
			}
		}
		if page.Through == page.Head {
			break
		}
		after = page.Through
	}
	must(t, survivor.WaitHistory())
	done, err := survivor.GetCompletedTransactions()
	must(t, err)
	for _, tx := range done {
		if completions[tx.ID] != 1 {
			t.Fatalf("COMPLETED transaction %s completed %d times in the log", tx.ID, completions[tx.ID])
		}
	}
	if refunded := countRefunded(survivor, maps.Keys(completions)); len(completions) != len(done)+refunded {
		t.Fatalf("%d completions in the log, %d transactions COMPLETED and %d refunded", len(completions), len(done), refunded)
	}
	// A fresh instance sees what the survivor sees.
	checkerStore, err := postgres.Open(dsn, postgres.Options{Instance: "checker"})
	must(t, err)
	checker := market.New(checkerStore, market.Config{Clock: clock})
	must(t, checker.BindMainThread())
	must(t, checker.Enable())
	defer checker.Close()
	checkInvariants(t, checker, initial, "a fresh instance")
	for _, p := range players {
		a, err := survivor.GetPlayer(p.ID)
		must(t, err)
		b, err := checker.GetPlayer(p.ID)
		must(t, err)
		if playerSummary(a) != playerSummary(b) {
			t.Fatalf("player %s: the survivor has\n%s\nthe store\n%s", p.Name, playerSummary(a), playerSummary(b))
		}
	}
	t.Logf("%d kills; the survivor took over %d unfinished purchases; %d purchases completed", cycles, tookOver, len(done))
}

// TestNetworkSurvivesAServerRestart stops PostgreSQL for a second while one
// instance buys and another follows. Purchases while it is away are refused
// at once (the follower's broken connection tells the writer to check its
// own) and change nothing; one in flight at the moment it goes would wait
// for it to learn whether it was saved. The instances resume when the
// server is back; nothing is lost or applied twice, and the follower ends
// equal to the store.
func TestNetworkSurvivesAServerRestart(t *testing.T) {
	dsn := pgtest.Database(t)
	np := seedNetwork(t, dsn, 4, 4, 300)
	type followerResult struct {
		states  map[uuid.UUID]string
		version uint64
		err     error
	}
	stop, result := make(chan uint64), make(chan followerResult)
	started := make(chan error)
	go func() {
		st, err := postgres.Open(dsn, postgres.Options{Instance: "follower"})
		if err != nil {
			started <- err
			return
		}
		svc := market.New(st, market.Config{Clock: market.NewManualClock(t0)})
		svc.BindMainThread()
		if err := svc.Enable(); err != nil {
			started <- err
			return
		}
		defer svc.Close()
		started <- nil
		var want uint64
		for want == 0 || svc.Version() < want {
			select {
			case want = <-stop:
			case <-time.After(5 * time.Millisecond):
			}
			svc.Follow() // failures while the server is away are expected
		}
		res := followerResult{version: svc.Version(), states: map[uuid.UUID]string{}}
		for _, p := range append(slices.Clone(np.sellers), np.buyers...) {
			ps, err := svc.GetPlayer(p.ID)
			if err != nil {
				res.err = err
				break
			}
			res.states[p.ID] = playerSummary(ps)
		}
		result <- res
	}()
	must(t, <-started)

	st, err := postgres.Open(dsn, postgres.Options{Instance: "buyer"})
	must(t, err)
	svc := market.New(st, market.Config{Clock: market.NewManualClock(t0)})
	must(t, svc.BindMainThread())
	must(t, svc.Enable())
	defer svc.Close()
	restarted := make(chan struct{})
	refused, longest := 0, time.Duration(0)
	for i, id := range np.listings {
		if i == 100 {
			go func() { pgtest.Restart(t, time.Second); close(restarted) }()
			waitServerDown(t, dsn) // the next purchases meet it stopped
			for range 20 {
				svc.Follow() // the main loop ticks on meanwhile
				time.Sleep(10 * time.Millisecond)
			}
		}
		for attempt := 0; ; attempt++ {
			svc.Follow() // as a main loop does each tick
			start := time.Now()
			_, err := svc.Buy(np.buyers[i%len(np.buyers)], id)
			longest = max(longest, time.Since(start))
			if err == nil || errors.Is(err, market.ErrUnknownListing) && attempt > 0 {
				break // bought (a retry after a commit that did happen finds it sold)
			}
			if !errors.Is(err, market.ErrStore) || attempt > 500 {
				t.Fatalf("buy #%d, attempt %d: %v", id, attempt+1, err)
			}
			refused++
			time.Sleep(20 * time.Millisecond)
		}
	}
	<-restarted
	if refused == 0 || longest > 2*time.Second {
		t.Fatalf("%d purchases refused while the server was away, the longest took %s: refused at once is what the test wants", refused, longest)
	}
	rows := logRows(t, st)
	stop <- rows[len(rows)-1].Seq
	fr := <-result
	must(t, fr.err)
	a := mustAudit(t, svc)
	if len(a.Problems) > 0 || a.Money != np.money || a.Listings != 0 || a.OpenTx != 0 {
		// Say where memory and the store part.
		st2, err := postgres.Open(dsn, postgres.Options{Instance: "checker"})
		must(t, err)
		checker := market.New(st2, market.Config{Clock: market.NewManualClock(t0)})
		must(t, checker.BindMainThread())
		must(t, checker.Enable())
		defer checker.Close()
		for _, p := range append(slices.Clone(np.sellers), np.buyers...) {
			mem, _ := svc.GetPlayer(p.ID)
			stored, _ := checker.GetPlayer(p.ID)
			if mem.Balance != stored.Balance {
				t.Errorf("%s: memory %.2f, the store %.2f", p.Name, mem.Balance, stored.Balance)
			}
		}
		fm, _ := svc.FeeBalance()
		fs, _ := checker.FeeBalance()
		t.Fatalf("after the restart: money %d (want %d), %d listings, %d open, problems %v; fees %.2f in memory, %.2f stored",
			a.Money, np.money, a.Listings, a.OpenTx, a.Problems, fm, fs)
	}
	done, err := svc.GetCompletedTransactions()
	must(t, err)
	if len(done) != len(np.listings) {
		t.Fatalf("%d purchases completed, want %d", len(done), len(np.listings))
	}
	for id, s := range fr.states {
		ps, err := svc.GetPlayer(id)
		must(t, err)
		if want := playerSummary(ps); s != want {
			t.Fatalf("the follower sees player %s as\n%s\nthe buyer as\n%s", id, s, want)
		}
	}
	t.Logf("%d attempts refused while the server was away; the longest purchase took %s", refused, longest.Round(time.Millisecond))
}

// TestNetworkRetentionKeepsWhatAnInstanceHasNotDelivered: one instance's
// retention never deletes entries another instance has not delivered yet.
func TestNetworkRetentionKeepsWhatAnInstanceHasNotDelivered(t *testing.T) {
	dsn := pgtest.Database(t)
	np := seedNetwork(t, dsn, 2, 2, 40)
	idle, err := postgres.Open(dsn, postgres.Options{Instance: "idle"}) // joined, then delivers nothing
	must(t, err)
	defer idle.Close()
	st, err := postgres.Open(dsn, postgres.Options{Instance: "busy"})
	must(t, err)
	svc := market.New(st, market.Config{Clock: market.NewManualClock(t0), EventRetention: market.EventRetention{MaxCount: 5}})
	must(t, svc.BindMainThread())
	must(t, svc.Enable())
	defer svc.Close()
	for i, id := range np.listings {
		_, err := svc.Buy(np.buyers[i%2], id)
		must(t, err)
	}
	if _, err := svc.TrimEventLog(); err != nil {
		t.Fatal(err)
	}
	if rows := logRows(t, st); len(rows) == 0 || rows[0].Seq != 1 {
		t.Fatalf("the log starts at %d: entries the idle instance has not delivered were trimmed", rows[0].Seq)
	}
	// Once the idle instance is gone for good, its row lets go.
	must(t, idle.Close())
	db, err := pgx.Connect(context.Background(), dsn)
	must(t, err)
	defer db.Close(context.Background())
	_, err = db.Exec(context.Background(), "DELETE FROM rynek_instances WHERE name = 'idle'")
	must(t, err)
	if _, err := svc.TrimEventLog(); err != nil {
		t.Fatal(err)
	}
	if rows := logRows(t, st); rows[0].Seq == 1 {
		t.Fatal("nothing trimmed once no instance needs the entries")
	}
}

// waitServerDown returns once a connection to dsn's server is refused.
func waitServerDown(t *testing.T, dsn string) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		c, err := pgx.Connect(ctx, dsn)
		cancel()
		if err != nil {
			return
		}
		c.Close(context.Background())
	}
	t.Fatal("the server did not stop")
}

// waitDisconnected waits until no connection of instance is left on the
// server (each is named after its instance).
func waitDisconnected(t *testing.T, dsn, instance string) {
	t.Helper()
	ctx := context.Background()
	c, err := pgx.Connect(ctx, dsn)
	must(t, err)
	defer c.Close(ctx)
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(5 * time.Millisecond) {
		var n int
		must(t, c.QueryRow(ctx, `SELECT count(*) FROM pg_stat_activity WHERE application_name = $1`, "rynek:"+instance).Scan(&n))
		if n == 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d connections of %s still open", n, instance)
		}
	}
}

// failingStore is a shared store whose commits can be made to fail: the
// failAt-th commit from now fails without writing anything.
type failingStore struct {
	*postgres.Store
	failAt int
}

func (f *failingStore) Commit(b *market.Batch) error {
	if f.failAt > 0 {
		if f.failAt--; f.failAt == 0 {
			return errors.New("injected store failure")
		}
	}
	return f.Store.Commit(b)
}

// TestNetworkDutyRunsTheTimersOnce: of the instances on one market, only the
// one holding the network's duty runs the expiry timer and takes over the
// purchases other instances left unfinished; when it goes, the duty passes
// to another.
func TestNetworkDutyRunsTheTimersOnce(t *testing.T) {
	defer market.SetTakeOverEvery(0)()
	dsn := pgtest.Database(t)
	np := seedNetwork(t, dsn, 2, 2, 20)
	open := func(name string, wrap func(*postgres.Store) market.Store) (*market.Service, *postgres.Store, *market.ManualClock) {
		st, err := postgres.Open(dsn, postgres.Options{Instance: name})
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
	c, _, _ := open("c", func(st *postgres.Store) market.Store { failing.Store = st; return failing })
	defer c.Close()
	must(t, c.ArmFailure(market.StateSellerPaid))
	failing.failAt = 2 // the steps commit, the compensation does not
	if _, err := c.Buy(np.buyers[0], np.listings[0]); err == nil {
		t.Fatal("the armed purchase succeeded")
	}
	failing.Store.Close() // the instance dies without recovering it
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
	for deadline := time.Now().Add(10 * time.Second); mustAudit(t, b).Issued != want; time.Sleep(5 * time.Millisecond) {
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

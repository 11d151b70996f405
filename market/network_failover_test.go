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
	"syscall"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/rynek/rynek/internal/pgtest"
	"github.com/rynek/rynek/market"
	"github.com/rynek/rynek/market/postgres"
)

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
	defer market.SetTrimEvery(0)() // each trim asks the store, not once in 10 s
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

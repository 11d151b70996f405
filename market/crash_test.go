package market_test

import (
	"bufio"
	"encoding/json"
	"fmt"
	"maps"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/rynek/rynek/internal/pgtest"
	"github.com/rynek/rynek/market"
)

// The crash test runs the random workload in a child process (this test
// binary, re-executed) and SIGKILLs it, again and again on the same
// database: at a random moment, or (every other cycle) from inside the child
// between a commit and its listeners. Every process of the run, the parent's
// reopenings included, appends each event its listeners get to one file.
// After every kill the parent reopens the store, lets recovery finish
// interrupted purchases, and checks: money and items conserved, no stack in
// two places, no transaction left unfinished, no listing id reused, the event
// log without gaps, every delivered event the log's entry with that seq
// (seqs never reused), and every COMPLETED transaction's
// TransactionCompletedEvent delivered at least once and under one seq only.
// Half the children commit behind their tick (Config.CommitBehind), so a
// kill also finds batches queued and a group in the store's hands.
// RYNEK_CRASH_CYCLES raises the number of kill points (default 30).

const crashEnv = "RYNEK_CRASH_CHILD"

type crashSetup struct {
	Store   string // newStoreSpec
	Events  string // the file every process appends its delivered events to
	Players []market.Player
	Seed    uint64
	Start   time.Time
	// KillAtDelivery, when above zero, makes the child kill itself just
	// before its KillAtDelivery-th event reaches the listeners.
	KillAtDelivery int
	// Instance names the child in a network market (PostgreSQL).
	Instance string
	// Behind makes the child commit behind its tick (Config.CommitBehind),
	// taking the outcomes after every step: a kill then finds batches
	// queued or in the committer's hands.
	Behind bool
}

// recordEvents appends each event delivered by svc to the file at path:
// seq, kind and what it is about, one line each, one write each (a write
// survives SIGKILL).
func recordEvents(t testing.TB, svc *market.Service, path string) func() {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	must(t, err)
	unsubscribe := svc.Subscribe(func(e market.Event) {
		if _, err := f.WriteString(deliveredLine(e) + "\n"); err != nil {
			panic(err)
		}
	})
	return func() { unsubscribe(); f.Close() }
}

func deliveredLine(e market.Event) string {
	switch e := e.(type) {
	case market.TransactionCompletedEvent:
		return fmt.Sprintf("%d %s %s", e.Seq(), e.EventName(), e.Transaction().ID)
	case market.ListingCreatedEvent:
		return fmt.Sprintf("%d %s #%d", e.Seq(), e.EventName(), e.Listing().ID)
	case market.ListingRemovedEvent:
		return fmt.Sprintf("%d %s #%d", e.Seq(), e.EventName(), e.Listing().ID)
	}
	return fmt.Sprintf("%d %s", e.Seq(), e.EventName())
}

// TestCrashChild is the child's body; it does nothing in a normal run.
func TestCrashChild(t *testing.T) {
	spec := os.Getenv(crashEnv)
	if spec == "" {
		t.Skip("runs only as the crash test's child process")
	}
	var cs crashSetup
	must(t, json.Unmarshal([]byte(spec), &cs))
	st, err := reopenAfterKill(cs.Store, cs.Instance) // the killed instance of the same name may still hold it
	must(t, err)
	clock := market.NewManualClock(cs.Start)
	svc := market.New(st, market.Config{Clock: clock, ListingCooldown: -1, ListingTTL: 72 * time.Hour, CommitBehind: cs.Behind})
	svc.BindMainThread()
	recordEvents(t, svc, cs.Events)
	deliveries := 0
	market.SetBeforeDelivery(svc, func(market.Event) {
		if deliveries++; deliveries == cs.KillAtDelivery {
			syscall.Kill(os.Getpid(), syscall.SIGKILL) // between the commit and its listeners
			select {}
		}
	})
	must(t, svc.Enable())
	fmt.Println("ready")
	wl := newWorkload(svc, cs.Players, clock, cs.Seed)
	for i := 0; ; i++ {
		if _, err := wl.step(); !acceptable(err) {
			fmt.Println("error:", err)
			os.Exit(3)
		}
		svc.Settle() // a tick: the outcomes so far
		if i%50 == 0 {
			fmt.Println("steps", i)
		}
	}
}

func TestCrashRecovery(t *testing.T) {
	cycles := 30
	if v := os.Getenv("RYNEK_CRASH_CYCLES"); v != "" {
		n, err := strconv.Atoi(v)
		must(t, err)
		cycles = n
	}
	if testing.Short() {
		cycles = 5
	}
	dir := t.TempDir()
	spec := pgtest.Store(t)
	st, err := openSpec(spec)
	must(t, err)
	b := newBulk(t, st)
	players := seedPlayers(t, b, 8, 42)
	must(t, b.Finish())
	svc := market.New(st, market.Config{Clock: market.NewManualClock(t0)})
	svc.BindMainThread()
	must(t, svc.Enable())
	initial := mustAudit(t, svc)
	svc.Close()

	rng := rand.New(rand.NewPCG(7, 7))
	exe, err := os.Executable()
	must(t, err)
	maxSeen := 0
	var killedMidPurchase int
	events := filepath.Join(dir, "delivered.txt")
	selfKills, redelivered, backlog := 0, 0, 0
	for c := 0; c < cycles; c++ {
		setup := crashSetup{Store: spec, Events: events, Players: players, Seed: uint64(c + 1), Start: t0.Add(time.Duration(c) * 24 * time.Hour),
			Behind: c%4 >= 2}
		if c%2 == 1 {
			setup.KillAtDelivery = 1 + rng.IntN(150)
		}
		child, _ := json.Marshal(setup)
		cmd := exec.Command(exe, "-test.run=^TestCrashChild$", "-test.count=1")
		cmd.Env = append(os.Environ(), crashEnv+"="+string(child))
		out, err := cmd.StdoutPipe()
		must(t, err)
		cmd.Stderr = os.Stderr
		must(t, cmd.Start())
		sc := bufio.NewScanner(out)
		ready := make(chan bool, 1)
		go func() {
			ok := false
			for sc.Scan() {
				line := sc.Text()
				if line == "ready" && !ok {
					ok = true
					ready <- true
				}
				if strings.HasPrefix(line, "error:") {
					t.Errorf("child: %s", line)
				}
			}
			if !ok {
				ready <- false
			}
		}()
		if !<-ready {
			cmd.Wait()
			t.Fatalf("cycle %d: child did not start", c)
		}
		if setup.KillAtDelivery == 0 {
			time.Sleep(time.Duration(5+rng.IntN(120)) * time.Millisecond)
			must(t, cmd.Process.Signal(syscall.SIGKILL))
		} else {
			// The child kills itself; a child too slow to reach its kill
			// point in time is killed from outside.
			timer := time.AfterFunc(20*time.Second, func() { cmd.Process.Signal(syscall.SIGKILL) })
			err = cmd.Wait()
			timer.Stop()
			selfKills++
		}
		if setup.KillAtDelivery == 0 {
			err = cmd.Wait()
		}
		if ws, ok := cmd.ProcessState.Sys().(syscall.WaitStatus); !ok || !ws.Signaled() {
			t.Fatalf("cycle %d: child ended on its own: %v", c, err)
		}

		// Reopen, recover, check.
		st, err := reopenAfterKill(spec, "")
		must(t, err)
		svc := market.New(st, market.Config{Clock: market.NewManualClock(t0.Add(time.Duration(c)*24*time.Hour + time.Hour))})
		svc.BindMainThread()
		var recovered int
		committed := uint64(len(logRows(t, st)))
		svc.Subscribe(func(e market.Event) {
			if e.Seq() <= committed {
				backlog++ // committed by the killed child, delivered here
			} else if _, ok := e.(market.TransactionCompletedEvent); ok {
				recovered++
			}
		})
		stopRecording := recordEvents(t, svc, events)
		if err := svc.Enable(); err != nil {
			t.Fatalf("cycle %d: recovery failed: %v", c, err)
		}
		killedMidPurchase += recovered
		redelivered = checkDeliveries(t, svc, st, events, fmt.Sprintf("cycle %d", c))
		a := checkInvariants(t, svc, initial, fmt.Sprintf("cycle %d", c))
		if a.OpenTx != 0 {
			t.Fatalf("cycle %d: %d transactions still open after recovery", c, a.OpenTx)
		}
		// No id reused: a new listing gets an id above every id ever seen.
		ls, err := svc.GetListings()
		must(t, err)
		done, err := svc.GetCompletedTransactions()
		must(t, err)
		var ids []int
		for _, l := range ls {
			ids = append(ids, l.ID)
		}
		for _, tx := range done {
			ids = append(ids, tx.ListingID)
		}
		maxSeen = max(maxSeen, maxInt(ids))
		if l, ok := sellAny(svc, players); ok && l.ID <= maxSeen {
			t.Fatalf("cycle %d: new listing got id %d, but ids up to %d were used", c, l.ID, maxSeen)
		} else if ok {
			maxSeen = l.ID
			checkInvariants(t, svc, initial, "post-crash sell")
		}
		stopRecording()
		svc.Close()
	}
	t.Logf("%d kill points (%d between a commit and its listeners); %d events delivered at the next start, %d of them again; %d purchases completed by recovery; highest listing id %d",
		cycles, selfKills, backlog, redelivered, killedMidPurchase, maxSeen)
	if selfKills > 4 && backlog == 0 {
		t.Fatal("no kill between a commit and its listeners left an event to deliver at the next start: the test no longer reaches that window")
	}
}

// reopenAfterKill opens the killed child's market as instance. PostgreSQL
// releases the child's lock of the instance's name when it notices the
// connection is gone, which can take a moment after the kill.
func reopenAfterKill(spec, instance string) (market.Store, error) {
	deadline := time.Now().Add(10 * time.Second)
	for {
		st, err := openSpecAs(spec, instance)
		if err == nil || !strings.Contains(err.Error(), "another Rynek instance") || time.Now().After(deadline) {
			return st, err
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// checkDeliveries compares the file of delivered events with the log and the
// market: the log has no gaps; every delivered line is the log's entry with
// that seq, so no seq named two events; every COMPLETED transaction's
// completion was delivered, and under one seq. It returns how many
// deliveries repeated an earlier one (after a crash).
func checkDeliveries(t *testing.T, svc *market.Service, st market.Store, path, where string) int {
	t.Helper()
	rows := logRows(t, st)
	checkLogGapFree(t, rows, 1)
	data, err := os.ReadFile(path)
	must(t, err)
	bySeq := map[uint64]string{}
	completions := map[string]map[uint64]bool{}
	repeats := 0
	for _, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		if line == "" {
			continue
		}
		f := strings.Fields(line)
		seq, err := strconv.ParseUint(f[0], 10, 64)
		must(t, err)
		if prev, ok := bySeq[seq]; ok {
			if prev != line {
				t.Fatalf("%s: seq %d was delivered as %q and as %q", where, seq, prev, line)
			}
			repeats++
		}
		bySeq[seq] = line
		if seq == 0 || seq > uint64(len(rows)) {
			t.Fatalf("%s: delivered seq %d, the log has %d entries", where, seq, len(rows))
		}
		if got := string(rows[seq-1].Kind); got != f[1] {
			t.Fatalf("%s: delivered %q, but the log's entry %d is a %s", where, line, seq, got)
		}
		if f[1] == string(market.KindTransactionCompleted) {
			if completions[f[2]] == nil {
				completions[f[2]] = map[uint64]bool{}
			}
			completions[f[2]][seq] = true
		}
	}
	for after := uint64(0); ; {
		page, err := svc.EventsSince(after, market.MaxEventsPage)
		must(t, err)
		for _, e := range page.Events {
			if line := deliveredLine(e); bySeq[e.Seq()] != line {
				t.Fatalf("%s: the log's event %q was delivered as %q", where, line, bySeq[e.Seq()])
			}
		}
		if page.Through == page.Head {
			break
		}
		after = page.Through
	}
	must(t, svc.WaitHistory())
	done, err := svc.GetCompletedTransactions()
	must(t, err)
	for _, tx := range done {
		if n := len(completions[tx.ID]); n != 1 {
			t.Fatalf("%s: COMPLETED transaction %s had its TransactionCompletedEvent delivered under %d seqs", where, tx.ID, n)
		}
	}
	refunded := countRefunded(svc, maps.Keys(completions))
	if len(completions) != len(done)+refunded {
		t.Fatalf("%s: %d completions delivered, %d transactions COMPLETED and %d refunded", where, len(completions), len(done), refunded)
	}
	return repeats
}

// sellAny lists the first stack any player has, for a cheap price.
func sellAny(svc *market.Service, players []market.Player) (market.Listing, bool) {
	for _, p := range players {
		st, err := svc.GetPlayer(p.ID)
		if err != nil {
			continue
		}
		for _, s := range st.Inventory {
			if s == nil || s.ID == uuid.Nil {
				continue
			}
			if l, err := svc.SellItem(p, *s, 1); err == nil {
				return l, true
			}
		}
	}
	return market.Listing{}, false
}

package market_test

import (
	"bufio"
	"encoding/json"
	"fmt"
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
	"github.com/rynek/rynek/market"
	"github.com/rynek/rynek/market/sqlite"
)

// The crash test runs the random workload in a child process (this test
// binary, re-executed) and SIGKILLs it at a random moment, again and again
// on the same database. After every kill it reopens the store, lets recovery
// finish interrupted purchases, and checks: money and items conserved, no
// stack in two places, no transaction left unfinished, and no listing id
// reused. RYNEK_CRASH_CYCLES raises the number of kill points (default 30).

const crashEnv = "RYNEK_CRASH_CHILD"

type crashSetup struct {
	Path    string
	Players []market.Player
	Seed    uint64
	Start   time.Time
}

// TestCrashChild is the child's body; it does nothing in a normal run.
func TestCrashChild(t *testing.T) {
	spec := os.Getenv(crashEnv)
	if spec == "" {
		t.Skip("runs only as the crash test's child process")
	}
	var cs crashSetup
	must(t, json.Unmarshal([]byte(spec), &cs))
	st, err := sqlite.Open(cs.Path, sqlite.Options{})
	must(t, err)
	clock := market.NewManualClock(cs.Start)
	svc := market.New(st, market.Config{Clock: clock, ListingCooldown: -1, ListingTTL: 72 * time.Hour})
	svc.BindMainThread()
	must(t, svc.Enable())
	fmt.Println("ready")
	wl := newWorkload(svc, cs.Players, clock, cs.Seed)
	for i := 0; ; i++ {
		if _, err := wl.step(); !acceptable(err) {
			fmt.Println("error:", err)
			os.Exit(3)
		}
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
	path := filepath.Join(dir, "crash.db")
	st, err := sqlite.Open(path, sqlite.Options{})
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
	for c := 0; c < cycles; c++ {
		spec, _ := json.Marshal(crashSetup{Path: path, Players: players, Seed: uint64(c + 1), Start: t0.Add(time.Duration(c) * 24 * time.Hour)})
		cmd := exec.Command(exe, "-test.run=^TestCrashChild$", "-test.count=1")
		cmd.Env = append(os.Environ(), crashEnv+"="+string(spec))
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
		time.Sleep(time.Duration(5+rng.IntN(120)) * time.Millisecond)
		must(t, cmd.Process.Signal(syscall.SIGKILL))
		err = cmd.Wait()
		if ws, ok := cmd.ProcessState.Sys().(syscall.WaitStatus); !ok || !ws.Signaled() {
			t.Fatalf("cycle %d: child ended on its own: %v", c, err)
		}

		// Reopen, recover, check.
		st, err := sqlite.Open(path, sqlite.Options{})
		must(t, err)
		svc := market.New(st, market.Config{Clock: market.NewManualClock(t0.Add(time.Duration(c)*24*time.Hour + time.Hour))})
		svc.BindMainThread()
		var recovered int
		svc.Subscribe(func(e market.Event) {
			if _, ok := e.(market.TransactionCompletedEvent); ok {
				recovered++
			}
		})
		if err := svc.Enable(); err != nil {
			t.Fatalf("cycle %d: recovery failed: %v", c, err)
		}
		killedMidPurchase += recovered
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
		svc.Close()
	}
	t.Logf("%d kill points; %d purchases completed by recovery; highest listing id %d", cycles, killedMidPurchase, maxSeen)
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

package market_test

import (
	"bufio"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/rynek/rynek/internal/pgtest"
	"github.com/rynek/rynek/internal/tmpfs"
	"github.com/rynek/rynek/market"
	"github.com/rynek/rynek/market/sqlite"
	"github.com/rynek/rynek/seed"
)

// The bulk-kill tests run a data load in a child process (this test binary,
// re-executed) and SIGKILL it at a random point: while it generates and
// writes its chunks, or while it commits. Then the parent opens the market
// and checks that it is as it was before the load (empty, or the market a
// merge went into) or has all of the load, and that it opens: never a
// market holding listings of players it does not have.

const bulkKillEnv = "RYNEK_BULK_KILL_CHILD"

// bulkKillListings is a seed's size, and bulkKillMerged a merge's: more
// than a chunk of a load (50,000 rows; the seed's history adds more), so
// that chunks reach the store long before the end.
const (
	bulkKillListings = 60_000
	bulkKillMerged   = 120_000
)

type bulkKillSetup struct {
	Store string // newStoreSpec
	Merge bool   // merge into the market (else seed an empty one)
}

// TestBulkKillChild is the child's body; it does nothing in a normal run.
// It prints "progress N" (N of 100) as the load goes, and "done" after
// Finish.
func TestBulkKillChild(t *testing.T) {
	spec := os.Getenv(bulkKillEnv)
	if spec == "" {
		t.Skip("runs only as the bulk-kill tests' child process")
	}
	var s bulkKillSetup
	must(t, json.Unmarshal([]byte(spec), &s))
	st, err := openSpec(s.Store)
	must(t, err)
	if s.Merge {
		mergeGenerated(t, st, func(pct int) { fmt.Printf("progress %d\n", pct) })
	} else {
		_, err = seed.Load(st, seed.Options{Listings: bulkKillListings, Now: t0,
			Progress: func(done, total int) { fmt.Printf("progress %d\n", done*100/total) }})
		must(t, err)
	}
	fmt.Println("done")
	st.Close()
}

// mergeGenerated merges 200 new players with bulkKillMerged listings
// into st, telling progress each percent of the listings.
func mergeGenerated(t *testing.T, st market.Store, progress func(pct int)) {
	k, err := market.NewMerge(st)
	must(t, err)
	var sellers []uuid.UUID
	for i := range 200 {
		p := market.Player{ID: uuid.NewSHA1(uuid.NameSpaceOID, []byte{byte(i), byte(i >> 8)}), Name: fmt.Sprintf("Kupiec%d", i)}
		must(t, k.AddPlayer(p, 1000_00))
		must(t, k.SetSlot(p.ID, 0, market.ItemStack{Material: "BREAD", Amount: 16}))
		sellers = append(sellers, p.ID)
	}
	for i := range bulkKillMerged {
		_, err := k.AddListing(sellers[i%len(sellers)], market.ItemStack{Material: "OAK_LOG", Amount: 1 + i%64},
			market.Money(100+i), t0, t0.Add(72*time.Hour))
		must(t, err)
		if (i+1)%(bulkKillMerged/100) == 0 {
			progress((i + 1) * 100 / bulkKillMerged)
		}
	}
	must(t, k.Finish())
}

func TestKilledSeedLeavesAnEmptyOrACompleteMarket(t *testing.T) {
	testKilledBulkLoads(t, false)
}

func TestKilledMergeLeavesTheMarketAsItWasOrComplete(t *testing.T) {
	testKilledBulkLoads(t, true)
}

// testKilledBulkLoads kills a seed or merge child at kill points spread
// over the load, each in its own stretch of the progress, the last at its
// commit.
func testKilledBulkLoads(t *testing.T, merge bool) {
	cycles := 6
	if testing.Short() {
		cycles = 3
	}
	rng := rand.New(rand.NewPCG(11, 17))
	exe, err := os.Executable()
	must(t, err)
	outcomes := map[string]int{}
	for c := range cycles {
		spec := pgtest.Store(t)
		var before *market.StoreContents
		if merge {
			st, err := openSpec(spec)
			must(t, err)
			_, err = seed.Load(st, seed.Options{Players: 20, Listings: 300, Now: t0})
			must(t, err)
			before, err = market.ReadStore(st)
			must(t, err)
			must(t, st.Close())
		}
		// The kill point: a percentage of the load in this cycle's
		// stretch, and a few milliseconds more (past 99 %: the commit).
		at := c*100/cycles + rng.IntN(100/cycles)
		extra := time.Duration(rng.IntN(150)) * time.Millisecond
		setup, _ := json.Marshal(bulkKillSetup{Store: spec, Merge: merge})
		cmd := exec.Command(exe, "-test.run=^TestBulkKillChild$", "-test.count=1")
		cmd.Env = append(os.Environ(), bulkKillEnv+"="+string(setup))
		out, err := cmd.StdoutPipe()
		must(t, err)
		cmd.Stderr = os.Stderr
		must(t, cmd.Start())
		reached := make(chan bool, 1)
		go func() {
			sc := bufio.NewScanner(out)
			sent := false
			for sc.Scan() {
				pct, err := strconv.Atoi(strings.TrimPrefix(sc.Text(), "progress "))
				if !sent && (err == nil && pct >= at || sc.Text() == "done") {
					sent = true
					reached <- true
				}
			}
			if !sent {
				reached <- false
			}
		}()
		if <-reached {
			time.Sleep(extra)
			cmd.Process.Signal(syscall.SIGKILL)
		}
		cmd.Wait()
		killed := false
		if ws, ok := cmd.ProcessState.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			killed = true
		}

		st, err := reopenAfterKill(spec, "")
		must(t, err)
		after, err := market.ReadStore(st)
		if err != nil {
			t.Fatalf("cycle %d (killed at %d%% + %s): the market cannot be read: %v", c, at, extra, err)
		}
		base, size := 0, bulkKillListings
		if merge {
			base, size = len(before.Listings), bulkKillMerged
		}
		outcome := ""
		switch {
		case !merge && len(after.Players)+len(after.Listings)+len(after.Transactions) == 0:
			outcome = "empty"
			// An empty market is seeded again from scratch, as a start does.
			k, err := market.NewBulk(st)
			if err != nil {
				t.Fatalf("cycle %d: the empty market left by the kill refuses a new load: %v", c, err)
			}
			must(t, k.Abort())
		case merge && reflect.DeepEqual(before, after):
			outcome = "as before"
		case len(after.Listings) == base+size:
			outcome = "complete"
		default:
			t.Fatalf("cycle %d (killed at %d%% + %s): the market holds %d players and %d listings: neither as it was (%d listings) nor complete (%d)",
				c, at, extra, len(after.Players), len(after.Listings), base, base+size)
		}
		outcomes[outcome]++
		// And it opens.
		svc := market.New(st, market.Config{Clock: market.NewManualClock(t0.Add(time.Hour))})
		must(t, svc.BindMainThread())
		if err := svc.Enable(); err != nil {
			t.Fatalf("cycle %d: the market left %s does not open: %v", c, outcome, err)
		}
		must(t, svc.Close())
		t.Logf("cycle %d: killed at %d%% + %s (killed: %v): %s", c, at, extra, killed, outcome)
	}
	if outcomes["complete"] == cycles {
		t.Fatal("every load completed before its kill: the test no longer kills one half-way")
	}
}

// A seed that fills the disk (a real 12 MB tmpfs: room for its first chunk,
// not for all of it) fails with the store's error and leaves the market
// empty, not half-loaded: it opens, and a smaller seed then goes in.
func TestASeedOnAFullDiskLeavesAnEmptyMarket(t *testing.T) {
	sqliteOnly(t)
	path := filepath.Join(tmpfs.Mount(t, 12<<20, false), "m.db")
	st, err := sqlite.Open(path, sqlite.Options{})
	must(t, err)
	_, err = seed.Load(st, seed.Options{Listings: 60_000, Now: t0})
	if err == nil || !strings.Contains(err.Error(), "database or disk is full") {
		t.Fatalf("a seed of 60,000 listings into 12 MB: %v", err)
	}
	must(t, st.Close())
	st, err = sqlite.Open(path, sqlite.Options{})
	must(t, err)
	defer st.Close()
	c, err := market.ReadStore(st)
	if err != nil {
		t.Fatalf("the market after the failed seed cannot be read: %v", err)
	}
	if len(c.Players)+len(c.Listings)+len(c.Transactions) != 0 {
		t.Fatalf("the failed seed left %d players, %d listings, %d transactions", len(c.Players), len(c.Listings), len(c.Transactions))
	}
	if _, err := seed.Load(st, seed.Options{Players: 10, Listings: 100, Days: 1, Now: t0}); err != nil {
		t.Fatalf("a small seed after the failed one: %v", err)
	}
	svc := market.New(st, market.Config{Clock: market.NewManualClock(t0)})
	must(t, svc.BindMainThread())
	must(t, svc.Enable())
	if n, _ := svc.GetActiveListingsCount(); n != 100 {
		t.Fatalf("%d listings after the small seed", n)
	}
}

package market_test

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/rynek/rynek/market"
	"github.com/rynek/rynek/market/sqlite"
)

// Backups taken while mutations run are consistent copies: each opens,
// recovers what was in flight and passes the audit.
func TestBackupWhileMutationsRun(t *testing.T) {
	sqliteOnly(t)
	dir := t.TempDir()
	path := filepath.Join(dir, "live.db")
	st, err := sqlite.Open(path, sqlite.Options{})
	must(t, err)
	b := newBulk(t, st)
	players := seedPlayers(t, b, 6, 11)
	must(t, b.Finish())
	clock := market.NewManualClock(t0)
	svc := market.New(st, market.Config{Clock: clock, ListingCooldown: -1})
	svc.BindMainThread()
	must(t, svc.Enable())
	defer svc.Close()
	initial := mustAudit(t, svc)

	var wg sync.WaitGroup
	var copies []string
	var finished atomic.Int32 // len(copies), for the workload to read
	var ended atomic.Bool     // the backups have stopped (on an error)
	var backupErr error
	stop := make(chan struct{})
	wg.Add(1)
	go func() {
		defer wg.Done()
		defer ended.Store(true)
		for i := 0; ; i++ {
			select {
			case <-stop:
				return
			default:
			}
			dest := filepath.Join(dir, fmt.Sprintf("copy-%d.db", i))
			backup := st.Backup
			if i%2 == 1 {
				backup = func(dest string) error { return sqlite.BackupFile(path, dest) } // as `rynek backup` does
			}
			if err := backup(dest); err != nil {
				backupErr = err
				return
			}
			copies = append(copies, dest)
			finished.Add(1)
		}
	}()
	// The workload goes on until both kinds of backup have each finished
	// at least once while it ran, however slow the machine makes them:
	// 600 operations at least, and as many more as that takes.
	wl := newWorkload(svc, players, clock, 5)
	ops := 0
	for ; ops < 600 || finished.Load() < 2 && !ended.Load(); ops++ {
		if _, err := wl.step(); !acceptable(err) {
			t.Fatal(err)
		}
	}
	close(stop)
	wg.Wait()
	must(t, backupErr)
	if len(copies) < 2 {
		t.Fatalf("only %d backups finished while the workload ran", len(copies))
	}
	for _, c := range copies {
		cst, err := sqlite.Open(c, sqlite.Options{})
		must(t, err)
		fi, err := os.Stat(c)
		must(t, err)
		if fi.Mode().Perm() != 0o600 {
			t.Fatalf("%s has mode %v, want 0600", c, fi.Mode().Perm())
		}
		csvc := market.New(cst, market.Config{Clock: market.NewManualClock(clock.Now())})
		csvc.BindMainThread()
		must(t, csvc.Enable())
		a := checkInvariants(t, csvc, initial, c)
		if a.OpenTx != 0 {
			t.Fatalf("%s: %d purchases left open after recovery", c, a.OpenTx)
		}
		checkLogGapFree(t, logRows(t, cst), 1)
		csvc.Close()
	}
	t.Logf("%d consistent backups during %d operations", len(copies), ops)
}

func TestBackupRefusesAnExistingFile(t *testing.T) {
	sqliteOnly(t)
	w := newWorld(t)
	dest := filepath.Join(t.TempDir(), "taken.db")
	must(t, os.WriteFile(dest, []byte("precious"), 0o600))
	err := w.store.(*sqlite.Store).Backup(dest)
	if err == nil || !strings.Contains(err.Error(), "the file exists; choose a new name") {
		t.Fatalf("backup over an existing file: %v", err)
	}
	if b, _ := os.ReadFile(dest); string(b) != "precious" {
		t.Fatal("the existing file was overwritten")
	}
	none := filepath.Join(t.TempDir(), "none.db")
	err = sqlite.BackupFile(none, filepath.Join(t.TempDir(), "x.db"))
	if !errors.Is(err, fs.ErrNotExist) || err.Error() != "no market at "+none+": file does not exist" {
		t.Fatalf("backup of a missing market: %v", err)
	}
	entries, _ := os.ReadDir(filepath.Dir(dest))
	if len(entries) != 1 {
		t.Fatalf("a failed backup left files behind: %v", entries)
	}
}

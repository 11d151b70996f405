package main

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/rynek/rynek/market/sqlite"
	"github.com/rynek/rynek/seed"
)

// bigMarket makes a market of 150,000 listings (about 55 MB): its copy
// takes long enough to be caught half-way.
func bigMarket(t *testing.T, dir string) string {
	t.Helper()
	db := filepath.Join(dir, "market.db")
	st, err := sqlite.Open(db, sqlite.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := seed.Load(st, seed.Options{Listings: 150_000, Days: 1}); err != nil {
		t.Fatal(err)
	}
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}
	return db
}

// startBackup runs `rynek backup` of db to dest in a child process and
// returns it stopped (SIGSTOP) half-way, with the path of its partial copy:
// the partial has data in it and dest is not there. A backup that got to
// its end before the stop took hold is removed and run again, so that the
// machine's pace decides how many tries it takes, never what is tested.
func startBackup(t *testing.T, db, dest string) (*exec.Cmd, string) {
	t.Helper()
	for {
		cmd := command("backup", "--db", db, dest)
		cmd.Stderr = os.Stderr
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		partial := ""
		for partial == "" && processState(cmd.Process.Pid) != 'Z' {
			time.Sleep(time.Millisecond)
			matches, _ := filepath.Glob(dest + ".partial-*")
			for _, m := range matches {
				if fi, err := os.Stat(m); err == nil && !strings.HasSuffix(m, "-journal") && fi.Size() > 0 {
					partial = m
				}
			}
		}
		if partial != "" {
			cmd.Process.Signal(syscall.SIGSTOP)
			for s := processState(cmd.Process.Pid); s != 'T' && s != 'Z'; s = processState(cmd.Process.Pid) {
				time.Sleep(time.Millisecond)
			}
			if _, err := os.Stat(partial); err == nil && processState(cmd.Process.Pid) == 'T' {
				if _, err := os.Lstat(dest); errors.Is(err, os.ErrNotExist) {
					// A test that fails leaves no stopped child.
					t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
					return cmd, partial
				}
			}
			cmd.Process.Kill()
		}
		err := cmd.Wait()
		if _, serr := os.Lstat(dest); serr != nil {
			t.Fatalf("the backup ended before it could be stopped half-way, without a copy: %v", err)
		}
		t.Logf("the backup finished before it could be stopped half-way; once more")
		for _, p := range append([]string{dest}, mustGlob(t, dest+".partial-*")...) {
			os.Remove(p)
		}
	}
}

// processState is pid's state letter in /proc (R running, S sleeping, T
// stopped, Z ended and not yet waited for), or 0 when there is none.
func processState(pid int) byte {
	stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0
	}
	i := bytes.LastIndexByte(stat, ')') // the command's name may hold anything
	if i < 0 || i+2 >= len(stat) {
		return 0
	}
	return stat[i+2]
}

func mustGlob(t *testing.T, pattern string) []string {
	t.Helper()
	m, err := filepath.Glob(pattern)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// TestAKilledBackupLeavesNothingReadable: `rynek backup` SIGKILLed half-way
// (stopped there first, so that it cannot finish before the kill)
// leaves its partial copy readable by its owner only, and the next backup
// into that directory removes it and its journal.
func TestAKilledBackupLeavesNothingReadable(t *testing.T) {
	dir := t.TempDir()
	db := bigMarket(t, dir)
	backups := filepath.Join(dir, "backups")
	if err := os.Mkdir(backups, 0o755); err != nil {
		t.Fatal(err)
	}
	cmd, partial := startBackup(t, db, filepath.Join(backups, "monday.db"))
	cmd.Process.Signal(syscall.SIGKILL)
	cmd.Wait()
	left, _ := filepath.Glob(filepath.Join(backups, "monday.db.partial-*"))
	if len(left) == 0 {
		t.Fatal("the kill came after the backup had finished: nothing to check")
	}
	for _, p := range left {
		fi, err := os.Stat(p)
		if err != nil {
			t.Fatal(err)
		}
		if fi.Mode().Perm() != 0o600 {
			t.Errorf("%s, left by the killed backup, has mode %v: others can read the market's copy", filepath.Base(p), fi.Mode().Perm())
		}
	}
	var out, errb bytes.Buffer
	if code := run([]string{"backup", "--db", db, filepath.Join(backups, "tuesday.db")}, &out, &errb); code != 0 {
		t.Fatalf("the next backup: exit %d: %s", code, errb.String())
	}
	entries, _ := os.ReadDir(backups)
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	if strings.Join(names, " ") != "tuesday.db" {
		t.Fatalf("after the next backup the directory holds %v, want only tuesday.db (the killed backup's %s and its journal removed)", names, filepath.Base(partial))
	}
}

// TestABackupLeavesAnotherRunningBackupAlone: the clean-up of one backup
// does not touch the partial copy of another that is still running
// (here stopped half-way with SIGSTOP), which then finishes.
func TestABackupLeavesAnotherRunningBackupAlone(t *testing.T) {
	dir := t.TempDir()
	db := bigMarket(t, dir)
	first := filepath.Join(dir, "first.db")
	cmd, partial := startBackup(t, db, first)
	var out, errb bytes.Buffer
	code := run([]string{"backup", "--db", db, filepath.Join(dir, "second.db")}, &out, &errb)
	_, statErr := os.Stat(partial)
	cmd.Process.Signal(syscall.SIGCONT)
	if err := cmd.Wait(); err != nil {
		t.Fatalf("the first backup, stopped while the second ran: %v", err)
	}
	if code != 0 {
		t.Fatalf("the second backup: exit %d: %s", code, errb.String())
	}
	if statErr != nil {
		t.Fatalf("the second backup removed the running one's partial copy: %v", statErr)
	}
	for _, p := range []string{first, filepath.Join(dir, "second.db")} {
		st, err := sqlite.Open(p, sqlite.Options{})
		if err != nil {
			t.Fatalf("%s does not open: %v", p, err)
		}
		st.Close()
	}
}

// TestBackupWhileTheMarketIsOpen: `rynek backup` copies a market that
// another process has open (its console or server holds the file's lock),
// as its help says, and the copy checks sound.
func TestBackupWhileTheMarketIsOpen(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "market.db")
	demoMarket(t, db, 30)
	st, err := sqlite.Open(db, sqlite.Options{}) // another process's console, as far as the file knows
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	dest := filepath.Join(dir, "copy.db")
	var out, errb bytes.Buffer
	if code := run([]string{"backup", "--db", db, dest}, &out, &errb); code != 0 ||
		!strings.HasPrefix(out.String(), "backed up "+db+" to "+dest+" (") {
		t.Fatalf("backup of an open market: exit %d: %s%s", code, out.String(), errb.String())
	}
	if code, out, errs := check(t, "--db", dest); code != 0 {
		t.Fatalf("the copy: exit %d:\n%s%s", code, out, errs)
	}
}

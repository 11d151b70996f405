// Package tmpfs gives tests a real small filesystem: a tmpfs of a given
// size mounted on a temporary directory, so that a test can fill the disk
// under a market for real, or mount it read-only, and watch what the
// program does. It is unmounted when the test ends, or, by a watchdog
// process, when the test binary ends without its cleanup (a panic, a
// -timeout, SIGKILL).
//
// Mounting needs root (CAP_SYS_ADMIN). Where it cannot mount, a test
// skips with a message saying why; with RYNEK_REQUIRE_MOUNT=1 (CI sets it)
// it fails instead, so that a machine that cannot mount never passes such a
// test silently.
package tmpfs

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"syscall"
	"testing"
)

// Mount mounts a tmpfs of size bytes (read-only with readOnly) on a new
// temporary directory and returns the directory.
func Mount(t testing.TB, size int64, readOnly bool) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "tmpfs")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	// The watchdog unmounts it if this process ends without its cleanup
	// (a panic, -timeout, SIGKILL): a mount would outlive the process.
	w, err := watch(dir)
	if err != nil {
		t.Fatal(err)
	}
	var flags uintptr
	if readOnly {
		flags = syscall.MS_RDONLY
	}
	if err := syscall.Mount("tmpfs", dir, "tmpfs", flags, fmt.Sprintf("size=%d,mode=0755", size)); err != nil {
		w.end()
		if os.Getenv("RYNEK_REQUIRE_MOUNT") == "1" {
			t.Fatalf("mounting a tmpfs is required (RYNEK_REQUIRE_MOUNT=1) but failed: %v", err)
		}
		t.Skipf("SKIPPED: this test needs a real small filesystem, and mounting a tmpfs failed: %v (run as root)", err)
	}
	// Registered after TempDir's cleanup, so it runs before it.
	t.Cleanup(func() {
		if err := syscall.Unmount(dir, syscall.MNT_DETACH); err != nil {
			t.Errorf("unmount the test's tmpfs %s: %v", dir, err)
		}
		w.end()
	})
	return dir
}

// watchdog is the process that unmounts a tmpfs once its standard input, a
// pipe only this process holds open, ends: at the test's cleanup, or at
// this process's death of any kind.
type watchdog struct {
	cmd  *exec.Cmd
	pipe *os.File // the write end
}

// watch starts dir's watchdog, in a process group of its own so that an
// interrupt typed at the terminal does not end it with the tests.
func watch(dir string) (*watchdog, error) {
	r, pw, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	cmd := exec.Command("sh", "-c", `cat >/dev/null; umount -l "$1" 2>/dev/null; true`, "rynek-tmpfs-watchdog", dir)
	cmd.Stdin = r
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		r.Close()
		pw.Close()
		return nil, fmt.Errorf("start the tmpfs's watchdog: %w", err)
	}
	r.Close()
	watchdogsMu.Lock()
	watchdogs[dir] = cmd.Process.Pid
	watchdogsMu.Unlock()
	return &watchdog{cmd: cmd, pipe: pw}, nil
}

// watchdogs are the watchdogs' pids by directory, for the tests of them.
var (
	watchdogsMu sync.Mutex
	watchdogs   = map[string]int{}
)

// end has the watchdog unmount dir if it is still mounted, and waits for it.
func (w *watchdog) end() {
	w.pipe.Close()
	w.cmd.Wait()
}

// Fill writes a file of zeros into dir until the filesystem has no room
// left, and returns the file's path: removing it gives the room back.
func Fill(t testing.TB, dir string) string {
	t.Helper()
	path := filepath.Join(dir, "filler")
	f, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_EXCL, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	block := make([]byte, 64<<10)
	for {
		if _, err := f.Write(block); err != nil {
			if len(block) == 1 {
				return path // ENOSPC down to the last byte
			}
			block = block[:len(block)/2]
		}
	}
}

// Entries lists what dir holds, recursively, as paths relative to it.
func Entries(t testing.TB, dir string) []string {
	t.Helper()
	var out []string
	err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if p != dir {
			rel, _ := filepath.Rel(dir, p)
			out = append(out, rel)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

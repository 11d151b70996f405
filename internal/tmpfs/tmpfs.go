// Package tmpfs gives tests a real small filesystem: a tmpfs of a given
// size mounted on a temporary directory, so that a test can fill the disk
// under a market for real, or mount it read-only, and watch what the
// program does. It is unmounted when the test ends.
//
// Mounting needs root (CAP_SYS_ADMIN). Where it cannot mount, a test
// skips with a message saying why; with RYNEK_REQUIRE_MOUNT=1 (CI sets it)
// it fails instead, so that a machine that cannot mount never passes such a
// test silently.
package tmpfs

import (
	"fmt"
	"os"
	"path/filepath"
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
	var flags uintptr
	if readOnly {
		flags = syscall.MS_RDONLY
	}
	if err := syscall.Mount("tmpfs", dir, "tmpfs", flags, fmt.Sprintf("size=%d,mode=0755", size)); err != nil {
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
	})
	return dir
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

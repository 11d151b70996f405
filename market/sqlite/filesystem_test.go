//go:build linux

package sqlite_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/hanwen/go-fuse/v2/fs"
	"github.com/hanwen/go-fuse/v2/fuse"
	"github.com/rynek/rynek/market/sqlite"
)

// TestRefusesAMarketOnANetworkFilesystem mounts a real FUSE filesystem (a
// loopback of a temporary folder, as rclone, sshfs, mergerfs or a desktop
// container's bind mount are FUSE) and opens a market in it: refused with
// the reason, and nothing created on either side of the mount.
func TestRefusesAMarketOnANetworkFilesystem(t *testing.T) {
	under := t.TempDir()
	mnt := filepath.Join(t.TempDir(), "share")
	if err := os.Mkdir(mnt, 0o755); err != nil {
		t.Fatal(err)
	}
	root, err := fs.NewLoopbackRoot(under)
	if err != nil {
		t.Fatal(err)
	}
	server, err := fs.Mount(mnt, root, &fs.Options{MountOptions: fuse.MountOptions{DirectMount: true, FsName: "rynek-test"}})
	if err != nil {
		if os.Getenv("RYNEK_REQUIRE_MOUNT") == "1" {
			t.Fatalf("mounting a FUSE filesystem is required (RYNEK_REQUIRE_MOUNT=1) but failed: %v", err)
		}
		t.Skipf("SKIPPED: this test needs a FUSE mount, and mounting one failed: %v (run as root, with /dev/fuse)", err)
	}
	t.Cleanup(func() {
		if err := server.Unmount(); err != nil {
			t.Errorf("unmount the test's FUSE filesystem %s: %v", mnt, err)
		}
	})

	path := filepath.Join(mnt, "m.db")
	st, err := sqlite.Open(path, sqlite.Options{})
	if err == nil {
		st.Close()
		t.Fatal("a market on a FUSE mount was opened; want it refused")
	}
	want := path + " is on a network filesystem (FUSE), where SQLite's locks and shared index do not hold across processes, " +
		"so two of them could damage it: put the market on a local disk, or share a market over a network with PostgreSQL (--db postgres://…)"
	if err.Error() != want {
		t.Fatalf("refusal:\n got %q\nwant %q", err, want)
	}
	for _, dir := range []string{mnt, under} {
		entries, err := os.ReadDir(dir)
		if err != nil {
			t.Fatal(err)
		}
		if len(entries) != 0 {
			t.Errorf("the refused open left %d files in %s (%s…)", len(entries), dir, entries[0].Name())
		}
	}

	// The same folder, reached without the mount, is a local disk.
	st, err = sqlite.Open(filepath.Join(under, "m.db"), sqlite.Options{})
	if err != nil {
		t.Fatalf("the same market on the local disk: %v", err)
	}
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}
}

package readonly

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// mount bind-mounts src read-only on a new folder and returns that folder,
// unmounted when the test ends.
func mount(t testing.TB, src string) string {
	t.Helper()
	dst := filepath.Join(filepath.Dir(src), "mounted")
	if err := os.Mkdir(dst, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mount(src, dst, "", syscall.MS_BIND, ""); err != nil {
		t.Skipf("SKIPPED: root here cannot bind-mount (%v), so there is no read-only media to test on", err)
	}
	t.Cleanup(func() { syscall.Unmount(dst, syscall.MNT_DETACH) })
	if err := syscall.Mount("", dst, "", syscall.MS_BIND|syscall.MS_REMOUNT|syscall.MS_RDONLY, ""); err != nil {
		t.Skipf("SKIPPED: root here cannot make a bind mount read-only (%v)", err)
	}
	return dst
}

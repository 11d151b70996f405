// Package readonly gives tests read-only media: a folder whose files no one
// may write, as a mounted snapshot or a read-only disk is.
package readonly

import (
	"os"
	"path/filepath"
	"testing"
)

// Folder copies the files of dir into a new folder and returns the copy,
// made read-only for the rest of the test: a read-only bind mount when the
// test runs as root (whom permissions do not stop), else the folder's and
// its files' write permissions taken away. It skips the test, saying why,
// when it can do neither.
func Folder(t testing.TB, dir string) string {
	t.Helper()
	src := filepath.Join(t.TempDir(), "media")
	if err := os.Mkdir(src, 0o755); err != nil {
		t.Fatal(err)
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if !e.Type().IsRegular() {
			continue
		}
		b, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(src, e.Name()), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if os.Geteuid() == 0 {
		return mount(t, src)
	}
	for _, e := range entries {
		if e.Type().IsRegular() {
			os.Chmod(filepath.Join(src, e.Name()), 0o444)
		}
	}
	os.Chmod(src, 0o555)
	t.Cleanup(func() { os.Chmod(src, 0o755) }) // so that the test's cleanup can remove it
	if f, err := os.Create(filepath.Join(src, "probe")); err == nil {
		f.Close()
		t.Skip("SKIPPED: this user may write a folder without write permission, and cannot mount it read-only")
	}
	return src
}

//go:build !unix

package sqlite

import "os"

// lockFile keeps no lock where flock does not exist: SQLite's own locking
// still keeps two writers from interleaving a transaction, but a second
// process is not refused up front.
func lockFile(path string) (*os.File, error) { return nil, nil }

// readAloneLock keeps no lock where flock does not exist.
func readAloneLock(path string) (*os.File, error) { return nil, nil }

// writable reports whether this process may write path: it tries to open
// it for writing (a folder counts as writable).
func writable(path string) bool {
	if fi, err := os.Stat(path); err == nil && fi.IsDir() {
		return true
	}
	f, err := os.OpenFile(path, os.O_WRONLY, 0)
	if err != nil {
		return false
	}
	f.Close()
	return true
}

// tryLock takes no lock where flock does not exist, and reports that it
// did not: a partial copy of a backup is then never taken for a killed
// one's.
func tryLock(f *os.File) (bool, error) { return false, nil }

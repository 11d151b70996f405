//go:build unix

package sqlite

import (
	"errors"
	"fmt"
	"os"
	"syscall"
)

// lockFile takes an exclusive flock on the database file, so that a second
// process opening the same market is refused at once instead of racing the
// first one's writes.
//
// flock is independent of the fcntl locks SQLite takes on the same file.
// The descriptor stays open until the store is closed, after SQLite's own:
// closing any descriptor of a file drops the process's fcntl locks on it,
// which SQLite would not expect while it runs.
func lockFile(path string) (*os.File, error) {
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		return nil, fmt.Errorf("open %s: %w", path, err)
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		f.Close()
		if errors.Is(err, syscall.EWOULDBLOCK) {
			return nil, fmt.Errorf("open %s: another process has this market open; close it first", path)
		}
		return nil, fmt.Errorf("lock %s: %w", path, err)
	}
	return f, nil
}

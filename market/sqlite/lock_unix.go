//go:build unix

package sqlite

import (
	"errors"
	"fmt"
	"os"
	"syscall"
)

// lockFile takes a flock on the database file for an instance: a shared
// one where instances can join (instance_linux.go), so that a reader that
// must be alone (readAloneLock) is refused while any instance has the file
// open and keeps them out while it reads; an exclusive one elsewhere, so
// that a second process is refused at once instead of racing the first.
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
	how := syscall.LOCK_EX
	if joinable {
		how = syscall.LOCK_SH
	}
	if err := syscall.Flock(int(f.Fd()), how|syscall.LOCK_NB); err != nil {
		f.Close()
		if errors.Is(err, syscall.EWOULDBLOCK) && joinable {
			return nil, fmt.Errorf("open %s: another process reads this market alone (a check or an export of a file on read-only media); try again when it ends", path)
		}
		if errors.Is(err, syscall.EWOULDBLOCK) {
			return nil, fmt.Errorf("open %s: another process has this market open; close it first", path)
		}
		return nil, fmt.Errorf("lock %s: %w", path, err)
	}
	return f, nil
}

// readAloneLock takes an exclusive flock on the database file for a reader
// that must know no Rynek process writes it meanwhile: Open's flock is
// refused while it is held, and it is refused while a process has the
// market open. flock needs no write permission, so it works on read-only
// media.
func readAloneLock(path string) (*os.File, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("open %s: %w", path, err)
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		f.Close()
		if errors.Is(err, syscall.EWOULDBLOCK) {
			return nil, fmt.Errorf("read %s: another process has this market open, and its folder cannot hold the index SQLite reads it through", path)
		}
		return nil, fmt.Errorf("lock %s: %w", path, err)
	}
	return f, nil
}

// writable reports whether this process may write path: false for read-
// only media, or a file or folder without write permission for it.
func writable(path string) bool { return syscall.Access(path, 2 /* W_OK */) == nil }

// tryLock takes an exclusive flock on f if no one holds one, without
// waiting, and reports whether it did. A backup holds one on its partial
// copy while it writes it, so that a lock no one holds marks a partial copy
// whose backup was killed.
func tryLock(f *os.File) (bool, error) {
	err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
	if errors.Is(err, syscall.EWOULDBLOCK) {
		return false, nil
	}
	return err == nil, err
}

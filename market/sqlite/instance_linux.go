package sqlite

import (
	"os"

	"golang.org/x/sys/unix"
)

// joinable: a market file other processes have open is joined here, as
// another instance of it.
const joinable = true

// lockRange takes an open-file-description lock on one byte of f without
// waiting, and reports whether it did. Such a lock belongs to the
// descriptor, not the process, so two stores in one process (the tests')
// are two holders, as two processes are; it goes when the descriptor is
// closed or the process dies.
func lockRange(f *os.File, off int64) (bool, error) {
	lk := unix.Flock_t{Type: unix.F_WRLCK, Whence: 0, Start: off, Len: 1}
	err := unix.FcntlFlock(f.Fd(), unix.F_OFD_SETLK, &lk)
	if err == unix.EAGAIN || err == unix.EACCES {
		return false, nil
	}
	return err == nil, err
}

// rangeHeld reports whether another descriptor holds the byte's lock.
func rangeHeld(f *os.File, off int64) (bool, error) {
	lk := unix.Flock_t{Type: unix.F_WRLCK, Whence: 0, Start: off, Len: 1}
	if err := unix.FcntlFlock(f.Fd(), unix.F_OFD_GETLK, &lk); err != nil {
		return false, err
	}
	return lk.Type != unix.F_UNLCK, nil
}

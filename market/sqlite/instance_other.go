//go:build !linux

package sqlite

import "os"

// joinable: a market file other processes have open is refused here;
// lockFile keeps it one process's.
const joinable = false

// lockRange takes no lock where open-file-description locks do not exist:
// the file is then one process's alone (lockFile), which always holds the
// duty and sees no other instance.
func lockRange(f *os.File, off int64) (bool, error) { return true, nil }

// rangeHeld sees no other holder where lockRange takes no lock.
func rangeHeld(f *os.File, off int64) (bool, error) { return false, nil }

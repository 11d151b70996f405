//go:build linux

package market

import (
	"time"

	"golang.org/x/sys/unix"
)

// threadCPU is the calling thread's CPU time, user and system; on the
// bound main thread, the main loop's (bindThread locks it to its thread).
// A clock the kernel refuses reads as absent.
func threadCPU() (time.Duration, bool) {
	var ts unix.Timespec
	if err := unix.ClockGettime(unix.CLOCK_THREAD_CPUTIME_ID, &ts); err != nil {
		return 0, false
	}
	return time.Duration(ts.Nano()), true
}

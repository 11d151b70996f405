//go:build linux

package headless

import (
	"time"

	"golang.org/x/sys/unix"
)

// threadCPU is the calling OS thread's CPU time so far, when want is set
// (0 otherwise: reading the clock is a system call, paid only for an
// observer). The loop runs on the main thread, locked to its OS thread
// (market.Service.BindMainThread), so the difference of two readings is
// the loop's own CPU time between them.
func threadCPU(want bool) time.Duration {
	if !want {
		return 0
	}
	var ts unix.Timespec
	if err := unix.ClockGettime(unix.CLOCK_THREAD_CPUTIME_ID, &ts); err != nil {
		return 0
	}
	return time.Duration(ts.Nano())
}

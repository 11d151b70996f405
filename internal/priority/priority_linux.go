//go:build linux

package priority

import (
	"fmt"
	"unsafe"

	"golang.org/x/sys/unix"
)

// Policies and flags of sched_setscheduler(2).
const (
	schedOther       = 0
	schedFIFO        = 1
	schedResetOnFork = 0x40000000 // threads the thread makes start normal
)

// param is struct sched_param.
type param struct{ priority int32 }

// Raise puts the calling thread in the real-time class at the lowest
// priority (SCHED_FIFO 1). The calling goroutine must be locked to its
// thread (runtime.LockOSThread), and call Lower before it unlocks it: the
// priority belongs to the thread, which would otherwise carry it to other
// goroutines. Threads the runtime makes from it start normal (Go makes
// them from a thread of its own while one is locked, and the reset-on-fork
// flag says so besides). Without the right (CAP_SYS_NICE, or an
// RLIMIT_RTPRIO of at least 1) it returns the kernel's refusal and changes
// nothing.
func Raise() error {
	return set(schedFIFO|schedResetOnFork, 1)
}

// Lower puts the calling thread back in the normal class.
func Lower() error {
	return set(schedOther, 0)
}

// Raised reports whether the calling thread is in the real-time class.
func Raised() bool {
	policy, _, errno := unix.RawSyscall(unix.SYS_SCHED_GETSCHEDULER, 0, 0, 0)
	return errno == 0 && int(policy)&^schedResetOnFork == schedFIFO
}

func set(policy int, priority int32) error {
	p := param{priority: priority}
	_, _, errno := unix.RawSyscall(unix.SYS_SCHED_SETSCHEDULER, 0, uintptr(policy), uintptr(unsafe.Pointer(&p)))
	if errno != 0 {
		return fmt.Errorf("sched_setscheduler: %w", errno)
	}
	return nil
}

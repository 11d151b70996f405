// Package priority puts a game loop's thread in the kernel's real-time
// class, so that no other thread of the machine makes a tick wait for a
// processor.
//
// Why: on a 2-core machine whose processors were 80% idle, the serve loop's
// thread was preempted by other threads in one tick of three over 1 ms and
// waited 2.5-5 ms on a run queue each time (its thread's schedstat): most
// of the ticks over its 1 ms target. A thread of the lowest real-time
// priority runs as soon as it is ready, ahead of every normal thread, and
// the loop spends about 1% of a processor, so it takes nothing the rest of
// the machine needs; the kernel's real-time throttling still keeps 5% of
// every processor for normal threads should it ever spin.
package priority

import "errors"

// ErrUnsupported is Raise's error where the system has no real-time class
// the package knows.
var ErrUnsupported = errors.New("real-time priority is supported on Linux only")

// Hint says how to let a process raise its threads' priority, for an error
// of Raise.
const Hint = "run as root, or give the binary CAP_SYS_NICE (setcap cap_sys_nice+ep), or set LimitRTPRIO=1 in its systemd unit"

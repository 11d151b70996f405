//go:build linux

package market

import (
	"runtime"
	"syscall"
)

// bindThread wires the calling goroutine to its OS thread and returns the
// thread's id; currentThread returns the caller's thread id.
//
// Why this is correct: after runtime.LockOSThread the bound goroutine always
// runs on that thread and no other goroutine ever does, so "the caller runs on
// the bound thread" is exactly "the caller is the bound goroutine". Go has no
// public goroutine identity, and reading one from runtime.Stack costs 2-4 µs;
// gettid(2) costs about 0.1 µs (BenchmarkMainThreadCheck). The price is that
// the bound goroutine keeps its thread: fine for a server's main loop, which
// is what it models.
//
// Caveat: once the bound goroutine exits, the runtime destroys the locked
// thread and the kernel may give its id to a new thread; bind the new main
// goroutine before mutating again (a service with no main goroutine has no
// legitimate mutator).
func bindThread() int64 {
	runtime.LockOSThread()
	return int64(syscall.Gettid())
}

func currentThread() int64 { return int64(syscall.Gettid()) }

// unbindThread undoes bindThread on the bound goroutine.
func unbindThread() { runtime.UnlockOSThread() }

//go:build !linux

package market

import "time"

// threadCPU is absent outside Linux: the main goroutine is not locked to a
// thread there (thread_other.go), so no thread's clock is the main loop's.
func threadCPU() (time.Duration, bool) { return 0, false }

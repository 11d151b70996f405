//go:build !linux

package headless

import "time"

// threadCPU is 0 where the main thread's CPU time is not read: an
// observer gets the wall time alone.
func threadCPU(bool) time.Duration { return 0 }

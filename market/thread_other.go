//go:build !linux

package market

import "runtime"

// bindThread and currentThread identify the main thread on systems without
// gettid: by goroutine id, read from the first line of runtime.Stack
// ("goroutine <id> [...]"). Ids come from a monotonic counter and are never
// reused, so the comparison is exact; it costs about 2-4 µs, which is small
// next to a durable write but more than the Linux mechanism.
func bindThread() int64    { return goid() }
func currentThread() int64 { return goid() }
func unbindThread()        {}

func goid() int64 {
	var buf [64]byte
	n := runtime.Stack(buf[:], false)
	b := buf[:n]
	const prefix = "goroutine "
	if len(b) < len(prefix) {
		return 0
	}
	var id int64
	for _, c := range b[len(prefix):] {
		if c < '0' || c > '9' {
			break
		}
		id = id*10 + int64(c-'0')
	}
	return id
}

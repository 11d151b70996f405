package market

import "runtime"

// goid returns the calling goroutine's id.
//
// Why this mechanism: the contract requires mutations to be refused when they
// come from any goroutine other than the main server thread, and Go exposes no
// goroutine identity. The first line of runtime.Stack for the current
// goroutine is always "goroutine <id> [<status>]:", and the runtime assigns
// ids from a monotonic counter, so an id is never reused during the life of
// the process: comparing it with the bound id is exact, not heuristic. It
// costs well under a microsecond (BenchmarkGoid), far below a durable write,
// and needs no cooperation from callers (a context value or token could be
// passed to another goroutine by mistake; an id cannot).
func goid() uint64 {
	var buf [64]byte
	n := runtime.Stack(buf[:], false)
	b := buf[:n]
	const prefix = "goroutine "
	if len(b) < len(prefix) {
		return 0
	}
	b = b[len(prefix):]
	var id uint64
	for _, c := range b {
		if c < '0' || c > '9' {
			break
		}
		id = id*10 + uint64(c-'0')
	}
	return id
}

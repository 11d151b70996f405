package httpapi

import (
	"fmt"
	"net/http"
	"runtime/debug"
	"sync"
	"time"
)

// streamCount counts the open event streams, in all and per client, and
// refuses a stream past either cap: without one, a single client opened
// 15,000 streams (3,000 a minute fit the default rate limit) and the
// server's memory grew from 128 to 747 MiB.
//
// When a crowd of streams has left, it also asks the Go runtime to give
// their memory back to the system at once. The runtime would return it by
// itself, but slowly: 5,000 closed streams still held 100 of their 130 MiB
// two minutes later, which an operator reads as a leak.
type streamCount struct {
	mu        sync.Mutex
	max       int // streams open at once
	perClient int // streams of one client; 0: no cap
	open      int
	byClient  map[string]int
	peak      int       // the most open since memory was last given back
	freeing   bool      // a release is scheduled
	freed     time.Time // when memory was last given back
}

// retryAfterStreams is the Retry-After of a refused stream, in seconds.
const retryAfterStreams = 10

// Giving memory back: once at least freeAfter streams have closed and at
// most half of the peak is left, freeDelay later (so that one release
// serves a crowd leaving together), and at most once per freeEvery (a
// release is a full garbage collection).
const (
	freeAfter = 256
	freeDelay = time.Second
	freeEvery = 10 * time.Second
)

func newStreamCount(max, perClient int) *streamCount {
	return &streamCount{max: max, perClient: perClient, byClient: map[string]int{}}
}

// streams says n event streams in words: "1 event stream", "2 event streams".
func streams(n int) string {
	if n == 1 {
		return "1 event stream"
	}
	return fmt.Sprintf("%d event streams", n)
}

// enter counts a new stream of client, or refuses it with a 429 problem.
func (c *streamCount) enter(client string) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.open >= c.max {
		return &problemError{status: http.StatusTooManyRequests, code: CodeTooManyStreams,
			detail: fmt.Sprintf("the server has %s open, the most it serves; retry after the time in Retry-After", streams(c.open))}
	}
	n := c.byClient[client]
	if c.perClient > 0 && n >= c.perClient {
		return &problemError{status: http.StatusTooManyRequests, code: CodeTooManyStreams,
			detail: fmt.Sprintf("this client has %s open, the most one client may; close one, or retry after the time in Retry-After", streams(n))}
	}
	c.byClient[client] = n + 1
	c.open++
	c.peak = max(c.peak, c.open)
	return nil
}

// leave counts a stream of client closed.
func (c *streamCount) leave(client string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if n := c.byClient[client]; n > 1 {
		c.byClient[client] = n - 1
	} else {
		delete(c.byClient, client)
	}
	c.open--
	if c.freeing || c.peak-c.open < freeAfter || c.open > c.peak/2 {
		return
	}
	c.freeing = true
	wait := max(freeDelay, time.Until(c.freed.Add(freeEvery)))
	time.AfterFunc(wait, c.free)
}

// free gives the memory of the closed streams back to the system.
func (c *streamCount) free() {
	debug.FreeOSMemory()
	c.mu.Lock()
	defer c.mu.Unlock()
	c.peak, c.freeing, c.freed = c.open, false, time.Now()
}

// total is the number of open streams.
func (c *streamCount) total() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.open
}

// clients is the number of clients with a stream open.
func (c *streamCount) clients() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.byClient)
}

package httpapi

import (
	"sync"
	"time"
)

// Answers kept for reuse.
//
// Most requests ask what others asked a moment ago (the newest page, the
// stats, a popular item), and the market's version says exactly when such
// an answer goes stale: a read at version v gives the same bytes while the
// market is still at v and the clock has not reached the next listing
// expiry (Service.Horizon). So the encoded answer of each request target is
// kept with its version and reused until either moves, and requests that
// arrive while it is being read wait for that one read instead of repeating
// it. Nothing is kept as truth: an entry is only ever the answer of its
// version, and every other version reads the market again.

// storedAnswer is one request target's encoded answer.
type storedAnswer struct {
	version uint64
	until   time.Time     // zero: no expiry ahead
	body    []byte        // set once ready is closed; nil when the read failed
	ready   chan struct{} // closed when body is set
}

// fresh reports whether a is the answer at version at time now.
func (a *storedAnswer) fresh(version uint64, now time.Time) bool {
	return a.version == version && (a.until.IsZero() || now.Before(a.until))
}

// answerCacheSize bounds the request targets kept: a client sending endless
// distinct queries only ever costs the reads it asks for.
const answerCacheSize = 512

type answerCache struct {
	mu      sync.Mutex
	entries map[string]*storedAnswer
}

func newAnswerCache() *answerCache {
	return &answerCache{entries: make(map[string]*storedAnswer)}
}

// claim returns the answer to target at version, and whether the caller
// must read it: then it is the only reader of that answer and calls fill
// or drop on it; the others wait on ready.
func (c *answerCache) claim(target string, version uint64, until, now time.Time) (a *storedAnswer, reader bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if a := c.entries[target]; a != nil && a.fresh(version, now) {
		return a, false
	}
	if len(c.entries) >= answerCacheSize {
		for k, old := range c.entries {
			if !old.fresh(version, now) {
				delete(c.entries, k)
			}
		}
		if len(c.entries) >= answerCacheSize {
			clear(c.entries)
		}
	}
	a = &storedAnswer{version: version, until: until, ready: make(chan struct{})}
	c.entries[target] = a
	return a, true
}

// fill makes body a's answer, for every request waiting on it.
func (c *answerCache) fill(a *storedAnswer, body []byte) {
	a.body = body
	close(a.ready)
}

// drop gives up a's read (it failed, or read another version): the
// waiting requests read for themselves, and the target is read again.
func (c *answerCache) drop(target string, a *storedAnswer) {
	c.mu.Lock()
	if c.entries[target] == a {
		delete(c.entries, target)
	}
	c.mu.Unlock()
	close(a.ready)
}

package httpapi

import (
	"sync"
	"time"
)

// limiter is a token bucket per client: rate tokens a second, at most
// burst saved up. Buckets of clients idle long enough to be full again are
// dropped, so the table stays as small as the set of active clients.
type limiter struct {
	mu      sync.Mutex
	rate    float64
	burst   float64
	now     func() time.Time
	buckets map[string]*bucket
	swept   time.Time
}

type bucket struct {
	tokens float64
	at     time.Time
}

// maxClients bounds the table; past it, the idle buckets are swept.
const maxClients = 100_000

func newLimiter(rate float64, burst int, now func() time.Time) *limiter {
	return &limiter{rate: rate, burst: float64(burst), now: now, buckets: map[string]*bucket{}}
}

// allow takes a token of client's bucket; when there is none it says how
// long until there is.
func (l *limiter) allow(client string) (wait time.Duration, ok bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	now := l.now()
	if len(l.buckets) >= maxClients || now.Sub(l.swept) > time.Minute {
		l.sweep(now)
	}
	b := l.buckets[client]
	if b == nil {
		b = &bucket{tokens: l.burst, at: now}
		l.buckets[client] = b
	}
	b.tokens = min(l.burst, b.tokens+now.Sub(b.at).Seconds()*l.rate)
	b.at = now
	if b.tokens < 1 {
		return time.Duration((1 - b.tokens) / l.rate * float64(time.Second)), false
	}
	b.tokens--
	return 0, true
}

// sweep drops the buckets that have refilled.
func (l *limiter) sweep(now time.Time) {
	l.swept = now
	full := time.Duration(l.burst / l.rate * float64(time.Second))
	for k, b := range l.buckets {
		if now.Sub(b.at) >= full {
			delete(l.buckets, k)
		}
	}
}

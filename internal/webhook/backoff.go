package webhook

import (
	"math/rand/v2"
	"time"
)

// Backoff is how long delivery waits between tries of a delivery the
// receiver did not take: First after the first failure, doubling with each
// failure after it up to Max, each wait drawn at random from its upper half
// (jitter), so that endpoints that failed together, or servers that lost
// one receiver together, do not come back at the same instant.
type Backoff struct {
	First, Max time.Duration
}

// DefaultBackoff starts at a second and stops doubling at five minutes:
// a receiver down for an hour is tried about a dozen times an hour.
var DefaultBackoff = Backoff{First: time.Second, Max: 5 * time.Minute}

// Wait is the wait after the failure-th failure in a row (1 for the first).
func (b Backoff) Wait(failure int) time.Duration {
	if b.First <= 0 {
		b = DefaultBackoff
	}
	if b.Max < b.First {
		b.Max = b.First
	}
	d := b.First
	for i := 1; i < failure && d < b.Max; i++ {
		d *= 2
	}
	d = min(d, b.Max)
	return d/2 + rand.N(d/2+1)
}

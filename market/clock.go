package market

import (
	"sync"
	"time"
)

func unixMilli(ms int64) time.Time { return time.UnixMilli(ms).UTC() }

// Clock is the source of time. Expiry, cooldowns and timestamps use it so
// that tests and QA can move time.
type Clock interface {
	Now() time.Time
}

// SystemClock is the wall clock.
type SystemClock struct{}

// Now returns time.Now().
func (SystemClock) Now() time.Time { return time.Now() }

// ManualClock is a clock that moves only when told; safe for concurrent use.
// The console uses it (with an offset over the wall clock) to let QA advance
// time so that listings expire through the timer.
type ManualClock struct {
	mu     sync.Mutex
	base   time.Time // fixed time, or zero to follow the wall clock
	offset time.Duration
}

// NewManualClock returns a clock fixed at t.
func NewManualClock(t time.Time) *ManualClock { return &ManualClock{base: t} }

// NewOffsetClock returns a clock that follows the wall clock plus an offset
// that Advance increases.
func NewOffsetClock() *ManualClock { return &ManualClock{} }

// Now returns the clock's time.
func (c *ManualClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.base.IsZero() {
		return time.Now().Add(c.offset)
	}
	return c.base.Add(c.offset)
}

// Advance moves the clock forward by d.
func (c *ManualClock) Advance(d time.Duration) {
	c.mu.Lock()
	c.offset += d
	c.mu.Unlock()
}

// Offset returns how far the clock has been advanced.
func (c *ManualClock) Offset() time.Duration {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.offset
}

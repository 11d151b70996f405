package traffic

import "time"

// SetChangeBudget sets how long a Crowd's Step makes changes; it returns a
// function restoring the budget.
func SetChangeBudget(d time.Duration) (restore func()) {
	was := changeBudget
	changeBudget = d
	return func() { changeBudget = was }
}

// Waiting returns the changes c's turns wait on, oldest first, each as a
// value only to compare with another.
func (c *Crowd) Waiting() []any {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := make([]any, len(c.asked))
	for i, ch := range c.asked {
		out[i] = ch
	}
	return out
}

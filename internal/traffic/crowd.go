package traffic

import (
	"context"
	"errors"
	"runtime/pprof"
	"sync"
	"time"

	"github.com/rynek/rynek/market"
)

// Crowd runs the bots' turns off the main thread, as a game server's
// players act: each turn looks at the market from a goroutine of its own
// (the service's reads are safe from any) and hands each change it decides
// on to the main thread, which makes it at its next Step and hands the
// outcome back; the turn goes on from there. The main thread's tick then
// costs the changes alone: in the serve loop over a million listings the
// bots' own looking around (a random page, the newest offers of a kind,
// the player's inventory twice, their room for listings) was a third of
// the tick's CPU, and each read waited on the website's readers.
//
// A turn takes a tick for each change it makes, so many run at once, each
// as a player no other turn acts as (two turns selling the same stack
// would refuse one another): at most as many as there are players.
type Crowd struct {
	gen     *Generator
	svc     *market.Service
	players []market.Player
	claims  claims
	turns   sync.WaitGroup

	mu      sync.Mutex
	asked   []*change // the changes waiting for the main thread, in order
	ended   Result    // what the turns that ended since the last Step did
	running int       // turns started and not ended
	closed  bool
}

// change is a turn's change waiting for the main thread, and where its
// outcome goes.
type change struct {
	do      func() error
	outcome chan error
}

// changeBudget is how long a Step makes changes before it leaves the rest
// for the next (the first is always made): the turns' changes come in
// bunches, and a tick that made ten of them took three times the median's
// CPU. A variable only so that tests can make one a Step.
var changeBudget = 500 * time.Microsecond

// errStopped is the outcome of a change the crowd did not make: the loop
// stopped first. A turn that meets it ends, and it counts as nothing.
var errStopped = errors.New("the bots stopped")

// Crowd returns a crowd of g's bots acting as players on svc. Close it
// when the loop ends.
func (g *Generator) Crowd(svc *market.Service, players []market.Player) *Crowd {
	return &Crowd{gen: g, svc: svc, players: players}
}

// Step makes the changes the turns asked for since the last Step, in the
// order asked, until it has spent changeBudget or the clock has reached
// until (the tick's own deadline; the zero time: none), the first always;
// it starts rate a second over elapsed new turns (fractions carry over;
// none while every player is acting), and returns what the turns that
// ended since the last Step did. Main thread only.
func (c *Crowd) Step(rate float64, elapsed time.Duration, until time.Time) Result {
	start := time.Now()
	c.mu.Lock()
	asked := c.asked
	c.asked = nil
	c.mu.Unlock()
	made := 0
	for _, ch := range asked {
		if now := time.Now(); made > 0 && (now.Sub(start) >= changeBudget || !until.IsZero() && !now.Before(until)) {
			break
		}
		ch.outcome <- ch.do()
		made++
	}
	if made < len(asked) {
		c.mu.Lock()
		c.asked = append(asked[made:], c.asked...)
		c.mu.Unlock()
	}
	n := 0
	if len(c.players) >= MinPlayers {
		n = c.gen.due(rate, elapsed)
	}
	c.mu.Lock()
	n = min(n, len(c.players)-c.running)
	c.running += n
	r := c.ended
	c.ended = Result{}
	c.mu.Unlock()
	for range n {
		c.start()
	}
	return r
}

// start runs a turn on a goroutine of its own.
func (c *Crowd) start() {
	var r Result
	b := c.gen.newBot(c.svc, &r, c.ask, &c.claims)
	c.turns.Add(1)
	go func() {
		defer c.turns.Done()
		// In a CPU profile the turns carry loop=bots, apart from the main
		// thread's loop=main they would inherit.
		pprof.Do(context.Background(), pprof.Labels("loop", "bots"), func(context.Context) { c.gen.turn(b, c.players) })
		b.done()
		c.mu.Lock()
		c.ended.Add(r)
		c.running--
		c.mu.Unlock()
	}()
}

// ask hands do to the main thread and waits for its outcome.
func (c *Crowd) ask(do func() error) error {
	ch := &change{do: do, outcome: make(chan error, 1)}
	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		return errStopped
	}
	c.asked = append(c.asked, ch)
	c.mu.Unlock()
	return <-ch.outcome
}

// Close ends the turns in flight, their changes not made, waits for them
// to end, and returns what the turns that ended since the last Step did.
func (c *Crowd) Close() Result {
	c.mu.Lock()
	c.closed = true
	asked := c.asked
	c.asked = nil
	c.mu.Unlock()
	for _, ch := range asked {
		ch.outcome <- errStopped
	}
	c.turns.Wait()
	c.mu.Lock()
	defer c.mu.Unlock()
	r := c.ended
	c.ended = Result{}
	return r
}

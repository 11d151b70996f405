package traffic

import (
	"sync"
	"time"

	"github.com/google/uuid"
	"github.com/rynek/rynek/market"
)

// The claims of turns that run side by side (Crowd): what each acts as and
// on, so that two never refuse one another. A turn run alone (Step, One)
// holds none.

// pick is a random player to act as. Beside other turns (claims set) it
// is one no other turn acts as, among up to tries random players, and
// the turn acts as no other from then on (the one it picked before is let
// go); when all those are acting, the turn waits (ok false, recorded).
func (b *bot) pick(players []market.Player) (market.Player, bool) {
	if b.claims == nil {
		return players[b.rng.IntN(len(players))], true
	}
	b.claims.release(b.as)
	b.as = uuid.Nil
	for range tries {
		p := players[b.rng.IntN(len(players))]
		if b.claims.take(p.ID) {
			b.as = p.ID
			return p, true
		}
	}
	b.r.record(Waited, 0, nil)
	return market.Player{}, false
}

// The claims on a listing, on an order, and on a material: a new listing
// of a material may fill its buy orders, and an order placed at or above
// the cheapest listing buys listings, so a turn that lists, buys or trades
// with orders holds the material too.
type (
	listingClaim  int
	orderClaim    int
	materialClaim string
)

// always is a claim's check when nothing the turn saw can have changed.
func always() bool { return true }

// hold claims k for the rest of the turn, beside other turns, and then
// asks still whether what the turn saw before holds: another turn may
// have bought the listing or filled the order since. It reports whether
// the turn may go on (in a turn alone, always); when not, the turn waits.
func (b *bot) hold(k any, still func() bool) bool {
	if b.claims == nil {
		return true
	}
	if !b.claims.take(k) {
		b.r.record(Waited, 0, nil)
		return false
	}
	b.held = append(b.held, k)
	if !still() {
		b.r.record(Waited, 0, nil)
		return false
	}
	return true
}

// listed reports whether listing id is still on the market, for a while
// yet (lasts).
func (b *bot) listed(id int) func() bool {
	return func() bool { l, err := b.svc.GetListing(id); return err == nil && b.lasts(l) }
}

// lasts reports whether l is on the market for a minute more: a turn
// beside others makes its change a tick or more after it looked, and a
// player leaves alone what is about to expire.
func (b *bot) lasts(l market.Listing) bool {
	return l.ExpiresAt.After(b.svc.Now().Add(time.Minute))
}

// done ends the turn: its player, listings and orders are free for others.
func (b *bot) done() {
	if b.claims == nil {
		return
	}
	b.claims.release(b.as)
	for _, k := range b.held {
		b.claims.release(k)
	}
}

// claims are the players, listings and orders turns in flight act on.
type claims struct {
	mu   sync.Mutex
	busy map[any]bool
}

func (c *claims) take(k any) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.busy[k] {
		return false
	}
	if c.busy == nil {
		c.busy = map[any]bool{}
	}
	c.busy[k] = true
	return true
}

func (c *claims) release(k any) {
	if k == uuid.Nil {
		return
	}
	c.mu.Lock()
	delete(c.busy, k)
	c.mu.Unlock()
}

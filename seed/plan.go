package seed

import (
	"strconv"

	"github.com/rynek/rynek/market"
)

// plan says who sells each active listing, before anything is written, so
// that every player's listing limit can be given with the player: the
// market's limit, or a market.limit.<n> tier for a big seller, always with
// room for more.
type plan struct {
	sellerOf []int32 // the seller (player index) of each listing, in creation order
	count    []int   // each player's active listings
}

// newPlan deals the listings: one to every player when there are enough
// (so that each can take one back), the rest Zipf-like by g.sellers, in a
// shuffled order so that each player's listings spread over the week.
func newPlan(o Options, g *gen) *plan {
	r := newRand(o.Rand, streamSellers)
	p := &plan{sellerOf: make([]int32, o.Listings), count: make([]int, o.Players)}
	for i := range p.sellerOf {
		if o.Listings >= o.Players && i < o.Players {
			p.sellerOf[i] = int32(i)
		} else {
			p.sellerOf[i] = int32(g.sellers.pick(r))
		}
	}
	r.Shuffle(len(p.sellerOf), func(i, j int) { p.sellerOf[i], p.sellerOf[j] = p.sellerOf[j], p.sellerOf[i] })
	for _, s := range p.sellerOf {
		p.count[s]++
	}
	return p
}

// roomFor is the room a player with n listings keeps under their limit:
// a fifth more, at least three, so that they (and the bots acting as them)
// can sell at once.
func roomFor(n int) int { return max(3, (n+4)/5) }

// tierPermission is the market.limit.<n> permission a player with n
// listings needs under the market's limit, or "" when the limit leaves
// them room. Tiers are round numbers, as admins give them: 10, 25, 50,
// 100, 250, 500, 1000, …
func tierPermission(n, limit int) string {
	need := n + roomFor(n)
	if need <= limit {
		return ""
	}
	for scale := 1; ; scale *= 10 {
		for _, step := range []int{10, 25, 50} {
			if t := step * scale; t >= need {
				return market.PermListingLimit + strconv.Itoa(t)
			}
		}
	}
}

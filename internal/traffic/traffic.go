// Package traffic generates market traffic — sells, purchases and removals
// by random players, at a chosen rate — for demos and load tests: the
// console's QA bots and `rynek serve --bots`. It acts through the service's
// public operations on the main thread, like a game server's players.
package traffic

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"time"

	"github.com/rynek/rynek/market"
)

// MinPlayers is how many players traffic needs: a buyer and a seller.
const MinPlayers = 2

// Recruits is how many players Recruit adds to a market with fewer than
// MinPlayers, each with Balance and the starter kit.
const (
	Recruits = 6
	Balance  = 5000.0
)

// StarterKit is what a new player (one added from the console, or a
// recruit) brings, so that they can sell at once: a few common stacks and
// one enchanted tool.
func StarterKit() []market.ItemStack {
	return []market.ItemStack{
		{Material: "DIAMOND", Amount: 64},
		{Material: "OAK_LOG", Amount: 64},
		{Material: "IRON_INGOT", Amount: 32},
		{Material: "BREAD", Amount: 16},
		{Material: "DIAMOND_SWORD", Amount: 1, Enchantments: []market.Enchantment{{Key: "sharpness", Level: 3}}},
	}
}

// Recruit adds Recruits players named Bot_1, Bot_2, … (skipping names
// taken), as the game would when they join. Main thread only.
func Recruit(svc *market.Service) ([]market.Player, error) {
	var added []market.Player
	for n := 1; len(added) < Recruits && n <= 100*Recruits; n++ {
		p, err := svc.AddPlayer(market.NewPlayer{Name: fmt.Sprintf("Bot_%d", n), Balance: Balance, Items: StarterKit()})
		var me *market.Error
		switch {
		case errors.As(err, &me) && me.Code == market.CodePlayerExists:
			continue
		case err != nil:
			return added, err
		}
		added = append(added, p)
	}
	if len(added) == 0 {
		return nil, fmt.Errorf("the names Bot_1 to Bot_%d are all taken", 100*Recruits)
	}
	return added, nil
}

// Generator performs random actions: half sells (a random stack of the
// player's inventory near its base price, or a mailbox claim when the
// inventory is empty), a third purchases among the cheapest listings, the
// rest removals of the player's own listings.
type Generator struct {
	rng   *rand.Rand
	carry float64
}

// New returns a generator; the same seed gives the same choices.
func New(seed uint64) *Generator {
	return &Generator{rng: rand.New(rand.NewPCG(seed, 1))}
}

// Result counts a Step's actions.
type Result struct {
	OK, Refused int
	LastErr     error // the last refusal, if any
}

// Step performs rate actions a second over elapsed (fractions carry over
// to the next step) as random players of players. Main thread only.
func (g *Generator) Step(svc *market.Service, players []market.Player, rate float64, elapsed time.Duration) Result {
	var r Result
	if len(players) < MinPlayers {
		return r
	}
	g.carry += rate * elapsed.Seconds()
	n := int(g.carry)
	g.carry -= float64(n)
	for i := 0; i < n; i++ {
		if err := g.One(svc, players); err != nil {
			r.Refused++
			r.LastErr = err
		} else {
			r.OK++
		}
	}
	return r
}

// ErrNothingToBuy is a purchase that found no listing.
var ErrNothingToBuy = errors.New("no listing to buy")

// One performs one random action as a random player of players.
func (g *Generator) One(svc *market.Service, players []market.Player) error {
	p := players[g.rng.IntN(len(players))]
	switch r := g.rng.IntN(100); {
	case r < 50:
		st, err := svc.GetPlayer(p.ID)
		if err != nil {
			return err
		}
		var stacks []market.ItemStack
		for _, s := range st.Inventory {
			if s != nil {
				stacks = append(stacks, *s)
			}
		}
		if len(stacks) == 0 {
			_, err := svc.ClaimAll(p.ID)
			return err
		}
		s := stacks[g.rng.IntN(len(stacks))]
		price := 10.0
		if info, ok := market.LookupMaterial(s.Material); ok {
			price = float64(info.BasePrice) * float64(s.Amount) / 100 * (0.7 + 0.7*g.rng.Float64())
		}
		cfg := svc.Config()
		price = float64(int64(max(min(price, cfg.MaxPrice.Float()), cfg.MinPrice.Float())*100)) / 100
		_, err = svc.SellItem(p, s, price)
		return err
	case r < 85:
		// One of the 200 cheapest, or of all when there are fewer: in a
		// small market a pick among 200 would find nothing most times.
		active, err := svc.GetActiveListingsCount()
		if err != nil {
			return err
		}
		if active == 0 {
			return ErrNothingToBuy
		}
		page, err := svc.Query(market.Query{Sort: market.SortCheapest, Offset: g.rng.IntN(min(active, 200)), Limit: 1})
		if err != nil {
			return err
		}
		if len(page.Listings) == 0 {
			return ErrNothingToBuy
		}
		_, err = svc.Buy(p, page.Listings[0].ID)
		return err
	default:
		page, err := svc.Query(market.Query{Seller: p.ID, Limit: 1})
		if err != nil || len(page.Listings) == 0 {
			return err
		}
		return svc.RemoveListing(page.Listings[0].ID, p)
	}
}

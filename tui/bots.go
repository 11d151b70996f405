package tui

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"time"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"github.com/google/uuid"
	"github.com/rynek/rynek/market"
)

// bots generate traffic on the main thread: each tick they perform rate×tick
// random sells, purchases and removals as random players.
type bots struct {
	on      bool
	rate    int
	carry   float64
	rng     *rand.Rand
	players []market.Player
	ok, bad int
	lastErr error
	changed bool
}

// botsMinPlayers is how many players traffic needs: a buyer and a seller.
const botsMinPlayers = 2

// botRecruits is how many players the bots add to a market with fewer than
// botsMinPlayers, each with botBalance and the starter kit.
const (
	botRecruits = 6
	botBalance  = 5000.0
)

func newBots() bots {
	return bots{rate: 20, rng: rand.New(rand.NewPCG(uint64(time.Now().UnixNano()), 1))}
}

// recruit adds botRecruits players named Bot_1, Bot_2, … (skipping names
// taken) on the main thread, as the game would when they join.
func (b *bots) recruit(svc *market.Service) ([]market.Player, error) {
	var added []market.Player
	for n := 1; len(added) < botRecruits && n <= 100*botRecruits; n++ {
		p, err := svc.AddPlayer(market.NewPlayer{Name: fmt.Sprintf("Bot_%d", n), Balance: botBalance, Items: starterKit()})
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
		return nil, fmt.Errorf("the names Bot_1 to Bot_%d are all taken", 100*botRecruits)
	}
	return added, nil
}

// botKey starts, stops or paces the bots and says what it did and how to
// undo it.
func (m *Model) botKey(msg tea.KeyPressMsg) {
	b, k := &m.bots, m.keys
	switch {
	case key.Matches(msg, k.Bots) && !b.on:
		m.startBots()
	case key.Matches(msg, k.Bots):
		b.on = false
		text := fmt.Sprintf("traffic bots stopped after %s ok, %s refused (R starts them again)", count(b.ok), count(b.bad))
		if b.lastErr != nil {
			text += "; the last refusal: " + b.lastErr.Error() + codeSuffix(b.lastErr)
		}
		m.setStatus(statusMsg{text: text, qa: true})
	case key.Matches(msg, k.Faster):
		b.rate = min(b.rate*2, 5000)
		m.setStatus(statusMsg{text: fmt.Sprintf("bots: %d actions/s (- slows down)", b.rate), qa: true})
	case key.Matches(msg, k.Slower):
		b.rate = max(b.rate/2, 1)
		m.setStatus(statusMsg{text: fmt.Sprintf("bots: %d actions/s (+ speeds up)", b.rate), qa: true})
	}
}

// startBots starts the traffic as the market's players. A market with too
// few players for a sale gets players of the bots' own first; the console
// acts as the first of them if it had nobody to act as.
func (m *Model) startBots() {
	b, c := &m.bots, m.c
	ps, err := c.Svc.Players()
	if err != nil {
		m.fail(err)
		return
	}
	recruited := ""
	if len(ps) < botsMinPlayers {
		added, err := b.recruit(c.Svc)
		if err != nil {
			m.fail(fmt.Errorf("traffic bots could not add their players: %w", err))
			return
		}
		ps = append(ps, added...)
		m.changed = true
		recruited = fmt.Sprintf("the market had fewer than %d players, so the bots added %d (%s…%s, %s and a starter kit each); ",
			botsMinPlayers, len(added), playerName(added[0]), playerName(added[len(added)-1]), money(botBalance))
		if c.Actor.ID == uuid.Nil {
			c.Actor = added[0]
			recruited += "acting as " + playerName(added[0]) + "; "
		}
	}
	b.players, b.on = ps, true
	m.setStatus(statusMsg{text: fmt.Sprintf("%straffic bots started at %d actions/s as %d players (R stops them; +/- pace)",
		recruited, b.rate, len(ps)), qa: true})
}

func (b *bots) step(c *Common, tick time.Duration) {
	if !b.on || len(b.players) < botsMinPlayers {
		return
	}
	b.carry += float64(b.rate) * tick.Seconds()
	n := int(b.carry)
	b.carry -= float64(n)
	for i := 0; i < n; i++ {
		if err := b.one(c); err == nil {
			b.ok++
		} else {
			b.bad++
			b.lastErr = err
		}
	}
	if n > 0 {
		b.changed = true
	}
}

// errNothingToBuy is a bot's purchase that found no listing.
var errNothingToBuy = errors.New("no listing to buy")

func (b *bots) one(c *Common) error {
	svc := c.Svc
	p := b.players[b.rng.IntN(len(b.players))]
	switch r := b.rng.IntN(100); {
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
		s := stacks[b.rng.IntN(len(stacks))]
		price := 10.0
		if info, ok := market.LookupMaterial(s.Material); ok {
			price = float64(info.BasePrice) * float64(s.Amount) / 100 * (0.7 + 0.7*b.rng.Float64())
		}
		cfg := svc.Config()
		price = float64(int64(max(min(price, cfg.MaxPrice.Float()), cfg.MinPrice.Float())*100)) / 100
		_, err = svc.SellItem(p, s, price)
		return err
	case r < 85:
		// One of the 200 cheapest, or of all when there are fewer.
		active, err := svc.GetActiveListingsCount()
		if err != nil {
			return err
		}
		if active == 0 {
			return errNothingToBuy
		}
		page, err := svc.Query(market.Query{Sort: market.SortCheapest, Offset: b.rng.IntN(min(active, 200)), Limit: 1})
		if err != nil {
			return err
		}
		if len(page.Listings) == 0 {
			return errNothingToBuy
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

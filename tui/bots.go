package tui

import (
	"fmt"
	"time"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"github.com/google/uuid"
	"github.com/rynek/rynek/internal/traffic"
	"github.com/rynek/rynek/market"
	"github.com/rynek/rynek/market/playertext"
)

// bots run the demo's economy on the main thread: each tick rate×tick turns
// of the market's players selling, buying, taking back and relisting
// (internal/traffic).
type bots struct {
	on      bool
	rate    int
	gen     *traffic.Generator
	players []market.Player
	// others are the players but the one the console acts as (actor):
	// the person at the keyboard plays that one, and a bot acting as them
	// too would start their cooldown and change their inventory.
	others  []market.Player
	actor   uuid.UUID
	total   traffic.Result // since the console started
	changed bool
}

// The traffic package's figures, as the console's texts quote them.
const (
	botsMinPlayers = traffic.MinPlayers
	botRecruits    = traffic.Recruits
	botBalance     = traffic.Balance
)

func newBots() bots {
	return bots{rate: 20, gen: traffic.New(uint64(time.Now().UnixNano()))}
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
		text := fmt.Sprintf("traffic bots stopped after %s ok, %s refused (R starts them again)", count(b.total.OK), count(b.total.Refused))
		if b.total.Refused > 0 {
			text += "; refused " + b.total.RefusalText() + ", the last: " + playertext.Sanitize(b.total.LastErr.Error())
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
		added, err := traffic.Recruit(c.Svc)
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
	b.players, b.others, b.on = ps, nil, true
	m.setStatus(statusMsg{text: fmt.Sprintf("%straffic bots started at %d actions/s as %d players (R stops them; +/- pace)",
		recruited, b.rate, len(ps)), qa: true})
}

func (b *bots) step(c *Common, tick time.Duration) {
	if !b.on {
		return
	}
	if b.others == nil || b.actor != c.Actor.ID {
		b.actor = c.Actor.ID
		b.others = b.others[:0]
		for _, p := range b.players {
			if p.ID != b.actor {
				b.others = append(b.others, p)
			}
		}
	}
	r := b.gen.Step(c.Svc, b.others, float64(b.rate), tick)
	b.total.Add(r)
	if r.OK+r.Refused > 0 {
		b.changed = true
	}
}

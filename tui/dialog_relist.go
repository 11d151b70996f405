package tui

import (
	"fmt"
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"github.com/google/uuid"
	"github.com/rynek/rynek/market"
	"github.com/rynek/rynek/market/playertext"
)

// actRelist lists a mailbox entry again at its previous price.
type actRelist struct {
	player market.Player
	entry  uuid.UUID
}

// relistPicker chooses which of the acting player's mailbox entries to put
// back on the market: those that were listed before (expired, returned,
// refunded), each at the price it had.
type relistPicker struct {
	dialogBase
	player  market.Player
	entries []market.MailboxEntry
	cursor  int
	nav     tableKeys
}

func newRelistPicker(c *Common) (*relistPicker, error) {
	st, err := c.Svc.GetPlayer(c.Actor.ID)
	if err != nil {
		return nil, err
	}
	d := &relistPicker{dialogBase: newDialogBase(choosing), player: c.Actor, nav: newTableKeys()}
	for _, m := range st.Mailbox {
		if m.PreviousPrice > 0 {
			d.entries = append(d.entries, m)
		}
	}
	if len(d.entries) == 0 {
		return nil, fmt.Errorf("nothing in %s's mailbox was listed before: only expired, returned or refunded listings can be relisted", playerName(c.Actor))
	}
	return d, nil
}

func (d *relistPicker) Help() []key.Binding {
	return []key.Binding{d.keys.Enter, d.nav.Up, d.nav.Down, d.closeKey()}
}

func (d *relistPicker) Update(_ *Common, msg tea.Msg) (action, bool) {
	k, ok := msg.(tea.KeyPressMsg)
	if !ok {
		return nil, false
	}
	switch {
	case d.closes(k):
		return nil, true
	case key.Matches(k, d.keys.Enter):
		return actRelist{player: d.player, entry: d.entries[d.cursor].ID}, true
	case key.Matches(k, d.nav.Up):
		d.cursor = (d.cursor + len(d.entries) - 1) % len(d.entries)
	case key.Matches(k, d.nav.Down):
		d.cursor = (d.cursor + 1) % len(d.entries)
	}
	return nil, false
}

func (d *relistPicker) View(c *Common, w, _ int) string {
	s := c.Styles
	var b strings.Builder
	b.WriteString(s.Title.Render("Relist from the mailbox") + s.Dim.Render("  as "+playerName(d.player)+", each at its previous price"))
	for i, m := range d.entries {
		line := fmt.Sprintf("%2d× %s", m.Item.Amount, RenderMC(itemName(m.Item), lipglossPlain)) +
			s.Dim.Render("  "+playertext.Sanitize(m.Reason)+" · ") + money(m.PreviousPrice)
		b.WriteString("\n" + fit(pickLine(s, line, i == d.cursor), max(w-6, 10)))
	}
	return box(c, b.String(), w)
}

// relist runs actRelist on the main thread.
func (m *Model) relist(a actRelist) error {
	l, err := m.c.Svc.RelistMail(a.player.ID, a.entry)
	if err != nil {
		m.fail(err)
		return err
	}
	m.changed = true
	m.setStatus(statusMsg{text: fmt.Sprintf("relisted #%d: %s ×%d for %s → ListingCreatedEvent", l.ID,
		playertext.Sanitize(playertext.StripColors(itemName(l.Item))), l.Item.Amount, money(l.Price))})
	return nil
}

package tui

import (
	"fmt"
	"strconv"
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"github.com/rynek/rynek/market"
	"github.com/rynek/rynek/market/playertext"
)

// The acting player's own market: favourites (h on a listing), price alerts
// (P), and notifications (the Seller pane's fourth view, which marks them
// read when it opens).

type (
	actToggleFavorite struct {
		player  market.Player
		listing market.Listing
	}
	actAddAlert struct {
		player market.Player
		query  string
		max    float64
	}
	actRemoveAlert struct {
		player market.Player
		alert  market.Alert
	}
	actMarkRead struct{ player market.Player }
)

// alertsDialog lists the acting player's price alerts and adds one from a
// line "<search words> <maximum unit price>".
type alertsDialog struct {
	dialogBase
	player market.Player
	alerts []market.Alert
	cursor int
	input  textField
	add    key.Binding
	remove key.Binding
}

func newAlertsDialog(c *Common) (*alertsDialog, error) {
	alerts, err := c.Svc.Alerts(c.Actor.ID)
	if err != nil {
		return nil, err
	}
	d := &alertsDialog{dialogBase: newDialogBase(typing), player: c.Actor, alerts: alerts,
		input: newTextField("new: ", "diamond sword 250.00  (words, then the most it may cost per item)",
			market.MaxAlertQueryBytes+16, 60),
		add:    binding([]string{"enter"}, "enter", "add the alert"),
		remove: binding([]string{"delete"}, "delete", "remove the selected alert")}
	d.input.Focus()
	return d, nil
}

func (d *alertsDialog) Help() []key.Binding {
	return []key.Binding{d.add, d.keys.Up, d.keys.Down, d.remove, d.closeKey()}
}

func (d *alertsDialog) Update(c *Common, msg tea.Msg) (action, bool) {
	k, isKey := msg.(tea.KeyPressMsg)
	switch {
	case d.closes(msg):
		return nil, true
	case !isKey: // a paste is typed below; the mouse changes nothing
	case key.Matches(k, d.add):
		text := strings.TrimSpace(d.input.Value())
		i := strings.LastIndexByte(text, ' ')
		if i < 0 {
			d.err = "type the words to look for, then the most it may cost per item: diamond sword 250.00"
			return nil, false
		}
		max, err := strconv.ParseFloat(strings.Replace(text[i+1:], ",", ".", 1), 64)
		if err != nil {
			d.err = fmt.Sprintf("the last word must be the most it may cost per item, like 250.00, not %q", text[i+1:])
			return nil, false
		}
		return actAddAlert{player: d.player, query: strings.TrimSpace(text[:i]), max: max}, true
	case key.Matches(k, d.remove):
		if len(d.alerts) == 0 {
			return nil, false
		}
		return actRemoveAlert{player: d.player, alert: d.alerts[d.cursor]}, true
	case key.Matches(k, d.keys.Up):
		if len(d.alerts) > 0 {
			d.cursor = (d.cursor + len(d.alerts) - 1) % len(d.alerts)
		}
		return nil, false
	case key.Matches(k, d.keys.Down):
		if len(d.alerts) > 0 {
			d.cursor = (d.cursor + 1) % len(d.alerts)
		}
		return nil, false
	}
	d.typeInto(&d.input, msg)
	return nil, false
}

func (d *alertsDialog) View(c *Common, w, _ int) string {
	s := c.Styles
	var b strings.Builder
	b.WriteString(s.Title.Render("Price alerts of "+playerName(d.player)) +
		s.Dim.Render(fmt.Sprintf("  %d of %d; each fires once per new listing that matches", len(d.alerts), c.Svc.Config().MaxAlertsPerPlayer)))
	if len(d.alerts) == 0 {
		b.WriteString("\n" + s.Dim.Render("none yet"))
	}
	for i, a := range d.alerts {
		line := pickLine(s, fmt.Sprintf("%-32s at most %s each", playertext.Sanitize(a.Query), money(a.MaxUnitPrice)), i == d.cursor)
		b.WriteString("\n" + fit(line, max(w-6, 10)))
	}
	b.WriteString("\n\n" + d.input.View(s))
	if d.err != "" {
		b.WriteString("\n" + s.Err.Render(playertext.Sanitize(d.err)))
	}
	return box(c, b.String(), w)
}

// own runs the acting player's own actions on the main thread.
func (m *Model) own(a action) error {
	svc := m.c.Svc
	var text string
	var err error
	switch a := a.(type) {
	case actToggleFavorite:
		var on bool
		on, err = svc.ToggleFavorite(a.player.ID, a.listing.ID)
		text = fmt.Sprintf("♥ #%d is one of %s's favourites (Seller pane, v)", a.listing.ID, playerName(a.player))
		if !on {
			text = fmt.Sprintf("#%d is no longer one of %s's favourites", a.listing.ID, playerName(a.player))
		}
	case actAddAlert:
		var al market.Alert
		al, err = svc.AddAlert(a.player.ID, a.query, a.max)
		text = fmt.Sprintf("%s is told of new listings of %q at most %s each", playerName(a.player), playertext.Sanitize(al.Query), money(al.MaxUnitPrice))
	case actRemoveAlert:
		err = svc.RemoveAlert(a.player.ID, a.alert.ID)
		text = fmt.Sprintf("removed %s's alert %q", playerName(a.player), playertext.Sanitize(a.alert.Query))
	case actMarkRead:
		if err = svc.MarkNotificationsRead(a.player.ID); err == nil {
			m.changed = true
			return nil // quietly: opening the view is the reading
		}
	}
	if err != nil {
		m.fail(err)
		return err
	}
	m.changed = true
	m.setStatus(statusMsg{text: text})
	return nil
}

package tui

import (
	"fmt"
	"strconv"
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"github.com/google/uuid"
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
	player market.Player
	alerts []market.Alert
	cursor int
	input  textField
	err    string
	keys   dialogKeys
	add    key.Binding
	remove key.Binding
}

func newAlertsDialog(c *Common) (*alertsDialog, error) {
	alerts, err := c.Svc.Alerts(c.Actor.ID)
	if err != nil {
		return nil, err
	}
	d := &alertsDialog{player: c.Actor, alerts: alerts, keys: newDialogKeys(),
		input: newTextField("new: ", "diamond sword 250.00  (words, then the most it may cost per item)",
			market.MaxAlertQueryBytes+16, 60),
		add:    binding([]string{"enter"}, "enter", "add the alert"),
		remove: binding([]string{"delete"}, "delete", "remove the selected alert")}
	d.input.Focus()
	return d, nil
}

func (d *alertsDialog) Help() []key.Binding {
	return []key.Binding{d.add, d.keys.Up, d.keys.Down, d.remove, d.keys.Quit}
}

// Refused shows the market's refusal and keeps what was typed.
func (d *alertsDialog) Refused(err error) { d.err = err.Error() + codeSuffix(err) }

func (d *alertsDialog) Update(c *Common, msg tea.Msg) (action, bool) {
	if p, ok := msg.(tea.PasteMsg); ok {
		d.err = ""
		d.input.Update(p)
		return nil, false
	}
	k, ok := msg.(tea.KeyPressMsg)
	if !ok {
		return nil, false
	}
	switch {
	case key.Matches(k, d.keys.Quit):
		return nil, true
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
	d.err = ""
	d.input.Update(msg)
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
		line := fmt.Sprintf("%-32s at most %s each", playertext.Sanitize(a.Query), money(a.MaxUnitPrice))
		if i == d.cursor {
			line = s.Cursor.Render("▶") + " " + line
		} else {
			line = "  " + line
		}
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

// notificationLines are the Seller pane's fourth view: favourites, price
// alerts, and the newest notifications, unread marked.
func notificationLines(c *Common, player uuid.UUID) []string {
	s := c.Styles
	var lines []string
	favs, err := c.Svc.Favorites(player)
	if err != nil {
		return []string{s.Err.Render(err.Error())}
	}
	lines = append(lines, s.Title.Render(fmt.Sprintf("Favourites (%d) · h on a listing toggles", len(favs))))
	for _, l := range favs {
		lines = append(lines, fmt.Sprintf("  #%-7d %s ×%d  %s", l.ID, RenderMC(itemName(l.Item), lipglossPlain), l.Item.Amount,
			s.Price.Render(money(l.Price)))+s.Dim.Render("  by "+playertext.Sanitize(l.SellerName)))
	}
	alerts, err := c.Svc.Alerts(player)
	if err != nil {
		return append(lines, s.Err.Render(err.Error()))
	}
	lines = append(lines, "", s.Title.Render(fmt.Sprintf("Price alerts (%d) · P manages them", len(alerts))))
	for _, a := range alerts {
		lines = append(lines, fmt.Sprintf("  %q at most %s each", playertext.Sanitize(a.Query), money(a.MaxUnitPrice)))
	}
	if !c.Svc.HistoryLoaded() {
		return append(lines, "", s.Dim.Render("notifications: the history is still loading…"))
	}
	page, err := c.Svc.Notifications(player, 50)
	if err != nil {
		return append(lines, "", s.Err.Render(err.Error()))
	}
	lines = append(lines, "", s.Title.Render(fmt.Sprintf("Notifications (%d unread, marked read now)", page.Unread)))
	for _, n := range page.Notifications {
		mark := "  "
		if !n.Read {
			mark = s.Warn.Render("● ")
		}
		what := ""
		switch n.Kind {
		case market.NotifySale:
			what = fmt.Sprintf("sold %s ×%d to %s for %s", RenderMC(itemName(n.Item), lipglossPlain), n.Item.Amount,
				playertext.Sanitize(n.Buyer), money(n.Price))
		case market.NotifyAlert:
			what = fmt.Sprintf("alert %q: #%d %s ×%d for %s", playertext.Sanitize(n.Query), n.ListingID,
				RenderMC(itemName(n.Item), lipglossPlain), n.Item.Amount, money(n.Price))
		case market.NotifyMail:
			what = fmt.Sprintf("mailbox: %s ×%d (%s)", RenderMC(itemName(n.Item), lipglossPlain), n.Item.Amount, playertext.Sanitize(n.Reason))
		}
		lines = append(lines, mark+s.Dim.Render(n.At.UTC().Format("01-02 15:04")+"  ")+what)
	}
	return lines
}

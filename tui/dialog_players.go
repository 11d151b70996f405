package tui

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"github.com/google/uuid"
	"github.com/rynek/rynek/internal/traffic"
	"github.com/rynek/rynek/market"
	"github.com/rynek/rynek/market/playertext"
)

// Players joining the market from the console: a new market (--seed 0)
// starts without any, and nothing can be sold or bought until someone joins.

// actAddPlayer adds a player to the market, who becomes the acting player.
type actAddPlayer struct{ p market.NewPlayer }

// noPlayersText is what an empty market says: there is nobody to act as,
// and how to change that.
const noPlayersText = "this market has no players yet: " + noPlayerHow

// noPlayerHow says how an empty market gets a player.
const noPlayerHow = "A adds one, R starts traffic bots that bring their own"

// errNoAdmin answers an admin action in a market without an admin.
var errNoAdmin = errors.New("this market has no player with market.admin: add one with A (admin: yes)")

// explainNoPlayer turns the market's "player does not exist" for the empty
// acting player into what to do about it.
func (m *Model) explainNoPlayer(err error) error {
	if m.c.Actor.Name == "" && errors.Is(err, market.ErrUnknownPlayer) {
		return errors.New(noPlayersText)
	}
	return err
}

// addPlayer runs actAddPlayer on the main thread.
func (m *Model) addPlayer(a actAddPlayer) error {
	c := m.c
	p, err := c.Svc.AddPlayer(a.p)
	if err != nil {
		m.fail(err)
		return err
	}
	c.Actor = p
	role := ""
	if p.HasPermission(market.PermAdmin) {
		role = " with market.admin"
		if c.Admin.ID == uuid.Nil {
			c.Admin = p
		}
	}
	m.changed = true
	m.setStatus(statusMsg{text: fmt.Sprintf("added player %s%s, balance %s, %d stack%s; acting as %s (p picks another)",
		playerName(p), role, money(a.p.Balance), len(a.p.Items), plural(len(a.p.Items)), playerName(p))})
	return nil
}

// addPlayerDialog asks for a new player's name, starting balance, whether
// they are an admin and whether they bring the starter kit. The market
// judges the name (the game's rules); a refusal keeps what was typed.
type addPlayerDialog struct {
	dialogBase
	name, balance textField
	admin, kit    bool
	focus         int // 0 name, 1 balance, 2 admin, 3 kit
	add, toggle   key.Binding
}

const addPlayerFields = 4

func newAddPlayerDialog() *addPlayerDialog {
	d := &addPlayerDialog{dialogBase: newDialogBase(typing), kit: true,
		// A name is what the game allows, 3 to 16 characters.
		name:    newTextField("", "3-16 letters, digits, _", 16, 24),
		balance: newTextField("", "", 16, 16),
		add:     binding([]string{"enter"}, "enter", "add the player"),
		toggle:  binding([]string{"space"}, "space", "yes / no")}
	d.balance.Prefill("1000.00")
	d.name.Focus()
	return d
}

func (d *addPlayerDialog) Help() []key.Binding {
	return []key.Binding{d.add, d.keys.NextField, d.keys.PrevField, d.toggle, d.closeKey()}
}

// field is the text field with the focus, nil on the yes/no lines.
func (d *addPlayerDialog) field() *textField {
	switch d.focus {
	case 0:
		return &d.name
	case 1:
		return &d.balance
	}
	return nil
}

func (d *addPlayerDialog) Update(_ *Common, msg tea.Msg) (action, bool) {
	k, isKey := msg.(tea.KeyPressMsg)
	switch {
	case d.closes(msg):
		return nil, true
	case !isKey: // a paste is typed below; the mouse changes nothing
	case key.Matches(k, d.add):
		balance, err := strconv.ParseFloat(strings.TrimSpace(d.balance.Value()), 64)
		if err != nil {
			d.err = fmt.Sprintf("the balance must be a number like 1000.00, not %q", d.balance.Value())
			return nil, false
		}
		np := market.NewPlayer{Name: strings.TrimSpace(d.name.Value()), Balance: balance}
		if d.admin {
			np.Permissions = []string{market.PermAdmin}
		}
		if d.kit {
			np.Items = traffic.StarterKit()
		}
		return actAddPlayer{p: np}, true
	case key.Matches(k, d.keys.NextField, d.keys.PrevField):
		step := 1
		if key.Matches(k, d.keys.PrevField) {
			step = addPlayerFields - 1
		}
		if f := d.field(); f != nil {
			f.Blur()
		}
		d.focus = (d.focus + step) % addPlayerFields
		if f := d.field(); f != nil {
			f.Focus()
		}
		return nil, false
	case key.Matches(k, d.toggle) && d.focus >= 2:
		if d.focus == 2 {
			d.admin = !d.admin
		} else {
			d.kit = !d.kit
		}
		return nil, false
	}
	d.typeInto(d.field(), msg) // nothing to type into on the yes/no lines
	return nil, false
}

func (d *addPlayerDialog) View(c *Common, w, _ int) string {
	s := c.Styles
	label := func(i int, text string) string {
		if i == d.focus {
			return s.Title.Render(fmt.Sprintf("%-8s", text))
		}
		return s.Dim.Render(fmt.Sprintf("%-8s", text))
	}
	yes := func(i int, v bool) string {
		text := "[ ] no"
		if v {
			text = "[x] yes"
		}
		if i == d.focus {
			return s.Cursor.Render(text)
		}
		return text
	}
	var b strings.Builder
	b.WriteString(s.Title.Render("Add a player") + s.Dim.Render("  as the game does when someone joins"))
	b.WriteString("\n\n" + label(0, "name") + " " + d.name.View(s))
	b.WriteString("\n" + label(1, "balance") + " " + d.balance.View(s) + selectedHint(s, &d.balance))
	b.WriteString("\n" + label(2, "admin") + " " + yes(2, d.admin) + s.Dim.Render("  market.admin: remove and force-expire any listing"))
	b.WriteString("\n" + label(3, "items") + " " + yes(3, d.kit) + s.Dim.Render("  starter kit: diamonds, logs, iron, bread, a sword"))
	if d.err != "" {
		b.WriteString("\n\n" + s.Err.Render(d.err))
	}
	return box(c, b.String(), w)
}

// playerPicker chooses the acting player: type to filter (diacritics-folded),
// ↑/↓ to move, enter to pick.
type playerPicker struct {
	dialogBase
	all    []market.Player
	shown  []market.Player
	cursor int
	filter textField
}

func newPlayerPicker(c *Common) *playerPicker {
	ps, _ := c.Svc.Players()
	d := &playerPicker{dialogBase: newDialogBase(typing), all: ps, filter: newTextField("find: ", "", 32, 0)}
	d.filter.Focus()
	d.apply()
	return d
}

func (d *playerPicker) apply() {
	q := playertext.Fold(strings.TrimSpace(d.filter.Value()))
	d.shown = d.shown[:0]
	for _, p := range d.all {
		if q == "" || strings.Contains(playertext.Fold(p.Name), q) {
			d.shown = append(d.shown, p)
		}
	}
	d.cursor = max(0, min(d.cursor, len(d.shown)-1))
}

func (d *playerPicker) Help() []key.Binding {
	return []key.Binding{d.keys.Enter, d.keys.Up, d.keys.Down, d.closeKey()}
}

func (d *playerPicker) Update(c *Common, msg tea.Msg) (action, bool) {
	k, isKey := msg.(tea.KeyPressMsg)
	switch {
	case d.closes(msg): // esc: letters are the filter's here
		return nil, true
	case !isKey: // a paste is typed below; the mouse changes nothing
	case key.Matches(k, d.keys.Enter):
		if len(d.shown) > 0 {
			return actPickPlayer{p: d.shown[d.cursor]}, true
		}
		return nil, false
	case key.Matches(k, d.keys.Up):
		d.cursor = max(0, d.cursor-1)
		return nil, false
	case key.Matches(k, d.keys.Down):
		d.cursor = min(len(d.shown)-1, d.cursor+1)
		return nil, false
	}
	if d.typeInto(&d.filter, msg) {
		d.apply()
	}
	return nil, false
}

func (d *playerPicker) View(c *Common, w, _ int) string {
	s := c.Styles
	var b strings.Builder
	b.WriteString(s.Title.Render("Act as player") + s.Dim.Render(fmt.Sprintf("  %d of %d", len(d.shown), len(d.all))))
	b.WriteString("\n" + d.filter.View(s))
	show := 10
	start := max(0, min(d.cursor-show/2, len(d.shown)-show))
	for i := start; i < min(len(d.shown), start+show); i++ {
		p := d.shown[i]
		line := playerName(p)
		if p.HasPermission(market.PermAdmin) {
			line += s.Warn.Render(" admin")
		}
		b.WriteString("\n" + pickLine(s, line, i == d.cursor))
	}
	switch {
	case len(d.all) == 0:
		b.WriteString("\n" + s.Warn.Render(noPlayersText))
	case len(d.shown) == 0:
		b.WriteString("\n" + s.Dim.Render("no player matches"))
	}
	return box(c, b.String(), w)
}

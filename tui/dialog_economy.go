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

// The economy from outside the market, as an admin of the server moves it:
// money deposited or withdrawn, items given or taken, each accounted in the
// market's issuance account (the Stats pane shows it).

// issueKind is what the economy dialog does.
type issueKind int

const (
	issueDeposit issueKind = iota
	issueWithdraw
	issueGive
	issueTake
	issueKinds
)

func (k issueKind) String() string {
	return [...]string{"deposit", "withdraw", "give an item", "take an item"}[k]
}

// field is what the dialog's input asks for with each kind.
func (k issueKind) field() (label, placeholder string) {
	switch k {
	case issueGive:
		return "item", "MATERIAL [amount], e.g. EMERALD 16"
	case issueTake:
		return "slot", "1-36, as the Seller pane lists them"
	}
	return "amount", "e.g. 100.00"
}

// actIssue moves money or an item into or out of the market for player.
type actIssue struct {
	kind   issueKind
	player market.Player
	amount float64          // deposit, withdraw
	stack  market.ItemStack // give
	slot   int              // take, 1-based
}

// economyDialog asks what to move for the acting player, and how much.
type economyDialog struct {
	dialogBase
	player      market.Player
	kind        issueKind
	input       textField
	run, choose key.Binding
}

func newEconomyDialog(p market.Player) *economyDialog {
	d := &economyDialog{dialogBase: newDialogBase(typing), player: p, input: newTextField("", "", 48, 40),
		run:    binding([]string{"enter"}, "enter", "do it"),
		choose: binding([]string{"left", "right"}, "←/→", "deposit, withdraw, give, take")}
	d.setKind(issueDeposit)
	d.input.Focus()
	return d
}

func (d *economyDialog) setKind(k issueKind) {
	d.kind = k
	_, placeholder := k.field()
	d.input.Reset()
	d.input.SetPlaceholder(placeholder)
	d.err = ""
}

func (d *economyDialog) Help() []key.Binding {
	return []key.Binding{d.run, d.choose, d.closeKey()}
}

func (d *economyDialog) Update(_ *Common, msg tea.Msg) (action, bool) {
	k, isKey := msg.(tea.KeyPressMsg)
	switch {
	case d.closes(msg):
		return nil, true
	case !isKey: // a paste is typed below; the mouse changes nothing
	case key.Matches(k, d.choose):
		step := issueKind(1)
		if k.String() == "left" {
			step = issueKinds - 1
		}
		d.setKind((d.kind + step) % issueKinds)
		return nil, false
	case key.Matches(k, d.run):
		a, err := d.action()
		if err != nil {
			d.err = err.Error()
			return nil, false
		}
		return a, true
	}
	d.typeInto(&d.input, msg)
	return nil, false
}

// action reads the input for the chosen kind. The market judges amounts,
// materials and slots; this only reads numbers.
func (d *economyDialog) action() (actIssue, error) {
	a := actIssue{kind: d.kind, player: d.player}
	text := strings.TrimSpace(d.input.Value())
	switch d.kind {
	case issueDeposit, issueWithdraw:
		v, err := strconv.ParseFloat(text, 64)
		if err != nil {
			return a, fmt.Errorf("the amount must be a number like 100.00, not %q", text)
		}
		a.amount = v
	case issueGive:
		fields := strings.Fields(text)
		if len(fields) == 0 || len(fields) > 2 {
			return a, fmt.Errorf("name the item as MATERIAL or MATERIAL AMOUNT, e.g. EMERALD 16, not %q", text)
		}
		a.stack = market.ItemStack{Material: fields[0], Amount: 1}
		if len(fields) == 2 {
			n, err := strconv.Atoi(fields[1])
			if err != nil {
				return a, fmt.Errorf("the amount must be a whole number, not %q", fields[1])
			}
			a.stack.Amount = n
		}
	case issueTake:
		n, err := strconv.Atoi(text)
		if err != nil {
			return a, fmt.Errorf("the slot must be a whole number from 1 to %d, not %q", market.InventorySize, text)
		}
		a.slot = n
	}
	return a, nil
}

func (d *economyDialog) View(c *Common, w, _ int) string {
	s := c.Styles
	var kinds []string
	for k := range issueKinds {
		if k == d.kind {
			kinds = append(kinds, s.Cursor.Render("‹ "+k.String()+" ›"))
		} else {
			kinds = append(kinds, s.Dim.Render(k.String()))
		}
	}
	label, _ := d.kind.field()
	var b strings.Builder
	b.WriteString(s.Title.Render("Money and items from outside") + s.Dim.Render("  for "+playerName(d.player)+" (p picks another)"))
	b.WriteString("\n\n" + s.Dim.Render(fmt.Sprintf("%-8s", "what")) + " " + strings.Join(kinds, "  "))
	b.WriteString("\n" + s.Title.Render(fmt.Sprintf("%-8s", label)) + " " + d.input.View(s))
	b.WriteString("\n\n" + s.Dim.Render("counted in the issuance account, shown in the Stats pane"))
	if d.err != "" {
		b.WriteString("\n\n" + s.Err.Render(playertext.Sanitize(d.err)))
	}
	return box(c, b.String(), w)
}

// issue runs actIssue on the main thread.
func (m *Model) issue(a actIssue) error {
	c := m.c
	var text string
	var err error
	name := playerName(a.player)
	switch a.kind {
	case issueDeposit, issueWithdraw:
		var balance float64
		verb := "deposited %s to %s"
		if a.kind == issueDeposit {
			balance, err = c.Svc.Deposit(a.player.ID, a.amount)
		} else {
			balance, err = c.Svc.Withdraw(a.player.ID, a.amount)
			verb = "withdrew %s from %s"
		}
		text = fmt.Sprintf(verb+", balance now %s", money(a.amount), name, money(balance))
	case issueGive:
		var given market.ItemStack
		var inMailbox bool
		given, inMailbox, err = c.Svc.GiveItem(a.player.ID, a.stack)
		where := "inventory"
		if inMailbox {
			where = "mailbox (the inventory is full)"
		}
		text = fmt.Sprintf("gave %s ×%d to %s's %s", playertext.Sanitize(playertext.StripColors(itemName(given))), given.Amount, name, where)
	case issueTake:
		var taken market.ItemStack
		taken, err = c.Svc.TakeItem(a.player.ID, a.slot)
		text = fmt.Sprintf("took %s ×%d from %s's slot %d", playertext.Sanitize(playertext.StripColors(itemName(taken))), taken.Amount, name, a.slot)
	}
	if err != nil {
		m.fail(m.explainNoPlayer(err))
		return err
	}
	m.changed = true
	m.setStatus(statusMsg{text: text + " (issuance account: Stats pane)"})
	return nil
}

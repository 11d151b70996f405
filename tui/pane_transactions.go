package tui

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"github.com/google/uuid"
	"github.com/rynek/rynek/market"
	"github.com/rynek/rynek/market/playertext"
)

// transactionsPane shows the transaction history: the contract's
// getCompletedTransactions (COMPLETED only) by default; "a" cycles through
// every state and the failed and rolled-back ones, "f" filters by a player
// or an id. Enter toggles a detail view with the state timeline.
type transactionsPane struct {
	*txTable
	states int    // index into txStateFilters
	player string // the player filter's name, "" none
	detail bool
	keys   txKeys
}

type txKeys struct {
	States, Filter, Detail, Back, Refund, Rate key.Binding
}

// txStateFilters are what "a" cycles through.
var txStateFilters = []struct {
	label     string
	allStates bool
	state     market.State
}{
	{"completed", false, ""},
	{"all states", true, ""},
	{"FAILED", true, market.StateFailed},
	{"ROLLED_BACK", true, market.StateRolledBack},
}

// txFilterMsg is the filter prompt's answer: a player's name, a
// transaction id or a part of one, or nothing to clear the filter.
type txFilterMsg struct{ text string }

func newTransactionsPane() *transactionsPane {
	return &transactionsPane{txTable: newTxTable(market.TxQuery{}), keys: txKeys{
		States: binding([]string{"a"}, "a", "cycle states"),
		Filter: binding([]string{"f"}, "f", "filter player/id…"),
		Detail: binding([]string{"enter"}, "enter", "details"),
		Back:   binding([]string{"esc"}, "esc", "close details, then clear the filter"),
		Refund: binding([]string{"U"}, "U", "refund the purchase as admin…"),
		Rate:   binding([]string{"*"}, "*", "rate the purchase as its buyer…"),
	}}
}

func (p *transactionsPane) Title() string { return "Transactions" }

func (p *transactionsPane) Help() []key.Binding {
	return append(append([]key.Binding{p.keys.Detail, p.keys.States, p.keys.Filter, p.keys.Refund, p.keys.Rate}, p.nav.all()...), p.keys.Back)
}

func (p *transactionsPane) TextFocused() bool { return false }

func (p *transactionsPane) Selected() (market.Listing, bool) { return market.Listing{}, false }

// SelectedID is the selected transaction's id, for y.
func (p *transactionsPane) SelectedID() string {
	if t, ok := p.selected(); ok {
		return t.ID
	}
	return ""
}

// rows is the number of table rows on the screen: the pane minus the title
// line and the table header.
func (p *transactionsPane) rows(c *Common) int { return max(paneHeight(c.H)-2, 1) }

func (p *transactionsPane) Refresh(c *Common) { p.refresh(c, p.rows(c)) }

func (p *transactionsPane) Update(c *Common, msg tea.Msg) tea.Cmd {
	h := p.rows(c)
	switch msg := msg.(type) {
	case txFilterMsg:
		return p.filterBy(c, msg.text)
	case tea.KeyPressMsg:
		switch {
		case key.Matches(msg, p.keys.States):
			next := (p.states + 1) % len(txStateFilters)
			f := txStateFilters[next]
			q := p.q
			q.AllStates, q.State = f.allStates, f.state
			if err := p.setQuery(c, q); err != nil {
				return refusal(err)
			}
			p.states = next
			return nil
		case key.Matches(msg, p.keys.Filter):
			return func() tea.Msg {
				return openDialogMsg{newTextPrompt("Filter transactions", "player or id: ", "Kowalski, 2f1c0a9e, or empty for none",
					"a player's name, or any part of a transaction id (rows show its last 8 characters)", "filter",
					func(text string) action { return actForPane{msg: txFilterMsg{text}} })}
			}
		case key.Matches(msg, p.keys.Detail):
			p.detail = !p.detail
			return nil
		case key.Matches(msg, p.keys.Refund):
			t, ok := p.selected()
			if !ok {
				return refusal(errors.New("select a purchase first"))
			}
			d, err := newRefundConfirm(c, t)
			if err != nil {
				return refusal(err)
			}
			return func() tea.Msg { return openDialogMsg{d} }
		case key.Matches(msg, p.keys.Rate):
			t, ok := p.selected()
			if !ok {
				return refusal(errors.New("select a purchase first"))
			}
			d, err := newRateDialog(t)
			if err != nil {
				return refusal(err)
			}
			return func() tea.Msg { return openDialogMsg{d} }
		case key.Matches(msg, p.keys.Back) && p.detail:
			p.detail = false
			return nil
		case key.Matches(msg, p.keys.Back) && p.filtered():
			return p.filterBy(c, "")
		}
	}
	if _, click := msg.(tea.MouseClickMsg); click && p.detail {
		return nil
	}
	// The first data row is below the title line and the table header.
	if d, ok := p.delta(msg, h, paneTop+2); ok {
		p.move(c, d, h)
	}
	return nil
}

// setQuery shows the first row of a new query. A query the market refuses
// (it is disabled) changes nothing and returns the refusal.
func (p *transactionsPane) setQuery(c *Common, q market.TxQuery) error {
	saved, detail := *p.txTable, p.detail
	p.q = q
	p.cursor, p.top, p.detail = 0, 0, false
	p.Refresh(c)
	if p.stale() {
		err := p.err
		*p.txTable, p.detail = saved, detail
		return err
	}
	return nil
}

// filterBy applies the filter prompt's answer: a player's name, else a part
// of a transaction id; "" clears both. Text that is neither is refused and
// changes nothing.
func (p *transactionsPane) filterBy(c *Common, text string) tea.Cmd {
	q := p.q
	q.Player, q.IDPart = uuid.Nil, ""
	player := ""
	if text != "" {
		pl, err := c.Svc.PlayerByName(text)
		switch {
		case err == nil:
			q.Player, player = pl.ID, pl.Name
		case errors.Is(err, market.ErrNotReady):
			return refusal(err)
		case strings.Trim(strings.ToLower(text), "0123456789abcdef-") == "":
			q.IDPart = text
		default:
			return refusal(fmt.Errorf("no player is called %q and it is not a part of a transaction id (hex digits and dashes)",
				playertext.Sanitize(text)))
		}
	}
	if err := p.setQuery(c, q); err != nil {
		return refusal(err)
	}
	p.player = player
	return nil
}

func (p *transactionsPane) View(c *Common, w, h int) string {
	s := c.Styles
	f := txStateFilters[p.states]
	title := fmt.Sprintf("%s transaction%s · %s", count(p.total), plural(p.total), f.label)
	if !f.allStates && !p.filtered() && w >= 100 {
		title += " (getCompletedTransactions)"
	}
	if p.player != "" {
		title += " · player " + playertext.Sanitize(p.player)
	}
	if p.q.IDPart != "" {
		title += " · id contains " + playertext.Sanitize(p.q.IDPart)
	}
	title = s.Title.Render(title)
	if p.total > 0 {
		title += s.Dim.Render(fmt.Sprintf(" · row %s of %s", count(p.cursor+1), count(p.total)))
	}
	if p.loading() {
		title = s.Title.Render("Transactions") + s.Dim.Render(" · loading the history…")
	}
	if p.filtered() {
		title += s.Dim.Render(" · esc: no filter")
	}
	head := fit(title, w)
	if h <= 1 {
		return head
	}
	if p.detail && p.err == nil {
		if t, ok := p.selected(); ok {
			return head + "\n" + txDetail(c, t, w, h-1)
		}
	}
	return head + "\n" + p.view(c, w, h-1)
}

// filtered reports whether a player or id filter is set.
func (p *transactionsPane) filtered() bool { return p.q.Player != uuid.Nil || p.q.IDPart != "" }

// sinceDur renders the time between two states: "+1ms", "+2.5s", "+3m0s".
func sinceDur(d time.Duration) string {
	switch {
	case d < 0:
		return "-" + sinceDur(-d)[1:]
	case d < time.Millisecond:
		return "+<1ms" // timestamps have millisecond resolution
	case d < time.Second:
		return "+" + d.Round(time.Millisecond).String()
	case d < time.Minute:
		return "+" + d.Round(10*time.Millisecond).String()
	}
	return "+" + d.Round(time.Second).String()
}

// txDetail renders everything about a transaction in h lines.
func txDetail(c *Common, t market.Transaction, w, h int) string {
	lines := txLines(c, t)
	if len(lines)+2 <= h {
		lines = append(lines, "", c.Styles.Dim.Render("enter/esc back · ↑/↓ previous/next transaction"))
	}
	return block(lines, w, h)
}

// txLines is everything about a transaction, a line per field.
func txLines(c *Common, t market.Transaction) []string {
	s := c.Styles
	var lines []string
	add := func(label, value string) {
		lines = append(lines, s.Dim.Render(fmt.Sprintf("%-12s", label))+value)
	}
	add("transaction", playertext.Sanitize(t.ID))
	if t.ListingID == 0 && t.BuyOrder != 0 {
		add("listing", s.Dim.Render(fmt.Sprintf("none: sold from the inventory into buy order #%d", t.BuyOrder)))
	} else {
		add("listing", fmt.Sprintf("#%d", t.ListingID))
	}
	add("item", RenderMC(itemName(t.Item), lipglossPlain)+fmt.Sprintf(" ×%d", t.Item.Amount)+
		s.Dim.Render("  ("+playertext.Sanitize(t.Item.Material)+")"))
	if e := enchants(t.Item); e != "" {
		add("enchants", e)
	}
	add("seller", playertext.Sanitize(t.SellerName)+s.Dim.Render("  "+t.Seller.String()))
	add("buyer", playertext.Sanitize(t.BuyerName)+s.Dim.Render("  "+t.Buyer.String()))
	add("price", s.Price.Render(money(t.Price))+s.Dim.Render("  fee ")+money(t.Fee)+
		s.Dim.Render("  seller's net ")+money(t.SellerNet))
	state := txState(s, t, true)
	if t.ErrorCode != "" {
		state += "  " + s.Err.Render("error "+playertext.Sanitize(t.ErrorCode))
		if at, returned, ok := t.Refunded(); ok {
			what := "refunded"
			if !returned {
				what = "refunded, money only,"
			}
			state += s.Dim.Render(fmt.Sprintf(" (%s at %s UTC)", what, stamp(at)))
		}
	}
	if t.Pending {
		state += "  " + s.Warn.Render("saving") + s.Dim.Render(": not in the store yet, undone if it refuses")
	}
	add("state", state)
	switch {
	case t.State != market.StateCompleted:
		add("delivered", s.Dim.Render("not delivered"))
	case t.DeliveredToMailbox:
		add("delivered", s.Warn.Render("to the buyer's mailbox")+s.Dim.Render(" (inventory full)"))
	default:
		add("delivered", "to the buyer's inventory")
	}
	if t.Rating > 0 {
		add("rating", strings.Repeat("★", t.Rating)+s.Dim.Render(fmt.Sprintf("  %d of 5, by the buyer", t.Rating)))
	} else if t.State == market.StateCompleted {
		add("rating", s.Dim.Render("not rated (* rates it as the buyer)"))
	}
	// "CREATED 2026-11-01 12:00:00", then "LISTING_RESERVED +1ms  2026-11-01 12:00:00".
	for i, st := range t.Timeline {
		label, line := "", txStateText(s, st.State)+" "
		if i == 0 {
			label, line = "timeline", line+stamp(st.At)
		} else {
			line += sinceDur(st.At.Sub(t.Timeline[i-1].At)) + s.Dim.Render("  "+stamp(st.At))
		}
		add(label, line)
	}
	if n := len(t.Timeline); n > 1 {
		add("", s.Dim.Render("total "+strings.TrimPrefix(sinceDur(t.Timeline[n-1].At.Sub(t.Timeline[0].At)), "+")))
	}
	return lines
}

// txStateText renders a timeline state, coloured when terminal.
func txStateText(s Styles, st market.State) string {
	switch st {
	case market.StateCompleted:
		return s.OK.Render(string(st))
	case market.StateFailed:
		return s.Err.Render(string(st))
	case market.StateRolledBack:
		return s.Warn.Render(string(st))
	}
	return string(st)
}

package tui

import (
	"fmt"
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"github.com/google/uuid"
	"github.com/rynek/rynek/market"
)

// sellerPane shows one player — the acting player, picked with "p" — with
// their balance, listings, inventory, mailbox, sales and purchases. "v"
// switches between the listings table and the inventory/history view.
type sellerPane struct {
	player  uuid.UUID
	state   market.PlayerState
	history market.TxPage
	table   *listingTable
	view    int // 0 listings, 1 inventory & mailbox, 2 sales & purchases
	err     error
	keys    sellerKeys
}

type sellerKeys struct {
	View key.Binding
}

var sellerViews = []string{"listings", "inventory & mailbox", "sales & purchases"}

func newSellerPane() *sellerPane {
	return &sellerPane{table: newListingTable(market.Query{}), keys: sellerKeys{
		View: key.NewBinding(key.WithKeys("v"), key.WithHelp("v", "listings/inventory/history")),
	}}
}

func (p *sellerPane) Title() string { return "Seller" }

func (p *sellerPane) Help() []key.Binding {
	return []key.Binding{p.keys.View, key.NewBinding(key.WithKeys("p"), key.WithHelp("p", "pick player")), p.table.nav.PgDown}
}

func (p *sellerPane) TextFocused() bool { return false }

func (p *sellerPane) Selected() (market.Listing, bool) {
	if p.view != 0 {
		return market.Listing{}, false
	}
	return p.table.selected()
}

func (p *sellerPane) rows(c *Common) int { return paneHeight(c.H) - 3 }

func (p *sellerPane) Refresh(c *Common) {
	p.err = nil
	if p.player != c.Actor.ID {
		p.player = c.Actor.ID
		p.table.setQuery(c, market.Query{Seller: p.player}, p.rows(c))
	} else {
		p.table.refresh(c, p.rows(c))
	}
	st, err := c.Svc.GetPlayer(p.player)
	if err != nil {
		p.err = err
		return
	}
	p.state = st
	p.history = market.TxPage{}
	if c.Svc.HistoryLoaded() { // never block the event loop on the background load
		p.history, err = c.Svc.Transactions(market.TxQuery{Player: p.player, AllStates: true, Limit: 200})
		if err != nil {
			p.err = err
		}
	}
}

func (p *sellerPane) Update(c *Common, msg tea.Msg) tea.Cmd {
	if k, ok := msg.(tea.KeyPressMsg); ok && key.Matches(k, p.keys.View) {
		p.view = (p.view + 1) % len(sellerViews)
		return nil
	}
	if p.view == 0 {
		p.table.update(c, msg, p.rows(c), paneTop+3)
	}
	return nil
}

func (p *sellerPane) View(c *Common, w, h int) string {
	s := c.Styles
	st := p.state
	var sales, buys int
	var earned, spent float64
	for _, t := range p.history.Transactions {
		if t.State != market.StateCompleted {
			continue
		}
		if t.Seller == st.ID {
			sales++
			earned += t.SellerNet
		} else {
			buys++
			spent += t.Price
		}
	}
	role := ""
	if st.HasPermission(market.PermAdmin) {
		role = s.Warn.Render(" admin")
	}
	head := s.Title.Render(playerName(st.Player)) + role + s.Dim.Render("  "+st.ID.String())
	info := fmt.Sprintf("balance %s · %s listings · %d in mailbox · sold %d (%s) · bought %d (%s)",
		s.Price.Render(money(st.Balance)), count(p.table.total), len(st.Mailbox), sales, money(earned), buys, money(spent))
	if p.history.Total > len(p.history.Transactions) {
		info += s.Dim.Render(fmt.Sprintf(" in the last %d of %d", len(p.history.Transactions), p.history.Total))
	}
	tabs := s.Dim.Render("v: ")
	for i, name := range sellerViews {
		if i == p.view {
			tabs += s.Cursor.Render(name) + " "
		} else {
			tabs += s.Dim.Render(name) + " "
		}
	}
	top := fit(head, w) + "\n" + fit(info, w) + "\n" + fit(tabs, w)
	if p.err != nil {
		return top + "\n" + block([]string{s.Err.Render(p.err.Error())}, w, h-3)
	}
	switch p.view {
	case 0:
		return top + "\n" + p.table.view(c, w, h-3)
	case 1:
		return top + "\n" + block(p.inventoryLines(c, w), w, h-3)
	}
	return top + "\n" + block(p.historyLines(c), w, h-3)
}

func (p *sellerPane) inventoryLines(c *Common, w int) []string {
	s := c.Styles
	var inv []string
	for i, it := range p.state.Inventory {
		if it == nil {
			continue
		}
		line := fmt.Sprintf("%2d  %2d× %s", i+1, it.Amount, RenderMC(itemName(*it), lipglossPlain))
		if e := enchants(*it); e != "" {
			line += s.Dim.Render("  " + e)
		}
		inv = append(inv, line)
	}
	var mail []string
	for _, m := range p.state.Mailbox {
		line := fmt.Sprintf("%2d× %s", m.Item.Amount, RenderMC(itemName(m.Item), lipglossPlain)) + s.Dim.Render("  "+m.Reason)
		if m.PreviousPrice > 0 {
			line += s.Dim.Render(" (was " + money(m.PreviousPrice) + ")")
		}
		mail = append(mail, line)
	}
	if len(inv) == 0 {
		inv = []string{s.Dim.Render("empty")}
	}
	if len(mail) == 0 {
		mail = []string{s.Dim.Render("empty")}
	}
	invTitle := s.Title.Render(fmt.Sprintf("Inventory (%d of %d slots)", len(p.state.Inventory)-countNil(p.state.Inventory[:]), market.InventorySize))
	mailTitle := s.Title.Render(fmt.Sprintf("Mailbox (%d) · m claims", len(p.state.Mailbox)))
	if w >= 120 {
		half := w / 2
		n := max(len(inv), len(mail))
		lines := []string{fit(invTitle, half) + mailTitle}
		for i := 0; i < n; i++ {
			l, r := "", ""
			if i < len(inv) {
				l = inv[i]
			}
			if i < len(mail) {
				r = mail[i]
			}
			lines = append(lines, fit(l, half)+r)
		}
		return lines
	}
	return append(append(append([]string{invTitle}, inv...), "", mailTitle), mail...)
}

func countNil(xs []*market.ItemStack) int {
	n := 0
	for _, x := range xs {
		if x == nil {
			n++
		}
	}
	return n
}

func (p *sellerPane) historyLines(c *Common) []string {
	s := c.Styles
	if len(p.history.Transactions) == 0 {
		return []string{s.Dim.Render("no sales or purchases yet")}
	}
	var lines []string
	for _, t := range p.history.Transactions {
		dir := s.OK.Render("sold  ")
		other := "to " + Sanitize(t.BuyerName)
		amount := t.SellerNet
		if t.Buyer == p.state.ID {
			dir, other, amount = s.Warn.Render("bought"), "from "+Sanitize(t.SellerName), t.Price
		}
		state := string(t.State)
		if t.State != market.StateCompleted {
			state = s.Err.Render(state)
		}
		at := t.CreatedAt()
		if n := len(t.Timeline); n > 0 {
			at = t.Timeline[n-1].At
		}
		lines = append(lines, fmt.Sprintf("%s %s %s×%d %s for %s %s", stamp(at), dir,
			RenderMC(itemName(t.Item), lipglossPlain), t.Item.Amount, other, money(amount), state))
	}
	return lines
}

// block lays lines into exactly h lines of width w.
func block(lines []string, w, h int) string {
	var b strings.Builder
	for i := 0; i < h; i++ {
		if i > 0 {
			b.WriteByte('\n')
		}
		if i < len(lines) {
			b.WriteString(fit(lines[i], w))
		} else {
			b.WriteString(strings.Repeat(" ", w))
		}
	}
	return b.String()
}

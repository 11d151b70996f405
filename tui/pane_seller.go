package tui

import (
	"errors"
	"fmt"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"github.com/google/uuid"
	"github.com/rynek/rynek/market"
	"github.com/rynek/rynek/market/playertext"
)

// sellerPane shows one player — the acting player, picked with "p" — with
// their balance, listings, inventory, mailbox, sales and purchases, their
// own data and notifications, and their bids. "v" switches between the
// listings table, the inventory and mailbox, the history of sales and
// purchases (a scrollable table; enter opens a row), the notifications, and
// the bids (enter bids on the selected auction).
type sellerPane struct {
	player  uuid.UUID
	state   market.PlayerState
	table   *listingTable
	history *txTable
	sums    historySums
	held    heldByOrders
	notes   []string // the fourth view's lines, read when it opened
	bids    bidList  // the fifth view's rows
	view    int      // 0 listings, 1 inventory & mailbox, 2 sales & purchases, 3 notifications, 4 bids
	err     error
	keys    sellerKeys
}

type sellerKeys struct {
	View, Open, Bid key.Binding
}

var sellerViews = []string{"listings", "inventory & mailbox", "sales & purchases", "favourites, alerts & notifications", "bids"}

// sellerViewsShort name the views where sellerViews do not fit the width,
// so that every view's name, the last too, stays on screen.
var sellerViewsShort = []string{"listings", "inventory", "history", "notifications", "bids"}

// sellerBidsView is the index of the bids view in sellerViews.
const sellerBidsView = 4

// historySums are the player's completed sales and purchases, summed when
// the history is small enough to read whole on a refresh.
type historySums struct {
	known          bool
	sales, buys    int
	earned, spent  float64 // net of fees; prices paid
	ratings, stars int     // the buyers' ratings of the sales
}

// historySumMax is the largest history summed on every refresh.
const historySumMax = 2000

func newSellerPane() *sellerPane {
	return &sellerPane{table: newListingTable(market.Query{}), history: newTxTable(market.TxQuery{AllStates: true}),
		keys: sellerKeys{
			View: binding([]string{"v"}, "v", "listings / inventory / history / notifications / bids"),
			Open: binding([]string{"enter"}, "enter", "open the transaction"),
			Bid:  binding([]string{"enter"}, "enter", "bid on the selected auction"),
		}}
}

func (p *sellerPane) Title() string { return "Seller" }

func (p *sellerPane) showsActor() {}

func (p *sellerPane) Help() []key.Binding {
	n := p.table.nav
	switch p.view {
	case 2:
		return append([]key.Binding{p.keys.View, p.keys.Open}, n.all()...)
	case sellerBidsView:
		return append([]key.Binding{p.keys.View, p.keys.Bid}, n.all()...)
	}
	return append([]key.Binding{p.keys.View}, n.all()...)
}

func (p *sellerPane) TextFocused() bool { return false }

func (p *sellerPane) Selected() (market.Listing, bool) {
	switch p.view {
	case 0:
		return p.table.selected()
	case sellerBidsView:
		b, ok := p.bids.selected()
		return b.Listing, ok
	}
	return market.Listing{}, false
}

// SelectedID is the selected transaction's id on the history view.
func (p *sellerPane) SelectedID() string {
	if p.view != 2 {
		return ""
	}
	if t, ok := p.history.selected(); ok {
		return t.ID
	}
	return ""
}

func (p *sellerPane) rows(c *Common) int { return paneHeight(c.H) - 4 } // three lines of head, the table header

func (p *sellerPane) Refresh(c *Common) {
	p.err = nil
	if p.player != c.Actor.ID {
		p.player = c.Actor.ID
		p.table.setQuery(c, market.Query{Seller: p.player}, p.rows(c))
		p.history.q.Player = p.player
		p.history.cursor, p.history.top = 0, 0
		// The fourth view shows the new player's own data (marked read
		// when they open it themselves).
		p.notes = nil
		if p.view == 3 && p.player != uuid.Nil {
			p.notes = notificationLines(c, p.player)
		}
		p.bids.reset()
	} else {
		p.table.refresh(c, p.rows(c))
	}
	p.history.refresh(c, p.rows(c))
	p.bids.refresh(c, p.player, p.rows(c))
	if p.player == uuid.Nil {
		p.err = errors.New(noPlayersText)
		return
	}
	st, err := c.Svc.GetPlayer(p.player)
	if err != nil {
		p.err = err
		return
	}
	p.state = st
	p.held = heldBy(c, p.player)
	p.sums = historySums{}
	if p.history.err == nil && p.history.total <= historySumMax {
		page, err := c.Svc.Transactions(market.TxQuery{Player: p.player, Limit: historySumMax})
		if err == nil {
			p.sums.known = true
			for _, t := range page.Transactions {
				if t.Seller == p.player {
					p.sums.sales++
					p.sums.earned += t.SellerNet
					if t.Rating > 0 {
						p.sums.ratings++
						p.sums.stars += t.Rating
					}
				} else {
					p.sums.buys++
					p.sums.spent += t.Price
				}
			}
		}
	}
}

func (p *sellerPane) Update(c *Common, msg tea.Msg) tea.Cmd {
	h := p.rows(c)
	if k, ok := msg.(tea.KeyPressMsg); ok {
		switch {
		case key.Matches(k, p.keys.View):
			p.view = (p.view + 1) % len(sellerViews)
			if p.view == 3 && p.player != uuid.Nil {
				p.notes = notificationLines(c, p.player) // as they were before this reading
				return request(actMarkRead{player: c.Actor})
			}
			return nil
		case p.view == 2 && key.Matches(k, p.keys.Open):
			if t, ok := p.history.selected(); ok {
				return request(actOpen{txID: t.ID})
			}
			return nil
		case p.view == sellerBidsView && key.Matches(k, p.keys.Bid):
			return p.bidDialog(c)
		}
	}
	switch p.view {
	case 0:
		p.table.update(c, msg, h, paneTop+4)
	case 2:
		if d, ok := p.history.delta(msg, h, paneTop+4); ok {
			p.history.move(c, d, h)
		}
	case sellerBidsView:
		p.bids.update(msg, h, paneTop+4)
	}
	return nil
}

// bidDialog asks the root to open the bid dialog on the selected auction,
// as it stands now (the row may be a tick old).
func (p *sellerPane) bidDialog(c *Common) tea.Cmd {
	b, ok := p.bids.selected()
	if !ok {
		return nil
	}
	l, err := c.Svc.GetListing(b.Listing.ID)
	if err != nil {
		return func() tea.Msg { return statusMsg{text: err.Error(), err: true} }
	}
	d := newBidDialog(c, l)
	return func() tea.Msg { return openDialogMsg{d} }
}

func (p *sellerPane) View(c *Common, w, h int) string {
	s := c.Styles
	if p.player == uuid.Nil {
		// No one to show: not a nil id with a balance of 0.00.
		return block([]string{s.Title.Render("No player yet"), s.Dim.Render(noPlayerHow)}, w, h)
	}
	st := p.state
	role := ""
	if st.HasPermission(market.PermAdmin) {
		role = s.Warn.Render(" admin")
	}
	head := s.Title.Render(playerName(st.Player)) + role
	id := s.Dim.Render("  " + st.ID.String())
	balance := "balance " + s.Price.Render(money(st.Balance))
	if n := p.held.orders; n > 0 {
		balance += s.Dim.Render(fmt.Sprintf(" (%s in %d buy order%s)", money(p.held.escrow), n, plural(n)))
	}
	counts := fmt.Sprintf("%s listing%s · %d in mailbox · %s transaction%s", count(p.table.total), plural(p.table.total),
		len(st.Mailbox), count(p.history.total), plural(p.history.total))
	var sums string
	switch {
	case p.sums.known:
		sums = fmt.Sprintf(" · sold %d (net %s) · bought %d (%s)", p.sums.sales, money(p.sums.earned), p.sums.buys, money(p.sums.spent))
		if n := p.sums.ratings; n > 0 {
			sums += fmt.Sprintf(" · rated %.1f★ by %d", float64(p.sums.stars)/float64(n), n)
		}
	case p.history.loading():
		sums = s.Dim.Render(" · loading the history…")
	}
	info := balance + " · " + counts + sums
	if width(info) > w {
		// Narrow: the counts go up beside the name, before the id, so that
		// the money (the net of the sales) is whole.
		head += " · " + counts
		info = balance + sums
	}
	head += id
	names := p.bids.label(sellerViews)
	tabs := viewTabs(s, names, p.view)
	if width(tabs) > w {
		tabs = viewTabs(s, p.bids.label(sellerViewsShort), p.view)
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
	case 3:
		return top + "\n" + block(p.notes, w, h-3)
	case sellerBidsView:
		return top + "\n" + p.bids.view(c, w, h-3, playerName(st.Player))
	}
	return top + "\n" + p.history.view(c, w, h-3)
}

// viewTabs is the line naming the views, the one shown marked.
func viewTabs(s Styles, names []string, shown int) string {
	tabs := s.Dim.Render("v: ")
	for i, name := range names {
		if i == shown {
			tabs += s.Cursor.Render(name) + " "
		} else {
			tabs += s.Dim.Render(name) + " "
		}
	}
	return tabs
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
		case market.NotifyOutbid:
			how := "the bid is " + money(n.Price) + " now"
			switch n.Reason {
			case market.OutbidBoughtNow:
				how = "bought now for " + money(n.Price)
			case market.OutbidTakenDown:
				how = "taken down by an admin"
			}
			what = fmt.Sprintf("outbid on #%d %s ×%d: %s, your %s is back in the balance", n.ListingID,
				RenderMC(itemName(n.Item), lipglossPlain), n.Item.Amount, how, money(n.Refunded))
		case market.NotifyMail:
			what = fmt.Sprintf("mailbox: %s ×%d (%s)", RenderMC(itemName(n.Item), lipglossPlain), n.Item.Amount, playertext.Sanitize(n.Reason))
		case market.NotifyFill:
			what = fmt.Sprintf("buy order #%d bought %s ×%d from %s for %s", n.Order, RenderMC(itemName(n.Item), lipglossPlain),
				n.Item.Amount, playertext.Sanitize(n.Seller), money(n.Price))
		}
		lines = append(lines, mark+s.Dim.Render(n.At.UTC().Format("01-02 15:04")+"  ")+what)
	}
	return lines
}

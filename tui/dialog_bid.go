package tui

import (
	"fmt"
	"strings"
	"time"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"github.com/rynek/rynek/market"
	"github.com/rynek/rynek/market/playertext"
)

// actBid places the acting player's bid on an auction; actBuyNow buys it
// at its buy-now price.
type (
	actBid struct {
		id     int
		amount float64
	}
	actBuyNow       struct{ id int }
	actAskBuyNow    struct{ l market.Listing } // the bid dialog's ctrl+b: confirm first
	actStartAuction struct {
		stack    market.ItemStack
		start    float64
		buyNow   float64 // 0 none
		duration time.Duration
	}
)

// bidDialog asks the acting player's bid on an auction: the amount, proposed
// at the minimum next bid and checked as it is typed, with the balance it
// leaves. ctrl+b buys the auction now instead, when it has a buy-now price.
type bidDialog struct {
	dialogBase
	l       market.Listing
	balance float64
	amount  textField
	ok      float64 // the amount when err is empty
	bid     key.Binding
	buyNow  key.Binding
}

func newBidDialog(c *Common, l market.Listing) *bidDialog {
	d := &bidDialog{dialogBase: newDialogBase(typing), l: l, amount: newTextField("", "", 16, 14),
		bid:    binding([]string{"enter"}, "enter", "bid"),
		buyNow: binding([]string{"ctrl+b"}, "ctrl+b", "buy it now")}
	if st, err := c.Svc.GetPlayer(c.Actor.ID); err == nil {
		d.balance = st.Balance
	}
	d.amount.Prefill(fmt.Sprintf("%.2f", l.Auction.MinimumBid))
	d.amount.Focus()
	d.check()
	return d
}

func (d *bidDialog) Help() []key.Binding {
	keys := []key.Binding{d.bid}
	if d.l.Auction.BuyNow > 0 {
		keys = append(keys, d.buyNow)
	}
	return append(keys, d.closeKey())
}

// check reads the amount as the market will: a price, at least the
// minimum next bid.
func (d *bidDialog) check() {
	m, err := market.ParsePrice(strings.TrimSpace(d.amount.Value()), 1, market.Money(1<<50))
	switch {
	case err != nil:
		d.err = err.Error()
	case m.Float() < d.l.Auction.MinimumBid:
		d.err = fmt.Sprintf("the lowest bid is %s", money(d.l.Auction.MinimumBid))
	default:
		d.err, d.ok = "", m.Float()
	}
}

func (d *bidDialog) Update(_ *Common, msg tea.Msg) (action, bool) {
	if d.closes(msg) {
		return nil, true
	}
	if k, ok := msg.(tea.KeyPressMsg); ok {
		switch {
		case key.Matches(k, d.bid):
			if d.err != "" {
				return nil, false
			}
			return actBid{id: d.l.ID, amount: d.ok}, true
		case key.Matches(k, d.buyNow) && d.l.Auction.BuyNow > 0:
			return actAskBuyNow{l: d.l}, true
		}
	}
	if d.typeInto(&d.amount, msg) {
		d.check()
	}
	return nil, false
}

func (d *bidDialog) View(c *Common, w, _ int) string {
	s, l, a := c.Styles, d.l, d.l.Auction
	var b strings.Builder
	b.WriteString(s.Title.Render("Bid as " + playerName(c.Actor)))
	b.WriteString(fmt.Sprintf("\n#%d %s ×%d by %s, ends in %s", l.ID, RenderMC(itemName(l.Item), lipglossPlain), l.Item.Amount,
		playertext.Sanitize(l.SellerName), Until(l.ExpiresAt, c.NowUnix)))
	lead := "no bid yet: the starting bid is " + money(a.StartingBid)
	if a.Bids > 0 {
		lead = fmt.Sprintf("%s leads with %s after %d bid%s", playertext.Sanitize(a.LeaderName), money(a.CurrentBid), a.Bids, plural(a.Bids))
	}
	b.WriteString("\n" + s.Dim.Render(lead))
	if a.BuyNow > 0 {
		b.WriteString("\n" + s.Dim.Render("buy it now for ") + money(a.BuyNow))
	}
	b.WriteString("\n\nbid " + d.amount.View(s) + s.Dim.Render("  at least "+money(a.MinimumBid)))
	after := d.balance - d.ok
	if a.Bids > 0 && a.Leader == c.Actor.ID {
		after += a.CurrentBid // a leader raising pays the difference
	}
	if d.err == "" {
		b.WriteString("\n" + s.Dim.Render("balance ") + money(d.balance) + s.Dim.Render(" → after ") + money(after) +
			s.Dim.Render(" (held until outbid or the end)"))
		if after < 0 {
			b.WriteString("\n" + s.Warn.Render("⚠ funds are short: the market will refuse (INSUFFICIENT_FUNDS)"))
		}
	} else {
		b.WriteString("\n" + s.Err.Render("✗ "+d.err))
	}
	if l.Seller == c.Actor.ID {
		b.WriteString("\n" + s.Warn.Render("⚠ this is the acting player's own auction: the market will refuse (OWN_AUCTION)"))
	}
	return box(c, b.String(), w)
}

// placeBid runs actBid on the main thread; the dialog stays open with the
// market's refusal.
func (m *Model) placeBid(a actBid) error {
	c := m.c
	l, err := c.Svc.Bid(c.Actor, a.id, a.amount)
	if err != nil {
		m.fail(err)
		return err
	}
	m.changed = true
	m.setStatus(statusMsg{text: fmt.Sprintf("bid %s on #%d as %s: leads after %d bid%s, ends in %s → BidPlacedEvent",
		money(a.amount), a.id, playerName(c.Actor), l.Auction.Bids, plural(l.Auction.Bids), Until(l.ExpiresAt, c.NowUnix))})
	return nil
}

// startAuction runs actStartAuction on the main thread, on the terms the
// sell dialog checked; the market checks them again.
func (m *Model) startAuction(a actStartAuction) error {
	c := m.c
	l, err := c.Svc.StartAuction(c.Actor, a.stack, a.start, a.buyNow, a.duration)
	if err != nil {
		m.fail(err)
		return err
	}
	m.changed = true
	now := ""
	if a.buyNow > 0 {
		now = ", buy now " + money(a.buyNow)
	}
	m.setStatus(statusMsg{text: fmt.Sprintf("auction #%d: %s ×%d from %s%s, ends in %s → ListingCreatedEvent", l.ID,
		playertext.Sanitize(playertext.StripColors(itemName(l.Item))), l.Item.Amount, money(a.start), now, Until(l.ExpiresAt, c.NowUnix))})
	return nil
}

// confirmBuyNow asks before buying auction l at its buy-now price, as b
// asks before buying a fixed-price listing: the price, the balance after,
// the leader's bid going back, and what the market will refuse.
func (m *Model) confirmBuyNow(l market.Listing) {
	c, s := m.c, m.c.Styles
	if now, err := c.Svc.GetListing(l.ID); err == nil && now.Auction != nil {
		l = now // the bidding as it is, not as the dialog last read it
	}
	a := l.Auction
	lines := []string{fmt.Sprintf("#%d %s ×%d by %s now for %s", l.ID, RenderMC(itemName(l.Item), lipglossPlain), l.Item.Amount,
		playertext.Sanitize(l.SellerName), s.Price.Render(money(a.BuyNow)))}
	back := 0.0
	switch {
	case a.Bids > 0 && a.Leader == c.Actor.ID:
		back = a.CurrentBid
		lines = append(lines, s.Dim.Render(fmt.Sprintf("%s's leading bid of %s comes back first", playerName(c.Actor), money(a.CurrentBid))))
	case a.Bids > 0:
		lines = append(lines, s.Dim.Render(fmt.Sprintf("%s's leading bid of %s goes back to them", playertext.Sanitize(a.LeaderName), money(a.CurrentBid))))
	}
	lines = append(lines, m.balanceAfter(a.BuyNow, back)...)
	if l.Seller == c.Actor.ID {
		lines = append(lines, s.Warn.Render("⚠ this is the acting player's own auction: the market will refuse (OWN_AUCTION)"))
	}
	lines = append(lines, s.Dim.Render("ends the auction: TransactionCompletedEvent, AuctionEndedEvent"))
	m.dialog = newConfirm(c, "Buy it now as "+playerName(c.Actor)+"?", actBuyNow{id: l.ID}, lines...)
}

// buyNow runs actBuyNow on the main thread.
func (m *Model) buyNow(a actBuyNow) {
	tx, err := m.c.Svc.BuyNow(m.c.Actor, a.id)
	m.changed = true
	if err != nil {
		if tx.ID == "" {
			m.fail(err)
		} else {
			m.setStatus(statusMsg{text: fmt.Sprintf("transaction %s ended %s (%s): %s", shortID(tx.ID), tx.State, tx.ErrorCode, err), err: true})
		}
		return
	}
	m.setStatus(statusMsg{text: fmt.Sprintf("bought #%d now: transaction %s COMPLETED, paid %s → TransactionCompletedEvent, AuctionEndedEvent",
		a.id, shortID(tx.ID), money(tx.Price))})
}

package tui

import (
	"fmt"
	"slices"
	"strings"

	tea "charm.land/bubbletea/v2"
	"github.com/google/uuid"
	"github.com/rynek/rynek/market"
)

// The Seller pane's fifth view: the acting player's bids, the live
// auctions they lead ("leading") and those where another bidder outbid
// them ("outbid"), the soonest to end first, with the time left ticking;
// the view's name counts them, the outbid apart, on every view.
// Enter (or b, the console's bid key) opens the bid dialog on the selected
// auction. The rows come from the market's PlayerBids, a read of memory.

// Bid states as the player reads them.
const (
	bidLeading = "leading" // the player's bid leads
	bidOutbid  = "outbid"  // another bidder beat it
)

// bidList is the acting player's bids, read whole on a refresh.
type bidList struct {
	nav  tableNav
	bids []market.PlayerBid
	err  error
}

// refresh reads player's bids again, keeping the cursor on the auction it
// was on when that is still among them.
func (b *bidList) refresh(c *Common, player uuid.UUID, h int) {
	was, had := b.selected()
	b.bids, b.err = nil, nil
	if player != uuid.Nil {
		b.bids, b.err = c.Svc.PlayerBids(player)
	}
	b.nav.total = len(b.bids)
	if had {
		for i, x := range b.bids {
			if x.Listing.ID == was.Listing.ID {
				b.nav.cursor = i
			}
		}
	}
	b.nav.clamp(h)
}

// reset puts the cursor back on the first row (another player).
func (b *bidList) reset() { b.nav.cursor, b.nav.top = 0, 0 }

func (b *bidList) selected() (market.PlayerBid, bool) {
	if b.nav.cursor < 0 || b.nav.cursor >= len(b.bids) {
		return market.PlayerBid{}, false
	}
	return b.bids[b.nav.cursor], true
}

// update moves the cursor for a navigation key, the wheel or a click.
func (b *bidList) update(msg tea.Msg, h, y0 int) {
	if d, ok := b.nav.delta(msg, h, y0); ok {
		b.nav.cursor += d
		b.nav.clamp(h)
	}
}

// label is names with the bids view's name counting the bids, and the
// outbid ones apart ("bids 3, 1 outbid"), so that an outbid shows from
// every view.
func (b *bidList) label(names []string) []string {
	if len(b.bids) == 0 {
		return names
	}
	out := slices.Clone(names)
	outbid := 0
	for _, x := range b.bids {
		if !x.Leading {
			outbid++
		}
	}
	out[sellerBidsView] += fmt.Sprintf(" %d", len(b.bids))
	if outbid > 0 {
		out[sellerBidsView] += fmt.Sprintf(", %d %s", outbid, bidOutbid)
	}
	return out
}

// bidColumns are the widths of a bid row w cells wide (the gutter
// excluded): id, item (flexible), state, current bid, the player's last
// bid, the minimum next bid, time left.
func bidColumns(w int) [7]int {
	cols := [7]int{8, 0, 10, 11, 11, 11, 7}
	if w >= 148 {
		cols = [7]int{9, 0, 10, 14, 14, 14, 9}
	}
	fixed := len(cols) - 1
	for _, c := range cols {
		fixed += c
	}
	cols[1] = max(w-fixed, 8)
	return cols
}

func (b *bidList) row(c *Common, x market.PlayerBid, w int) string {
	s, l, cols := c.Styles, x.Listing, bidColumns(w)
	state := s.OK.Render(fit(bidLeading, cols[2]))
	if !x.Leading {
		state = s.Warn.Render(fit(bidOutbid, cols[2]))
	}
	item := RenderMC(itemName(l.Item), lipglossPlain) + s.Dim.Render(fmt.Sprintf(" ×%d · %d bid%s", l.Item.Amount, l.Auction.Bids, plural(l.Auction.Bids)))
	return fitLeft(fmt.Sprintf("#%d", l.ID), cols[0]) + " " + fit(item, cols[1]) + " " + state + " " +
		s.Price.Render(fitLeft(money(l.Auction.CurrentBid), cols[3])) + " " + fitLeft(money(x.LastBid), cols[4]) + " " +
		fitLeft(money(l.Auction.MinimumBid), cols[5]) + " " + s.Dim.Render(fitLeft(Until(l.ExpiresAt, c.NowUnix), cols[6]))
}

// view renders the header and h-1 rows.
func (b *bidList) view(c *Common, w, h int, who string) string {
	s := c.Styles
	if b.err != nil {
		return block([]string{s.Err.Render("✗ " + b.err.Error())}, w, h)
	}
	cols := bidColumns(w - 2)
	var out strings.Builder
	out.WriteString(s.Dim.Render(fit("  "+fitLeft("id", cols[0])+" "+fit("item", cols[1])+" "+fit("state", cols[2])+" "+
		fitLeft("current", cols[3])+" "+fitLeft("last bid", cols[4])+" "+fitLeft("minimum", cols[5])+" "+fitLeft("ends", cols[6]), w)))
	rows := h - 1
	if len(b.bids) == 0 {
		out.WriteString("\n" + fit(s.Dim.Render("No bids on live auctions: b on an auction (⚑) in Listings or Search bids as "+who+"."), w))
		rows--
	}
	b.nav.renderRows(&out, c, w, rows, len(b.bids), func(j int) string { return b.row(c, b.bids[j], w-2) })
	return out.String()
}

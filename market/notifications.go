package market

import (
	"cmp"
	"slices"
	"time"

	"github.com/google/uuid"
)

// NotificationKind says what a notification is about.
type NotificationKind string

// The kinds of notifications.
const (
	NotifySale  NotificationKind = "sale"  // one of the player's listings sold
	NotifyAlert NotificationKind = "alert" // a price alert found a new listing
	NotifyMail  NotificationKind = "mail"  // an item came to the mailbox: expired, returned, refunded, given
	// NotifyOutbid: another player beat the player's leading bid on an
	// auction, with a higher bid or by buying it now (Reason
	// OutbidBoughtNow), or an admin took the auction down (Reason
	// OutbidTakenDown), and the bid came back to their balance.
	NotifyOutbid NotificationKind = "outbid"
	// NotifyFill: one of the player's buy orders bought items (from a
	// listing, or a seller sold into it); they are in the inventory, or
	// the mailbox when it was full.
	NotifyFill NotificationKind = "fill"
)

// OutbidBoughtNow is the Reason of an outbid notification when another
// player bought the auction at its buy-now price (Price).
const OutbidBoughtNow = "bought-now"

// OutbidTakenDown is the Reason of an outbid notification when an admin
// took the auction down while the player led it (Price is their own bid).
const OutbidTakenDown = "taken-down"

// Notification is one thing that happened to a player's business, newest
// first in Notifications. Nothing is merged: two equal sales are two
// notifications.
type Notification struct {
	Kind NotificationKind
	At   time.Time
	Read bool // at or before the player's last MarkNotificationsRead
	// A sale: the transaction, its buyer and price, the item. A fill: the
	// transaction, its seller and price, the items, and the order.
	Transaction string
	Buyer       string
	Seller      string
	Order       int
	// An alert: the alert's search and the listing it found (which may
	// have left the market since); Price is the listing's price.
	Alert     uuid.UUID
	Query     string
	ListingID int
	// A mailbox entry: its reason ("expired", "admin-removed", …); an
	// outbid: OutbidBoughtNow when the auction was bought now,
	// OutbidTakenDown when an admin took it down, else "".
	Reason string
	Item   ItemStack // an alert's and an outbid's have only the material and amount
	// Price is a sale's price, the listing's price an alert found, a
	// mailbox entry's previous price, or the leading bid that beat the
	// player's (an outbid; the buy-now price when bought now).
	Price float64
	// Refunded is an outbid's bid of the player's, back in their balance.
	Refunded float64
}

// NotificationPage is a player's newest notifications and how many of all
// of them are unread.
type NotificationPage struct {
	Notifications []Notification
	Unread        int
}

// MaxNotificationsPage bounds one Notifications page.
const MaxNotificationsPage = 500

// Notifications returns the player's newest notifications (limit of them;
// 0 means 50): their sales and their buy orders' fills (from the history,
// so a player who was away finds every one), what their price alerts found
// (kept, the newest MaxAlertHits), the auctions where another bidder beat
// their bid (kept, the newest MaxOutbidNotices; ListingID names the
// auction), and what is in their mailbox (expiries, returns, refunds,
// gifts; a claimed entry leaves with its item). Any goroutine; it waits
// for the history's background load.
func (s *Service) Notifications(player uuid.UUID, limit int) (NotificationPage, error) {
	if err := s.readGuard(); err != nil {
		return NotificationPage{}, err
	}
	if limit <= 0 {
		limit = 50
	}
	limit = min(limit, MaxNotificationsPage)
	s.waitHistory()
	s.mu.RLock()
	defer s.mu.RUnlock()
	p, err := s.player(player)
	if err != nil {
		return NotificationPage{}, err
	}
	var readAt int64
	var x playerExtra
	if p.extra != nil {
		x = *p.extra
		readAt = x.readAt
	}
	var all []Notification
	for _, t := range p.txs {
		if t.State() != StateCompleted {
			continue
		}
		switch {
		case t.seller == p.idx:
			all = append(all, Notification{Kind: NotifySale, At: unixMilli(t.tl[len(t.tl)-1].At), Transaction: t.id.String(),
				Buyer: s.players[t.buyer].name, ListingID: int(t.listing), Item: stackOf(t.it), Price: t.price.Float()})
		case t.order != 0: // the buyer's order bought it, maybe while they were away
			all = append(all, Notification{Kind: NotifyFill, At: unixMilli(t.tl[len(t.tl)-1].At), Transaction: t.id.String(),
				Seller: s.players[t.seller].name, Order: int(t.order), ListingID: int(t.listing), Item: stackOf(t.it),
				Price: t.price.Float()})
		}
	}
	queries := map[uuid.UUID]string{}
	for _, a := range x.alerts {
		queries[a.id] = a.query
	}
	for _, h := range x.hits {
		all = append(all, Notification{Kind: NotifyAlert, At: unixMilli(h.At), Alert: h.Alert, Query: queries[h.Alert],
			ListingID: int(h.Listing), Item: ItemStack{Material: h.Material, Amount: int(h.Amount)}, Price: Money(h.Price).Float()})
	}
	for _, o := range x.outbids {
		n := Notification{Kind: NotifyOutbid, At: unixMilli(o.at), ListingID: int(o.listing),
			Item: ItemStack{Material: o.material, Amount: int(o.amount)}, Price: o.bid.Float(), Refunded: o.refunded.Float()}
		switch {
		case o.boughtNow:
			n.Reason = OutbidBoughtNow
		case o.takenDown:
			n.Reason = OutbidTakenDown
		}
		all = append(all, n)
	}
	for _, m := range p.mail {
		all = append(all, Notification{Kind: NotifyMail, At: unixMilli(m.created), Reason: m.reason, Item: stackOf(m.it),
			Price: m.prev.Float()})
	}
	page := NotificationPage{}
	for i := range all {
		all[i].Read = all[i].At.UnixMilli() <= readAt
		if !all[i].Read {
			page.Unread++
		}
	}
	// Newest first; of equal times, the one added later first (each
	// source lists oldest first).
	slices.Reverse(all)
	slices.SortStableFunc(all, func(a, b Notification) int { return cmp.Compare(b.At.UnixMilli(), a.At.UnixMilli()) })
	page.Notifications = all[:min(limit, len(all))]
	return page, nil
}

// MarkNotificationsRead marks everything up to now read for the player.
func (s *Service) MarkNotificationsRead(player uuid.UUID) error {
	if err := s.mutGuard(); err != nil {
		return err
	}
	p, err := s.player(player)
	if err != nil {
		return err
	}
	x := p.extra.clone()
	now := s.nowMs()
	if x.readAt >= now {
		return nil
	}
	x.readAt = now
	return s.writeExtra(p, x)
}

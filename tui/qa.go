package tui

import (
	"errors"
	"fmt"
	"time"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"github.com/rynek/rynek/market"
)

// QA controls: disable the service, mutate from another goroutine, move the
// clock. A refused control changes nothing.

// toggleService disables or enables the service (QA) and says what it did
// and how to undo it.
func (m *Model) toggleService() {
	svc := m.c.Svc
	if svc.IsReady() {
		svc.Disable()
		_, err := svc.GetActiveListingsCount()
		text := "service disabled (D enables it again)"
		if peers := svc.Peers(); len(peers) > 0 {
			text = "this console's service disabled, not " + besideWho(peers) + "'s (D enables it again)"
		}
		if err != nil {
			text += "; every operation now answers: " + err.Error()
		}
		m.setStatus(statusMsg{text: text, qa: true})
	} else {
		if err := svc.Enable(); err != nil {
			m.fail(err)
			return
		}
		m.setStatus(statusMsg{text: "service enabled (D disables it again)", qa: true})
	}
	m.refreshAll()
}

// advance moves the QA clock; the expiry timer runs at once. While the
// service is not ready the clock stays where it is: the timer could not run.
func (m *Model) advance(msg tea.KeyPressMsg) {
	c := m.c
	if c.Clock == nil {
		m.fail(errors.New("this console's clock cannot be moved"))
		return
	}
	if _, err := c.Svc.GetActiveListingsCount(); err != nil {
		m.fail(err)
		return
	}
	if peers := c.Svc.Peers(); len(peers) > 0 {
		// The clock is this process's; the market's timers and every
		// time written would disagree with the other instances'.
		m.fail(fmt.Errorf("the market's clock is shared with %s: it cannot be moved from here (close it, or move time there)", besideWho(peers)))
		return
	}
	d := time.Hour
	switch {
	case key.Matches(msg, m.keys.Day):
		d = 24 * time.Hour
	case key.Matches(msg, m.keys.EndAuction):
		l, ok := m.panes[m.active].Selected()
		if ok {
			l, _ = c.Svc.GetListing(l.ID)
		}
		if !ok || l.Auction == nil {
			m.fail(errors.New("select an auction first (⚑ in Listings, Search or Seller)"))
			return
		}
		d = max(l.ExpiresAt.Sub(c.Svc.Now()), 0) // to its end, on the market's clock
	}
	c.Clock.Advance(d)
	c.NowUnix = c.Svc.Now().Unix()
	r := m.sweep(false) // asked for: refused and said while the store is away
	m.swept, m.ended, m.expiredOrders = 0, 0, 0
	if r.more {
		// the tick carries on with the rest and counts on from here
		m.swept, m.ended, m.expiredOrders = r.n, r.auctions, r.orders
	}
	switch {
	case r.err != nil:
		m.fail(r.err)
	case r.n+r.orders > 0:
		to := ""
		if key.Matches(msg, m.keys.EndAuction) {
			to = " to the auction's end"
		}
		text := fmt.Sprintf("clock +%s%s: %s", shortDur(d), to, sweptText(r.n-r.auctions, r.auctions, r.orders))
		if r.more {
			text += " · sweeping…"
		}
		m.setStatus(statusMsg{text: text, qa: true})
	default:
		m.setStatus(statusMsg{text: fmt.Sprintf("clock +%s (now +%s): nothing expired yet", shortDur(d), shortDur(c.Clock.Offset())), qa: true})
	}
	m.refreshAll()
}

// sweptText says what the timer ended: expiredText's listings and
// auctions, and buy orders, whose escrow went back to their buyers.
func sweptText(n, auctions, orders int) string {
	if orders == 0 {
		return expiredText(n, auctions)
	}
	text := fmt.Sprintf("%d buy order%s expired, each BuyOrderClosedEvent (escrow back to the buyer)", orders, plural(orders))
	if n+auctions == 0 {
		return text
	}
	return text + "; " + expiredText(n, auctions)
}

// expiredText says what the timer ended: n fixed-price listings, which
// publish nothing, and auctions, which publish AuctionEndedEvent.
func expiredText(n, auctions int) string {
	fixed := fmt.Sprintf("%d listing%s expired by timer: no event, by contract (items went to their sellers' mailboxes)", n, plural(n))
	switch {
	case auctions == 0:
		return fixed
	case n == 0:
		return fmt.Sprintf("%d auction%s ended, each AuctionEndedEvent", auctions, plural(auctions))
	}
	return fmt.Sprintf("%d auction%s ended, each AuctionEndedEvent; %s", auctions, plural(auctions), fixed)
}

// catchUpClock moves the QA clock forward to the newest time the market
// already holds. The clock's offset is not stored: a market whose clock was
// advanced in an earlier run holds listings created "in the future", which
// would show more than the maximum time left and transactions dated ahead
// of now. Continuing from the market's own newest time keeps every figure
// plausible; the status line says so.
func (m *Model) catchUpClock(newest time.Time) {
	c := m.c
	if c.Clock == nil || newest.IsZero() {
		return
	}
	ahead := newest.Sub(c.Svc.Now())
	if ahead <= time.Second {
		return
	}
	ahead = ahead.Round(time.Second) + time.Second
	c.Clock.Advance(ahead)
	c.NowUnix = c.Svc.Now().Unix()
	m.setStatus(statusMsg{text: fmt.Sprintf("the market holds times up to %s, %s ahead of this machine's clock (QA advanced it in an earlier run): the clock continues from there (+%s)",
		stamp(newest), shortDur(ahead), shortDur(c.Clock.Offset())), qa: true})
	m.refreshAll()
}

// newestListingTime is the creation time of the newest active listing.
func newestListingTime(svc *market.Service) time.Time {
	page, err := svc.Query(market.Query{Sort: market.SortNewest, Limit: 1})
	if err != nil || len(page.Listings) == 0 {
		return time.Time{}
	}
	return page.Listings[0].CreatedAt
}

// newestTransactionTime is the latest state time of the newest transaction.
// It reads the history, so call it only once the history has loaded.
func newestTransactionTime(svc *market.Service) time.Time {
	page, err := svc.Transactions(market.TxQuery{AllStates: true, Limit: 1})
	if err != nil || len(page.Transactions) == 0 {
		return time.Time{}
	}
	return lastAt(page.Transactions[0])
}

// fingerprint is a cheap summary of the market, to show that a refused
// background mutation changed nothing.
type fingerprint struct {
	listings int
	volume   float64
	balance  float64
	items    int
	events   uint64
}

func (m *Model) fingerprint() fingerprint {
	svc := m.c.Svc
	var f fingerprint
	f.listings, _ = svc.GetActiveListingsCount()
	f.volume, _ = svc.GetMarketVolume()
	if st, err := svc.GetPlayer(m.c.Actor.ID); err == nil {
		f.balance = st.Balance
		for _, s := range st.Inventory {
			if s != nil {
				f.items += s.Amount
			}
		}
	}
	f.events = m.log.lastSeq + uint64(len(m.log.pending))
	return f
}

type bgMutationMsg struct {
	err    error
	before fingerprint
}

// backgroundMutation tries SellItem and RemoveListing from a goroutine that is
// not the main thread (QA): both must fail with the contract's text and
// change nothing.
func (m *Model) backgroundMutation() tea.Cmd {
	c := m.c
	before := m.fingerprint()
	actor := c.Actor
	var stack market.ItemStack
	if st, err := c.Svc.GetPlayer(actor.ID); err == nil {
		for _, s := range st.Inventory {
			if s != nil {
				stack = *s
				break
			}
		}
	}
	target, _ := m.panes[m.active].Selected()
	svc := c.Svc
	return func() tea.Msg {
		// This runs in its own goroutine, not on the event loop.
		_, err := svc.SellItem(actor, stack, 1)
		if target.ID != 0 {
			if err2 := svc.RemoveListing(target.ID, actor); err == nil {
				err = err2
			}
		}
		return bgMutationMsg{err: err, before: before}
	}
}

func (m *Model) onBackgroundResult(msg bgMutationMsg) {
	after := m.fingerprint()
	unchanged := "nothing changed"
	if after != msg.before {
		unchanged = fmt.Sprintf("STATE CHANGED: %+v → %+v", msg.before, after)
	}
	switch {
	case msg.err == nil:
		m.setStatus(statusMsg{text: "background mutation was accepted: the main-thread check failed! " + unchanged, err: true})
	case errors.Is(msg.err, market.ErrNotMainThread) || errors.Is(msg.err, market.ErrNotReady):
		m.setStatus(statusMsg{text: "background goroutine: " + msg.err.Error() + " · " + unchanged, qa: true})
	default:
		m.setStatus(statusMsg{text: "background goroutine: " + msg.err.Error() + " · " + unchanged, err: true})
	}
}

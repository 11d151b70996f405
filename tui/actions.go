package tui

import (
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"github.com/google/uuid"
	"github.com/rynek/rynek/market"
	"github.com/rynek/rynek/market/playertext"
)

// action is what a key or a dialog asks the root model to do. Actions run in
// Update, so every market mutation happens on the main thread.
type action interface{}

type (
	actSell struct {
		stack market.ItemStack
		price float64
	}
	actBuy struct {
		id     int
		failAt market.State
	}
	// actRemove removes a listing as actor; the reason follows from who the
	// actor is (owner: removed, admin: admin-removed, anyone else: NOT_OWNER).
	actRemove struct {
		id     int
		actor  market.Player
		seller uuid.UUID // the listing's, which decides the reason
	}
	actForceExpire struct {
		id    int
		actor market.Player
	}
	actPickPlayer struct{ p market.Player }
	// actOpen shows a listing or a transaction in a detail dialog.
	actOpen struct {
		listing market.Listing // the listing as last seen, when it is gone
		hasList bool
		txID    string
		order   int // a buy order's id
	}
	actJump struct{ text string }
)

// armable is an action a confirmation can arm with a QA failure: the
// purchase, whose saga can fail at each of its steps.
type armable interface {
	withFailure(market.State) action
}

func (a actBuy) withFailure(st market.State) action { a.failAt = st; return a }

// globalKey handles a console-wide key; ok is false when the key is the
// pane's.
func (m *Model) globalKey(msg tea.KeyPressMsg) (tea.Cmd, bool) {
	c, k := m.c, m.keys
	switch {
	case key.Matches(msg, k.Quit):
		return tea.Quit, true
	case key.Matches(msg, k.Help):
		m.dialog = newHelp(m)
	case key.Matches(msg, k.StatusLog):
		m.dialog = newStatusLog(m.history)
	case key.Matches(msg, k.Jump):
		m.dialog = newJumpPrompt()
	case key.Matches(msg, k.Copy):
		return m.copySelected(), true
	case key.Matches(msg, k.Next):
		m.switchTo((m.active + 1) % len(m.panes))
	case key.Matches(msg, k.Prev):
		m.switchTo((m.active + len(m.panes) - 1) % len(m.panes))
	case key.Matches(msg, k.Pane1, k.Pane2, k.Pane3, k.Pane4, k.Pane5, k.Pane6, k.Pane7, k.Pane8):
		m.switchTo(int(msg.String()[0] - '1'))
	case key.Matches(msg, k.Search):
		for i, p := range m.panes {
			if f, ok := p.(inputFocuser); ok {
				m.switchTo(i)
				return m.forPane(i, f.FocusInput()), true
			}
		}
	case key.Matches(msg, k.Player):
		m.dialog = newPlayerPicker(c)
	case key.Matches(msg, k.AddPlayer):
		m.dialog = newAddPlayerDialog()
	case key.Matches(msg, k.Sell):
		st, err := c.Svc.GetPlayer(c.Actor.ID)
		if err != nil {
			m.fail(m.explainNoPlayer(err))
			return nil, true
		}
		d := newSellDialog(c, st)
		m.dialog = d
		return d.summarize(c), true
	case key.Matches(msg, k.Buy, k.Remove, k.AdminRemove, k.ForceExpire, k.RemoveAsActor, k.ExpireAsActor):
		l, ok := m.panes[m.active].Selected()
		if !ok {
			if _, err := c.Svc.GetActiveListingsCount(); err != nil {
				m.fail(err) // not ready: say so rather than "select a listing"
				return nil, true
			}
			m.fail(errors.New("select a listing first (Listings, Search or Seller pane)"))
			return nil, true
		}
		// Ask the market first: a listing that is gone, or a service that is
		// not ready, is reported now, not after a confirmation.
		if _, err := c.Svc.GetListing(l.ID); err != nil {
			m.fail(err)
			return nil, true
		}
		if key.Matches(msg, k.AdminRemove, k.ForceExpire) && c.Admin.ID == uuid.Nil {
			m.fail(errNoAdmin)
			return nil, true
		}
		m.confirmFor(msg, l)
	case key.Matches(msg, k.Claim):
		n, err := c.Svc.ClaimAll(c.Actor.ID)
		if err != nil {
			m.fail(m.explainNoPlayer(err))
		} else {
			// A mailbox entry is a stack, whatever its amount.
			m.setStatus(statusMsg{text: fmt.Sprintf("%s claimed %d stack%s from the mailbox", playerName(c.Actor), n, plural(n))})
			m.changed = true
			m.settle()
		}
	case key.Matches(msg, k.Relist):
		d, err := newRelistPicker(c)
		if err != nil {
			m.fail(m.explainNoPlayer(err))
			return nil, true
		}
		m.dialog = d
	case key.Matches(msg, k.Favorite):
		l, ok := m.panes[m.active].Selected()
		if !ok {
			m.fail(errors.New("select a listing first (Listings, Search or Seller pane)"))
			return nil, true
		}
		m.run(actToggleFavorite{player: c.Actor, listing: l})
	case key.Matches(msg, k.Alerts):
		d, err := newAlertsDialog(c)
		if err != nil {
			m.fail(m.explainNoPlayer(err))
			return nil, true
		}
		m.dialog = d
	case key.Matches(msg, k.Economy):
		if _, err := c.Svc.GetPlayer(c.Actor.ID); err != nil {
			m.fail(m.explainNoPlayer(err))
			return nil, true
		}
		m.dialog = newEconomyDialog(c.Actor)
	case key.Matches(msg, k.Backup):
		return m.startBackup(), true
	case key.Matches(msg, k.Reload):
		m.reloadRules()
	case key.Matches(msg, k.Toggle):
		m.toggleService()
	case key.Matches(msg, k.Background):
		return m.backgroundMutation(), true
	case key.Matches(msg, k.Hour, k.Day, k.EndAuction):
		m.advance(msg)
	case key.Matches(msg, k.Bots, k.Faster, k.Slower):
		m.botKey(msg)
	default:
		return nil, false
	}
	return nil, true
}

// confirmFor opens the confirmation of a buy, remove or force-expire. The
// dialog carries the action it confirms.
func (m *Model) confirmFor(msg tea.KeyPressMsg, l market.Listing) {
	c, k, s := m.c, m.keys, m.c.Styles
	what := fmt.Sprintf("#%d %s ×%d by %s for %s", l.ID, RenderMC(itemName(l.Item), lipglossPlain), l.Item.Amount,
		playertext.Sanitize(l.SellerName), s.Price.Render(money(l.Price)))
	reason := func(r string) string { return s.Dim.Render("publishes ListingRemovedEvent, reason \"" + r + "\"") }
	owner := market.Player{ID: l.Seller, Name: l.SellerName}
	switch {
	case key.Matches(msg, k.Buy) && l.Auction != nil:
		if now, err := c.Svc.GetListing(l.ID); err == nil {
			l = now // the bidding as it is, not as the table last read it
		}
		m.dialog = newBidDialog(c, l)
	case key.Matches(msg, k.Buy):
		lines := append([]string{what}, m.balanceAfter(l.Price, 0)...)
		if l.Seller == c.Actor.ID {
			lines = append(lines, s.Warn.Render("⚠ this is the acting player's own listing: the market will refuse (OWN_LISTING)"))
		}
		m.dialog = newConfirm(c, "Buy as "+playerName(c.Actor)+"?", actBuy{id: l.ID}, lines...)
	case key.Matches(msg, k.Remove):
		m.dialog = newConfirm(c, "Remove as its owner "+playertext.Sanitize(l.SellerName)+"?", actRemove{id: l.ID, actor: owner, seller: l.Seller},
			what, reason(market.ReasonRemoved))
	case key.Matches(msg, k.AdminRemove):
		m.dialog = newConfirm(c, "Remove as admin "+playerName(c.Admin)+"?", actRemove{id: l.ID, actor: c.Admin, seller: l.Seller},
			what, reason(market.ReasonAdminRemoved))
	case key.Matches(msg, k.ForceExpire):
		m.dialog = newConfirm(c, "Force-expire as admin "+playerName(c.Admin)+"?", actForceExpire{id: l.ID, actor: c.Admin},
			what, reason(market.ReasonForceExpire))
	case key.Matches(msg, k.RemoveAsActor):
		m.dialog = newConfirm(c, "Remove as the acting player "+playerName(c.Actor)+"?", actRemove{id: l.ID, actor: c.Actor, seller: l.Seller},
			what, s.Dim.Render("the owner gets reason \"removed\", an admin \"admin-removed\", anyone else NOT_OWNER"))
	case key.Matches(msg, k.ExpireAsActor):
		m.dialog = newConfirm(c, "Force-expire as the acting player "+playerName(c.Actor)+"?", actForceExpire{id: l.ID, actor: c.Actor},
			what, s.Dim.Render("an admin gets reason \"force-expire\", anyone else FORBIDDEN"))
	}
}

// balanceAfter are a purchase's lines on the acting player's money: the
// balance before and after paying price (back is a bid of theirs the
// market returns first), and a warning when it falls short.
func (m *Model) balanceAfter(price, back float64) []string {
	c, s := m.c, m.c.Styles
	st, err := c.Svc.GetPlayer(c.Actor.ID)
	if err != nil {
		return nil
	}
	have := st.Balance + back
	lines := []string{s.Dim.Render("balance ") + money(st.Balance) + s.Dim.Render(" → after ") + money(have-price)}
	if have < price {
		lines = append(lines, s.Warn.Render("⚠ funds are short: the market will refuse (INSUFFICIENT_FUNDS)"))
	}
	return lines
}

// run performs an action on the main thread; what it changed is on screen
// at once, not at the next tick. It returns the error of a refused action,
// so that the dialog that asked for it can stay open and show it.
func (m *Model) run(a action) (tea.Cmd, error) {
	defer m.settle()
	c := m.c
	if handled, err := m.runOrder(a); handled {
		return nil, err
	}
	switch a := a.(type) {
	case actAddPlayer:
		return nil, m.addPlayer(a)
	case actIssue:
		return nil, m.issue(a)
	case actRefund:
		return nil, m.refund(a)
	case actRelist:
		return nil, m.relist(a)
	case actRate:
		return nil, m.rate(a)
	case actToggleFavorite, actAddAlert, actRemoveAlert, actMarkRead:
		return nil, m.own(a)
	case actPickPlayer:
		c.Actor = a.p
		m.setStatus(statusMsg{text: "acting as " + playerName(a.p)})
		m.refreshAll()
	case actSell:
		from := len(m.log.pending)
		l, err := c.Svc.SellItem(c.Actor, a.stack, a.price)
		if err != nil {
			m.fail(err)
			return nil, err
		}
		m.changed = true
		m.setStatus(statusMsg{text: fmt.Sprintf("listed #%d: %s ×%d for %s → ListingCreatedEvent", l.ID,
			playertext.Sanitize(playertext.StripColors(itemName(l.Item))), l.Item.Amount, money(l.Price)) +
			filledAtOnce(m.log.pending[from:])})
	case actBuy:
		m.buy(a)
	case actBid:
		return nil, m.placeBid(a)
	case actStartAuction:
		return nil, m.startAuction(a)
	case actAskBuyNow:
		m.confirmBuyNow(a.l)
	case actBuyNow:
		m.buyNow(a)
	case actRemove:
		if err := c.Svc.RemoveListing(a.id, a.actor); err != nil {
			m.fail(err)
			return nil, err
		}
		m.changed = true
		// The reason the market publishes: its owner's removal is
		// "removed", anyone else's (an admin: the market refused the
		// rest) "admin-removed". The event itself comes later, once the
		// committer has saved the change, so it cannot be read here.
		reason := market.ReasonRemoved
		if a.actor.ID != a.seller {
			reason = market.ReasonAdminRemoved
		}
		m.setStatus(statusMsg{text: fmt.Sprintf("removed #%d as %s → ListingRemovedEvent reason %q", a.id, playerName(a.actor), reason)})
	case actForceExpire:
		if err := c.Svc.ForceExpire(a.id, a.actor); err != nil {
			m.fail(err)
			return nil, err
		}
		m.changed = true
		m.setStatus(statusMsg{text: fmt.Sprintf("force-expired #%d as %s → ListingRemovedEvent reason %q", a.id,
			playerName(a.actor), market.ReasonForceExpire)})
	case actOpen:
		m.open(a)
	case actJump:
		m.jump(a.text)
	}
	return nil, nil
}

// buy runs a purchase, armed with a QA failure if the dialog asked for one.
func (m *Model) buy(a actBuy) {
	c := m.c
	if a.failAt != "" {
		if err := c.Svc.ArmFailure(a.failAt); err != nil {
			m.fail(err)
			return
		}
	}
	tx, err := c.Svc.Buy(c.Actor, a.id)
	_ = c.Svc.ArmFailure("") // a refused purchase does not consume the arming; never carry it over
	m.changed = true
	switch {
	case err != nil && tx.ID == "":
		m.fail(err)
	case err != nil:
		m.setStatus(statusMsg{text: fmt.Sprintf("transaction %s ended %s (%s): %s", shortID(tx.ID), tx.State, tx.ErrorCode, err), err: true})
	default:
		where := "inventory"
		if tx.DeliveredToMailbox {
			where = "mailbox (inventory full)"
		}
		event := "TransactionCompletedEvent"
		if tx.Pending {
			event += " once saved" // committed behind the tick
		}
		m.setStatus(statusMsg{text: fmt.Sprintf("bought #%d: transaction %s COMPLETED, paid %s, fee %s, item to %s → %s",
			a.id, shortID(tx.ID), money(tx.Price), money(tx.Fee), where, event)})
	}
}

// settle drains events and refreshes the screen if the market changed.
func (m *Model) settle() {
	if m.changed {
		m.changed = false
		m.log.drain()
		m.refreshAll()
	}
}

// copySelected copies the id of what is under the cursor to the terminal's
// clipboard (OSC 52): a listing's "#id", or a transaction's id.
func (m *Model) copySelected() tea.Cmd {
	id := ""
	if s, ok := m.panes[m.active].(idSelector); ok {
		id = s.SelectedID()
	}
	if id == "" {
		if l, ok := m.panes[m.active].Selected(); ok {
			id = fmt.Sprintf("#%d", l.ID)
		}
	}
	if id == "" {
		m.fail(errors.New("nothing selected to copy"))
		return nil
	}
	m.setStatus(statusMsg{text: "copied " + id + " to the clipboard (OSC 52; the terminal must allow it)"})
	return tea.SetClipboard(id)
}

// startBackup writes a consistent copy of the market next to it, off the
// main thread: the store copies from a read snapshot while the market goes
// on. The result comes back as a status message.
func (m *Model) startBackup() tea.Cmd {
	if m.backup == nil {
		m.setStatus(statusMsg{text: "this console was started without a store to back up", err: true})
		return nil
	}
	dest := m.backupPath(time.Now())
	m.setStatus(statusMsg{text: "backing up to " + dest + "…"})
	backup := m.backup
	return func() tea.Msg {
		start := time.Now()
		if err := backup(dest); err != nil {
			return statusMsg{text: "backup failed: " + err.Error(), err: true}
		}
		return statusMsg{text: fmt.Sprintf("backed up to %s in %s: open it with --db to check it", dest, time.Since(start).Round(time.Millisecond))}
	}
}

// backupPath names a backup after the database and the time.
func (m *Model) backupPath(now time.Time) string {
	base := strings.TrimSuffix(filepath.Base(m.backupOf), filepath.Ext(m.backupOf))
	return filepath.Join(filepath.Dir(m.backupOf), fmt.Sprintf("%s-backup-%s.db", base, now.UTC().Format("20060102-150405")))
}

// reloadRules reads the rules file again (ctrl+r) on the main thread; the
// market refuses while a purchase is in flight, and a bad file keeps the
// rules as they were, saying which key on which line.
func (m *Model) reloadRules() {
	if m.reload == nil {
		m.fail(errors.New("this console has no rules file to reload"))
		return
	}
	msg, err := m.reload()
	if err != nil {
		m.fail(err)
		return
	}
	m.changed = true
	m.setStatus(statusMsg{text: msg})
}

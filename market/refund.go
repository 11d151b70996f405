package market

import (
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/rynek/rynek/market/catalog"
	"github.com/rynek/rynek/market/internal/item"
	"github.com/rynek/rynek/market/internal/record"
	"github.com/rynek/rynek/market/playertext"
)

// RefundMode says what Refund does when the buyer no longer holds the very
// stack they bought (they sold it, split it, or the game used it up).
type RefundMode int

const (
	// RefundWithItem refuses (CodeItemGone): the admin then chooses
	// RefundMoneyOnly, or no refund.
	RefundWithItem RefundMode = iota
	// RefundMoneyOnly refunds the money whether or not the stack is
	// there; a stack the buyer still holds goes back to the seller all
	// the same.
	RefundMoneyOnly
)

// refundPrefix starts the error code of a refunded transaction, as in the
// original plugin ("REFUND:<unix ms>"); refundMoneyOnly ends it when the
// item stayed with the buyer's side because it was gone.
const (
	refundPrefix    = "REFUND:"
	refundMoneyOnly = ":MONEY_ONLY"
)

// Refunded reports whether t is a refunded purchase: when, and whether its
// item went back to the seller.
func (t Transaction) Refunded() (at time.Time, itemReturned, ok bool) {
	rest, found := strings.CutPrefix(t.ErrorCode, refundPrefix)
	if t.State != StateRolledBack || !found {
		return time.Time{}, false, false
	}
	rest, moneyOnly := strings.CutSuffix(rest, refundMoneyOnly)
	ms, err := strconv.ParseInt(rest, 10, 64)
	if err != nil {
		return time.Time{}, false, false
	}
	return unixMilli(ms), !moneyOnly, true
}

// Refund undoes a COMPLETED purchase as an admin (actor needs
// market.admin): the buyer gets the whole price back, the seller's net and
// the fee are taken back, and the stack the buyer bought goes back to the
// seller (first free slot, else the mailbox with reason "admin-refund") if
// the buyer still holds that very stack, whole, in the inventory or the
// mailbox. It is never copied: when the stack is gone, mode decides. The
// transaction becomes ROLLED_BACK with error code "REFUND:<unix ms>" (and
// ":MONEY_ONLY" when the item stayed), and leaves the market's figures:
// volume, sales, rankings, price history and the completed list no longer
// count it. A seller who has spent the money is refused. Everything is one
// commit, conditional on the purchase still being COMPLETED, so two admins
// (or two servers) cannot refund it twice.
func (s *Service) Refund(txID string, actor Player, mode RefundMode) (Transaction, error) {
	if err := s.mutGuard(); err != nil {
		return Transaction{}, err
	}
	a, err := s.actor(actor)
	if err != nil {
		return Transaction{}, err
	}
	if !a.has(PermAdmin) {
		return Transaction{}, errf(CodeForbidden, "%s may not refund purchases: that needs %s", a.name, PermAdmin)
	}
	id, err := uuid.Parse(strings.TrimSpace(txID))
	if err != nil {
		return Transaction{}, errf(CodeUnknownTransaction, "transaction %q does not exist", playertext.Excerpt(txID))
	}
	if err := s.requireHistory(); err != nil {
		return Transaction{}, err
	}
	t := s.txRecord(id)
	if t == nil {
		return Transaction{}, errf(CodeUnknownTransaction, "transaction %q does not exist", playertext.Excerpt(txID))
	}
	if t.State() != StateCompleted {
		if strings.HasPrefix(t.errCode, refundPrefix) {
			return Transaction{}, errf(CodeNotRefundable, "transaction %s was refunded already (%s)", id, t.errCode)
		}
		return Transaction{}, errf(CodeNotRefundable, "transaction %s is %s; only a COMPLETED purchase can be refunded", id, t.State())
	}
	buyer, seller := s.players[t.buyer], s.players[t.seller]
	slot, mail := buyer.holding(t.it)
	held := slot >= 0 || mail >= 0
	if !held && mode != RefundMoneyOnly {
		return Transaction{}, errf(CodeItemGone, "%s no longer holds the %s ×%d they bought (sold, split or used up); refund the money only, or not at all",
			buyer.name, catalog.Material(t.it.Mat).Name, t.it.Amount)
	}
	if seller.balance < t.net {
		return Transaction{}, errf(CodeInsufficientFunds, "%s has %s, less than the %s of this sale the refund takes back",
			seller.name, FormatMoney(seller.balance), FormatMoney(t.net))
	}
	if s.feeBalance < t.fee {
		return Transaction{}, errf(CodeInsufficientFunds, "the fee account has %s, less than the fee of %s the refund takes back",
			FormatMoney(s.feeBalance), FormatMoney(t.fee))
	}

	now := s.nowMs()
	code := refundPrefix + strconv.FormatInt(now, 10)
	if !held {
		code += refundMoneyOnly
	}
	b := &s.batch
	b.Reset()
	buyerInv, sellerInv := buyer.inv, seller.inv
	var to *record.Destination
	var sellerMail *mailEntry
	var apply []func()
	if held {
		if slot >= 0 {
			buyerInv[slot] = item.Item{}
		} else {
			m := buyer.mail[mail]
			b.add(Op{Kind: OpDelMail, Mail: &MailRow{ID: m.id, Player: buyer.id}})
			apply = append(apply, func() { buyer.mail = slices.Delete(buyer.mail, mail, mail+1) })
		}
		if free := item.FreeSlot(&sellerInv); free >= 0 {
			sellerInv[free] = t.it
			to = &record.Destination{Slot: free}
		} else {
			sellerMail = &mailEntry{id: uuid.New(), it: t.it, reason: MailAdminRefund, created: now, prev: t.price}
			b.add(Op{Kind: OpPutMail, Mail: &MailRow{ID: sellerMail.id, Player: seller.id, Item: s.blob(t.it), Reason: MailAdminRefund,
				Created: now, PrevPrice: t.price}})
			to = &record.Destination{Slot: -1, Mail: sellerMail.id}
			apply = append(apply, func() { seller.mail = append(seller.mail, *sellerMail) })
		}
	}
	var buyerInvOp, sellerInvOp *item.Inventory
	if slot >= 0 {
		buyerInvOp = &buyerInv
	}
	if to != nil && to.Slot >= 0 {
		sellerInvOp = &sellerInv
	}
	b.add(s.playerOp(buyer, buyer.balance+t.price, buyer.lastSell, buyerInvOp))
	b.add(s.playerOp(seller, seller.balance-t.net, seller.lastSell, sellerInvOp))
	m := s.meta()
	m.FeeBalance -= t.fee
	m.Volume -= t.price
	m.Sales--
	b.add(s.countersOp(m))
	tl := append(t.tl[:len(t.tl):len(t.tl)], record.Stamp{State: uint8(stateIndex(StateRolledBack)), At: now})
	// Conditional on the whole record, as a rating is: a rating made on
	// another server meanwhile makes this a conflict, not a lost update.
	b.add(Op{Kind: OpTxState, Tx: s.txRow(t, StateRolledBack, tl, code, t.toMailbox), ExpectState: StateCompleted,
		Expect: s.txRow(t, StateCompleted, t.tl, t.errCode, t.toMailbox).Rec})
	b.log(EventRow{Kind: KindTransactionStep, At: now, Body: s.transactionBody(t, tl, code, t.toMailbox, to, nil, uuid.Nil)})
	if err := s.submit(b, func() {
		for _, f := range apply {
			f()
		}
		buyer.inv, seller.inv = buyerInv, sellerInv
		t.state, t.tl, t.errCode = uint8(stateIndex(StateRolledBack)), tl, code
	}, func() { s.uncompleteLocked(t) }); err != nil {
		return Transaction{}, err
	}
	return s.txOf(t), nil
}

// holding finds the stack it (by identity, whole) in p's inventory or
// mailbox: the slot or the mailbox index, -1 for neither.
func (p *playerRecord) holding(it item.Item) (slot, mail int) {
	for i := range p.inv {
		if p.inv[i].UID == it.UID && p.inv[i].Mat != 0 {
			if p.inv[i].Amount == it.Amount {
				return i, -1
			}
			return -1, -1
		}
	}
	for i, m := range p.mail {
		if m.it.UID == it.UID {
			if m.it.Amount == it.Amount {
				return -1, i
			}
			return -1, -1
		}
	}
	return -1, -1
}

// editFinishedLocked makes was, a purchase memory holds as finished, what
// another server made of it (t): refunded, the figures lose the sale as
// memory counted it, with the rating memory had (a rating made and refunded
// elsewhere was never counted here); rated, they count the rating.
func (s *Service) editFinishedLocked(was, t *transactionRecord) {
	done := was.State() == StateCompleted
	newRating := t.rating != was.rating
	if done && t.State() != StateCompleted {
		s.uncompleteLocked(was)
	}
	was.takeState(t)
	if done && was.State() == StateCompleted && newRating {
		s.stats.rated(was)
	}
}

// completeLocked adds a purchase whose COMPLETED state is durable to the
// completed list, the figures and the contract's lifetime counters: what
// is only ever said of a sale that happened, so never of one in flight.
func (s *Service) completeLocked(t *transactionRecord) {
	s.completed = append(s.completed, t)
	s.stats.recordRated(s, t, 0) // its completion's own batch never rates it
	s.volume += t.price
	s.sales++
}

// uncompleteLocked takes a purchase that is no longer COMPLETED (a refund)
// out of the completed list and the figures.
func (s *Service) uncompleteLocked(t *transactionRecord) {
	if i := slices.Index(s.completed, t); i >= 0 {
		s.completed = slices.Delete(s.completed, i, i+1)
	}
	s.stats.unrecord(s, t)
}

// String names a refund mode as the console shows it.
func (m RefundMode) String() string {
	if m == RefundMoneyOnly {
		return "money only"
	}
	return "money and item"
}

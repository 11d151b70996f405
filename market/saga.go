package market

import (
	"fmt"
	"sync"

	"github.com/google/uuid"
)

// The purchase saga.
//
//	CREATED ─▶ LISTING_RESERVED ─▶ MONEY_WITHDRAWN ─▶ SELLER_PAID ─▶ ITEM_DELIVERED ─▶ COMPLETED
//	   │               │                  │                 │                │
//	   ▼               └──────────────────┴─────────────────┴────────────────┴─▶ ROLLED_BACK
//	 FAILED
//
// Each arrow is one atomic store commit holding the step's effect and the new
// state, written with a conditional update (WHERE state = <previous>). So the
// persisted state always says exactly which effects happened, and replaying a
// step is idempotent: the (transaction id, expected state) pair is the key,
// and a replay whose state no longer matches changes nothing.
//
// The rule for failures: a failure before any effect (the transaction could
// not even reserve the listing) ends in FAILED; a failure after an effect is
// compensated in one commit that undoes every effect so far (release the
// listing, refund the buyer, take back the seller's net and the fee, take back
// the delivered item) and ends in ROLLED_BACK. Money and items are conserved
// on every path. After a crash, recovery rolls every unfinished transaction
// forward, compensating instead if a step can no longer succeed.

// ArmFailure makes the next purchase fail when it tries to enter state st
// (CREATED, LISTING_RESERVED, MONEY_WITHDRAWN, SELLER_PAID, ITEM_DELIVERED or
// COMPLETED). It is a QA control; pass "" to disarm. Safe from any goroutine.
func (s *Service) ArmFailure(st State) error {
	switch st {
	case "", StateCreated, StateListingReserved, StateMoneyWithdrawn, StateSellerPaid, StateItemDelivered, StateCompleted:
	default:
		return fmt.Errorf("cannot arm a failure at %q: not a saga step", st)
	}
	s.armed.mu.Lock()
	s.armed.at = st
	s.armed.mu.Unlock()
	return nil
}

// ArmedFailure returns the step armed by ArmFailure, or "".
func (s *Service) ArmedFailure() State {
	s.armed.mu.Lock()
	defer s.armed.mu.Unlock()
	return s.armed.at
}

type armedFailure struct {
	mu sync.Mutex
	at State
}

// take returns the armed step and disarms it: one arming, one purchase.
func (f *armedFailure) take() State {
	f.mu.Lock()
	defer f.mu.Unlock()
	st := f.at
	f.at = ""
	return st
}

// sagaRun is what one execution of the saga remembers to undo its own steps.
type sagaRun struct {
	t      *transactionRecord
	r      *listingRecord // the listing, for restoring it after delivery
	slot   int            // where the item was delivered: inventory slot, or -1
	mail   uuid.UUID
	failAt State
}

// Buy purchases a listing for buyer: the purchase flow that creates
// transactions (not in the contract, which has no buy operation). It refuses
// with a typed error and no transaction when the listing is unknown, expired,
// reserved or the buyer's own, or the buyer lacks funds. Otherwise it returns
// the transaction in its final state: COMPLETED, or FAILED / ROLLED_BACK
// together with an error saying why.
func (s *Service) Buy(buyer Player, listingID int) (Transaction, error) {
	if err := s.mutGuard(); err != nil {
		return Transaction{}, err
	}
	b, err := s.actor(buyer)
	if err != nil {
		return Transaction{}, err
	}
	r, err := s.lookupListing(listingID)
	switch {
	case err != nil:
		return Transaction{}, err
	case r.reserved != uuid.Nil:
		return Transaction{}, errf(CodeListingReserved, "listing #%d is reserved by a purchase in progress", listingID)
	case r.seller == b.idx:
		return Transaction{}, errf(CodeOwnListing, "%s cannot buy their own listing #%d", b.name, listingID)
	case b.balance < r.price:
		return Transaction{}, errf(CodeInsufficientFunds, "listing #%d costs %s but %s has %s",
			listingID, FormatMoney(r.price), b.name, FormatMoney(b.balance))
	}
	fee := s.cfg.fee(r.price, s.cfg.SaleFeeBasisPoints)
	now := s.nowMs()
	t := &transactionRecord{id: uuid.Must(uuid.NewV7()), listing: r.id, buyer: b.idx, seller: r.seller, it: r.it,
		price: r.price, fee: fee, net: r.price - fee, state: uint8(stateIndex(StateCreated)),
		tl: timeline{{state: uint8(stateIndex(StateCreated)), at: now}}}
	run := &sagaRun{t: t, r: r, slot: -1, failAt: s.armed.take()}

	if run.failAt == StateCreated {
		// The very first write fails: nothing happened, so the record is FAILED.
		t.state = uint8(stateIndex(StateFailed))
		t.errCode = "INJECTED:" + string(StateCreated)
		t.tl = append(t.tl, stamp{state: t.state, at: now})
		if err := s.putTx(t); err != nil {
			return Transaction{}, err
		}
		return s.txSnapshot(t), errf(CodeInjectedFailure, "purchase of listing #%d failed at %s (injected); nothing changed", listingID, StateCreated)
	}
	if err := s.putTx(t); err != nil {
		return Transaction{}, err
	}
	return s.runSaga(run)
}

func (s *Service) putTx(t *transactionRecord) error {
	b := &s.batch
	b.Reset()
	b.add(Op{Kind: OpPutTx, Tx: s.txRow(t, t.State(), t.tl, t.errCode, t.toMailbox)})
	b.log(EventRow{Kind: KindTransactionStep, At: t.tl[len(t.tl)-1].at,
		Body: s.transactionBody(t, t.tl, t.errCode, t.toMailbox, nil, nil)})
	if err := s.commit(b); err != nil {
		return err
	}
	s.applied(func() {
		s.txByID[t.id] = t
		s.allTx = append(s.allTx, t)
		s.indexTxPlayers(t)
	})
	return nil
}

// transactionBody is the log body of t entering the last state of tl.
func (s *Service) transactionBody(t *transactionRecord, tl timeline, errCode string, toMailbox bool, to *destination, restored *listingRecord) []byte {
	return transactionBody(t, s.players[t.buyer], s.players[t.seller], tl, errCode, toMailbox, to, restored)
}

func (s *Service) txSnapshot(t *transactionRecord) Transaction {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.txOf(t)
}

// runSaga drives t from its current state to a terminal one.
func (s *Service) runSaga(run *sagaRun) (Transaction, error) {
	t := run.t
	for !t.State().Terminal() {
		next := States()[t.state+1]
		var err error
		if run.failAt == next {
			err = errf(CodeInjectedFailure, "purchase of listing #%d failed at %s (injected)", t.listing, next)
		} else {
			err = s.step(run, next)
		}
		if err != nil {
			code := "INJECTED:" + string(next)
			if e, ok := err.(*Error); !ok || e.Code != CodeInjectedFailure {
				code = fmt.Sprintf("%s_FAILED", next)
				if ok {
					code += ":" + string(e.Code)
				}
			}
			if cerr := s.compensate(run, code); cerr != nil {
				return s.txSnapshot(t), fmt.Errorf("%w; compensation could not be saved either (recovery will finish it): %v", err, cerr)
			}
			return s.txSnapshot(t), err
		}
	}
	return s.txSnapshot(t), nil
}

// step performs the effect of entering state next, with the state change, in
// one commit.
func (s *Service) step(run *sagaRun, next State) error {
	t := run.t
	cur := t.State()
	now := s.nowMs()
	buyer, seller := s.players[t.buyer], s.players[t.seller]
	b := &s.batch
	b.Reset()
	var apply func()
	var to *destination
	toMail := t.toMailbox
	switch next {
	case StateListingReserved:
		r := s.listings.get(t.listing)
		if r == nil {
			return errf(CodeUnknownListing, "listing #%d no longer exists", t.listing)
		}
		if r.reserved != uuid.Nil && r.reserved != t.id {
			return errf(CodeListingReserved, "listing #%d is reserved by another purchase", t.listing)
		}
		if !r.live(now) {
			// Only recovery gets here: Buy refuses expired listings up front.
			return errf(CodeListingExpired, "listing #%d expired before the purchase could reserve it", t.listing)
		}
		run.r = r
		held := *r
		held.reserved = t.id
		b.add(Op{Kind: OpPutListing, Listing: s.listingRow(&held)})
		apply = func() { r.reserved = t.id }
	case StateMoneyWithdrawn:
		if buyer.balance < t.price {
			return errf(CodeInsufficientFunds, "%s has %s, needs %s", buyer.name, FormatMoney(buyer.balance), FormatMoney(t.price))
		}
		s.playerOp(b, buyer, buyer.balance-t.price, buyer.lastSell, &buyer.inv)
		apply = func() { buyer.balance -= t.price }
	case StateSellerPaid:
		s.playerOp(b, seller, seller.balance+t.net, seller.lastSell, &seller.inv)
		m := s.meta()
		m.FeeBalance += t.fee
		b.add(metaOp(m))
		apply = func() { seller.balance += t.net; s.feeBalance += t.fee }
	case StateItemDelivered:
		r := s.listings.get(t.listing)
		if r == nil || r.reserved != t.id {
			return errf(CodeUnknownListing, "listing #%d is not held by this purchase", t.listing)
		}
		run.r = r
		b.add(Op{Kind: OpDelListing, Int: int64(r.id)})
		if slot := buyer.freeSlot(); slot >= 0 {
			run.slot = slot
			inv := buyer.inv
			inv[slot] = r.it
			s.playerOp(b, buyer, buyer.balance, buyer.lastSell, &inv)
			apply = func() { s.removeListingLocked(r); buyer.inv = inv }
			to = &destination{slot: slot}
		} else {
			m := mailEntry{id: uuid.New(), it: r.it, reason: MailPurchaseOverflow, created: now}
			run.mail = m.id
			toMail = true
			b.add(Op{Kind: OpPutMail, Mail: &MailRow{ID: m.id, Player: buyer.id, Item: s.blob(r.it), Reason: m.reason, Created: now}})
			apply = func() { s.removeListingLocked(r); buyer.mail = append(buyer.mail, m) }
			to = &destination{slot: -1, mail: m.id}
		}
	case StateCompleted:
		m := s.meta() // the lifetime counters are persisted with the sale
		m.Volume += t.price
		m.Sales++
		b.add(metaOp(m))
		apply = func() {
			s.completed = append(s.completed, t)
			s.stats.record(s, t)
			s.volume += t.price
			s.sales++
		}
	default:
		return fmt.Errorf("no step enters %s", next)
	}
	tl := append(t.tl[:len(t.tl):len(t.tl)], stamp{state: uint8(stateIndex(next)), at: now})
	b.add(Op{Kind: OpTxState, Tx: s.txRow(t, next, tl, t.errCode, toMail), ExpectState: cur})
	kind := KindTransactionStep
	if next == StateCompleted {
		kind = KindTransactionCompleted
	}
	b.log(EventRow{Kind: kind, At: now, Body: s.transactionBody(t, tl, t.errCode, toMail, to, nil)})
	if err := s.commit(b); err != nil {
		return err
	}
	s.applied(func() {
		t.toMailbox = toMail
		t.state = uint8(stateIndex(next))
		t.tl = tl // before apply: stats record the COMPLETED time, as a reload would
		apply()
	})
	return nil
}

// compensate undoes every effect of t so far in one commit and ends it in
// ROLLED_BACK, or FAILED when nothing had happened yet.
func (s *Service) compensate(run *sagaRun, code string) error {
	t := run.t
	cur := t.State()
	curIdx := t.state
	now := s.nowMs()
	buyer, seller := s.players[t.buyer], s.players[t.seller]
	b := &s.batch
	b.Reset()
	var applies []func()
	reached := func(st State) bool { return int(curIdx) >= stateIndex(st) }

	final := StateFailed
	if reached(StateListingReserved) {
		final = StateRolledBack
	}
	buyerBal, sellerBal, fees := buyer.balance, seller.balance, s.feeBalance
	buyerInv := buyer.inv
	buyerTouched := false
	toMailbox := t.toMailbox
	var from *destination // where a delivered item is taken back from
	var restored *listingRecord
	if reached(StateItemDelivered) {
		// Take the item back from where it was delivered and put the listing back.
		r := run.r
		if r == nil {
			return fmt.Errorf("transaction %s: cannot undo a delivery whose listing is unknown", t.id)
		}
		if run.slot >= 0 {
			buyerInv[run.slot] = item{}
			buyerTouched = true
			from = &destination{slot: run.slot}
		} else {
			from = &destination{slot: -1, mail: run.mail}
			id := run.mail
			b.add(Op{Kind: OpDelMail, Mail: &MailRow{ID: id}})
			applies = append(applies, func() {
				for i, m := range buyer.mail {
					if m.id == id {
						buyer.mail = append(buyer.mail[:i], buyer.mail[i+1:]...)
						break
					}
				}
			})
		}
		back := *r
		back.reserved = uuid.Nil
		restored = &back
		b.add(Op{Kind: OpPutListing, Listing: s.listingRow(restored)})
		applies = append(applies, func() { r.reserved = uuid.Nil; s.addListingLocked(r) })
		toMailbox = false
	} else if reached(StateListingReserved) {
		if r := s.listings.get(t.listing); r != nil && r.reserved == t.id {
			released := *r
			released.reserved = uuid.Nil
			b.add(Op{Kind: OpPutListing, Listing: s.listingRow(&released)})
			applies = append(applies, func() { r.reserved = uuid.Nil })
		}
	}
	if reached(StateSellerPaid) {
		sellerBal -= t.net
		fees -= t.fee
		s.playerOp(b, seller, sellerBal, seller.lastSell, &seller.inv)
		m := s.meta()
		m.FeeBalance = fees
		b.add(metaOp(m))
	}
	if reached(StateMoneyWithdrawn) {
		buyerBal += t.price
		buyerTouched = true
	}
	if buyerTouched {
		s.playerOp(b, buyer, buyerBal, buyer.lastSell, &buyerInv)
	}
	tl := append(t.tl[:len(t.tl):len(t.tl)], stamp{state: uint8(stateIndex(final)), at: now})
	b.add(Op{Kind: OpTxState, Tx: s.txRow(t, final, tl, code, toMailbox), ExpectState: cur})
	b.log(EventRow{Kind: KindTransactionStep, At: now, Body: s.transactionBody(t, tl, code, toMailbox, from, restored)})
	if err := s.commit(b); err != nil {
		return err
	}
	s.applied(func() {
		for _, f := range applies {
			f()
		}
		buyer.balance, seller.balance, s.feeBalance = buyerBal, sellerBal, fees
		buyer.inv = buyerInv
		t.state = uint8(stateIndex(final))
		t.tl = tl
		t.errCode = code
		t.toMailbox = toMailbox
	})
	return nil
}

// recover finishes every transaction left in a non-terminal state, in the
// order of their last state change. Completed ones publish TransactionCompletedEvent.
func (s *Service) recover() error {
	var open []*transactionRecord
	s.mu.RLock() // the background history load may be adding finished ones
	for _, t := range s.txByID {
		if !t.State().Terminal() {
			open = append(open, t)
		}
	}
	s.mu.RUnlock()
	sortTx(open)
	for _, t := range open {
		run := &sagaRun{t: t, slot: -1}
		if _, err := s.runSaga(run); err != nil && !t.State().Terminal() {
			return fmt.Errorf("recover transaction %s: %w", t.id, err)
		}
	}
	return nil
}

// Recover re-runs recovery on demand (after store errors left a purchase
// unfinished). Main thread only.
func (s *Service) Recover() error {
	if err := s.mutGuard(); err != nil {
		return err
	}
	return s.recover()
}

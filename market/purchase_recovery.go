package market

import (
	"fmt"
	"sync"

	"github.com/google/uuid"
	"github.com/rynek/rynek/market/internal/item"
	"github.com/rynek/rynek/market/internal/record"
)

// compensate undoes every effect of t so far in one commit and ends it in
// ROLLED_BACK, or FAILED when nothing had happened yet.
func (s *Service) compensate(run *sagaRun, code string) error {
	t := run.t
	cur := t.State()
	if cur.Terminal() {
		// Finished meanwhile: a commit of this run failed because another
		// server of the network took the purchase to its end (or undid
		// it), and catching up put that in memory. Nothing is left to
		// undo here; undoing it again would move money twice.
		return nil
	}
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
	buyerTouched, invTouched := false, false
	toMailbox := t.toMailbox
	var from *record.Destination // where a delivered item is taken back from
	var restored *listingRecord
	if reached(StateItemDelivered) {
		// Take the item back from where it was delivered and put the listing back.
		r := run.r
		if r == nil {
			return fmt.Errorf("transaction %s: cannot undo a delivery whose listing is unknown", t.id)
		}
		if run.slot >= 0 {
			buyerInv[run.slot] = item.Item{}
			buyerTouched, invTouched = true, true
			from = &record.Destination{Slot: run.slot}
		} else {
			from = &record.Destination{Slot: -1, Mail: run.mail}
			id := run.mail
			b.add(Op{Kind: OpDelMail, Mail: &MailRow{ID: id, Player: buyer.id}})
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
		if t.escrowed {
			back.auction = withoutBids(r.auction) // the winner's price goes back to them below
		}
		restored = &back
		b.add(Op{Kind: OpAddListing, Listing: s.listingRow(restored)})
		applies = append(applies, func() { *r = back; s.addListingLocked(r) })
		toMailbox = false
	} else if reached(StateListingReserved) {
		if r := s.listings.Get(t.listing); r != nil && r.reserved == t.id {
			released := *r
			released.reserved = uuid.Nil
			if t.escrowed && reached(StateMoneyWithdrawn) {
				released.auction = withoutBids(r.auction) // the winner's price goes back to them below
			}
			b.add(Op{Kind: OpListingState, Listing: s.listingRow(&released), Expect: s.listingRow(r).Rec})
			applies = append(applies, func() { s.replaceListingLocked(r, &released) })
		}
	}
	if reached(StateSellerPaid) {
		sellerBal -= t.net
		fees -= t.fee
		b.add(s.playerOp(seller, sellerBal, seller.lastSell, nil))
		m := s.meta()
		m.FeeBalance = fees
		b.add(s.countersOp(m))
	}
	if reached(StateMoneyWithdrawn) {
		buyerBal += t.price
		buyerTouched = true
	}
	if buyerTouched {
		inv := &buyerInv
		if !invTouched {
			inv = nil
		}
		b.add(s.playerOp(buyer, buyerBal, buyer.lastSell, inv))
	}
	tl := append(t.tl[:len(t.tl):len(t.tl)], record.Stamp{State: uint8(stateIndex(final)), At: now})
	b.add(Op{Kind: OpTxState, Tx: s.txRow(t, final, tl, code, toMailbox), ExpectState: cur})
	b.log(EventRow{Kind: KindTransactionStep, At: now, Body: s.transactionBody(t, tl, code, toMailbox, from, restored, uuid.Nil)})
	if err := s.submit(b, func() {
		for _, f := range applies {
			f()
		}
		buyer.balance, seller.balance, s.feeBalance = buyerBal, sellerBal, fees
		buyer.inv = buyerInv
		t.state = uint8(stateIndex(final))
		t.tl = tl
		t.errCode = code
		t.toMailbox = toMailbox
	}, nil); err != nil {
		return err
	}
	return nil
}

// recover finishes every transaction left in a non-terminal state, in the
// order of their last state change, and returns how many it finished.
// Completed ones publish TransactionCompletedEvent.
func (s *Service) recover() (int, error) {
	s.mu.Lock() // the background history load may be adding finished ones
	open := s.openTxLocked()
	s.mu.Unlock()
	for i, t := range open {
		run := &sagaRun{t: t, slot: -1}
		if _, err := s.runSaga(run); err != nil && !t.State().Terminal() {
			return i, fmt.Errorf("recover transaction %s: %w", t.id, err)
		}
	}
	return len(open), nil
}

// Recover re-runs recovery on demand (after store errors left a purchase
// unfinished). Main thread only. RecoverInterrupted is the timer's way to
// call it.
func (s *Service) Recover() error {
	if err := s.mutGuard(); err != nil {
		return err
	}
	_, err := s.recover()
	return err
}

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

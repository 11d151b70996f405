package market

import (
	"fmt"

	"github.com/google/uuid"
)

// Audit is a conservation check of the whole market: how much money exists
// and where every item stack is. Two audits around any operation must show
// the same Money and Items (purchases, removals and expiry move things; they
// never create or destroy them), or, around what brings money or items in
// from outside or takes them out, the same OpeningMoney and OpeningItems.
type Audit struct {
	Money      Money // balances + fee account + money held by purchases in flight
	Escrow     Money // the in-flight part of Money
	Stacks     int   // item stacks in inventories, mailboxes and listings
	Items      int64 // items in those stacks
	OpenTx     int   // transactions not in a terminal state
	Listings   int
	Problems   []string // duplicated stacks, dangling reservations: must be empty
	StackPlace map[uuid.UUID]string
	// Issued is the issuance account: what came into the market from
	// outside and what left it. OpeningMoney and OpeningItems are what the
	// market holds beyond it, what bulk loads put there: no operation
	// changes them.
	Issued       Issuance
	OpeningMoney Money
	OpeningItems int64
}

// Audit computes an Audit. It reads under the read lock and may be called
// from any goroutine; it is O(everything), meant for tests and QA.
func (s *Service) Audit() (Audit, error) {
	if err := s.readGuard(); err != nil {
		return Audit{}, err
	}
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.auditLocked(), nil
}

func (s *Service) auditLocked() Audit {
	a := Audit{StackPlace: map[uuid.UUID]string{}}
	see := func(it item, where string) {
		if prev, ok := a.StackPlace[it.uid]; ok {
			a.Problems = append(a.Problems, fmt.Sprintf("stack %s is in %s and in %s", it.uid, prev, where))
			return
		}
		a.StackPlace[it.uid] = where
		a.Stacks++
		a.Items += int64(it.amount)
	}
	for _, p := range s.players {
		a.Money += p.balance
		for i, it := range p.inv {
			if it.mat != 0 {
				see(it, fmt.Sprintf("%s's slot %d", p.name, i+1))
			}
		}
		for _, m := range p.mail {
			see(m.it, fmt.Sprintf("%s's mailbox", p.name))
		}
	}
	a.Money += s.feeBalance
	s.listings.each(func(r *listingRecord) {
		id := r.id
		see(r.it, fmt.Sprintf("listing #%d", id))
		a.Listings++
		if r.reserved != uuid.Nil {
			t := s.txByID[r.reserved]
			if t == nil || t.State().Terminal() {
				a.Problems = append(a.Problems, fmt.Sprintf("listing #%d is reserved by finished or unknown transaction %s", id, r.reserved))
			}
		}
	})
	for _, t := range s.txByID {
		if t.State().Terminal() {
			continue
		}
		a.OpenTx++
		if t.State() == StateMoneyWithdrawn {
			a.Escrow += t.price
		}
	}
	a.Money += a.Escrow
	a.Issued = s.issuance
	a.OpeningMoney = a.Money - (a.Issued.MoneyIn - a.Issued.MoneyOut)
	a.OpeningItems = a.Items - (a.Issued.ItemsIn - a.Issued.ItemsOut)
	return a
}

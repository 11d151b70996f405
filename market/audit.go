package market

import (
	"fmt"

	"github.com/google/uuid"
	"github.com/rynek/rynek/market/internal/item"
)

// Audit is a conservation check of the whole market: how much money exists
// and where every item stack is. Two audits around any operation must show
// the same Money and Items (purchases, removals and expiry move things; they
// never create or destroy them), or, around what brings money or items in
// from outside or takes them out, the same OpeningMoney and OpeningItems.
type Audit struct {
	Money      Money // every account: balances + fee account + money held by purchases in flight
	Escrow     Money // the in-flight part of Money
	Stacks     int   // item stacks in inventories, mailboxes and listings
	Items      int64 // items in those stacks
	OpenTx     int   // transactions not in a terminal state
	Listings   int
	Problems   []string // duplicated stacks, dangling reservations: must be empty
	StackPlace map[uuid.UUID]string
	// Accounts are the places that hold Money, each with its sum
	// (accountsLocked).
	Accounts []Account
	// Issued is the issuance account: what came into the market from
	// outside and what left it. OpeningMoney and OpeningItems are what the
	// market holds beyond it, what bulk loads put there: no operation
	// changes them.
	Issued       Issuance
	OpeningMoney Money
	OpeningItems int64
}

// An Account is one place where the market holds money.
type Account struct {
	Name  string // "balances", "fee account", "purchases in flight"
	Money Money
	Rows  int // how many rows hold it: players, purchases; 1 for the fee account
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
	s.eachStackLocked(func(it item.Item, at stackPlace) {
		where := s.placeName(at)
		if prev, ok := a.StackPlace[it.UID]; ok {
			a.Problems = append(a.Problems, fmt.Sprintf("stack %s is in %s and in %s", it.UID, prev, where))
			return
		}
		a.StackPlace[it.UID] = where
		a.Stacks++
		a.Items += int64(it.Amount)
	})
	s.listings.Each(func(r *listingRecord) {
		a.Listings++
		if r.reserved != uuid.Nil {
			t := s.txByID[r.reserved]
			if t == nil || t.State().Terminal() {
				a.Problems = append(a.Problems, fmt.Sprintf("listing #%d is reserved by finished or unknown transaction %s", r.id, r.reserved))
			}
		}
	})
	for _, t := range s.txByID {
		if !t.State().Terminal() {
			a.OpenTx++
		}
	}
	a.Accounts = s.accountsLocked()
	for _, acc := range a.Accounts {
		a.Money += acc.Money
		if acc.Name == inFlightAccount {
			a.Escrow = acc.Money
		}
	}
	a.Issued = s.issuance
	a.OpeningMoney = a.Money - (a.Issued.MoneyIn - a.Issued.MoneyOut)
	a.OpeningItems = a.Items - (a.Issued.ItemsIn - a.Issued.ItemsOut)
	return a
}

// inFlightAccount names the money that purchases in flight hold.
const inFlightAccount = "purchases in flight"

// accountsLocked lists every place where the market holds money, each with
// its sum. Money is conserved when they add up to the opening account plus
// what the issuance account says came in, less what it says went out. A
// feature that holds money somewhere new (an auction's bids, a buy order's
// escrow) adds its account here: the audit, the service's first record of
// the opening account and the integrity check (Check) all count this list.
func (s *Service) accountsLocked() []Account {
	balances := Account{Name: "balances"}
	for _, p := range s.players {
		balances.Money += p.balance
		balances.Rows++
	}
	inFlight := Account{Name: inFlightAccount}
	for _, t := range s.txByID {
		// Between the buyer's withdrawal and the seller's payment the
		// price is the purchase's alone.
		if t.State() == StateMoneyWithdrawn {
			inFlight.Money += t.price
			inFlight.Rows++
		}
	}
	return []Account{balances, {Name: "fee account", Money: s.feeBalance, Rows: 1}, inFlight, s.escrowLocked(), s.escrowOrdersLocked()}
}

// stackPlace is where a stack is, compactly (placeName says it in words):
// a player's inventory slot or mailbox entry, or a listing.
type stackPlace struct {
	listing uint32    // a listing's id; 0: the player's
	player  int32     // the player, for an inventory slot or mailbox entry
	slot    int       // the inventory slot (0-based); -1: the mailbox
	mail    uuid.UUID // the mailbox entry
}

// eachStackLocked calls see with every item stack the market holds and
// where it is: the inventories, the mailboxes and the listings. A feature
// that holds items somewhere new adds its place here, and the audit and the
// integrity check then count it.
func (s *Service) eachStackLocked(see func(it item.Item, at stackPlace)) {
	for _, p := range s.players {
		for i, it := range p.inv {
			if it.Mat != 0 {
				see(it, stackPlace{player: p.idx, slot: i})
			}
		}
		for _, m := range p.mail {
			see(m.it, stackPlace{player: p.idx, slot: -1, mail: m.id})
		}
	}
	s.listings.Each(func(r *listingRecord) {
		see(r.it, stackPlace{listing: r.id})
	})
}

// placeName says where at is.
func (s *Service) placeName(at stackPlace) string {
	switch {
	case at.listing != 0:
		return fmt.Sprintf("listing #%d", at.listing)
	case at.slot < 0:
		return fmt.Sprintf("%s's mailbox", s.players[at.player].name)
	}
	return fmt.Sprintf("%s's slot %d", s.players[at.player].name, at.slot+1)
}

// recordOpening records the opening account and the log's horizon in a
// store that keeps none yet, a market from before they were kept: the
// opening is what the market holds now less what the issuance account says
// came in and went out, which no operation has changed since the market
// began (whatever was done to it by hand before is part of it: the
// integrity check counts from here on). Everything created from now on is
// the market's own, and the log was trimmed up to its oldest entry.
// Main thread, at Enable.
func (s *Service) recordOpening() error {
	var money Money
	var items int64
	s.mu.RLock()
	for _, acc := range s.accountsLocked() {
		money += acc.Money
	}
	s.eachStackLocked(func(it item.Item, _ stackPlace) { items += int64(it.Amount) })
	issued, first := s.issuance, s.log.first
	s.mu.RUnlock()
	m := MetaRow{Opening: Opening{Money: money - (issued.MoneyIn - issued.MoneyOut), Items: items - (issued.ItemsIn - issued.ItemsOut),
		LoadedThrough: s.nowMs()}}
	if first > 0 {
		m.Trimmed = first - 1
	}
	b := &s.batch
	b.Reset()
	b.add(Op{Kind: OpRecordOpening, Meta: m})
	if err := s.submit(b, func() { s.loadedMeta.HasOpening = true }, nil); err != nil {
		return fmt.Errorf("record the market's opening account: %w", err)
	}
	return nil
}

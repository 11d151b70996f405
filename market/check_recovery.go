package market

import (
	"cmp"
	"errors"
	"fmt"
	"slices"

	"github.com/google/uuid"
	"github.com/rynek/rynek/market/internal/item"
)

// Recovery in memory: the check runs the service's own recovery on the
// market it loaded, over checkStore, which keeps every commit in memory.
// The check reports what recovery would do with each purchase left in
// flight; the market is not touched.

// errCheckReads is what checkStore answers to what only writing could do.
var errCheckReads = errors.New("the integrity check changes nothing")

// checkStore is the store the check's service runs on: it reads the
// snapshot, and a commit changes only the check's copy of the rows a
// commit reports back (the players' balances and versions, the counters),
// so that the service's memory follows as it would on a real store.
type checkStore struct {
	c    *checker
	last uint64 // the newest seq given
	meta MetaRow
}

func (st *checkStore) Load(l Loader) error {
	err := st.c.snap.Load(checkLoader{c: st.c, l: l})
	st.last, st.meta = st.c.meta.LastSeq, st.c.meta
	return err
}

func (st *checkStore) LoadHistory(after [16]byte, limit int, fn func(TxRow) error) (int, error) {
	return st.c.snap.LoadHistory(after, limit, fn)
}

func (st *checkStore) ReadEvents(after uint64, limit int, fn func(EventRow) error) (int, error) {
	return st.c.snap.ReadEvents(after, limit, fn)
}

// Commit applies b to the check's copy, all or nothing: a player's change
// that would take the balance below zero is refused, as a store refuses it.
func (st *checkStore) Commit(b *Batch) error {
	balances := st.c.balances
	delta := map[uuid.UUID]Money{}
	for _, op := range b.Ops {
		if op.Kind != OpPlayerState {
			continue
		}
		p := balances[op.Player.ID]
		if p == nil {
			return fmt.Errorf("player %s: %w", op.Player.ID, ErrConflict)
		}
		if delta[op.Player.ID] += op.Delta; p.Balance+delta[op.Player.ID] < 0 {
			return fmt.Errorf("player %s would have %s: %w", op.Player.ID, FormatMoney(p.Balance+delta[op.Player.ID]), ErrConflict)
		}
	}
	for i := range b.Ops {
		op := &b.Ops[i]
		switch op.Kind {
		case OpPlayerState:
			p := balances[op.Player.ID]
			p.Balance += op.Delta
			p.Version++
			op.Player.Balance, op.Player.Version = p.Balance, p.Version
		case OpPlayerProfile:
			p := balances[op.Player.ID]
			p.Version++
			op.Player.Version = p.Version
		case OpCounters:
			m := &st.meta
			m.FeeBalance += op.Meta.FeeBalance
			m.Volume += op.Meta.Volume
			m.Sales += op.Meta.Sales
			op.Meta.FeeBalance, op.Meta.Volume, op.Meta.Sales = m.FeeBalance, m.Volume, m.Sales
		case OpIssuance:
			st.meta.Issuance = st.meta.Issuance.plus(op.Meta.Issuance)
			op.Meta.Issuance = st.meta.Issuance
		}
	}
	for i := range b.Events {
		st.last++
		b.Events[i].Seq = st.last
	}
	return nil
}

func (st *checkStore) BeginBulk() (BulkTx, error)           { return nil, errCheckReads }
func (st *checkStore) ReserveListingIDs(int) (int64, error) { return 0, errCheckReads }
func (st *checkStore) TrimEvents(EventTrim) (uint64, error) { return 0, errCheckReads }
func (st *checkStore) HoldBookmark(BookmarkHold) (Bookmark, error) {
	return Bookmark{}, errCheckReads
}
func (st *checkStore) Close() error { return nil }

// recoverInMemory runs recovery on the check's service and reports what it
// did with each purchase in flight; recovery must leave the accounts as it
// found them.
func (c *checker) recoverInMemory() {
	s := c.svc
	type open struct {
		t   *transactionRecord
		was State
	}
	var flight []open
	for _, t := range s.txByID {
		if !t.State().Terminal() {
			flight = append(flight, open{t: t, was: t.State()})
		}
	}
	if len(flight) == 0 {
		return
	}
	slices.SortFunc(flight, func(a, b open) int { return cmp.Compare(a.t.id.String(), b.t.id.String()) })
	money, items := c.holdings()
	err := func() (err error) {
		defer func() {
			if p := recover(); p != nil {
				err = fmt.Errorf("recovery panicked: %v", p)
			}
		}()
		_, err = s.recover()
		return err
	}()
	if err != nil {
		c.problem("recovery-fails", nil, "recovery would stop: %v; the market would not open", err)
	}
	for _, o := range flight {
		t := o.t
		now := t.State()
		var what string
		switch now {
		case StateCompleted:
			what = "would finish it: " + c.deliveredTo(t)
		case StateRolledBack:
			what = fmt.Sprintf("would roll it back (%s): the buyer's money and the listing as they were before", t.errCode)
		case StateFailed:
			what = fmt.Sprintf("would end it (%s): it had changed nothing", t.errCode)
		default:
			what = "would leave it unfinished"
		}
		c.r.Recovery = append(c.r.Recovery, fmt.Sprintf("transaction=%s listing=%d: %s -> %s, %s", t.id, t.listing, o.was, now, what))
	}
	if m, i := c.holdings(); m != money || i != items {
		c.problem("recovery-unbalances", nil, "recovery would leave the accounts at %s and %d items, not %s and %d", FormatMoney(m), i, FormatMoney(money), items)
	}
}

// holdings is the money in every account and the items in every stack of
// the check's service.
func (c *checker) holdings() (Money, int64) {
	var money Money
	var items int64
	for _, a := range c.svc.accountsLocked() {
		money += a.Money
	}
	c.svc.eachStackLocked(func(it item.Item, _ stackPlace) { items += int64(it.Amount) })
	return money, items
}

// deliveredTo says where a finished purchase's item went.
func (c *checker) deliveredTo(t *transactionRecord) string {
	buyer := c.svc.players[t.buyer]
	for i, it := range buyer.inv {
		if it.UID == t.it.UID {
			return fmt.Sprintf("the item into %s's slot %d", buyer.name, i+1)
		}
	}
	return fmt.Sprintf("the item into %s's mailbox", buyer.name)
}

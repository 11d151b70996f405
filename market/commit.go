package market

import (
	"errors"

	"github.com/rynek/rynek/market/internal/item"
)

func (s *Service) blob(it item.Item) []byte {
	return item.Encode(nil, it)
}

// playerOp is the op that takes p to the given balance and last sell time
// and, unless inv is nil, inventory (the values the player will have once its
// batch commits). The balance moves by its difference from memory's, so a
// change another instance made meanwhile is kept; the inventory is replaced
// only while the store still holds the one memory has.
func (s *Service) playerOp(p *playerRecord, balance Money, lastSell int64, inv *item.Inventory) Op {
	op := Op{Kind: OpPlayerState, Delta: balance - p.balance, Player: &PlayerRow{ID: p.id, LastSell: lastSell}}
	if inv != nil {
		// Never nil, which would mean "unchanged": an empty inventory
		// encodes to no bytes.
		op.Player.Inventory = item.EncodeInventory(make([]byte, 0, 64), inv)
		op.Expect = p.stored
	}
	return op
}

// meta is the service-wide counters as they are now; callers change what
// their batch changes and write it with countersOp.
func (s *Service) meta() MetaRow {
	return MetaRow{FeeBalance: s.feeBalance, Volume: s.volume, Sales: s.sales}
}

// countersOp adds to the store's counters what m adds to memory's: deltas,
// which keep what other instances add meanwhile.
func (s *Service) countersOp(m MetaRow) Op {
	held := s.meta()
	if !s.loadedMeta.HasCounters {
		held.Volume, held.Sales = 0, 0 // an older store: its counters start from zero
	}
	return Op{Kind: OpCounters, Meta: MetaRow{FeeBalance: m.FeeBalance - held.FeeBalance, Volume: m.Volume - held.Volume,
		Sales: m.Sales - held.Sales}}
}

// commit writes b durably, with the publication mark when it moved, or
// returns a CodeStore error. A refused batch changes nothing: u, the undo of
// the change b made to memory (nil: none was made), is put back before the
// service catches up with another server's change that refused it. A
// successful commit must be followed by settling what the store reported
// (submit does).
func (s *Service) commit(b *Batch, u *undo) error {
	if s.log.delivered > s.log.recorded {
		b.Published = s.log.delivered
	}
	if err := s.store.Commit(b); err != nil {
		if u != nil {
			s.mu.Lock()
			s.undoLocked(u)
			s.mu.Unlock()
		}
		if s.follow != nil && errors.Is(err, ErrConflict) {
			s.catchUp()
			return &Error{Code: CodeConflict, Msg: "another server changed the market first; nothing was changed here, try again", Err: err}
		}
		s.storeFailed(err)
		return &Error{Code: CodeStore, Msg: "the change could not be saved", Err: err}
	}
	s.storeWorked()
	if f := s.follow; f != nil && len(b.Events) > 0 {
		for i := range b.Events {
			b.Events[i].Origin = f.store.Instance()
		}
		f.ownCommit(b, b.Events[len(b.Events)-1].Seq)
	}
	if b.Published > s.log.recorded {
		s.log.recorded = b.Published
	}
	s.log.committed = append(s.log.committed, b.Events...)
	s.settle = b
	return nil
}

// settleLocked takes from the batch just committed what the store reported
// back: the balance and version of each player it changed, the inventory it
// wrote, and the counters' totals. In a market several instances share,
// those include what the others changed meanwhile, which memory's own
// arithmetic cannot know.
func (s *Service) settleLocked() {
	b := s.settle
	s.settle = nil
	if b == nil {
		return
	}
	for i := range b.Ops {
		op := &b.Ops[i]
		switch op.Kind {
		case OpPlayerState:
			if p := s.playerByID[op.Player.ID]; p != nil {
				if s.follow != nil && op.Player.Version != p.version+1 {
					// Another instance changed the player in between, and
					// memory may not have its change yet: its entries may
					// have come in a snapshot older than this commit,
					// which skips the rows this commit changed.
					s.follow.refresh(p.id)
				}
				p.balance, p.version = op.Player.Balance, op.Player.Version
				if op.Player.Inventory != nil {
					p.stored = op.Player.Inventory
				}
			}
		case OpCounters:
			s.feeBalance, s.volume, s.sales = op.Meta.FeeBalance, op.Meta.Volume, op.Meta.Sales
			s.loadedMeta.HasCounters = true
		case OpIssuance:
			s.issuance = op.Meta.Issuance
		case OpPlayerProfile:
			if p := s.playerByID[op.Player.ID]; p != nil {
				p.version = op.Player.Version
			}
		}
	}
}

// submit makes the change of a mutation whose rows and log entries b
// holds: change (under the write lock) changes memory at once, before b is
// durable, so that memory is what the store will hold; then b is
// committed. A refused commit undoes the change (undo.go) and returns the
// error. A durable one settles what the store reported, runs durable —
// what may only follow a commit: the completed list and the figures — and
// makes b's log entries visible under the same lock, then delivers the new
// events. The design is in architecture.md, "The commit path".
func (s *Service) submit(b *Batch, change, durable func()) error {
	s.mu.Lock()
	u := s.undoOf(b)
	change()
	s.mu.Unlock()
	if err := s.commit(b, u); err != nil {
		return err
	}
	s.mu.Lock()
	if durable != nil {
		durable()
	}
	s.settleLocked()
	s.appendLogLocked()
	s.mu.Unlock()
	s.deliver()
	return nil
}

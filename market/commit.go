package market

import (
	"errors"
	"slices"
	"time"

	"github.com/google/uuid"

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
		op.inv, op.invExpect = inventoryBlob(inv), p.stored
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

// commit writes b durably and synchronously, with the publication mark
// when it moved: what Enable and Close write outside any mutation. A
// mutation goes through submit instead.
func (s *Service) commit(b *Batch) error {
	s.markPublished(b)
	if err := s.observers.commitTo(s.store, b); err != nil {
		return s.refusal(err)
	}
	s.madeDurable(b)
	return nil
}

// markPublished has b raise the store's publication mark, if delivery got
// further than the mark says.
func (s *Service) markPublished(b *Batch) {
	if s.log.delivered > s.log.recorded {
		b.Published = s.log.delivered
	}
}

// refusal is the error for a commit the store refused: another server's
// change first, or the store failing.
func (s *Service) refusal(err error) error {
	if s.follow != nil && errors.Is(err, ErrConflict) {
		return &Error{Code: CodeConflict, Msg: "another server changed the market first; nothing was changed here, try again", Err: err}
	}
	s.storeFailed(err)
	return &Error{Code: CodeStore, Msg: "the change could not be saved", Err: err}
}

// madeDurable records that b is durable: its log entries wait for
// appendLogLocked, its publication mark is the store's. Main thread.
func (s *Service) madeDurable(b *Batch) {
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
}

// expected is what a batch leaves of what the store reports back: each
// player's balance after the batch's writes of it, the fee account, the
// issuance account. Settling adds to memory the difference between what
// the store reports and these: nothing in a market of its own, what the
// other servers changed meanwhile in a network, whatever batches are in
// flight after this one.
//
// It also keeps what the batch itself adds (own): an undo takes back only
// that, so that what settling added meanwhile stays.
type expected struct {
	balances   map[*playerRecord]Money
	feeBalance Money
	issuance   Issuance
	own        struct {
		balances   map[*playerRecord]Money
		feeBalance Money
		issuance   Issuance
		writes     map[*playerRecord]int // the player's row writes, each a version
		txs        map[*transactionRecord]int
	}
}

// expectedOf works out what b leaves, from what memory held before its
// change (u) and what b's ops add, as the store will, and gives it to
// memory: the balances, accounts and stored inventories that the next
// batch's ops are built on. The caller holds s.mu.
func (s *Service) expectedOf(b *Batch, u *undo) expected {
	e := expected{}
	var txs txLookup
	for i := range b.Ops {
		op := &b.Ops[i]
		switch op.Kind {
		case OpPlayerState, OpPlayerProfile:
			p := s.playerByID[op.Player.ID]
			if p == nil {
				continue
			}
			if e.own.writes == nil {
				e.own.writes = make(map[*playerRecord]int, 2)
			}
			e.own.writes[p]++
			p.unsettled++
			if op.Kind == OpPlayerProfile {
				continue
			}
			if e.own.balances == nil {
				e.own.balances = make(map[*playerRecord]Money, 2)
			}
			e.own.balances[p] += op.Delta
			if op.inv != nil {
				p.stored = op.inv
			}
		case OpPutTx, OpTxState:
			if t := txs.of(s, op.Tx.ID); t != nil {
				if e.own.txs == nil {
					e.own.txs = make(map[*transactionRecord]int, 1)
				}
				e.own.txs[t]++
				t.unsettled++
			}
		case OpCounters:
			e.own.feeBalance += op.Meta.FeeBalance
		case OpIssuance:
			e.own.issuance = e.own.issuance.add(op.Meta.Issuance)
		}
	}
	e.balances = make(map[*playerRecord]Money, len(e.own.balances))
	for p, d := range e.own.balances {
		p.balance = u.balance(p) + d
		e.balances[p] = p.balance
	}
	s.feeBalance = u.feeBalance + e.own.feeBalance
	s.issuance = u.issuance.add(e.own.issuance)
	e.feeBalance, e.issuance = s.feeBalance, s.issuance
	return e
}

// txLookup is s.txByID with its last answer kept: a purchase's batch
// writes its transaction's row once a step, and the map holds every
// transaction of the history, so each lookup missed the caches.
type txLookup struct {
	id uuid.UUID
	t  *transactionRecord
}

func (l *txLookup) of(s *Service, id uuid.UUID) *transactionRecord {
	if l.t == nil || l.id != id {
		l.id, l.t = id, s.txByID[id]
	}
	return l.t
}

// shift adds what settling an earlier batch found (another server's change)
// to what this batch expects the store to report.
func (e *expected) shift(p *playerRecord, balance, fee Money, issuance Issuance) {
	if _, ok := e.balances[p]; ok && p != nil {
		e.balances[p] += balance
	}
	e.feeBalance += fee
	e.issuance = e.issuance.add(issuance)
}

// settleLocked takes from a batch just committed what the store reported
// back: the balance and version of each player it changed and the
// counters' totals. In a market several instances share, those include
// what the others changed meanwhile, which memory's own arithmetic cannot
// know; memory keeps what the batches after this one changed on top, and
// those batches (later) expect the difference too.
func (s *Service) settleLocked(p *pending, later ...[]*pending) {
	shift := func(pr *playerRecord, balance, fee Money, issuance Issuance) {
		for _, ps := range later {
			for _, q := range ps {
				q.u.after.shift(pr, balance, fee, issuance)
			}
		}
	}
	b := p.b
	// A batch may write a row several times (auctions settled together
	// pay one seller twice): the last write reports the row's total.
	// The players are looked up once: a map keyed by UUID is slow to
	// hash, and these lookups were a sixth of settling (perf).
	lastCounters, lastIssuance := -1, -1
	var stack [8]*playerRecord
	states := stack[:0] // the player of each OpPlayerState, in order
	for i := range b.Ops {
		switch op := &b.Ops[i]; op.Kind {
		case OpPlayerState:
			states = append(states, s.playerByID[op.Player.ID])
		case OpCounters:
			lastCounters = i
		case OpIssuance:
			lastIssuance = i
		}
	}
	state := 0
	var txs txLookup
	for i := range b.Ops {
		op := &b.Ops[i]
		switch op.Kind {
		case OpPlayerState:
			pr := states[state]
			state++
			if pr == nil {
				continue
			}
			if s.follow != nil && op.Player.Version != pr.version+1 {
				// Another instance changed the player in between, and
				// memory may not have its change yet: its entries may
				// have come in a snapshot older than this commit,
				// which skips the rows this commit changed.
				s.follow.refresh(pr.id)
			}
			pr.version = op.Player.Version
			pr.unsettled--
			if !slices.Contains(states[state:], pr) { // the last write of pr
				d := op.Player.Balance - p.u.after.balances[pr]
				pr.balance += d
				if d != 0 {
					shift(pr, d, 0, Issuance{})
				}
			}
		case OpCounters:
			if i != lastCounters {
				continue
			}
			d := op.Meta.FeeBalance - p.u.after.feeBalance
			s.feeBalance += d
			if d != 0 {
				shift(nil, 0, d, Issuance{})
			}
			// Only a durable sale counts (completeLocked): memory holds
			// no batch in flight in these.
			s.volume, s.sales = op.Meta.Volume, op.Meta.Sales
			s.loadedMeta.HasCounters = true
		case OpIssuance:
			if i != lastIssuance {
				continue
			}
			d := op.Meta.Issuance.sub(p.u.after.issuance)
			s.issuance = s.issuance.add(d)
			if d != (Issuance{}) {
				shift(nil, 0, 0, d)
			}
		case OpPlayerProfile:
			if pr := s.playerByID[op.Player.ID]; pr != nil {
				pr.version = op.Player.Version
				pr.unsettled--
			}
		case OpPutTx, OpTxState:
			if t := txs.of(s, op.Tx.ID); t != nil && p.u.after.own.txs[t] > 0 {
				t.unsettled--
			}
		}
	}
}

// submit makes the change of a mutation whose rows and log entries b
// holds. change (under the write lock) changes memory at once, before b is
// durable, so that memory is what the store will hold; durable runs once b
// is, before b's log entries become visible and its events are delivered:
// what may only follow a commit (the completed list, the figures).
//
// Committing behind (Config.CommitBehind), b is queued for the committer
// and submit returns: the outcome comes with a later Settle, and a refusal
// then undoes the change and every one submitted after it. Otherwise submit
// commits b itself: a refusal undoes the change and is returned. The
// design is in docs/commit-path.md.
func (s *Service) submit(b *Batch, change, durable func()) error {
	if err := s.behind(); err != nil {
		return err
	}
	s.markPublished(b)
	s.mu.Lock()
	u := s.undoOf(b)
	change()
	u.after = s.expectedOf(b, u)
	p := &pending{b: b, u: u, durable: durable}
	s.mu.Unlock()
	if c := s.committer; c != nil {
		// The committer keeps the batch past this call: b is the main
		// thread's scratch.
		p.b = &Batch{Ops: append([]Op(nil), b.Ops...), Events: append([]EventRow(nil), b.Events...), Published: b.Published}
		p.at = time.Now()
		s.inflight = append(s.inflight, p)
		s.waiting.Add(1)
		c.enqueue(p)
		return nil
	}
	if err := s.observers.commitTo(s.store, b); err != nil {
		s.mu.Lock()
		s.undoLocked(u)
		s.spare.keep(u)
		s.mu.Unlock()
		err = s.refusal(err)
		if e := err.(*Error); e.Code == CodeConflict {
			s.catchUp()
		}
		return err
	}
	s.settled([]*pending{p}, nil)
	s.deliver()
	return nil
}

// settled takes batches that are durable into memory's log, settles what
// the store reported and runs their durable work, in order, under one
// lock: each taking of the write lock waits for the readers in the middle
// of a read, so a tick takes it as few times as it can.
func (s *Service) settled(ps []*pending, later []*pending) {
	s.mu.Lock()
	for i, p := range ps {
		s.madeDurable(p.b)
		if p.durable != nil {
			p.durable()
		}
		s.settleLocked(p, ps[i+1:], later)
		s.spare.keep(p.u)
	}
	s.appendLogLocked()
	s.mu.Unlock()
}

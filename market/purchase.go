package market

import (
	"fmt"
	"slices"

	"github.com/google/uuid"
	"github.com/rynek/rynek/market/internal/item"
	"github.com/rynek/rynek/market/internal/record"
)

// The purchase saga.
//
//	CREATED ─▶ LISTING_RESERVED ─▶ MONEY_WITHDRAWN ─▶ SELLER_PAID ─▶ ITEM_DELIVERED ─▶ COMPLETED
//	   │               │                  │                 │                │
//	   ▼               └──────────────────┴─────────────────┴────────────────┴─▶ ROLLED_BACK
//	 FAILED
//
// Each arrow is a step holding its effect and the new state, written with a
// conditional update (WHERE state = <previous>) and its own log entry. Steps
// are committed atomically, several to a commit when they succeed in a row
// (runSaga), so the persisted state always says exactly which effects
// happened, and replaying a step is idempotent: the (transaction id, expected
// state) pair is the key, and a replay whose state no longer matches changes
// nothing.
//
// The rule for failures: a failure before any effect (the transaction could
// not even reserve the listing) ends in FAILED; a failure after an effect is
// compensated in one commit that undoes every effect so far (release the
// listing, refund the buyer, take back the seller's net and the fee, take back
// the delivered item) and ends in ROLLED_BACK. Money and items are conserved
// on every path. After a crash, recovery rolls every unfinished transaction
// forward, compensating instead if a step can no longer succeed.

// sagaRun is what one execution of the saga remembers to undo its own steps.
type sagaRun struct {
	t      *transactionRecord
	r      *listingRecord // the listing, for restoring it after delivery
	slot   int            // where the item was delivered: inventory slot, or -1
	mail   uuid.UUID
	failAt State
	fresh  bool // the purchase's record is not in the store yet
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
	case r.auction != nil:
		return Transaction{}, errf(CodeIsAnAuction, "listing #%d is an auction: bid on it, or buy it now", listingID)
	case r.reserved != uuid.Nil:
		return Transaction{}, errf(CodeListingReserved, "listing #%d is reserved by a purchase in progress", listingID)
	case r.seller == b.idx:
		return Transaction{}, errf(CodeOwnListing, "%s cannot buy their own listing #%d", b.name, listingID)
	case b.balance < r.price:
		return Transaction{}, errf(CodeInsufficientFunds, "listing #%d costs %s but %s has %s",
			listingID, FormatMoney(r.price), b.name, FormatMoney(b.balance))
	}
	if err := s.purchaseCapped(b, s.players[r.seller], s.nowMs()); err != nil {
		return Transaction{}, err
	}
	return s.purchase(s.newPurchase(r, b, r.price, s.cfg.SaleFeeBasisPoints), r, s.armed.take())
}

// newPurchase is the CREATED record of b's purchase of r at price, with a
// sale fee of bp basis points.
func (s *Service) newPurchase(r *listingRecord, b *playerRecord, price Money, bp int64) *transactionRecord {
	fee := s.cfg.fee(price, bp)
	now := s.nowMs()
	return &transactionRecord{id: uuid.Must(uuid.NewV7()), listing: r.id, buyer: b.idx, seller: r.seller, it: r.it,
		price: price, fee: fee, net: price - fee, state: uint8(stateIndex(StateCreated)),
		tl: record.Timeline{{State: uint8(stateIndex(StateCreated)), At: now}}, created: now, auction: r.auction != nil}
}

// purchase runs the saga of t, a new purchase of r, failing at failAt when
// the QA control armed one.
func (s *Service) purchase(t *transactionRecord, r *listingRecord, failAt State) (Transaction, error) {
	now, listingID := t.created, t.listing
	run := &sagaRun{t: t, r: r, slot: -1, failAt: failAt}

	if run.failAt == StateCreated {
		// The very first write fails: nothing happened, so the record is FAILED.
		t.state = uint8(stateIndex(StateFailed))
		t.errCode = "INJECTED:" + string(StateCreated)
		t.tl = append(t.tl, record.Stamp{State: t.state, At: now})
		if err := s.putTx(t); err != nil {
			return Transaction{}, err
		}
		return s.txSnapshot(t), errf(CodeInjectedFailure, "purchase of listing #%d failed at %s (injected); nothing changed", listingID, StateCreated)
	}
	run.fresh = true
	return s.runSaga(run)
}

func (s *Service) putTx(t *transactionRecord) error {
	b := &s.batch
	b.Reset()
	b.add(Op{Kind: OpPutTx, Tx: s.txRow(t, t.State(), t.tl, t.errCode, t.toMailbox)})
	b.log(EventRow{Kind: KindTransactionStep, At: t.tl[len(t.tl)-1].At,
		Body: s.transactionBody(t, t.tl, t.errCode, t.toMailbox, nil, nil, uuid.Nil)})
	if err := s.submit(b, func() { s.addTxLocked(t) }, nil); err != nil {
		return err
	}
	return nil
}

// addTxLocked makes a new transaction known to the readers.
func (s *Service) addTxLocked(t *transactionRecord) {
	s.txByID[t.id] = t
	s.allTx = append(s.allTx, t)
	s.indexTxPlayers(t)
	if len(s.mayBeOpen) >= 1024 {
		s.pruneOpenLocked() // every purchase passes through: keep it to what is open
	}
	s.mayBeOpen = append(s.mayBeOpen, t)
}

// pruneOpenLocked forgets the finished and undone transactions of
// mayBeOpen. The caller holds s.mu for writing.
func (s *Service) pruneOpenLocked() {
	kept := s.mayBeOpen[:0]
	for _, t := range s.mayBeOpen {
		if s.txByID[t.id] == t && !t.State().Terminal() {
			kept = append(kept, t)
		}
	}
	clear(s.mayBeOpen[len(kept):])
	s.mayBeOpen = kept
}

// openTxLocked returns the transactions in flight (not in a terminal
// state), oldest change first, from the ones that entered memory
// unfinished (mayBeOpen), which it forgets once they are finished or
// undone: a look that costs what is in flight, not the whole history,
// which the network's duty holder takes every few seconds. The caller
// holds s.mu for writing.
func (s *Service) openTxLocked() []*transactionRecord {
	s.pruneOpenLocked()
	open := slices.Clone(s.mayBeOpen)
	sortTx(open)
	return open
}

func (s *Service) txSnapshot(t *transactionRecord) Transaction {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.txOf(t)
}

// runSaga drives t from its current state to a terminal one.
//
// Every effect of the saga lives in this one store, so the steps that succeed
// in a row are committed together: a purchase that meets no failure is one
// store transaction holding every state change, each with its own log entry,
// in order. That keeps the rule above (a persisted state says exactly which
// effects happened: here, all of them or none) at a sixth of the commits.
// When a step fails, the steps before it are committed first, so the
// compensation starts from a persisted state, as it always has.
func (s *Service) runSaga(run *sagaRun) (Transaction, error) {
	t := run.t
	g := s.newSagaGroup(run)
	for !g.state().Terminal() {
		next := States()[g.view.state+1]
		var err error
		if run.failAt == next {
			err = errf(CodeInjectedFailure, "purchase of listing #%d failed at %s (injected)", t.listing, next)
		} else {
			err = g.step(next)
		}
		if err == nil {
			continue
		}
		if t.order != 0 {
			// An order's fill happens whole or not at all: nothing of it
			// was written, and memory is unchanged until a commit.
			s.batch.Reset()
			return Transaction{}, err
		}
		if cerr := g.commit(); cerr != nil {
			if run.fresh {
				return Transaction{}, cerr // nothing happened
			}
			err = cerr
		}
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
	if err := g.commit(); err != nil {
		if run.fresh {
			return Transaction{}, err
		}
		if t.State().Terminal() {
			return s.txSnapshot(t), err // finished meanwhile: see compensate
		}
		if cerr := s.compensate(run, fmt.Sprintf("%s_FAILED:%s", States()[t.state+1], CodeStore)); cerr != nil {
			return s.txSnapshot(t), fmt.Errorf("%w; compensation could not be saved either (recovery will finish it): %v", err, cerr)
		}
		return s.txSnapshot(t), err
	}
	return s.txSnapshot(t), nil
}

// sagaGroup is the steps of one run of the saga that are built into the
// service's batch but not yet committed, and the market as those steps leave
// it: each step reads the view, not the live records, which readers see
// unchanged until the commit.
type sagaGroup struct {
	s       *Service
	run     *sagaRun
	applies []func() // each step's changes to memory, in order, before the commit
	durable []func() // what follows the commit: the completed list and the figures
	view    sagaView
	rows    groupRows
}

// groupRows says where in the batch the group writes each row it touches
// (-1: not yet). A row that several steps change is written once, in the
// state the last of them leaves it: a purchase writes its transaction, its
// buyer, its seller, the counters and the listing once each, not once per
// step, while every step keeps its own log entry.
type groupRows struct{ tx, buyer, seller, meta, listing, order int }

// write adds op to the batch at *at, or, when an earlier step of the group
// already writes that row, replaces that step's op: the row's final value
// under the first step's condition. A transaction inserted by the group stays
// an insert; a reservation followed by the delivery is just the delete, of a
// listing that is free when the group starts.
func (g *sagaGroup) write(at *int, op Op) {
	b := &g.s.batch
	if *at < 0 {
		*at = len(b.Ops)
		b.add(op)
		return
	}
	prev := &b.Ops[*at]
	switch prev.Kind {
	case OpPutTx:
		op.Kind = OpPutTx
	case OpTxState:
		op.ExpectState = prev.ExpectState
	case OpListingState, OpOrderState:
		op.Expect = prev.Expect
	}
	*prev = op
}

// sagaView is what the pending steps change.
type sagaView struct {
	state         uint8
	tl            record.Timeline
	toMailbox     bool
	buyerBalance  Money
	sellerBalance Money
	buyerInv      item.Inventory
	meta          MetaRow
	reserved      bool         // the listing is held by this purchase
	delivered     bool         // the listing is gone: its item was delivered
	order         *orderRecord // a fill's order as the steps leave it
}

// newSagaGroup starts a group at t's current state, in an empty batch. A
// fresh purchase begins with inserting its CREATED record.
func (s *Service) newSagaGroup(run *sagaRun) *sagaGroup {
	s.batch.Reset()
	return s.joinSagaGroup(run)
}

// joinSagaGroup starts a group at t's current state after what the batch
// holds already: the settlements of one commit (settleAuctions).
func (s *Service) joinSagaGroup(run *sagaRun) *sagaGroup {
	t := run.t
	buyer, seller := s.players[t.buyer], s.players[t.seller]
	g := &sagaGroup{s: s, run: run, view: sagaView{state: t.state, tl: t.tl, toMailbox: t.toMailbox,
		buyerBalance: buyer.balance, sellerBalance: seller.balance, buyerInv: buyer.inv, meta: s.meta()},
		rows: groupRows{tx: -1, buyer: -1, seller: -1, meta: -1, listing: -1, order: -1}}
	if t.order != 0 {
		g.view.order = s.orders.byID[t.order]
	}
	if r := s.listings.Get(t.listing); r != nil && r.reserved == t.id {
		g.view.reserved = true
	}
	if run.fresh {
		b := &s.batch
		g.write(&g.rows.tx, Op{Kind: OpPutTx, Tx: s.txRow(t, t.State(), t.tl, t.errCode, t.toMailbox)})
		b.log(EventRow{Kind: KindTransactionStep, At: t.tl[len(t.tl)-1].At,
			Body: s.transactionBody(t, t.tl, t.errCode, t.toMailbox, nil, nil, uuid.Nil)})
		g.applies = append(g.applies, func() { s.addTxLocked(t) })
	}
	return g
}

func (g *sagaGroup) state() State { return States()[g.view.state] }

// commit applies the pending steps, if any, to memory and writes them.
func (g *sagaGroup) commit() error {
	s := g.s
	if len(g.applies) == 0 {
		return nil
	}
	applies, durable := g.applies, g.durable
	g.applies, g.durable = nil, nil
	if err := s.submit(&s.batch, func() { runAll(applies) }, func() { runAll(durable) }); err != nil {
		return err
	}
	g.run.fresh = false
	return nil
}

// runAll calls each of fs in order.
func runAll(fs []func()) {
	for _, f := range fs {
		f()
	}
}

// step adds the effect of entering state next, with the state change, to the
// group.
func (g *sagaGroup) step(next State) error {
	s, run, v := g.s, g.run, &g.view
	t := run.t
	cur := States()[v.state]
	now := s.nowMs()
	buyer, seller := s.players[t.buyer], s.players[t.seller]
	b := &s.batch
	var apply func()
	var to *record.Destination
	var refunded uuid.UUID // a buy-now's leader, their bid back
	toMail := v.toMailbox
	switch next {
	case StateListingReserved:
		r := s.listings.Get(t.listing)
		if r == nil {
			return errf(CodeUnknownListing, "listing #%d no longer exists", t.listing)
		}
		if r.reserved != uuid.Nil && r.reserved != t.id {
			return errf(CodeListingReserved, "listing #%d is reserved by another purchase", t.listing)
		}
		if !r.live(now) && !(t.escrowed && t.auction) {
			// Only recovery gets here: Buy refuses expired listings up front.
			// An auction's settlement comes after its end, by design.
			return errf(CodeListingExpired, "listing #%d expired before the purchase could reserve it", t.listing)
		}
		run.r = r
		held := *r
		held.reserved = t.id
		var refund func() // a buy-now's: the leader's bid back to them
		if a := r.auction; a != nil && a.Bids > 0 && !t.escrowed {
			leader := s.playerByID[a.Leader]
			if leader == nil {
				return errf(CodeUnknownPlayer, "the leader of auction #%d, %s, does not exist", r.id, a.Leader)
			}
			held.auction = withoutBids(a)
			back := Money(a.Bid)
			var notified *playerExtra // the leader's data with the notice of the buy-now
			var notifiedBlob *dataBlob
			if leader == buyer {
				v.buyerBalance += back
				g.write(&g.rows.buyer, s.playerOp(buyer, v.buyerBalance, buyer.lastSell, nil))
			} else {
				op := s.playerOp(leader, leader.balance+back, leader.lastSell, nil)
				notified, notifiedBlob = s.outbidOp(&op, leader, r, t.price, back, OutbidBoughtNow, now)
				b.add(op)
			}
			refund = func() {
				leader.balance += back
				if notified != nil {
					s.setNoticesLocked(leader, notified, notifiedBlob)
				}
			}
			refunded = leader.id
		}
		g.write(&g.rows.listing, Op{Kind: OpListingState, Listing: s.listingRow(&held), Expect: s.listingRow(r).Rec})
		v.reserved = true
		apply = func() {
			if refund != nil {
				refund()
			}
			s.replaceListingLocked(r, &held)
		}
	case StateMoneyWithdrawn:
		if t.order != 0 {
			// A fill: the order's escrow pays, and the order counts the items.
			o := v.order
			if o == nil || !o.open() || o.escrow < t.price || o.remaining() < uint32(t.it.Amount) {
				return errf(CodeOrderClosed, "buy order #%d can no longer pay for %d items at %s", t.order, t.it.Amount, FormatMoney(t.price))
			}
			paid := *o
			paid.escrow -= t.price
			paid.filled += uint32(t.it.Amount)
			g.write(&g.rows.order, Op{Kind: OpOrderState, Order: s.orderRow(&paid), Expect: s.orderRow(o).Rec})
			v.order = &paid
			apply = func() { s.setOrderLocked(&paid) }
			break
		}
		if t.escrowed {
			// The auction's escrow holds the winner's price already: from
			// here on the purchase holds it (settling, accountsLocked).
			apply = func() {}
			break
		}
		if v.buyerBalance < t.price {
			return errf(CodeInsufficientFunds, "%s has %s, needs %s", buyer.name, FormatMoney(v.buyerBalance), FormatMoney(t.price))
		}
		v.buyerBalance -= t.price
		g.write(&g.rows.buyer, s.playerOp(buyer, v.buyerBalance, buyer.lastSell, nil))
		apply = func() { buyer.balance -= t.price }
	case StateSellerPaid:
		v.sellerBalance += t.net
		g.write(&g.rows.seller, s.playerOp(seller, v.sellerBalance, seller.lastSell, nil))
		v.meta.FeeBalance += t.fee
		g.write(&g.rows.meta, s.countersOp(v.meta))
		apply = func() { seller.balance += t.net; s.feeBalance += t.fee }
	case StateItemDelivered:
		r := s.listings.Get(t.listing)
		if r == nil || !v.reserved || v.delivered {
			return errf(CodeUnknownListing, "listing #%d is not held by this purchase", t.listing)
		}
		run.r = r
		v.delivered = true
		// The listing leaves, or, when a fill took part of its stack,
		// stays on sale with the rest at the rest of its price.
		leave := func() { s.removeListingLocked(r) }
		if t.it.Amount < r.it.Amount {
			rest := *r
			rest.reserved = uuid.Nil
			rest.it.Amount -= t.it.Amount
			rest.price -= t.price
			// The listing fee of the part sold is spent: a refund of the
			// rest's fee, if the rules give one, is the rest's share.
			rest.fee = r.fee * Money(rest.it.Amount) / Money(r.it.Amount)
			g.write(&g.rows.listing, Op{Kind: OpListingState, Listing: s.listingRow(&rest), Expect: s.listingRow(r).Rec})
			leave = func() { s.replaceListingLocked(r, &rest) }
		} else {
			g.write(&g.rows.listing, Op{Kind: OpDelListing, Int: int64(r.id), Expect: s.listingRow(r).Rec})
		}
		if slot := item.FreeSlot(&v.buyerInv); slot >= 0 {
			run.slot = slot
			v.buyerInv[slot] = t.it
			inv := v.buyerInv
			g.write(&g.rows.buyer, s.playerOp(buyer, v.buyerBalance, buyer.lastSell, &inv))
			apply = func() { leave(); buyer.inv = inv }
			to = &record.Destination{Slot: slot}
		} else {
			m := mailEntry{id: uuid.New(), it: t.it, reason: MailPurchaseOverflow, created: now}
			run.mail = m.id
			toMail = true
			b.add(Op{Kind: OpPutMail, Mail: &MailRow{ID: m.id, Player: buyer.id, Item: s.blob(t.it), Reason: m.reason, Created: now}})
			apply = func() { leave(); buyer.mail = append(buyer.mail, m) }
			to = &record.Destination{Slot: -1, Mail: m.id}
		}
	case StateCompleted:
		v.meta.Volume += t.price // the lifetime counters are persisted with the sale
		v.meta.Sales++
		g.write(&g.rows.meta, s.countersOp(v.meta))
		apply = func() {}
		g.durable = append(g.durable, func() { s.completeLocked(t) })
	default:
		return fmt.Errorf("no step enters %s", next)
	}
	tl := append(v.tl[:len(v.tl):len(v.tl)], record.Stamp{State: uint8(stateIndex(next)), At: now})
	g.write(&g.rows.tx, Op{Kind: OpTxState, Tx: s.txRow(t, next, tl, t.errCode, toMail), ExpectState: cur})
	kind := KindTransactionStep
	if next == StateCompleted {
		kind = KindTransactionCompleted
	}
	b.log(EventRow{Kind: kind, At: now, Body: s.transactionBody(t, tl, t.errCode, toMail, to, nil, refunded)})
	if next == StateCompleted && t.order != 0 {
		done := apply
		closed := g.logFill(now)
		apply = func() { done(); closed() }
	}
	if next == StateCompleted && t.auction {
		b.log(EventRow{Kind: KindAuctionEnded, At: now, Body: record.EncodeAuctionEnded(nil,
			record.AuctionEnded{ID: t.listing, Winner: buyer.id, WinnerName: buyer.name, Price: int64(t.price), Transaction: t.id})})
	}
	v.state, v.tl, v.toMailbox = uint8(stateIndex(next)), tl, toMail
	g.applies = append(g.applies, func() {
		t.toMailbox = toMail
		t.state = uint8(stateIndex(next))
		t.tl = tl // before apply: stats record the COMPLETED time, as a reload would
		apply()
	})
	return nil
}

package market

import (
	"github.com/google/uuid"
	"github.com/rynek/rynek/market/catalog"
	"github.com/rynek/rynek/market/internal/item"
	"github.com/rynek/rynek/market/internal/record"
)

// SellToOrder sells items of a stack in seller's inventory into a buy
// order at the order's unit price, less the sale fee: the order orderID,
// or with 0 the best open order for the stack's material that is not the
// seller's own. The order takes what it still wants of the stack (the rest
// stays in the inventory); its escrow pays, and the items go to the
// buyer's inventory, or their mailbox when it is full (offline buyers too).
// The sale is a purchase that is COMPLETED in one store transaction with
// the order's fill: TransactionCompletedEvent, BuyOrderFilledEvent, and
// BuyOrderClosedEvent when it was the order's last. Main thread.
func (s *Service) SellToOrder(seller Player, stack ItemStack, orderID int) (Transaction, error) {
	if err := s.mutGuard(); err != nil {
		return Transaction{}, err
	}
	t, err := s.sellToOrder(seller, stack, orderID)
	if e, ok := err.(*Error); ok && e.Code == CodeConflict {
		// Another server filled or closed the order first, and the commit
		// caught up with it: the sale is judged again against the order
		// as it is now (it may want fewer items, or be closed).
		t, err = s.sellToOrder(seller, stack, orderID)
	}
	return t, err
}

// sellToOrder is one try of SellToOrder.
func (s *Service) sellToOrder(seller Player, stack ItemStack, orderID int) (Transaction, error) {
	p, err := s.actor(seller)
	if err != nil {
		return Transaction{}, err
	}
	it, err := toItem(stack)
	if err != nil {
		return Transaction{}, err
	}
	key := catalog.Material(it.Mat).Key
	if !commodity(it) {
		return Transaction{}, errf(CodeNotACommodity, "orders buy plain stacks of %s: not one with a name, lore, enchantments or a stack size of its own", key)
	}
	slot, err := s.slotOf(p, stack.ID, it)
	if err != nil {
		return Transaction{}, err
	}
	var o *orderRecord
	if orderID != 0 {
		if o, err = s.lookupOrder(orderID); err != nil {
			return Transaction{}, err
		}
		switch {
		case o.mat != it.Mat:
			return Transaction{}, errf(CodeNoMatchingOrder, "buy order #%d buys %s, not %s", orderID, catalog.Material(o.mat).Key, key)
		case o.buyer == p.idx:
			return Transaction{}, errf(CodeNoMatchingOrder, "%s cannot sell into their own buy order #%d", p.name, orderID)
		}
	} else {
		s.orders.each(it.Mat, func(x *orderRecord) bool {
			if x.buyer != p.idx {
				o = x
			}
			return o == nil
		})
		if o == nil {
			return Transaction{}, errf(CodeNoMatchingOrder, "no open buy order buys %s", key)
		}
	}
	buyer := s.players[o.buyer]
	now := s.nowMs()
	if err := s.purchaseCapped(buyer, p, now); err != nil {
		return Transaction{}, err
	}
	k := uint8(min(o.remaining(), uint32(it.Amount)))
	price := o.limit * Money(k)
	if err := aboveMaxTransaction(price, s.cfg.MaxTransactionValue); err != nil {
		return Transaction{}, err
	}
	// The stack is split as a sell splits it: the part sold gets a new id.
	have := p.inv[slot]
	sold, rest := have, item.Item{}
	if k < have.Amount {
		sold.UID, sold.Amount = uuid.New(), k
		rest = have
		rest.Amount -= k
	}
	fee := s.cfg.fee(price, s.cfg.SaleFeeBasisPoints)
	var tl record.Timeline
	for _, st := range []State{StateCreated, StateMoneyWithdrawn, StateSellerPaid, StateItemDelivered, StateCompleted} {
		tl = append(tl, record.Stamp{State: uint8(stateIndex(st)), At: now}) // no listing to reserve
	}
	t := &transactionRecord{id: uuid.Must(uuid.NewV7()), buyer: o.buyer, seller: p.idx, it: sold, price: price, fee: fee,
		net: price - fee, state: uint8(stateIndex(StateCompleted)), tl: tl, created: now, escrowed: true, order: o.id}

	b := &s.batch
	b.Reset()
	sellerInv := p.inv
	sellerInv[slot] = rest
	b.add(s.playerOp(p, p.balance+t.net, p.lastSell, &sellerInv))
	paid := *o
	paid.escrow -= price
	paid.filled += uint32(k)
	refund := Money(0)
	if paid.remaining() == 0 {
		refund = paid.escrow
		paid.state, paid.closed, paid.escrow = record.OrderStateFilled, now, 0
	}
	b.add(Op{Kind: OpOrderState, Order: s.orderRow(&paid), Expect: s.orderRow(o).Rec})
	var to record.Destination
	var mail *mailEntry
	buyerInv := buyer.inv
	if free := item.FreeSlot(&buyerInv); free >= 0 {
		buyerInv[free] = sold
		b.add(s.playerOp(buyer, buyer.balance+refund, buyer.lastSell, &buyerInv))
		to = record.Destination{Slot: free}
	} else {
		mail = &mailEntry{id: uuid.New(), it: sold, reason: MailPurchaseOverflow, created: now}
		b.add(Op{Kind: OpPutMail, Mail: &MailRow{ID: mail.id, Player: buyer.id, Item: s.blob(sold), Reason: mail.reason, Created: now}})
		if refund != 0 {
			b.add(s.playerOp(buyer, buyer.balance+refund, buyer.lastSell, nil))
		}
		to = record.Destination{Slot: -1, Mail: mail.id}
		t.toMailbox = true
	}
	m := s.meta()
	m.FeeBalance += fee
	m.Volume += price
	m.Sales++
	b.add(s.countersOp(m))
	b.add(Op{Kind: OpPutTx, Tx: s.txRow(t, StateCompleted, tl, "", t.toMailbox)})
	b.log(EventRow{Kind: KindTransactionCompleted, At: now, Body: s.transactionBody(t, tl, "", t.toMailbox, &to, nil, uuid.Nil)})
	b.log(EventRow{Kind: KindOrderFilled, At: now, Body: record.EncodeOrderFilled(nil, &record.OrderFilled{
		Order: *paid.stored(buyer.id), BuyerName: buyer.name, Seller: p.id, SellerName: p.name, Amount: uint32(k),
		Price: int64(price), Transaction: t.id})})
	if !paid.open() {
		b.log(EventRow{Kind: KindOrderClosed, At: now, Body: record.EncodeOrderClosed(nil, &record.OrderClosed{
			Order: *paid.stored(buyer.id), BuyerName: buyer.name, Refund: int64(refund)})})
	}
	if err := s.submit(b, func() {
		p.inv = sellerInv
		p.balance += t.net
		if mail != nil {
			buyer.mail = append(buyer.mail, *mail)
		} else {
			buyer.inv = buyerInv
		}
		buyer.balance += refund
		s.setOrderLocked(&paid)
		s.feeBalance += fee
		s.addTxLocked(t)
	}, func() { s.completeLocked(t) }); err != nil {
		return Transaction{}, err
	}
	return s.txSnapshot(t), nil
}

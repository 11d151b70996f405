package market

import (
	"cmp"
	"slices"
	"time"

	"github.com/google/uuid"
	"github.com/rynek/rynek/market/internal/item"
	"github.com/rynek/rynek/market/internal/record"
)

// How buy orders fill: the matching that keeps the book uncrossed.
//
// For every material, the best open order's limit stays below the unit
// price of the cheapest listing it may buy (a fixed-price commodity stack,
// live, not held by a purchase, not its own buyer's): an order that would
// pay for a listing buys it at once, at the listing's price. Placing an
// order buys the crossing listings cheapest first (then the oldest); a new
// listing that orders would pay for is bought by the best orders. In a
// network two servers may each add one side of a crossing at once; the
// market's timer (SweepExpired, on the server holding the duty) finds such
// crossings and fills them.
//
// A fill is a purchase through the saga (purchase.go) whose money comes
// from the order's escrow, taking min(what the order still wants, the
// listing's amount) items (share). A partial fill pays the listing's price
// for that share, rounded down to the cent (never more than the order's
// limit an item), and leaves the rest on sale at the rest of the price; a
// share worth less than a cent is not sold, so the book stays crossed by
// such a listing until an order takes more of it, or it leaves. The whole
// fill, from CREATED to COMPLETED with the order's new state, is one store
// transaction: it happens whole or not at all, so no fill is ever left half
// done for recovery.

// crosses reports whether order o would pay r's unit price.
func crosses(o *orderRecord, r *listingRecord) bool {
	return r.price <= o.limit*Money(r.it.Amount)
}

// mayFill reports whether an order may buy from r at all.
func mayFill(r *listingRecord, now int64) bool {
	return r.auction == nil && commodity(r.it) && r.reserved == uuid.Nil && r.live(now)
}

// commodityListings returns the listings of mat that orders may buy,
// cheapest unit price first, then the oldest, then the lowest id; skip is
// a seller whose listings are left out (an order's own buyer), -1 none.
// The main thread, or a reader holding s.mu.
func (s *Service) commodityListings(mat uint16, now int64, skip int32) []*listingRecord {
	bm := s.ix.Material(mat)
	if bm == nil {
		return nil
	}
	var out []*listingRecord
	bm.Iterate(func(id uint32) bool {
		if r := s.listings.Get(id); r != nil && r.seller != skip && mayFill(r, now) {
			out = append(out, r)
		}
		return true
	})
	slices.SortFunc(out, func(a, b *listingRecord) int {
		return cmp.Or(cmp.Compare(a.price*Money(b.it.Amount), b.price*Money(a.it.Amount)), cmp.Compare(a.created, b.created),
			cmp.Compare(a.id, b.id))
	})
	return out
}

// fillOrder buys for o from the listings it would pay for, cheapest first,
// until it is filled or no listing crosses it. A fill that fails (another
// server took the listing first, say) ends the round; the timer's next
// look at the book tries again.
func (s *Service) fillOrder(o *orderRecord) {
	for _, r := range s.commodityListings(o.mat, s.nowMs(), o.buyer) {
		if o = s.orders.byID[o.id]; !o.open() || !crosses(o, r) {
			return
		}
		if _, _, ok := share(o, r); !ok || s.purchaseCapped(s.players[o.buyer], s.players[r.seller], s.nowMs()) != nil {
			continue
		}
		if _, err := s.fill(o, r); err != nil {
			return
		}
	}
}

// fillListing sells the new listing id to the best orders that would pay
// for it, until it is gone or none does.
func (s *Service) fillListing(id uint32) {
	for {
		r := s.listings.Get(id)
		if r == nil || !mayFill(r, s.nowMs()) {
			return
		}
		var best *orderRecord
		for _, o := range s.orders.open[r.it.Mat] {
			if !crosses(o, r) {
				return // the rest pay less still
			}
			if _, _, ok := share(o, r); ok && o.buyer != r.seller && s.purchaseCapped(s.players[o.buyer], s.players[r.seller], s.nowMs()) == nil {
				best = o
				break
			}
		}
		if best == nil {
			return
		}
		if _, err := s.fill(best, r); err != nil {
			return
		}
	}
}

// uncrossEvery is how often the timer looks for a crossed book.
const uncrossEvery = time.Second

// uncross fills what crosses in the book: the orders and listings that
// another server added at the same time as their other side, or that a
// crash left between an order's placing and its fills. The timer calls it.
func (s *Service) uncross() {
	now := s.nowMs()
	for mat, list := range s.orders.open {
		cheapest := s.commodityListings(mat, now, -1)
		if len(cheapest) == 0 {
			continue
		}
		for _, o := range slices.Clone(list) {
			if !crosses(o, cheapest[0]) {
				break // the orders after it pay less still
			}
			s.fillOrder(o)
		}
	}
}

// share is what o buys of r: what it still wants of the stack, or all of
// it, for the listing's price of that share, rounded down to the cent (so
// never more than the order's limit an item, and the rest keeps a price of
// at least a cent). A share worth less than a cent cannot be bought (ok
// false): the listing waits for an order that takes more of it.
func share(o *orderRecord, r *listingRecord) (k uint32, price Money, ok bool) {
	k = min(o.remaining(), uint32(r.it.Amount))
	if k == uint32(r.it.Amount) {
		return k, r.price, true
	}
	price = r.price * Money(k) / Money(r.it.Amount)
	return k, price, price > 0
}

// fill runs the purchase of what o still wants of r (or all of r): one
// store transaction from CREATED to COMPLETED.
func (s *Service) fill(o *orderRecord, r *listingRecord) (Transaction, error) {
	k, price, ok := share(o, r)
	if !ok {
		return Transaction{}, errf(CodeNoMatchingOrder, "%d items of listing #%d cost less than a cent: no order buys a part so small", k, r.id)
	}
	bought := r.it
	if k < uint32(r.it.Amount) {
		bought.UID, bought.Amount = uuid.New(), uint8(k)
	}
	now := s.nowMs()
	fee := s.cfg.fee(price, s.cfg.SaleFeeBasisPoints)
	t := &transactionRecord{id: uuid.Must(uuid.NewV7()), listing: r.id, buyer: o.buyer, seller: r.seller, it: bought,
		price: price, fee: fee, net: price - fee, state: uint8(stateIndex(StateCreated)),
		tl: record.Timeline{{State: uint8(stateIndex(StateCreated)), At: now}}, created: now, escrowed: true, order: o.id}
	return s.purchase(t, r, "")
}

// logFill logs the fill the group completes and, when it was the order's
// last, closes the order: the rest of its escrow back to the buyer, in the
// same commit. It returns what the close changes in memory.
func (g *sagaGroup) logFill(now int64) (apply func()) {
	s, t, v := g.s, g.run.t, &g.view
	buyer, seller := s.players[t.buyer], s.players[t.seller]
	o := *v.order
	left := uint32(0)
	if r := g.run.r; r != nil {
		left = uint32(r.it.Amount - t.it.Amount)
	}
	apply = func() {}
	var refund Money
	if o.remaining() == 0 {
		refund = o.escrow
		o.state, o.closed, o.escrow = record.OrderStateFilled, now, 0
		g.write(&g.rows.order, Op{Kind: OpOrderState, Order: s.orderRow(&o)})
		v.buyerBalance += refund
		var inv *item.Inventory // the delivery's, which this write of the row must keep
		if g.run.slot >= 0 {
			x := v.buyerInv
			inv = &x
		}
		g.write(&g.rows.buyer, s.playerOp(buyer, v.buyerBalance, buyer.lastSell, inv))
		closed := o
		v.order = &closed
		apply = func() {
			buyer.balance += refund
			s.orders.set(&closed)
		}
	}
	b := &s.batch
	b.log(EventRow{Kind: KindOrderFilled, At: now, Body: record.EncodeOrderFilled(nil, &record.OrderFilled{
		Order: *o.stored(buyer.id), BuyerName: buyer.name, Seller: seller.id, SellerName: seller.name, Amount: uint32(t.it.Amount),
		Price: int64(t.price), Transaction: t.id, Listing: t.listing, ListingLeft: left})})
	if o.state != record.OrderStateOpen {
		b.log(EventRow{Kind: KindOrderClosed, At: now, Body: record.EncodeOrderClosed(nil, &record.OrderClosed{
			Order: *o.stored(buyer.id), BuyerName: buyer.name, Refund: int64(refund)})})
	}
	return apply
}

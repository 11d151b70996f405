package market

import (
	"maps"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/google/btree"
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

// commodityIndex holds, for each material, its fixed-price commodity
// listings by unit price, then the oldest, then the lowest id: matching
// reads the cheapest in a tree's first steps, whatever the number of
// listings. The load builds every material's tree at once
// (fileCommoditiesLocked), and every change of a listing keeps it from
// then on (fileListingLocked). A material's tree was once built when its
// first order was filed: on the main thread, a tick of 4–8 ms for a
// material of tens of thousands of listings.
type commodityIndex map[uint16]*btree.BTreeG[*listingRecord]

// cheaper orders listings by unit price exactly (cross-multiplied), then
// by age, then by id.
func cheaper(a, b *listingRecord) bool {
	if x, y := a.price*Money(b.it.Amount), b.price*Money(a.it.Amount); x != y {
		return x < y
	}
	if a.created != b.created {
		return a.created < b.created
	}
	return a.id < b.id
}

// indexable reports whether r belongs in its material's commodity tree.
func indexable(r *listingRecord) bool { return r.auction == nil && commodity(r.it) }

// setOrderLocked files o in the book.
func (s *Service) setOrderLocked(o *orderRecord) { s.orders.set(o) }

// fileCommoditiesLocked builds every material's commodity tree from the
// listings in memory: the load's, sorted once per material and put in in
// order, the materials shared among the cores (a million listings: some
// 130 ms on one core).
func (s *Service) fileCommoditiesLocked() {
	byMat := map[uint16][]*listingRecord{}
	s.listings.Each(func(r *listingRecord) {
		if indexable(r) {
			byMat[r.it.Mat] = append(byMat[r.it.Mat], r)
		}
	})
	mats := slices.Collect(maps.Keys(byMat))
	trees := make([]*btree.BTreeG[*listingRecord], len(mats))
	var next atomic.Int64
	var wg sync.WaitGroup
	for range runtime.GOMAXPROCS(0) {
		wg.Go(func() {
			for i := int(next.Add(1) - 1); i < len(mats); i = int(next.Add(1) - 1) {
				rs := byMat[mats[i]]
				slices.SortFunc(rs, func(a, b *listingRecord) int {
					if cheaper(a, b) {
						return -1
					}
					return 1
				})
				t := btree.NewG(16, cheaper)
				for _, r := range rs {
					t.ReplaceOrInsert(r)
				}
				trees[i] = t
			}
		})
	}
	wg.Wait()
	s.commodities = make(commodityIndex, len(mats))
	for i, mat := range mats {
		s.commodities[mat] = trees[i]
	}
}

// fileListingLocked and unfileListingLocked keep r in its material's
// commodity tree, which is there while the material has listings; unfile
// before r changes.
func (s *Service) fileListingLocked(r *listingRecord) {
	if !indexable(r) {
		return
	}
	t := s.commodities[r.it.Mat]
	if t == nil {
		t = btree.NewG(16, cheaper)
		s.commodities[r.it.Mat] = t
	}
	t.ReplaceOrInsert(r)
}

func (s *Service) unfileListingLocked(r *listingRecord) {
	if t := s.commodities[r.it.Mat]; t != nil && indexable(r) {
		t.Delete(r)
		if t.Len() == 0 {
			// A tree is there while its material has listings: an undone
			// first listing of a material leaves memory as it was.
			delete(s.commodities, r.it.Mat)
		}
	}
}

// eachCommodity calls visit with the listings of mat that orders may buy,
// cheapest unit price first, then the oldest, while it returns true; skip
// is a seller whose listings are left out (an order's own buyer), -1
// none. The main thread, or a reader holding s.mu.
func (s *Service) eachCommodity(mat uint16, now int64, skip int32, visit func(r *listingRecord) bool) {
	if t := s.commodities[mat]; t != nil {
		t.Ascend(func(r *listingRecord) bool { return r.seller == skip || !mayFill(r, now) || visit(r) })
	}
}

// fillOrder buys for o from the listings it would pay for, cheapest first,
// until it is filled or no listing crosses it. A fill that fails (another
// server took the listing first, say) ends the round; the timer's next
// look at the book tries again.
func (s *Service) fillOrder(o *orderRecord) {
	var cands []*listingRecord // read first: each fill changes the index
	s.eachCommodity(o.mat, s.nowMs(), o.buyer, func(r *listingRecord) bool {
		if !crosses(o, r) {
			return false
		}
		cands = append(cands, r)
		return len(cands) < fillBatch
	})
	for _, r := range cands {
		if o = s.orders.byID[o.id]; !o.open() {
			return
		}
		if _, _, ok := share(o, r); !ok || s.purchaseCapped(s.players[o.buyer], s.players[r.seller], s.nowMs()) != nil {
			continue
		}
		if _, err := s.fill(o, r); err != nil {
			return
		}
	}
	if len(cands) == fillBatch {
		s.crossed = true // the rest on a later tick (SweepExpired)
	}
}

// fillBatch bounds the fills one call makes: an order crossing more
// listings than this buys the rest on the next ticks, so that no tick
// waits for hundreds of commits.
const fillBatch = 32

// fillListing sells the new listing id to the best orders that would pay
// for it, until it is gone or none does.
func (s *Service) fillListing(id uint32) {
	for range fillBatch {
		r := s.listings.Get(id)
		if r == nil || !mayFill(r, s.nowMs()) {
			return
		}
		best := s.bestOrderFor(r)
		if best == nil {
			return
		}
		if _, err := s.fill(best, r); err != nil {
			return
		}
	}
	s.crossed = true
}

// bestOrderFor is the best open order that would buy from r, nil for
// none: the book's first orders of r's material, down to the first that
// pays less than r asks.
func (s *Service) bestOrderFor(r *listingRecord) *orderRecord {
	var best *orderRecord
	s.orders.each(r.it.Mat, func(o *orderRecord) bool {
		if !crosses(o, r) {
			return false // the rest pay less still
		}
		if _, _, ok := share(o, r); ok && o.buyer != r.seller && s.purchaseCapped(s.players[o.buyer], s.players[r.seller], s.nowMs()) == nil {
			best = o
		}
		return best == nil
	})
	return best
}

// uncrossEvery is how often the timer looks for a crossed book.
const uncrossEvery = time.Second

// uncrossBudget is the main thread's time after which uncross stops and
// goes on from there at the next call. A look at every material with
// open orders took 0.26-2.5 ms at once with the demo's 1,145 of them (a
// tree's first step and the book's for each). Spread over ticks, a pass
// takes several, a small part of each: at half of SettleBudget, the pass
// of BenchmarkServerTick (about 270 µs a second) fell on one tick in
// twenty, and four of its ten slowest ticks were ones with a pass.
var uncrossBudget = 50 * time.Microsecond

// uncrossPass is where the timer's look at the book is: the materials
// with open orders when the pass began, by number, and the next to look
// at. The main thread's.
type uncrossPass struct {
	mats []uint16
	next int
}

// busy reports whether a pass is under way.
func (p *uncrossPass) busy() bool { return p.next < len(p.mats) }

// uncross fills what crosses in the book: the orders and listings that
// another server added at the same time as their other side, what a crash
// left between an order's placing and its fills, and what a call left to
// later ticks (fillBatch). The timer calls it; a pass over the book's
// materials goes on over as many calls as it needs, each stopping once it
// has spent uncrossBudget.
func (s *Service) uncross() {
	start := time.Now()
	p := &s.uncrossing
	if !p.busy() {
		s.crossed = false
		s.uncrossedAt = s.nowMs()
		p.mats, p.next = p.mats[:0], 0
		for mat := range s.orders.open {
			p.mats = append(p.mats, mat)
		}
		slices.Sort(p.mats)
	}
	now := s.nowMs()
	for looked := 0; p.busy(); looked++ {
		if looked > 0 && time.Since(start) >= uncrossBudget {
			return
		}
		mat := p.mats[p.next]
		p.next++
		var cheapest *listingRecord
		s.eachCommodity(mat, now, -1, func(r *listingRecord) bool { cheapest = r; return false })
		if cheapest == nil {
			continue
		}
		var crossing []*orderRecord
		s.orders.each(mat, func(o *orderRecord) bool {
			if crosses(o, cheapest) {
				crossing = append(crossing, o)
			}
			return len(crossing) < fillBatch && crosses(o, cheapest) // the orders after pay less still
		})
		for _, o := range crossing {
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
	t := s.newPurchase(r, s.players[o.buyer], price, s.cfg.SaleFeeBasisPoints)
	if k < uint32(r.it.Amount) {
		t.it.UID, t.it.Amount = uuid.New(), uint8(k)
	}
	t.escrowed, t.order = true, o.id
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
			s.setOrderLocked(&closed)
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

package market

import (
	"errors"
	"slices"
	"time"

	"github.com/google/uuid"
	"github.com/rynek/rynek/market/catalog"
	"github.com/rynek/rynek/market/internal/item"
	"github.com/rynek/rynek/market/internal/record"
	"github.com/rynek/rynek/market/internal/search"
)

// idBlock is how many listing ids the service takes from the store at a
// time (Store.ReserveListingIDs), so a sell does not write the counter every
// time. A crash skips the unused rest of a block: ids can have gaps but are
// never reused.
const idBlock = 1024

var errNoIDs = errors.New("the next block of listing ids is not reserved yet")

// takeListingID returns the next listing id, taking a new block from the
// store when the current one is used up. Committing behind, the committer
// reserves the next block as soon as the current one is begun, so the main
// thread never waits for the store; a sell that finds no id left before the
// block arrives is refused. (Reserved when half the block was used, the
// next block came too late for sells made back to back: a group commit
// and the reservation behind it took longer than 512 sells, and three
// runs of BenchmarkCompareWrites' sells in ten were refused.)
func (s *Service) takeListingID() (int64, error) {
	if c := s.committer; c != nil {
		if s.nextID >= s.idCeil && s.nextBlock != 0 {
			s.nextID, s.idCeil, s.nextBlock = s.nextBlock, s.nextBlock+idBlock, 0
		}
		if s.nextBlock == 0 {
			c.reserveIDs()
		}
		if s.nextID >= s.idCeil {
			return 0, &Error{Code: CodeStore, Msg: "no listing id is reserved yet (the store is slow or unreachable); nothing was changed, try again",
				Err: errNoIDs}
		}
	}
	if s.nextID >= s.idCeil {
		first, err := s.store.ReserveListingIDs(idBlock)
		if err != nil {
			s.storeFailed(err)
			return 0, &Error{Code: CodeStore, Msg: "no listing id could be reserved", Err: err}
		}
		s.storeWorked()
		s.nextID, s.idCeil = first, first+idBlock
	}
	if s.nextID > 1<<31-1 {
		return 0, errf(CodeListingLimit, "the market has used every listing id")
	}
	return s.nextID, nil
}

// SellItem is the contract's sellItem(Player, ItemStack, double). The stack
// must be in the seller's inventory (matched by its ID); selling fewer items
// than the stack holds splits it, and the listed part gets a new ID. Returns
// the new listing, which ListingCreatedEvent also carries.
func (s *Service) SellItem(seller Player, stack ItemStack, price float64) (Listing, error) {
	if err := s.mutGuard(); err != nil {
		return Listing{}, err
	}
	p, err := s.actor(seller)
	if err != nil {
		return Listing{}, err
	}
	cents, err := s.listingPrice(price)
	if err != nil {
		return Listing{}, err
	}
	it, err := toItem(stack)
	if err != nil {
		return Listing{}, err
	}
	now := s.nowMs()
	if err := s.mayList(p, it, now); err != nil {
		return Listing{}, err
	}
	slot, err := s.slotOf(p, stack.ID, it)
	if err != nil {
		return Listing{}, err
	}
	listingFee, err := s.listingFee(p, cents, s.cfg.ListingFeeBasisPoints)
	if err != nil {
		return Listing{}, err
	}
	r := &listingRecord{price: cents, fee: listingFee, expires: now + s.cfg.ListingTTL.Milliseconds()}
	return s.listFromSlot(p, r, slot, it.Amount, now)
}

// slotOf finds the inventory slot of p's stack id, which must hold at
// least the items of it, of its kind.
func (s *Service) slotOf(p *playerRecord, id uuid.UUID, it item.Item) (int, error) {
	slot := -1
	if id != uuid.Nil {
		for i := range p.inv {
			if p.inv[i].Mat != 0 && p.inv[i].UID == id {
				slot = i
				break
			}
		}
	}
	if slot < 0 {
		return -1, errf(CodeItemNotInInventory, "%s does not have that %s stack in their inventory", p.name, catalog.Material(it.Mat).Key)
	}
	have := p.inv[slot]
	if !have.SameKind(it) {
		return -1, errf(CodeItemNotInInventory, "the stack in slot %d is not the item offered", slot+1)
	}
	if it.Amount > have.Amount {
		return -1, errf(CodeItemNotInInventory, "%s has only %d of that stack, not %d", p.name, have.Amount, it.Amount)
	}
	return slot, nil
}

// listFromSlot lists amount items of p's stack in slot as r (its price,
// fee, expiry and auction set): selling fewer items than the stack holds
// splits it, and the listed part gets a new ID.
func (s *Service) listFromSlot(p *playerRecord, r *listingRecord, slot int, amount uint8, now int64) (Listing, error) {
	have := p.inv[slot]
	rest, listed := have, have
	if amount < have.Amount {
		listed.UID = uuid.New()
		listed.Amount = amount
		rest.Amount -= amount
	} else {
		rest = item.Item{}
	}
	r.it = listed
	b := &s.batch
	b.Reset()
	inv := p.inv
	inv[slot] = rest
	return s.list(p, r, now, &inv, slot, rest, func() { p.inv = inv })
}

// listingPrice validates a new listing's price: the market's price range
// and its maximum transaction value.
func (s *Service) listingPrice(price float64) (Money, error) {
	cents, err := PriceToMoney(price, s.cfg.MinPrice, s.cfg.MaxPrice)
	if err != nil {
		return 0, err
	}
	return cents, aboveMaxTransaction(cents, s.cfg.MaxTransactionValue)
}

// mayList checks the rules every new listing of it by p must pass: the
// blacklist, the cooldown, the listing limit.
func (s *Service) mayList(p *playerRecord, it item.Item, now int64) error {
	if s.listingRules.refuses(it.Mat) {
		return blacklisted(catalog.Material(it.Mat).Key)
	}
	if cd := s.cfg.ListingCooldown; cd > 0 && p.lastSell > 0 {
		if wait := p.lastSell + cd.Milliseconds() - now; wait > 0 {
			secs := (wait + 999) / 1000
			return errf(CodeCooldown, "%s must wait %ds before listing again", p.name, secs)
		}
	}
	if limit := s.listingLimit(p); p.listings >= limit {
		return errf(CodeListingLimit, "%s already has %d active listings; the limit is %d", p.name, p.listings, limit)
	}
	return nil
}

// listingFee is the fee of listing at cents at bp basis points, which p
// must be able to pay.
func (s *Service) listingFee(p *playerRecord, cents Money, bp int64) (Money, error) {
	fee := Money(0)
	if bp > 0 {
		fee = s.cfg.fee(cents, bp)
	}
	if fee > p.balance {
		return 0, errf(CodeInsufficientFunds, "the listing fee is %s but %s has %s", FormatMoney(fee), p.name, FormatMoney(p.balance))
	}
	return fee, nil
}

// list commits r, a new listing by p (its item, price, fee, expiry and
// auction set), with what s.batch holds already (where the item came
// from): p's row with the fee paid, the last sell time and inv unless nil,
// the listing, the counters, the log entry (slot and rest: where it came
// from, -1 for the mailbox); then taken changes memory where the item came
// from.
func (s *Service) list(p *playerRecord, r *listingRecord, now int64, inv *item.Inventory, slot int, rest item.Item, taken func()) (Listing, error) {
	id, err := s.takeListingID()
	if err != nil {
		return Listing{}, err
	}
	r.id, r.seller, r.created = uint32(id), p.idx, now
	fee := r.fee
	b := &s.batch
	b.add(s.playerOp(p, p.balance-fee, now, inv))
	b.add(Op{Kind: OpAddListing, Listing: &ListingRow{ID: int64(r.id), Rec: record.EncodeListing(nil, r.stored(p.id))}})
	if fee != 0 {
		m := s.meta()
		m.FeeBalance += fee
		b.add(s.countersOp(m))
	}
	b.log(EventRow{Kind: KindListingCreated, At: now, Body: record.EncodeListingCreated(nil, &record.ListingCreated{
		Listing: *r.stored(p.id), SellerName: p.name, Slot: slot, Rest: rest, Fee: int64(fee)})})
	fire := s.alertHitsOps(b, r, p.name, now)
	if err := s.submit(b, func() {
		if fire != nil {
			fire()
		}
		taken()
		p.lastSell = now
		p.balance -= fee
		s.feeBalance += fee
		s.nextID++
		s.addListingLocked(r)
	}, nil); err != nil {
		return Listing{}, err
	}
	l := s.listingOf(r)
	if s.orders.best(r.it.Mat) != nil {
		s.fillListing(r.id) // the book is never crossed: orders that would pay for it buy it now
	}
	return l, nil
}

// RelistMail lists a mailbox entry again at its previous price, in one
// action: an expired or returned listing goes back on the market without a
// trip through the inventory, the same stack (its ID stays). Every rule of
// a new listing applies (blacklist, cooldown, limit, listing fee, the
// market's current price range).
func (s *Service) RelistMail(player, entry uuid.UUID) (Listing, error) {
	if err := s.mutGuard(); err != nil {
		return Listing{}, err
	}
	p, err := s.player(player)
	if err != nil {
		return Listing{}, err
	}
	idx := slices.IndexFunc(p.mail, func(m mailEntry) bool { return m.id == entry })
	if idx < 0 {
		return Listing{}, errf(CodeMailboxEmpty, "%s has no mailbox entry %s", p.name, entry)
	}
	m := p.mail[idx]
	if m.prev <= 0 {
		return Listing{}, errf(CodeNotRelistable, "mailbox entry %s (%s) was never listed: sell it from the inventory", entry, m.reason)
	}
	cents, err := s.listingPrice(m.prev.Float())
	if err != nil {
		return Listing{}, err
	}
	now := s.nowMs()
	if err := s.mayList(p, m.it, now); err != nil {
		return Listing{}, err
	}
	fee, err := s.listingFee(p, cents, s.cfg.ListingFeeBasisPoints)
	if err != nil {
		return Listing{}, err
	}
	b := &s.batch
	b.Reset()
	b.add(Op{Kind: OpDelMail, Mail: &MailRow{ID: m.id, Player: p.id}})
	r := &listingRecord{price: cents, fee: fee, expires: now + s.cfg.ListingTTL.Milliseconds(), it: m.it}
	return s.list(p, r, now, nil, -1, item.Item{}, func() { p.mail = slices.Delete(p.mail, idx, idx+1) })
}

func (s *Service) addListingLocked(r *listingRecord) {
	p := s.players[r.seller]
	s.listings.Set(r.id, r)
	p.listings++
	e := r.entry()
	s.tokenScratch = s.ix.TokenIDs(s.tokenScratch, e, p.name)
	s.ix.Add(e, s.tokenScratch)
	s.fileListingLocked(r)
	s.refileBidsLocked(r.id, nil, r.auction)
}

func (s *Service) removeListingLocked(r *listingRecord) {
	p := s.players[r.seller]
	s.unfileListingLocked(r)
	s.listings.Delete(r.id)
	p.listings--
	e := r.entry()
	s.tokenScratch = s.ix.TokenIDs(s.tokenScratch, e, p.name)
	s.ix.Remove(e, s.tokenScratch)
	s.forgetFavoritesLocked(r.id)
	s.refileBidsLocked(r.id, r.auction, nil)
}

// RemoveListing is the contract's removeListing(int, Player). The owner may
// remove their own listing (reason "removed"); a player with market.admin may
// remove anyone's ("admin-removed"). The item goes back to the seller: their
// inventory if a slot is free, otherwise their mailbox. A listing that has
// expired but is not swept yet can still be taken back this way.
func (s *Service) RemoveListing(id int, actor Player) error {
	if err := s.mutGuard(); err != nil {
		return err
	}
	a, err := s.actor(actor)
	if err != nil {
		return err
	}
	r, err := s.lookupListing(id)
	if r == nil {
		return err
	}
	reason := ReasonRemoved
	if r.seller != a.idx {
		if !a.has(PermAdmin) {
			return errf(CodeNotOwner, "%s does not own listing #%d and lacks %s", a.name, id, PermAdmin)
		}
		reason = ReasonAdminRemoved
	}
	return s.takeDown(r, reason)
}

// ForceExpire ends a listing now on an admin's order (reason "force-expire");
// the item goes back to the seller like a removal.
func (s *Service) ForceExpire(id int, actor Player) error {
	if err := s.mutGuard(); err != nil {
		return err
	}
	a, err := s.actor(actor)
	if err != nil {
		return err
	}
	if !a.has(PermAdmin) {
		return errf(CodeForbidden, "%s lacks %s, which force-expire needs", a.name, PermAdmin)
	}
	r, err := s.lookupListing(id)
	if err != nil {
		return err
	}
	return s.takeDown(r, ReasonForceExpire)
}

// takeDown removes r and returns its item to the seller: a
// ListingRemovedEvent with reason.
func (s *Service) takeDown(r *listingRecord, reason string) error {
	if r.reserved != uuid.Nil {
		return errf(CodeListingReserved, "listing #%d is reserved by a purchase in progress", r.id)
	}
	var leader *playerRecord // an auction's leading bidder, whose bid goes back to them
	if a := r.auction; a != nil && a.Bids > 0 {
		if reason == ReasonRemoved {
			return errf(CodeAuctionHasBids, "auction #%d has %s: only an admin may take it down now", r.id, bidsWord(a.Bids))
		}
		if leader = s.playerByID[a.Leader]; leader == nil {
			return errf(CodeUnknownPlayer, "the leader of auction #%d, %s, does not exist", r.id, a.Leader)
		}
	}
	seller := s.players[r.seller]
	now := s.nowMs()
	b := &s.batch
	b.Reset()
	b.add(Op{Kind: OpDelListing, Int: int64(r.id), Expect: s.listingRow(r).Rec})
	to, apply := s.returnTo(b, seller, r.it, reason, r.price, now)
	s.refundListingFees(b, []*listingRecord{r})
	var notified *playerExtra // the leader's data with the notice of the takedown
	var notifiedBlob *dataBlob
	if leader != nil {
		bid := Money(r.auction.Bid)
		op := s.playerOp(leader, leader.balance+bid, leader.lastSell, nil)
		notified, notifiedBlob = s.outbidOp(&op, leader, r, bid, bid, OutbidTakenDown, now)
		b.add(op)
	}
	b.log(EventRow{Kind: KindListingRemoved, At: now, Body: record.EncodeListingRemoved(nil, &record.ListingRemoved{
		Listing: *r.stored(seller.id), SellerName: seller.name, Reason: reason, To: to})})
	if err := s.submit(b, func() {
		s.removeListingLocked(r)
		apply()
		if leader != nil {
			leader.balance += Money(r.auction.Bid)
			s.setNoticesLocked(leader, notified, notifiedBlob)
		}
	}, nil); err != nil {
		return err
	}
	return nil
}

// refundListingFees adds to b the refund of the listing fees of listings
// leaving the market unsold, when the rules say so (Config.RefundListingFee):
// from the fee account back to each seller, one write a seller. Memory
// takes the balances and the account from what the store reports.
func (s *Service) refundListingFees(b *Batch, gone []*listingRecord) {
	if !s.cfg.RefundListingFee {
		return
	}
	bySeller := map[int32]Money{}
	var sellers []int32
	var total Money
	for _, r := range gone {
		if r.fee <= 0 {
			continue
		}
		if _, ok := bySeller[r.seller]; !ok {
			sellers = append(sellers, r.seller)
		}
		bySeller[r.seller] += r.fee
		total += r.fee
	}
	if total == 0 {
		return
	}
	for _, idx := range sellers {
		p := s.players[idx]
		b.add(s.playerOp(p, p.balance+bySeller[idx], p.lastSell, nil))
	}
	m := s.meta()
	m.FeeBalance -= total
	b.add(s.countersOp(m))
}

// SweepBatch bounds the listings one SweepExpired call removes, so that a
// sweep after a long pause does not stall the main thread. Within it, a
// batch is sized by time (SweepBudget).
const SweepBatch = 2000

// SweepBudget is the main thread's time one batch of expired listings is
// sized to take: each batch takes as many listings as the last batch's
// time a listing says fit in it, between sweepLeast and SweepBatch. A
// batch of 2,000 took the tick 45-220 ms at 1M listings (about 22 µs of
// CPU a listing: its deletion, mail and log entry, its removal from the
// search index). A tick's work is to stay under a millisecond (p99), and
// at 2 ms a batch a backlog held every tick over it until it was gone: at
// half a millisecond some 500-700 go a second at 20 ticks a second
// (fewer while auctions are settled), so a backlog of a million (a server
// back after a week's pause) takes half an hour or so, each tick staying
// well within a game's tick, and every expired listing is hidden from
// reads meanwhile. It is a pace of the main thread, measured by the wall
// clock, so that a slower disk or a database across a network takes
// fewer a batch.
const SweepBudget = 500 * time.Microsecond

// sweepBudget is SweepBudget; tests shorten it.
var sweepBudget = SweepBudget

// sweepFirst is the first batch's size, before a batch has been timed;
// sweepLeast the least a batch takes, so that a slow commit (a network's
// round trip) still moves a backlog.
const (
	sweepFirst = 64
	sweepLeast = 16
)

// SettleBatch is how many auctions with a winner one commit settles
// (settleAuctions), and so the least a call settles when one is due: a
// settlement is a purchase, some 150 µs of the main thread in a busy
// serve loop, and eight to a commit took a tick 1.2-1.5 ms. It also
// bounds the expired buy orders one call closes (expireOrders), each a
// commit of its own.
const SettleBatch = 4

// SettleBudget is the main thread's time after which a SweepExpired call
// starts no more commits of settlements, and settleRounds bounds how many
// it makes: ten thousand auctions ending in one second are spread over
// ticks, as many each tick as fit in about this time. It is a pace of the
// main thread, measured by the wall clock, not the market's clock.
const (
	SettleBudget = 500 * time.Microsecond
	settleRounds = 8
)

// SweepExpired removes listings whose expiry has passed (the timer). Each
// item goes to its seller's mailbox with reason "expired". By contract no
// event is published. An auction at its end is settled with its leader
// (settleAuction), or, without a bid, goes to the mailbox the same way; each
// publishes AuctionEndedEvent. Settlements go SettleBatch to a commit while
// the call has spent less than SettleBudget; a winner of several auctions
// wins one a call. The expired listings go in one batch sized to take
// SweepBudget, less what the call spent before it. It returns how many listings it removed and
// whether more are due. In a market several instances share, only the one
// with the network's duty sweeps (SharedStore.Duty); the others do nothing
// here and learn of the removals by following the log.
func (s *Service) SweepExpired() (removed int, more bool, err error) {
	if err := s.mutGuard(); err != nil {
		return 0, false, err
	}
	now := s.nowMs()
	// Every server files what has expired, for its readers (search's
	// expiry.go), whether or not it sweeps.
	s.mu.Lock()
	s.ix.AdvanceExpiry(now, search.AdvanceChunk)
	s.mu.Unlock()
	if !s.hasDuty() {
		return 0, false, nil
	}
	start := time.Now()
	if _, more, err = s.expireOrders(now, SettleBatch); err != nil {
		return 0, more, err
	}
	if s.uncrossing.busy() || s.crossed || now-s.uncrossedAt >= uncrossEvery.Milliseconds() || now < s.uncrossedAt {
		s.uncross()
	}
	batch := s.sweepSize
	if batch == 0 {
		batch = sweepFirst
	}
	var due, sold []*listingRecord
	s.ix.AscendExpiry(func(k search.Key) bool {
		if k.K > now {
			return false
		}
		r := s.listings.Get(k.ID)
		switch {
		case r == nil || r.reserved != uuid.Nil:
		case r.auction != nil && r.auction.Bids > 0:
			if len(sold) == SettleBatch*settleRounds || slices.ContainsFunc(sold, func(o *listingRecord) bool { return o.auction.Leader == r.auction.Leader }) {
				more = true
				return len(due) < batch
			}
			sold = append(sold, r)
		case len(due) == batch:
			more = true
			return len(sold) < SettleBatch*settleRounds
		default:
			due = append(due, r)
		}
		return true
	})
	for len(sold) > 0 {
		if removed > 0 && time.Since(start) >= SettleBudget {
			more = true // the rest are due at the next call
			break
		}
		n, err := s.settleAuctions(sold[:min(len(sold), SettleBatch)])
		removed += n
		if err != nil {
			return removed, more, err
		}
		sold = sold[n:]
	}
	// The listings' batch gets what is left of the call's budget, and
	// at least the least batch, so that neither side starves.
	if left := sweepBudget - time.Since(start); left < sweepBudget && len(due) > sweepLeast {
		if fit := max(sweepLeast, int((int64(batch)*int64(max(left, 0))+int64(sweepBudget)-1)/int64(sweepBudget))); fit < len(due) {
			due, more = due[:fit], true
		}
	}
	if len(due) == 0 {
		return removed, more, nil
	}
	started := time.Now()
	b := &s.batch
	b.Reset()
	mails := make([]mailEntry, len(due))
	for i, r := range due {
		m := mailEntry{id: uuid.New(), it: r.it, reason: MailExpired, created: now, prev: r.price}
		mails[i] = m
		b.add(Op{Kind: OpDelListing, Int: int64(r.id), Expect: s.listingRow(r).Rec})
		b.add(Op{Kind: OpPutMail, Mail: &MailRow{ID: m.id, Player: s.players[r.seller].id, Item: s.blob(r.it),
			Reason: m.reason, Created: now, PrevPrice: m.prev}})
		if r.auction != nil {
			b.log(EventRow{Kind: KindAuctionEnded, At: now, Body: record.EncodeAuctionEnded(nil, record.AuctionEnded{ID: r.id, Mail: m.id})})
		} else {
			b.log(EventRow{Kind: KindListingExpired, At: now, Body: record.EncodeListingExpired(nil, record.ListingExpired{ID: r.id, Mail: m.id})})
		}
	}
	s.refundListingFees(b, due)
	if err := s.submit(b, func() {
		for i, r := range due {
			seller := s.players[r.seller]
			s.removeListingLocked(r)
			seller.mail = append(seller.mail, mails[i])
		}
	}, nil); err != nil {
		return removed, more, err
	}
	s.sizeSweep(len(due), time.Since(started))
	return removed + len(due), more, nil
}

// sizeSweep sizes the next batch of expired listings by this one's time,
// n listings in d: as many as take SweepBudget at its pace, moving half
// way from the last size there so that one slow commit does not swing it.
// A batch of fewer than sweepLeast (the few listings a tick expire in a
// steady market) is mostly the commit's own cost and says little.
func (s *Service) sizeSweep(n int, d time.Duration) {
	if n < sweepLeast {
		return
	}
	fit := int(min(int64(SweepBatch), int64(sweepBudget)*int64(n)/max(int64(d), 1)))
	last := s.sweepSize
	if last == 0 {
		last = sweepFirst
	}
	s.sweepSize = min(max((last+fit)/2, sweepLeast), SweepBatch)
}

func (s *Service) listingOf(r *listingRecord) Listing {
	leader := ""
	if a := r.auction; a != nil && a.Bids > 0 {
		if p := s.playerByID[a.Leader]; p != nil {
			leader = p.name
		}
	}
	return publicListing(r, s.players[r.seller].person(), leader)
}

// publicListing is the public form of r, sold by seller; leaderName names
// an auction's leading bidder. Live reads and the event log's decoder both
// build listings here.
func publicListing(r *listingRecord, seller person, leaderName string) Listing {
	l := Listing{
		ID: int(r.id), Seller: seller.id, SellerName: seller.name, Item: stackOf(r.it), Price: r.current().Float(),
		CreatedAt: unixMilli(r.created), ExpiresAt: unixMilli(r.expires),
		Reserved: r.reserved != uuid.Nil, Categories: r.it.Categories().List(),
	}
	if a := r.auction; a != nil {
		l.Auction = &AuctionState{StartingBid: r.price.Float(), Bids: int(a.Bids),
			MinimumBid: Money(a.MinimumBid(int64(r.price))).Float(), BuyNow: Money(a.BuyNow).Float()}
		if a.Bids > 0 {
			l.Auction.CurrentBid, l.Auction.Leader, l.Auction.LeaderName = Money(a.Bid).Float(), a.Leader, leaderName
		}
	}
	return l
}

// GetListings is the contract's getListings(): every active listing, newest
// first.
func (s *Service) GetListings() ([]Listing, error) {
	if err := s.readGuard(); err != nil {
		return nil, err
	}
	p, err := s.Query(Query{Limit: -1})
	return p.Listings, err
}

// GetListing is the contract's getListing(int).
func (s *Service) GetListing(id int) (Listing, error) {
	if err := s.readGuard(); err != nil {
		return Listing{}, err
	}
	s.mu.RLock()
	defer s.mu.RUnlock()
	r, err := s.lookupListing(id)
	if err != nil {
		return Listing{}, err
	}
	return s.listingOf(r), nil
}

// lookupListing finds listing id. Every operation answers the same way: an
// id that is not on the market is UNKNOWN_LISTING, and a listing whose expiry
// has passed but that the sweep has not removed yet is LISTING_EXPIRED (r is
// returned with that error, so that its owner can still take it back).
func (s *Service) lookupListing(id int) (*listingRecord, error) {
	var r *listingRecord
	if id > 0 && id <= 1<<31-1 {
		r = s.listings.Get(uint32(id))
	}
	if r == nil {
		return nil, errf(CodeUnknownListing, "listing #%d does not exist", id)
	}
	if !r.live(s.nowMs()) {
		return r, errf(CodeListingExpired, "listing #%d has expired", id)
	}
	return r, nil
}

// GetListingsBySeller is the contract's getListingsBySeller(UUID), newest first.
func (s *Service) GetListingsBySeller(seller uuid.UUID) ([]Listing, error) {
	if err := s.readGuard(); err != nil {
		return nil, err
	}
	if seller == uuid.Nil {
		return nil, nil // no player has the nil UUID; Query reads it as "any seller"
	}
	p, err := s.Query(Query{Seller: seller, Limit: -1})
	return p.Listings, err
}

// Search is the contract's search(String): every active listing matching the
// text, newest first. See Query for paging and sorting.
func (s *Service) Search(text string) ([]Listing, error) {
	if err := s.readGuard(); err != nil {
		return nil, err
	}
	p, err := s.Query(Query{Text: text, Limit: -1})
	return p.Listings, err
}

// GetActiveListingsCount is the contract's getActiveListingsCount(). O(1).
// Listings past their expiry that the sweep has not removed yet are not
// counted.
func (s *Service) GetActiveListingsCount() (int, error) {
	if err := s.readGuard(); err != nil {
		return 0, err
	}
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.listings.Len() - s.expiredUnswept(s.nowMs()), nil
}

// expiredUnswept counts listings whose expiry has passed but that the sweep
// has not removed yet: normally none, so this is O(1) in practice (it walks
// only the expired prefix of the expiry order).
func (s *Service) expiredUnswept(nowMs int64) int { return s.ix.ExpiredCount(nowMs) }

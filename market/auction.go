package market

import (
	"slices"
	"strconv"
	"time"

	"github.com/google/uuid"
	"github.com/rynek/rynek/market/internal/record"
)

// Auctions.
//
// An auction is a listing (listingRecord with an auction) whose price is
// its starting bid and whose expiry is its end. A bid is one commit: the
// bidder's money leaves their balance into the listing's escrow, the leader
// it outbids gets theirs back, the listing's record is replaced only while
// it still is what this instance read (OpListingState), and a BidPlaced
// entry goes into the log. Two servers bidding at one instant on one
// auction: one commit wins, the other meets ErrConflict, catches up and is
// refused with the new minimum. The escrow is an account of its own
// (accountsLocked), counted by the audit and the integrity check.
//
// At the end, on the timer, an auction without a bid goes to its seller's
// mailbox like an expired listing; one with a leader is settled through the
// purchase saga as a purchase by the leader whose price the escrow holds
// (transactionRecord.escrowed).

// StartAuction puts amount items of a stack in seller's inventory up for
// auction: bids from startingBid, for duration (0: the rules' default),
// with a buy-now price (0: none). Every rule of a new listing applies (the
// blacklist, the cooldown, the listing limit, which auctions count toward,
// the listing fee on the starting bid, the price range for the starting bid
// and the buy-now price). Returns the new listing, which
// ListingCreatedEvent also carries. Main thread.
func (s *Service) StartAuction(seller Player, stack ItemStack, startingBid, buyNow float64, duration time.Duration) (Listing, error) {
	if err := s.mutGuard(); err != nil {
		return Listing{}, err
	}
	p, err := s.actor(seller)
	if err != nil {
		return Listing{}, err
	}
	rules := s.cfg.Auctions
	if duration == 0 {
		duration = rules.DefaultDuration
	}
	if duration < rules.MinDuration || duration > rules.MaxDuration {
		return Listing{}, errf(CodeInvalidQuery, "an auction lasts %s to %s, not %s", formatLength(rules.MinDuration), formatLength(rules.MaxDuration), formatLength(duration))
	}
	start, err := s.listingPrice(startingBid)
	if err != nil {
		return Listing{}, err
	}
	var now Money
	if buyNow != 0 {
		if now, err = s.listingPrice(buyNow); err != nil {
			return Listing{}, err
		}
		if now <= start {
			return Listing{}, errf(CodeInvalidPrice, "the buy-now price %s is not above the starting bid %s", FormatMoney(now), FormatMoney(start))
		}
	}
	it, err := toItem(stack)
	if err != nil {
		return Listing{}, err
	}
	at := s.nowMs()
	if err := s.mayList(p, it, at); err != nil {
		return Listing{}, err
	}
	slot, err := s.slotOf(p, stack.ID, it)
	if err != nil {
		return Listing{}, err
	}
	fee, err := s.listingFee(p, start, s.auctionFee(s.cfg.ListingFeeBasisPoints, rules.ListingFeeBasisPoints))
	if err != nil {
		return Listing{}, err
	}
	r := &listingRecord{price: start, fee: fee, expires: at + duration.Milliseconds(), auction: &record.Auction{
		BuyNow: int64(now), IncrementAbs: int64(rules.MinIncrement), IncrementBP: rules.IncrementBasisPoints,
		AntiSnipe: rules.AntiSnipe.Milliseconds()}}
	return s.listFromSlot(p, r, slot, it.Amount, at)
}

// auctionFee is an auction's fee in basis points: the auction rules' own
// (negative: none), or the market's fee when they set none.
func (s *Service) auctionFee(market, auction int64) int64 {
	switch {
	case auction < 0:
		return 0
	case auction > 0:
		return auction
	}
	return market
}

// Bid places bidder's bid of amount on auction listingID. The bid must be
// at least the auction's minimum next bid (MinimumBid); the leader may
// raise their own. The money leaves the bidder's balance into the
// auction's escrow (a leader raising their bid pays the difference), and
// the leader it outbids gets their bid back in the same commit, with an
// outbid notice in their stored data (Notifications, NotifyOutbid). A bid
// closer to the end than the auction's anti-snipe window moves the end to
// the bid's time plus the window. Returns the auction after the bid, which
// BidPlacedEvent also carries. Main thread.
func (s *Service) Bid(bidder Player, listingID int, amount float64) (Listing, error) {
	if err := s.mutGuard(); err != nil {
		return Listing{}, err
	}
	l, err := s.bid(bidder, listingID, amount)
	if e, ok := err.(*Error); ok && e.Code == CodeConflict {
		// Another server's bid (or buy-now) came first, and the commit
		// caught up with it: this bid is judged again against the auction
		// as it is now, so that it is refused with the new minimum, or goes
		// through when it still beats it.
		l, err = s.bid(bidder, listingID, amount)
	}
	return l, err
}

// bid is one try of Bid.
func (s *Service) bid(bidder Player, listingID int, amount float64) (Listing, error) {
	p, err := s.actor(bidder)
	if err != nil {
		return Listing{}, err
	}
	r, err := s.openAuction(p, listingID, "bid on")
	if err != nil {
		return Listing{}, err
	}
	now := s.nowMs()
	cents, err := toMoney("bid", amount, 1, s.cfg.MaxPrice)
	if err != nil {
		return Listing{}, err
	}
	a := r.auction
	if least := Money(a.MinimumBid(int64(r.price))); cents < least {
		return Listing{}, errf(CodeBidTooLow, "a bid on #%d is at least %s, not %s", listingID, FormatMoney(least), FormatMoney(cents))
	}
	var prev *playerRecord // the leader this bid outbids
	held := Money(0)       // what the bidder has in the escrow already
	if a.Bids > 0 {
		if a.Leader == p.id {
			held = Money(a.Bid)
		} else if prev = s.playerByID[a.Leader]; prev == nil {
			return Listing{}, errf(CodeUnknownPlayer, "the leader of auction #%d, %s, does not exist", listingID, a.Leader)
		}
	}
	if pay := cents - held; p.balance < pay {
		return Listing{}, errf(CodeInsufficientFunds, "a bid of %s on #%d needs %s but %s has %s",
			FormatMoney(cents), listingID, FormatMoney(pay), p.name, FormatMoney(p.balance))
	}
	next := *a
	next.Bids++
	next.Leader, next.Bid = p.id, int64(cents)
	keep := a.History[max(0, len(a.History)-(record.MaxBidHistory-1)):]
	next.History = append(slices.Clip(keep), record.Bid{Bidder: p.id, Amount: int64(cents), At: now})
	after := *r
	after.auction = &next
	if left := r.expires - now; left < a.AntiSnipe {
		after.expires = now + a.AntiSnipe
	}
	b := &s.batch
	b.Reset()
	b.add(s.playerOp(p, p.balance-(cents-held), p.lastSell, nil))
	var back Money
	var notified *playerExtra // prev's data with the outbid notice
	var notifiedBlob *dataBlob
	entry := record.BidPlaced{Listing: *after.stored(s.players[r.seller].id), SellerName: s.players[r.seller].name, BidderName: p.name}
	if prev != nil {
		back = Money(a.Bid)
		op := s.playerOp(prev, prev.balance+back, prev.lastSell, nil)
		notified, notifiedBlob = s.outbidOp(&op, prev, r, cents, back, "", now)
		b.add(op)
		entry.Previous, entry.PrevName, entry.PreviousBid = prev.id, prev.name, a.Bid
	}
	b.add(Op{Kind: OpListingState, Listing: s.listingRow(&after), Expect: s.listingRow(r).Rec})
	b.log(EventRow{Kind: KindBidPlaced, At: now, Body: record.EncodeBidPlaced(nil, &entry)})
	if err := s.submit(b, func() {
		p.balance -= cents - held
		if prev != nil {
			prev.balance += back
			s.setNoticesLocked(prev, notified, notifiedBlob)
		}
		s.replaceListingLocked(r, &after)
	}, nil); err != nil {
		return Listing{}, err
	}
	return s.listingOf(r), nil
}

// bidsWord says n bids in words.
func bidsWord(n int64) string {
	if n == 1 {
		return "1 bid"
	}
	return strconv.FormatInt(n, 10) + " bids"
}

// replaceListingLocked gives listing r what now holds (its record as a
// commit changed it), keeping the search index in step: a bid changes what
// the auction costs now and may move its end; a buy order's fill leaves
// the rest of a stack at the rest of its price. Every purchase's
// reservation comes here too, and changes no key.
func (s *Service) replaceListingLocked(r, now *listingRecord) {
	s.refileBidsLocked(r.id, r.auction, now.auction)
	if r.current() == now.current() && r.expires == now.expires && (r.auction == nil) == (now.auction == nil) && r.it.Amount == now.it.Amount {
		*r = *now // what the indexes file it under is the same (a reservation, say): no re-filing
		return
	}
	p := s.players[r.seller]
	e := r.entry()
	s.tokenScratch = s.ix.TokenIDs(s.tokenScratch, e, p.name)
	s.ix.Remove(e, s.tokenScratch)
	s.unfileListingLocked(r)
	*r = *now
	s.ix.Add(r.entry(), s.tokenScratch)
	s.fileListingLocked(r)
}

// escrowLocked is the money auctions hold for their leaders: every leading
// bid but those a settlement has taken over (from MONEY_WITHDRAWN on, the
// purchase in flight holds it).
func (s *Service) escrowLocked() Account {
	acc := Account{Name: escrowAccount}
	s.listings.Each(func(r *listingRecord) {
		if a := r.auction; a != nil && a.Bids > 0 && !s.settling(r) {
			acc.Money += Money(a.Bid)
			acc.Rows++
		}
	})
	return acc
}

// escrowAccount names the money auctions hold for their leading bidders.
const escrowAccount = "bids held by auctions"

// settling reports whether r's escrow has passed to the settlement that
// holds it: a purchase by the leader paid from the escrow, past the
// withdrawal of the money.
func (s *Service) settling(r *listingRecord) bool {
	if r.reserved == uuid.Nil {
		return false
	}
	t := s.txByID[r.reserved]
	return t != nil && t.escrowed && int(t.state) >= stateIndex(StateMoneyWithdrawn)
}

// openAuction finds auction listingID for p to act on (verb says how, for
// the refusal of their own): refused when it is sold at a fixed price, has
// ended, is held by a purchase, or is p's.
func (s *Service) openAuction(p *playerRecord, listingID int, verb string) (*listingRecord, error) {
	r, err := s.lookupListing(listingID)
	switch {
	case r != nil && r.auction == nil:
		return nil, errf(CodeNotAnAuction, "listing #%d is sold at a fixed price, not by auction", listingID)
	case r != nil && err != nil:
		return nil, errf(CodeAuctionEnded, "the auction of listing #%d has ended", listingID)
	case err != nil:
		return nil, err
	case r.reserved != uuid.Nil:
		return nil, errf(CodeListingReserved, "listing #%d is reserved by a purchase in progress", listingID)
	case r.seller == p.idx:
		return nil, errf(CodeOwnAuction, "%s cannot %s their own auction #%d", p.name, verb, listingID)
	}
	return r, nil
}

// withoutBids is a with its bids gone: its leader has their money back
// (a buy-now's reservation, a settlement undone).
func withoutBids(a *record.Auction) *record.Auction {
	c := *a
	c.Bids, c.Leader, c.Bid, c.History = 0, uuid.Nil, 0, nil
	return &c
}

// BuyNow buys auction listingID at its buy-now price, through the purchase
// saga as Buy does, while the leading bid is below that price. The leader's
// bid goes back to them when the listing is reserved, with an outbid notice
// (Notification.Reason OutbidBoughtNow) unless the leader is the buyer. Returns the
// transaction in its final state, as Buy does. Main thread.
func (s *Service) BuyNow(buyer Player, listingID int) (Transaction, error) {
	if err := s.mutGuard(); err != nil {
		return Transaction{}, err
	}
	tx, err := s.buyNow(buyer, listingID)
	if e, ok := err.(*Error); ok && e.Code == CodeConflict && tx.ID == "" {
		// Another server's bid, or its change of the leader's data (whose
		// notice the reservation writes), came first; nothing was written,
		// and the commit caught up: judged again against the auction as it
		// is now, as Bid does.
		tx, err = s.buyNow(buyer, listingID)
	}
	return tx, err
}

// buyNow is one try of BuyNow.
func (s *Service) buyNow(buyer Player, listingID int) (Transaction, error) {
	b, err := s.actor(buyer)
	if err != nil {
		return Transaction{}, err
	}
	r, err := s.openAuction(b, listingID, "buy")
	switch {
	case err != nil:
		return Transaction{}, err
	case r.auction.BuyNow == 0:
		return Transaction{}, errf(CodeInvalidPrice, "auction #%d has no buy-now price", listingID)
	case r.auction.Bids > 0 && r.auction.Bid >= r.auction.BuyNow:
		return Transaction{}, errf(CodeInvalidPrice, "the leading bid on #%d, %s, has reached its buy-now price %s",
			listingID, FormatMoney(Money(r.auction.Bid)), FormatMoney(Money(r.auction.BuyNow)))
	}
	price, have := Money(r.auction.BuyNow), b.balance
	if r.auction.Bids > 0 && r.auction.Leader == b.id {
		have += Money(r.auction.Bid) // the leader's bid comes back first
	}
	if have < price {
		return Transaction{}, errf(CodeInsufficientFunds, "auction #%d costs %s to buy now but %s has %s",
			listingID, FormatMoney(price), b.name, FormatMoney(have))
	}
	if err := s.purchaseCapped(b, s.players[r.seller], s.nowMs()); err != nil {
		return Transaction{}, err
	}
	t := s.newPurchase(r, b, price, s.auctionFee(s.cfg.SaleFeeBasisPoints, s.cfg.Auctions.SaleFeeBasisPoints))
	return s.purchase(t, r, s.armed.take())
}

// settleAuction sells ended auction r to its leader at the leading bid,
// through the purchase saga, paid from the escrow. A settlement that cannot
// finish is compensated: the leader has their bid back and the auction,
// without bids, goes to its seller's mailbox at the next sweep.
func (s *Service) settleAuction(r *listingRecord) error {
	a := r.auction
	winner := s.playerByID[a.Leader]
	if winner == nil {
		return errf(CodeUnknownPlayer, "the leader of auction #%d, %s, does not exist", r.id, a.Leader)
	}
	t := s.newPurchase(r, winner, Money(a.Bid), s.auctionFee(s.cfg.SaleFeeBasisPoints, s.cfg.Auctions.SaleFeeBasisPoints))
	t.escrowed = true
	if _, err := s.purchase(t, r, ""); err != nil && (s.txByID[t.id] == nil || !t.State().Terminal()) {
		return err // never made, or left in flight: recovery finishes it
	}
	return nil
}

// AuctionBid is one bid of an auction's history.
type AuctionBid struct {
	Bidder     uuid.UUID
	BidderName string
	Amount     float64
	At         time.Time
}

// MaxBidHistory is how many of an auction's newest bids AuctionBids
// returns: the auction's record keeps no more.
const MaxBidHistory = record.MaxBidHistory

// AuctionBids returns auction listingID's newest bids, newest first (at
// most MaxBidHistory; Listing.Auction.Bids counts them all). An auction
// past its end that the sweep has not settled yet still answers. Any
// goroutine.
func (s *Service) AuctionBids(listingID int) ([]AuctionBid, error) {
	if err := s.readGuard(); err != nil {
		return nil, err
	}
	s.mu.RLock()
	defer s.mu.RUnlock()
	r, err := s.lookupListing(listingID)
	switch {
	case r == nil:
		return nil, err
	case r.auction == nil:
		return nil, errf(CodeNotAnAuction, "listing #%d is sold at a fixed price, not by auction", listingID)
	}
	h := r.auction.History
	out := make([]AuctionBid, len(h))
	for i, b := range h {
		name := ""
		if p := s.playerByID[b.Bidder]; p != nil {
			name = p.name
		}
		out[len(h)-1-i] = AuctionBid{Bidder: b.Bidder, BidderName: name, Amount: Money(b.Amount).Float(), At: unixMilli(b.At)}
	}
	return out, nil
}

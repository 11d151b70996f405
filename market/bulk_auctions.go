package market

import (
	"cmp"
	"fmt"
	"slices"
	"time"

	"github.com/google/uuid"
	"github.com/rynek/rynek/market/catalog"
	"github.com/rynek/rynek/market/internal/record"
)

// BulkAuction is an auction to load: a listing sold by auction, with the
// bids it has had, oldest first.
type BulkAuction struct {
	Seller        uuid.UUID
	Item          ItemStack
	StartingBid   Money
	BuyNow        Money // 0: none
	Created, Ends time.Time
	Rules         AuctionRules // its increments and anti-snipe window; zero values: the defaults
	Bids          []BulkBid    // at most MaxBidHistory
}

// BulkBid is one bid of a loaded auction.
type BulkBid struct {
	Bidder uuid.UUID
	Amount Money
	At     time.Time
}

// AddAuction adds an auction and returns its id. Each bid must beat the
// one before by the auction's increment, and the first be at least the
// starting bid; the leading bid's money comes into the market with the load
// (the opening account), held in the auction's escrow as a live bid's is.
func (k *Bulk) AddAuction(a BulkAuction) (int, error) {
	if k.failed != nil {
		return 0, k.failed
	}
	if !k.known(a.Seller) {
		return 0, fmt.Errorf("bulk: unknown seller %s", a.Seller)
	}
	rules := a.Rules.withDefaults(DefaultConfig().Auctions)
	auction := &record.Auction{BuyNow: int64(a.BuyNow), IncrementAbs: int64(rules.MinIncrement),
		IncrementBP: rules.IncrementBasisPoints, AntiSnipe: rules.AntiSnipe.Milliseconds()}
	switch {
	case a.StartingBid <= 0:
		return 0, fmt.Errorf("bulk: an auction's starting bid must be positive")
	case a.BuyNow != 0 && a.BuyNow <= a.StartingBid:
		return 0, fmt.Errorf("bulk: the buy-now price %s is not above the starting bid %s", FormatMoney(a.BuyNow), FormatMoney(a.StartingBid))
	case !a.Ends.After(a.Created):
		return 0, fmt.Errorf("bulk: an auction ends after it starts")
	case len(a.Bids) > record.MaxBidHistory:
		return 0, fmt.Errorf("bulk: an auction keeps its newest %d bids, not %d", record.MaxBidHistory, len(a.Bids))
	}
	for i, b := range a.Bids {
		least := Money(auction.MinimumBid(int64(a.StartingBid)))
		switch {
		case !k.known(b.Bidder) || b.Bidder == a.Seller:
			return 0, fmt.Errorf("bulk: bid %d is by %s, who is unknown or the seller", i+1, b.Bidder)
		case b.Amount < least:
			return 0, fmt.Errorf("bulk: bid %d of %s is below the least the auction took then, %s", i+1, FormatMoney(b.Amount), FormatMoney(least))
		case b.At.Before(a.Created):
			return 0, fmt.Errorf("bulk: bid %d is older than the auction", i+1)
		}
		auction.Bids++
		auction.Leader, auction.Bid = b.Bidder, int64(b.Amount)
		auction.History = append(auction.History, record.Bid{Bidder: b.Bidder, Amount: int64(b.Amount), At: b.At.UnixMilli()})
	}
	it, err := k.item(a.Item)
	if err != nil {
		return 0, err
	}
	id := k.nextID
	k.nextID++
	k.handedOut = true
	r := &listingRecord{id: uint32(id), price: a.StartingBid, created: a.Created.UnixMilli(), expires: a.Ends.UnixMilli(), it: it, auction: auction}
	k.b.add(Op{Kind: OpAddListing, Listing: &ListingRow{ID: id, Rec: record.EncodeListing(nil, r.stored(a.Seller))}})
	k.brought(it, r.created)
	k.opening.Money += Money(auction.Bid) // held in the escrow
	k.summary.Listings++
	k.outbidNotices(r)
	return int(id), k.flushIfFull()
}

// outbidNotices gives each bidder of loaded auction r whom the next bid
// beat the outbid notice a live bid would have left them, kept oldest
// first, the newest MaxOutbidNotices, as the live market keeps them. A
// player the store had already keeps their data as it is: a merge never
// overwrites.
func (k *Bulk) outbidNotices(r *listingRecord) {
	h := r.auction.History
	mat := catalog.Material(r.it.Mat).Key
	for i := 1; i < len(h); i++ {
		prev := h[i-1]
		bp := k.players[prev.Bidder]
		if prev.Bidder == h[i].Bidder || bp == nil {
			continue // a leader raising their own bid, or a player from before
		}
		if bp.extra == nil {
			bp.extra = &playerExtra{}
		}
		x := bp.extra
		x.outbids = append(x.outbids, outbidNotice{listing: r.id, at: h[i].At, bid: Money(h[i].Amount),
			refunded: Money(prev.Amount), amount: r.it.Amount, material: mat})
		slices.SortStableFunc(x.outbids, func(a, b outbidNotice) int { return cmp.Compare(a.at, b.at) })
		if over := len(x.outbids) - MaxOutbidNotices; over > 0 {
			x.outbids = slices.Delete(x.outbids, 0, over)
		}
	}
}

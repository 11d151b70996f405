package market

import (
	"cmp"
	"slices"

	"github.com/google/uuid"
	"github.com/rynek/rynek/market/internal/record"
)

// A player's bids: the live auctions they have bid on, leading or outbid.
// The auctions' own records are the source: every bid is in its auction's
// history (the newest MaxBidHistory), and an index from bidder to auctions
// follows the records wherever they change — a bid, a buy-now's
// reservation, a settlement, a listing that leaves, a row another server
// wrote that the follower applies, the load — so that the read is one
// lookup, never a scan of the market. An auction whose history has dropped
// the player's bids (a war of more than MaxBidHistory bids since) is still
// found through the player's outbid notice of it.

// PlayerBid is a live auction a player has bid on.
type PlayerBid struct {
	// Listing is the auction as it is now: the leading and minimum next
	// bid in Listing.Auction, the end in ExpiresAt.
	Listing Listing
	// Leading reports whether the player's bid leads; otherwise another
	// bidder outbid them and they may bid again.
	Leading bool
	// LastBid is the player's last bid: the leading bid when they lead,
	// else the bid that came back to them.
	LastBid float64
}

// PlayerBids returns the live auctions player has bid on, those they lead
// and those where they were outbid, the soonest to end first (then by id).
// Auctions that have ended are not among them: a won auction is a
// purchase, a lost one an outbid notice. Any goroutine.
func (s *Service) PlayerBids(player uuid.UUID) ([]PlayerBid, error) {
	if err := s.readGuard(); err != nil {
		return nil, err
	}
	s.mu.RLock()
	defer s.mu.RUnlock()
	p, err := s.player(player)
	if err != nil {
		return nil, err
	}
	now := s.nowMs()
	var out []PlayerBid
	open := func(id uint32) *listingRecord {
		r := s.listings.Get(id)
		if r == nil || r.auction == nil || r.auction.Bids == 0 || !r.live(now) {
			return nil
		}
		return r
	}
	mine := s.bidOn[player]
	for id := range mine {
		r := open(id)
		if r == nil {
			continue
		}
		a, last := r.auction, Money(0)
		for j := len(a.History) - 1; j >= 0; j-- {
			if a.History[j].Bidder == player {
				last = Money(a.History[j].Amount)
				break
			}
		}
		out = append(out, PlayerBid{Listing: s.listingOf(r), Leading: a.Leader == player, LastBid: last.Float()})
	}
	if x := p.extra; x != nil {
		// Outbid where the history no longer holds the player's bid: the
		// newest notice of each such auction says what their bid was.
		var noticed []uint32
		for j := len(x.outbids) - 1; j >= 0; j-- {
			o := x.outbids[j]
			if _, ok := mine[o.listing]; ok || slices.Contains(noticed, o.listing) {
				continue
			}
			noticed = append(noticed, o.listing)
			if r := open(o.listing); r != nil && r.auction.Leader != player {
				out = append(out, PlayerBid{Listing: s.listingOf(r), LastBid: o.refunded.Float()})
			}
		}
	}
	slices.SortFunc(out, func(a, b PlayerBid) int {
		return cmp.Or(a.Listing.ExpiresAt.Compare(b.Listing.ExpiresAt), cmp.Compare(a.Listing.ID, b.Listing.ID))
	})
	return out, nil
}

// refileBidsLocked keeps the index of bidders (bidOn) in step with auction
// id's bids going from was's to now's (nil: no auction, as before a
// listing is added or after it leaves): only the bidders who came or went
// are touched.
func (s *Service) refileBidsLocked(id uint32, was, now *record.Auction) {
	var before, after []record.Bid
	if was != nil {
		before = was.History
	}
	if now != nil {
		after = now.History
	}
	if len(before) == 0 && len(after) == 0 {
		return
	}
	seen := s.bidScratch
	clear(seen)
	for _, b := range before {
		seen[b.Bidder] |= 1
	}
	for _, b := range after {
		seen[b.Bidder] |= 2
	}
	for who, in := range seen {
		switch in {
		case 1:
			s.unfileBidLocked(who, id)
		case 2:
			fileBid(s.bidOn, who, id)
		}
	}
}

// fileBid files auction id under bidder in index on.
func fileBid(on map[uuid.UUID]map[uint32]struct{}, bidder uuid.UUID, id uint32) {
	ids := on[bidder]
	if ids == nil {
		ids = map[uint32]struct{}{}
		on[bidder] = ids
	}
	ids[id] = struct{}{}
}

func (s *Service) unfileBidLocked(bidder uuid.UUID, id uint32) {
	ids := s.bidOn[bidder]
	delete(ids, id)
	if len(ids) == 0 {
		delete(s.bidOn, bidder)
	}
}

package market

import (
	"time"

	"github.com/google/uuid"
)

// ListingRoom is what a player may list now under the market's rules, as
// the game tells a player ("12 of 20 listings", "wait 3 s"): a player, or a
// bot acting as one, checks it before offering instead of being refused.
type ListingRoom struct {
	Listings int // the player's active listings
	// Limit is the player's listing limit: the market's, or the highest
	// market.limit.<n> among their permissions.
	Limit int
	// NextListing is when the listing cooldown lets the player list again;
	// zero when it does now.
	NextListing time.Time
}

// Free reports whether the player may list one more at time now.
func (r ListingRoom) Free(now time.Time) bool {
	return r.Listings < r.Limit && !now.Before(r.NextListing)
}

// ListingRoom returns the player's room for new listings. Any goroutine.
func (s *Service) ListingRoom(player uuid.UUID) (ListingRoom, error) {
	if err := s.readGuard(); err != nil {
		return ListingRoom{}, err
	}
	s.mu.RLock()
	defer s.mu.RUnlock()
	p, err := s.player(player)
	if err != nil {
		return ListingRoom{}, err
	}
	r := ListingRoom{Listings: p.listings, Limit: s.listingLimit(p)}
	if cd := s.cfg.ListingCooldown; cd > 0 && p.lastSell > 0 {
		if next := p.lastSell + cd.Milliseconds(); next > s.nowMs() {
			r.NextListing = unixMilli(next)
		}
	}
	return r, nil
}

package market

import (
	"slices"

	"github.com/google/uuid"
)

// ToggleFavorite adds a listing on the market to the player's favourites,
// or takes it out, and reports whether it is a favourite now. A listing that
// leaves the market leaves every list that had it (only those players are
// touched); a purchase that fails leaves the listing, and so the favourite.
func (s *Service) ToggleFavorite(player uuid.UUID, listingID int) (bool, error) {
	if err := s.mutGuard(); err != nil {
		return false, err
	}
	p, err := s.player(player)
	if err != nil {
		return false, err
	}
	if listingID <= 0 || listingID > 1<<31-1 || s.listings.Get(uint32(listingID)) == nil {
		return false, errf(CodeUnknownListing, "listing #%d does not exist", listingID)
	}
	id := uint32(listingID)
	x := p.extra.clone()
	i := slices.Index(x.favorites, id)
	if i >= 0 {
		x.favorites = slices.Delete(x.favorites, i, i+1)
	} else {
		if len(x.favorites) >= maxFavorites {
			return false, errf(CodeListingLimit, "%s has %d favourites; the limit is %d", p.name, len(x.favorites), maxFavorites)
		}
		x.favorites = append(x.favorites, id)
	}
	if err := s.writeExtra(p, x); err != nil {
		return false, err
	}
	return i < 0, nil
}

// Favorites returns the player's favourite listings on the market, in the
// order they were added. Any goroutine.
func (s *Service) Favorites(player uuid.UUID) ([]Listing, error) {
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
	var out []Listing
	if p.extra != nil {
		for _, id := range p.extra.favorites {
			if r := s.listings.Get(id); r != nil && r.live(now) {
				out = append(out, s.listingOf(r))
			}
		}
	}
	return out, nil
}

// unfavorLocked takes player from the players who favour listing id.
func (s *Service) unfavorLocked(id uint32, player int32) {
	by := s.favoredBy[id]
	if i := slices.Index(by, player); i >= 0 {
		by = slices.Delete(by, i, i+1)
	}
	if len(by) == 0 {
		delete(s.favoredBy, id)
	} else {
		s.favoredBy[id] = by
	}
}

// forgetFavoritesLocked takes a listing that left the market out of every
// list that had it: only the players who favoured it are touched. Their
// stored lists drop it on their next write.
func (s *Service) forgetFavoritesLocked(id uint32) {
	for _, idx := range s.favoredBy[id] {
		if x := s.players[idx].extra; x != nil {
			if i := slices.Index(x.favorites, id); i >= 0 {
				x.favorites = slices.Delete(x.favorites, i, i+1)
			}
		}
	}
	delete(s.favoredBy, id)
}

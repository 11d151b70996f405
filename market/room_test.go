package market_test

import (
	"errors"
	"testing"
	"time"

	"github.com/rynek/rynek/market"
)

// TestListingRoom: the room a player has is exactly what SellItem checks —
// the market's limit or their tier permission, and the cooldown after a
// listing — so whoever reads it first is not refused.
func TestListingRoom(t *testing.T) {
	w := newWorld(t, func(c *market.Config) {
		c.MaxListingsPerPlayer = 2
		c.ListingCooldown = 5 * time.Second
	})
	room := func() market.ListingRoom {
		t.Helper()
		r, err := w.svc.ListingRoom(w.alice.ID)
		must(t, err)
		return r
	}
	if r := room(); r != (market.ListingRoom{Listings: 0, Limit: 2}) || !r.Free(w.clock.Now()) {
		t.Fatalf("a new player's room: %+v", r)
	}
	w.sell(w.alice, 0, 10)
	r := room()
	if want := w.clock.Now().Add(5 * time.Second); r.Listings != 1 || !r.NextListing.Equal(want) || r.Free(w.clock.Now()) {
		t.Fatalf("after a listing: %+v, want the next at %v", r, want)
	}
	if _, err := w.svc.SellItem(w.alice, w.stack(w.alice, 1), 10); !errors.Is(err, market.ErrCooldown) {
		t.Fatalf("a sell the room says must wait: %v", err)
	}
	w.clock.Advance(5 * time.Second)
	if r := room(); !r.NextListing.IsZero() || !r.Free(w.clock.Now()) {
		t.Fatalf("after the cooldown: %+v", r)
	}
	w.sell(w.alice, 1, 10)
	w.clock.Advance(5 * time.Second)
	if r := room(); r.Listings != 2 || r.Free(w.clock.Now()) {
		t.Fatalf("at the limit: %+v", r)
	}
	if _, err := w.svc.SellItem(w.alice, w.stack(w.alice, 2), 10); !errors.Is(err, market.ErrListingLimit) {
		t.Fatalf("a sell over the limit the room shows: %v", err)
	}
	// A tier permission is the player's own limit.
	_, _, err := w.svc.Join(w.alice.ID, "Alice", []string{"market.limit.5"})
	must(t, err)
	if r := room(); r.Limit != 5 || !r.Free(w.clock.Now()) {
		t.Fatalf("with market.limit.5: %+v", r)
	}
	w.sell(w.alice, 2, 10)
	if _, err := w.svc.ListingRoom(market.Player{}.ID); !errors.Is(err, market.ErrUnknownPlayer) {
		t.Fatalf("an unknown player's room: %v", err)
	}
}

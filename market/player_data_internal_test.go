package market

import (
	"slices"
	"testing"
)

// TestWithHitLeavesTheOldValueAlone: the value an alert firing makes
// shares only what nothing changes in place (the alerts, whose addresses
// the alert index keeps, and the outbid notices), so the value before it, kept
// to undo a refused commit, stays as it was through what follows: a hit
// past the cap, an outbid notice, a favourite dropped in place.
func TestWithHitLeavesTheOldValueAlone(t *testing.T) {
	old := &playerExtra{favorites: []uint32{7, 8, 9}, alerts: []alertRecord{{query: "diament"}},
		outbids: []outbidNotice{{listing: 1}, {listing: 2}}}
	for i := range MaxAlertHits {
		old.hits = append(old.hits, alertHit{Listing: uint32(100 + i)})
	}
	was := old.clone()
	x := old.withHit(alertHit{Listing: 999})
	if len(x.hits) != MaxAlertHits || x.hits[0].Listing != 101 || x.hits[len(x.hits)-1].Listing != 999 {
		t.Fatalf("hits %d, from %d to %d; want %d, the oldest dropped and 999 last", len(x.hits), x.hits[0].Listing, x.hits[len(x.hits)-1].Listing, MaxAlertHits)
	}
	if &x.alerts[0] != &old.alerts[0] {
		t.Fatal("the alerts were copied: the alert index, which setNoticesLocked leaves alone, points into the old value's")
	}
	y := x.withOutbid(outbidNotice{listing: 3})
	x.favorites = slices.Delete(x.favorites, 0, 1) // forgetFavoritesLocked on the current value
	y.hits[0].Listing = 0
	if !slices.Equal(old.favorites, was.favorites) || !slices.Equal(old.hits, was.hits) ||
		!slices.Equal(old.outbids, was.outbids) || len(old.alerts) != 1 {
		t.Fatalf("the old value changed: favourites %v, %d hits, outbids %v", old.favorites, len(old.hits), old.outbids)
	}
	if got := (*playerExtra)(nil).withHit(alertHit{Listing: 5}); len(got.hits) != 1 || got.hits[0].Listing != 5 {
		t.Fatalf("from no data: %+v", got)
	}
}

// TestWithOutbidLeavesTheOldFavoritesAlone: a favourite dropped in place
// from the value an outbid notice made (forgetFavoritesLocked, as its
// listing leaves) leaves the value before it, which an undo puts back, as
// it was.
func TestWithOutbidLeavesTheOldFavoritesAlone(t *testing.T) {
	old := &playerExtra{favorites: []uint32{7, 8, 9}, alerts: []alertRecord{{query: "diament"}}}
	x := old.withOutbid(outbidNotice{listing: 3})
	x.favorites = slices.Delete(x.favorites, 0, 1)
	if !slices.Equal(old.favorites, []uint32{7, 8, 9}) {
		t.Fatalf("the old value's favourites became %v, want [7 8 9]", old.favorites)
	}
	if &x.alerts[0] != &old.alerts[0] {
		t.Fatal("the alerts were copied: the alert index points into the old value's")
	}
}

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

// TestWithHitsShareTheirArrayWithoutChangingAVersion: hits added one after
// another share an array (withHit writes past the last version's end), and
// every version keeps what it had, through versions made from the same
// one (an undo puts an older version back, and the next hit starts from
// it) and through the array filling up and moving.
func TestWithHitsShareTheirArrayWithoutChangingAVersion(t *testing.T) {
	want := func(x *playerExtra, from, to uint32) {
		t.Helper()
		if len(x.hits) != int(to-from) {
			t.Fatalf("%d hits, want %d (%d to %d)", len(x.hits), to-from, from, to-1)
		}
		for i, h := range x.hits {
			if h.Listing != from+uint32(i) {
				t.Fatalf("hit %d is listing %d, want %d", i, h.Listing, from+uint32(i))
			}
		}
	}
	var x *playerExtra
	var versions []*playerExtra
	for i := range uint32(3 * MaxAlertHits) {
		x = x.withHit(alertHit{Listing: i})
		versions = append(versions, x)
	}
	for i, v := range versions {
		n := uint32(i) + 1
		want(v, n-min(n, MaxAlertHits), n)
	}
	if &versions[10].hits[0] != &versions[11].hits[0] {
		t.Error("the second version of a few hits copied the first's: they share an array")
	}
	// Two versions from the same one: the second may not write where the
	// first did.
	base := versions[MaxAlertHits+5]
	a := base.withHit(alertHit{Listing: 1000})
	b := base.withHit(alertHit{Listing: 2000})
	if a.hits[len(a.hits)-1].Listing != 1000 || b.hits[len(b.hits)-1].Listing != 2000 {
		t.Fatalf("two hits after the same version: the last are %d and %d, want 1000 and 2000",
			a.hits[len(a.hits)-1].Listing, b.hits[len(b.hits)-1].Listing)
	}
	want(base, 6, MaxAlertHits+6)
	if c := versions[7].clone().withHit(alertHit{Listing: 8}); &c.hits[0] == &versions[7].hits[0] {
		t.Error("a clone's hits are its own, yet withHit wrote after the version it was cloned from")
	}
}

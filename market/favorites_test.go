package market_test

import (
	"testing"

	"github.com/rynek/rynek/market"
)

// TestFavorites: toggling adds and removes; a listing that leaves the
// market leaves the list; a failed purchase keeps it; a restart keeps the
// list.
func TestFavorites(t *testing.T) {
	w := newWorld(t)
	a := w.sell(w.alice, 0, 10)
	b := w.sell(w.alice, 2, 20)
	for _, id := range []int{a.ID, b.ID} {
		on, err := w.svc.ToggleFavorite(w.bob.ID, id)
		must(t, err)
		if !on {
			t.Fatalf("#%d: toggled off", id)
		}
	}
	favs := func(when string, want ...int) {
		t.Helper()
		ls, err := w.svc.Favorites(w.bob.ID)
		must(t, err)
		var got []int
		for _, l := range ls {
			got = append(got, l.ID)
		}
		if len(got) != len(want) || len(got) > 0 && !equalInts(got, want) {
			t.Fatalf("%s: favourites %v, want %v", when, got, want)
		}
	}
	favs("after two toggles", a.ID, b.ID)
	must(t, w.svc.ArmFailure(market.StateSellerPaid))
	if _, err := w.svc.Buy(w.bob, a.ID); err == nil {
		t.Fatal("the armed purchase went through")
	}
	favs("after a failed purchase", a.ID, b.ID)
	_, err := w.svc.Buy(w.bob, a.ID)
	must(t, err)
	favs("after the purchase", b.ID)
	w.reopen()
	favs("after a restart", b.ID)
	on, err := w.svc.ToggleFavorite(w.bob.ID, b.ID)
	must(t, err)
	if on {
		t.Fatal("the second toggle left it on")
	}
	favs("toggled off")
	_, err = w.svc.ToggleFavorite(w.bob.ID, 999)
	errText(t, err, "listing #999 does not exist")
}

func equalInts(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

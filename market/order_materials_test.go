package market_test

import (
	"slices"
	"testing"
)

// TestOrderMaterials: the materials with open orders, alphabetical; a material whose last order closed leaves the list.
func TestOrderMaterials(t *testing.T) {
	w := newWorld(t)
	if got, err := w.svc.OrderMaterials(); err != nil || len(got) != 0 {
		t.Fatalf("an empty book: %v, %v", got, err)
	}
	o := w.order(w.alice, "OAK_LOG", 10, 1)
	w.order(w.bob, "DIAMOND", 1, 1)
	o3 := w.order(w.bob, "OAK_LOG", 5, 2)
	got, err := w.svc.OrderMaterials()
	must(t, err)
	if want := []string{"DIAMOND", "OAK_LOG"}; !slices.Equal(got, want) {
		t.Fatalf("materials %v, want %v", got, want)
	}
	must(t, w.svc.CancelOrder(o.ID, w.alice))
	if got, _ := w.svc.OrderMaterials(); !slices.Equal(got, []string{"DIAMOND", "OAK_LOG"}) {
		t.Fatalf("one of two OAK_LOG orders cancelled: %v", got)
	}
	must(t, w.svc.CancelOrder(o3.ID, w.bob))
	if got, _ := w.svc.OrderMaterials(); !slices.Equal(got, []string{"DIAMOND"}) {
		t.Fatalf("both OAK_LOG orders cancelled: %v", got)
	}
	w.svc.Disable()
	if _, err := w.svc.OrderMaterials(); err == nil {
		t.Fatal("a disabled market answered")
	}
}

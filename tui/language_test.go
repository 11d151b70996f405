package tui

import (
	"strings"
	"testing"

	"github.com/rynek/rynek/market/catalog"
)

// TestCategoriesInEnglish: the console is English, the website Polish.
// The Listings pane's title and the category picker name a category by
// its name, ALL or TOOLS, not by the game menu's Polish one (Wszystko,
// Narzędzia).
func TestCategoriesInEnglish(t *testing.T) {
	e := newEnv(t, 120, 40)
	e.mustContain("400 listings · sort: newest · category: ALL · row 1 of 400")
	e.key("c")
	if _, ok := e.m.dialog.(*categoryPicker); !ok {
		t.Fatalf("c opened %T", e.m.dialog)
	}
	e.mustContain("▶ ALL                     400")
	v := e.view()
	for _, cat := range catalog.AllCategories() {
		if !strings.Contains(v, cat.String()) {
			t.Fatalf("the picker lacks %s:\n%s", cat, v)
		}
		if strings.Contains(v, cat.DisplayName()) {
			t.Fatalf("the picker says %q, the game menu's Polish:\n%s", cat.DisplayName(), v)
		}
	}
	e.key("down")
	e.key("enter")
	e.mustContain("· category: TOOLS · row 1 of ")
}

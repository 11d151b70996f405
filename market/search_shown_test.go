package market_test

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/rynek/rynek/internal/playertext"
	"github.com/rynek/rynek/market"
	"github.com/rynek/rynek/market/sqlite"
)

// TestSearchFindsOnlyShownText: search indexes player text as the console
// shows it, so that nothing the screen hides can be found (issue 10,
// defect 13): not the title an escape sequence set, nor an APC payload, nor
// a link's URL; the text around them is found.
func TestSearchFindsOnlyShownText(t *testing.T) {
	st, err := sqlite.Open(filepath.Join(t.TempDir(), "market.db"), sqlite.Options{})
	must(t, err)
	b := newBulk(t, st)
	evil := market.Player{ID: uid(1), Name: "\x1b]0;pwned\x07Evil"}
	must(t, b.AddPlayer(evil, 0))
	items := []market.ItemStack{
		{ID: uid(10), Material: "STONE", Amount: 1},
		{ID: uid(11), Material: "STONE", Amount: 1, DisplayName: "§6Sword\x1b_Ghidden\x1b\\"},
		{ID: uid(12), Material: "STONE", Amount: 1, Lore: []string{"\x1b]8;;https://evil.example\x07link\x1b]8;;\x07"}},
		{ID: uid(13), Material: "STONE", Amount: 1, DisplayName: "Ad\u200dmin"},
	}
	var ids []int
	for _, it := range items {
		id, err := b.AddListing(evil.ID, it, 100, t0, t0.Add(time.Hour))
		must(t, err)
		ids = append(ids, id)
	}
	must(t, b.Finish())
	svc := market.New(st, market.Config{Clock: market.NewManualClock(t0)})
	svc.BindMainThread()
	must(t, svc.Enable())
	t.Cleanup(func() { svc.Close() })

	for q, want := range map[string][]int{
		"evil":    ids, // the seller's shown name
		"pwned":   nil, // the window title the name tried to set
		"sword":   {ids[1]},
		"hidden":  nil, // an APC payload
		"link":    {ids[2]},
		"example": nil, // the link's URL
		"https":   nil,
		"admin":   {ids[3]}, // the joiner between letters is not shown
	} {
		got, err := svc.Search(q)
		must(t, err)
		var gotIDs []int
		for _, l := range got {
			gotIDs = append(gotIDs, l.ID)
		}
		slices.Sort(gotIDs)
		if !slices.Equal(gotIDs, want) {
			t.Errorf("Search(%q) = %v, want %v", q, gotIDs, want)
		}
	}
}

// TestSearchIndexesEveryHostileTextAsShown: for every string of the
// escape-injection corpus, as a display name, a listing is found by a word
// of its raw text exactly when that word is part of a word shown.
func TestSearchIndexesEveryHostileTextAsShown(t *testing.T) {
	st, err := sqlite.Open(filepath.Join(t.TempDir(), "market.db"), sqlite.Options{})
	must(t, err)
	b := newBulk(t, st)
	seller := market.Player{ID: uid(1), Name: "Seller"}
	must(t, b.AddPlayer(seller, 0))
	ids := map[string]int{}
	for i, h := range playertext.Hostile {
		if !utf8.ValidString(h) {
			continue // refused at input
		}
		id, err := b.AddListing(seller.ID, market.ItemStack{ID: uid(byte(10 + i)), Material: "STONE", Amount: 1, DisplayName: h},
			100, t0, t0.Add(time.Hour))
		must(t, err)
		ids[h] = id
	}
	must(t, b.Finish())
	svc := market.New(st, market.Config{Clock: market.NewManualClock(t0)})
	svc.BindMainThread()
	must(t, svc.Enable())
	t.Cleanup(func() { svc.Close() })
	for h, id := range ids {
		shown := oracleWords(playertext.Plain(h))
		for _, w := range oracleWords(market.StripColors(h)) {
			got, err := svc.Search(w)
			must(t, err)
			found := slices.ContainsFunc(got, func(l market.Listing) bool { return l.ID == id })
			want := slices.ContainsFunc(shown, func(s string) bool { return strings.Contains(s, w) })
			if found != want {
				t.Errorf("%q shown as %q: Search(%q) finds it: %v", h, playertext.Plain(h), w, found)
			}
		}
	}
}

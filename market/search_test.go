package market_test

import (
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/google/uuid"
	"github.com/rynek/rynek/market"
	"github.com/rynek/rynek/market/catalog"
	"github.com/rynek/rynek/market/playertext"
	"github.com/rynek/rynek/market/sqlite"
)

// searchWorld loads n random listings with names, lore and enchantments.
func searchWorld(t testing.TB, n int, seed uint64) *market.Service {
	t.Helper()
	st, err := sqlite.Open(filepath.Join(t.TempDir(), "s.db"), sqlite.Options{})
	must(t, err)
	rng := rand.New(rand.NewPCG(seed, 7))
	b := newBulk(t, st)
	names := []string{"Łukasz", "Zosia_PL", "Steve", "Wójcik99", "Małgorzata", "xXDragonXx", "Alex", "Grzegorz"}
	var ids []uuid.UUID
	for i, nm := range names {
		id := uuid.New()
		ids = append(ids, id)
		must(t, b.AddPlayer(market.Player{ID: id, Name: nm}, market.Money(1000*(i+1))))
	}
	mats := []string{"DIAMOND_SWORD", "DIAMOND", "OAK_LOG", "IRON_PICKAXE", "ENCHANTED_BOOK", "BREAD", "GOLDEN_APPLE", "REDSTONE", "WHITE_WOOL", "BOW"}
	dnames := []string{"", "", "", "§6Legendarny Miecz", "§bŁódź Księżycowa", "§cFire Blade", "Zwykły kamień"}
	lores := []string{"Wykuty w Krakowie", "Forged in fire", "Dar od króla"}
	enchs := []string{"sharpness", "unbreaking", "efficiency", "fire_aspect", "mending", "power"}
	for i := 0; i < n; i++ {
		mat := mats[rng.IntN(len(mats))]
		info, _ := catalog.LookupMaterial(mat)
		s := market.ItemStack{Material: mat, Amount: 1 + rng.IntN(info.MaxStack), DisplayName: dnames[rng.IntN(len(dnames))]}
		if rng.IntN(5) == 0 {
			s.Lore = []string{lores[rng.IntN(len(lores))]}
		}
		if rng.IntN(3) == 0 {
			k := enchs[rng.IntN(len(enchs))]
			s.Enchantments = []market.Enchantment{{Key: k, Level: 1 + rng.IntN(3)}}
		}
		price := market.Money(100 + rng.IntN(50000))
		created := t0.Add(-time.Duration(rng.IntN(1000)) * time.Minute)
		_, err := b.AddListing(ids[rng.IntN(len(ids))], s, price, created, created.Add(7*24*time.Hour))
		must(t, err)
	}
	must(t, b.Finish())
	svc := market.New(st, market.Config{Clock: market.NewManualClock(t0)})
	svc.BindMainThread()
	must(t, svc.Enable())
	t.Cleanup(func() { svc.Close() })
	return svc
}

// oracleInRanges reports whether l's price and amount are within q's
// ranges (an end at 0 is open).
func oracleInRanges(l market.Listing, q market.Query) bool {
	in := func(v, lo, hi int64) bool { return v >= lo && (hi == 0 || v <= hi) }
	return in(int64(l.Price*100+0.5), int64(q.MinPrice), int64(q.MaxPrice)) &&
		in(int64(l.Item.Amount), int64(q.MinAmount), int64(q.MaxAmount))
}

// oracleWords is an independent statement of the matching rule: fold the
// text, split it into runs of letters and digits.
func oracleWords(s string) []string {
	return strings.FieldsFunc(playertext.Fold(s), func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) })
}

func oracleMatch(l market.Listing, query string) bool {
	var words []string
	info, _ := catalog.LookupMaterial(l.Item.Material)
	words = append(words, oracleWords(info.Key)...)
	words = append(words, oracleWords(info.Name)...)
	words = append(words, oracleWords(info.PolishWords)...)
	words = append(words, oracleWords(playertext.Plain(l.Item.DisplayName))...)
	for _, line := range l.Item.Lore {
		words = append(words, oracleWords(playertext.Plain(line))...)
	}
	for _, e := range l.Item.Enchantments {
		ei, _ := catalog.LookupEnchantment(e.Key)
		words = append(words, oracleWords(ei.Key)...)
		words = append(words, oracleWords(ei.Name)...)
	}
	words = append(words, oracleWords(playertext.Sanitize(l.SellerName))...)
	for _, f := range strings.Fields(playertext.StripColors(query)) {
		if strings.HasPrefix(f, "#") {
			if fmt.Sprintf("#%d", l.ID) != f {
				return false
			}
			continue
		}
		// A word is looked up as ParseSearch gives it (a Polish
		// inflection as its form: "diamentowy" as "diament").
		for _, q := range market.ParseSearch(f).Words {
			if !slices.ContainsFunc(words, func(w string) bool { return strings.Contains(w, q) }) {
				return false
			}
		}
	}
	return true
}

func oracleLess(mode market.SortMode) func(a, b market.Listing) int {
	cmp := func(x, y int64, a, b market.Listing) int {
		if x != y {
			if x < y {
				return -1
			}
			return 1
		}
		return a.ID - b.ID
	}
	unit := func(l market.Listing) int64 { return int64(l.Price*100+0.5) * 1000 / int64(l.Item.Amount) }
	cents := func(l market.Listing) int64 { return int64(l.Price*100 + 0.5) }
	switch mode {
	case market.SortNewest:
		return func(a, b market.Listing) int { return b.ID - a.ID }
	case market.SortOldest:
		return func(a, b market.Listing) int { return a.ID - b.ID }
	case market.SortCheapest:
		return func(a, b market.Listing) int { return cmp(cents(a), cents(b), a, b) }
	case market.SortExpensive:
		return func(a, b market.Listing) int { return -cmp(cents(a), cents(b), a, b) }
	case market.SortUnitPrice:
		return func(a, b market.Listing) int { return cmp(unit(a), unit(b), a, b) }
	case market.SortAmount:
		return func(a, b market.Listing) int { return -cmp(int64(a.Item.Amount), int64(b.Item.Amount), a, b) }
	case market.SortEnding:
		return func(a, b market.Listing) int { return cmp(a.ExpiresAt.UnixMilli(), b.ExpiresAt.UnixMilli(), a, b) }
	default:
		return func(a, b market.Listing) int { return cmp(int64(a.Item.Amount), int64(b.Item.Amount), a, b) }
	}
}

func TestSearchAgreesWithOracle(t *testing.T) {
	// Every paging path: collect-and-select, the short bitmap-tested walk,
	// and the bitset walk after the short walk gives up.
	for _, th := range []struct {
		name           string
		collect, short int
	}{{"collect", 1 << 30, 8192}, {"short walk", 16, 1 << 30}, {"bitset walk", 16, 8}} {
		t.Run(th.name, func(t *testing.T) {
			defer market.SetPagingThresholds(th.collect, th.short)()
			searchAgrees(t)
		})
	}
}

func searchAgrees(t *testing.T) {
	svc := searchWorld(t, 3000, 1)
	all, err := svc.GetListings()
	must(t, err)
	if len(all) != 3000 {
		t.Fatalf("%d listings", len(all))
	}
	queries := []string{"", "a", "d", "ia", "diamond", "DIAMOND_SWORD", "diamond sword", "sword diamond", "lodz",
		"łódź", "ŁÓDŹ księżycowa", "krakow", "fire", "fire aspect", "sharp", "lukasz", "wojcik", "zosia pl", "xx",
		"legendarny miecz", "#5", "#5 diamond", "#999999", "#2147483647", "zzzz", "bread steve", "§6legendarny", "e", "99",
		"enchanted book", "pick", "apple golden", "wool", "  spaced   out  ", "dar od", "forged",
		// Ranges: walked (alone, or wider than the text leaves) and
		// checked by key (narrower), one or two of them.
		"price:10..20", "amount:..3", "diamond price:..50", "sword price:..400", "a price:5..450",
		"fire price:100.. amount:..10", "legendarny amount:16..32", "e amount:2.. price:..30"}
	rng := rand.New(rand.NewPCG(3, 3))
	for _, text := range queries {
		parsed, err := market.ParseQuery(text, 1_00, 1_000_000_00)
		must(t, err)
		q := parsed.Text
		var want []market.Listing
		for _, l := range all {
			if oracleMatch(l, q) && oracleInRanges(l, parsed) {
				want = append(want, l)
			}
		}
		for _, mode := range market.SortModes() {
			slices.SortFunc(want, oracleLess(mode))
			offset := 0
			if len(want) > 10 && rng.IntN(2) == 0 {
				offset = rng.IntN(len(want) - 5)
			}
			asked := parsed
			asked.Sort, asked.Offset, asked.Limit = mode, offset, 50
			page, err := svc.Query(asked)
			must(t, err)
			if page.Total != len(want) {
				t.Fatalf("%q %v: total %d, oracle %d", q, mode, page.Total, len(want))
			}
			end := min(offset+50, len(want))
			if offset > len(want) {
				offset = len(want)
			}
			exp := want[offset:end]
			if len(page.Listings) != len(exp) {
				t.Fatalf("%q %v offset %d: page %d, oracle %d", q, mode, offset, len(page.Listings), len(exp))
			}
			for i := range exp {
				if page.Listings[i].ID != exp[i].ID {
					t.Fatalf("%q %v offset %d: #%d is %d, oracle %d", q, mode, offset, i, page.Listings[i].ID, exp[i].ID)
				}
			}
			// The reversed order is the oracle read backwards.
			asked.Reverse = true
			rev, err := svc.Query(asked)
			must(t, err)
			for i, l := range rev.Listings {
				if want := want[len(want)-1-offset-i]; l.ID != want.ID {
					t.Fatalf("%q %v reversed offset %d: #%d is %d, oracle %d", q, mode, offset, i, l.ID, want.ID)
				}
			}
		}
	}
}

func TestSearchContractForms(t *testing.T) {
	w := newWorld(t)
	sword := w.sell(w.alice, 1, 100) // "§bMiecz Łódź", lore "Wykuty w Krakowie", sharpness+unbreaking
	logs := w.sell(w.bob, 2, 5)
	cases := []struct {
		q    string
		want []int
	}{
		{"lodz", []int{sword.ID}},
		{"ŁÓDŹ", []int{sword.ID}},
		{"miecz lodz", []int{sword.ID}},
		{"krakowie", []int{sword.ID}},
		{"sharpness", []int{sword.ID}},
		{"unbreak", []int{sword.ID}},
		{"alice", []int{sword.ID}},
		{"bob oak", []int{logs.ID}},
		{"oak_log", []int{logs.ID}},
		{"Oak Log", []int{logs.ID}},
		{"#1", []int{sword.ID}},
		{"#2", []int{logs.ID}},
		{"#1 oak", nil},
		{"o", []int{logs.ID, sword.ID}},
		{"§b", nil},                      // colour codes alone say nothing to look for: no match
		{"§6§l", nil},                    // nor do several
		{"!!", nil},                      // nor punctuation that leaves no word
		{"  ", []int{logs.ID, sword.ID}}, // blank text is no query: everything
		{"bmiecz", nil},
	}
	for _, c := range cases {
		got, err := w.svc.Search(c.q)
		must(t, err)
		var ids []int
		for _, l := range got {
			ids = append(ids, l.ID)
		}
		if !slices.Equal(ids, c.want) {
			t.Errorf("Search(%q) = %v, want %v", c.q, ids, c.want)
		}
	}
	// Category and seller filters.
	p, err := w.svc.Query(market.Query{Category: catalog.CategoryWeapons})
	must(t, err)
	if p.Total != 1 || p.Listings[0].ID != sword.ID {
		t.Fatalf("weapons: %+v", p)
	}
	byBob, err := w.svc.GetListingsBySeller(w.bob.ID)
	must(t, err)
	if len(byBob) != 1 || byBob[0].ID != logs.ID {
		t.Fatalf("by seller %v", byBob)
	}
	// Bad queries are typed errors, not panics.
	_, err = w.svc.Query(market.Query{Text: strings.Repeat("a", 2000)})
	errText(t, err, "search text is 2000 bytes; at most 1024 allowed")
	_, err = w.svc.Query(market.Query{Category: 99})
	errText(t, err, "unknown category 99")
	// After a removal the index forgets the listing.
	must(t, w.svc.RemoveListing(sword.ID, w.alice))
	if got, _ := w.svc.Search("lodz"); len(got) != 0 {
		t.Fatalf("removed listing still found: %v", got)
	}
	if got, _ := w.svc.Search("o"); len(got) != 1 {
		t.Fatalf("gram index kept a removed listing: %d", len(got))
	}
}

func TestSearchAfterLiveChanges(t *testing.T) {
	// Listings added and removed live must be indexed exactly like loaded ones.
	w := newWorld(t)
	w.sell(w.alice, 1, 100)
	w.sell(w.bob, 1, 100)
	l := w.sell(w.admin, 1, 100)
	must(t, w.svc.RemoveListing(l.ID, w.admin))
	live := map[string]int{}
	for _, q := range []string{"a", "lo", "miecz", "sharp", "alice", "bob", "admin", "dz"} {
		r, _ := w.svc.Search(q)
		live[q] = len(r)
	}
	w.reopen()
	for q, n := range live {
		r, _ := w.svc.Search(q)
		if len(r) != n {
			t.Errorf("%q: %d live, %d after reload", q, n, len(r))
		}
	}
}

// TestSearchInGameNames checks that items are found by the name the game
// shows ("Block of Diamond"), which the generated catalogue supplies, and not
// only by their keys.
func TestSearchInGameNames(t *testing.T) {
	st, err := sqlite.Open(filepath.Join(t.TempDir(), "market.db"), sqlite.Options{})
	must(t, err)
	b, err := market.NewBulk(st)
	must(t, err)
	seller := market.Player{ID: uid(1), Name: "Alice"}
	must(t, b.AddPlayer(seller, 0))
	ids := map[string]int{}
	for i, key := range []string{"DIAMOND_BLOCK", "COD_BUCKET", "LEATHER_HELMET", "MOJANG_BANNER_PATTERN", "DIAMOND"} {
		id, err := b.AddListing(seller.ID, market.ItemStack{ID: uid(byte(10 + i)), Material: key, Amount: 1}, 100, t0, t0.Add(time.Hour))
		must(t, err)
		ids[key] = id
	}
	must(t, b.Finish())
	svc := market.New(st, market.Config{Clock: market.NewManualClock(t0)})
	svc.BindMainThread()
	must(t, svc.Enable())
	t.Cleanup(func() { svc.Close() })
	for q, want := range map[string][]int{
		"block of diamond": {ids["DIAMOND_BLOCK"]},
		"Bucket of Cod":    {ids["COD_BUCKET"]},
		"leather cap":      {ids["LEATHER_HELMET"]},
		"thing banner":     {ids["MOJANG_BANNER_PATTERN"]},
		"diamond":          {ids["DIAMOND"], ids["DIAMOND_BLOCK"]},
	} {
		got, err := svc.Search(q)
		must(t, err)
		var gotIDs []int
		for _, l := range got {
			gotIDs = append(gotIDs, l.ID)
		}
		slices.Sort(gotIDs)
		slices.Sort(want)
		if !slices.Equal(gotIDs, want) {
			t.Errorf("Search(%q) = %v, want %v", q, gotIDs, want)
		}
	}
}

// TestPolishWordsFindItems: a Polish search finds the items whose English
// names it means, in any inflection, and an alert written in Polish fires
// for them; English searches find what they did.
func TestPolishWordsFindItems(t *testing.T) {
	w := newWorld(t)
	sword := w.sell(w.alice, 1, 10) // Diamond Sword "§bMiecz Łódź"
	gems := w.sell(w.admin, 0, 100) // 64 Diamonds
	logs := w.sell(w.bob, 2, 5)     // 32 Oak Logs
	_, err := w.svc.AddAlert(w.alice.ID, "diamentowy miecz", 100)
	must(t, err)
	adminSword := w.sell(w.admin, 1, 20)
	for q, want := range map[string][]int{
		"diament miecz":                    {adminSword.ID, sword.ID},
		"diamentowe":                       {adminSword.ID, gems.ID, sword.ID},
		"mieczem":                          {adminSword.ID, sword.ID},
		"kłody dębowe":                     {logs.ID},
		"diamond":                          {adminSword.ID, gems.ID, sword.ID},
		"diamond sword":                    {adminSword.ID, sword.ID},
		"łódź":                             {adminSword.ID, sword.ID},
		"żelazny kilof":                    {},
		"DIAMENTY #" + fmt.Sprint(gems.ID): {gems.ID},
	} {
		page, err := w.svc.Query(market.Query{Text: q})
		must(t, err)
		var got []int
		for _, l := range page.Listings {
			got = append(got, l.ID)
		}
		if !slices.Equal(got, want) && !(len(got) == 0 && len(want) == 0) {
			t.Errorf("%q found %v, want %v", q, got, want)
		}
	}
	page, err := w.svc.Notifications(w.alice.ID, 0)
	must(t, err)
	if len(page.Notifications) != 1 || page.Notifications[0].ListingID != adminSword.ID {
		t.Errorf("the alert \"diamentowy miecz\" fired %+v, want once for listing %d", page.Notifications, adminSword.ID)
	}
}

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
		for _, w := range oracleWords(playertext.StripColors(h)) {
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

// The keeper brings the index's gram bitmaps up to date behind the main
// thread, which only notes its changes; a search of a short word finds the
// new listings before it has, and not the ones gone.
func TestTheKeeperTakesInTheChanges(t *testing.T) {
	w := newWorld(t)
	sword := w.sell(w.alice, 1, 50)
	w.sell(w.alice, 0, 10)
	must(t, w.svc.RemoveListing(sword.ID, w.alice))
	if market.GramsBehind(w.svc) == 0 {
		t.Fatal("the grams took the changes in at once: nothing is left to the keeper")
	}
	for _, q := range []string{"a", "di"} {
		page, err := w.svc.Query(market.Query{Text: q, Limit: 10})
		must(t, err)
		if page.Total != 1 || page.Listings[0].ID == sword.ID {
			t.Fatalf("%q finds %+v, want the one listing left", q, page.Listings)
		}
	}
	deadline := time.Now().Add(10 * time.Second)
	for market.GramsBehind(w.svc) != 0 {
		if time.Now().After(deadline) {
			t.Fatalf("the keeper left the grams %d changes behind for 10 s", market.GramsBehind(w.svc))
		}
		time.Sleep(50 * time.Millisecond)
	}
}

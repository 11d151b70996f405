package httpapi

import (
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/google/uuid"
	"github.com/rynek/rynek/market"
	"github.com/rynek/rynek/market/catalog"
	"github.com/rynek/rynek/market/playertext"
	"github.com/rynek/rynek/seed"
)

// chromium returns the browser's path, or skips (fails under
// RYNEK_REQUIRE_CHROMIUM) without one.
func chromium(t *testing.T) string {
	t.Helper()
	bin, err := exec.LookPath("chromium")
	if err != nil {
		if os.Getenv("RYNEK_REQUIRE_CHROMIUM") != "" {
			t.Fatal("chromium is not installed and RYNEK_REQUIRE_CHROMIUM is set")
		}
		t.Skip("SKIPPED: chromium is not installed (apt-get install chromium); the board page was not tested in a browser")
	}
	return bin
}

// nbsp is the group separator of Polish numbers (Intl's pl-PL).
const nbsp = "\u00a0"

// TestBoardSpeaksPolish drives the board in headless Chromium through a
// market that changes under it: one count of active listings, kept live by
// the stream (never a second, older number beside it), in the Polish
// plural forms; removal reasons in Polish; money and counts formatted the
// Polish way; the stream's position as "zdarzenie #N"; and the search box
// speaking the console's language, price: and amount: filters included,
// its errors shown where one types.
func TestBoardSpeaksPolish(t *testing.T) {
	bin := chromium(t)
	e := newEnv(t, seed.Options{Listings: 30, Days: 1}, Options{})
	b := startBrowser(t, bin)
	b.navigate(e.srv.URL + "/")
	b.waitFor(`document.getElementById("status").className`, "live")
	text := func(id string) string { return `document.getElementById(` + jsString(id) + `).textContent` }
	active := func() int {
		t.Helper()
		n, err := e.svc.GetActiveListingsCount()
		if err != nil {
			t.Fatal(err)
		}
		return n
	}
	b.waitFor(text("active"), fmt.Sprintf("%d aktywnych ofert", active()))
	// One count: nothing else on the page says how many are active.
	b.waitFor(`String(document.body.innerText.split(/aktywn/i).length - 1)`, "1")

	// Money the Polish way: a listing at 12 345.67 is on top of the table.
	players, _ := e.svc.Players()
	seller := market.Player{ID: players[1].ID, Name: players[1].Name}
	stack, _, err := e.svc.GiveItem(seller.ID, market.ItemStack{ID: uuid.New(), Material: "DIAMOND_SWORD", Amount: 1})
	if err != nil {
		t.Fatal(err)
	}
	l, err := e.svc.SellItem(seller, stack, 12345.67)
	if err != nil {
		t.Fatal(err)
	}
	b.waitFor(`document.querySelector('#listings tr[data-id="`+fmt.Sprint(l.ID)+`"] td.num')?.textContent ?? "none"`, "12"+nbsp+"345,67")
	b.waitFor(text("version"), fmt.Sprintf("zdarzenie #%d", e.svc.Version()))
	b.waitFor(text("active"), fmt.Sprintf("%d aktywnych ofert", active()))

	// Removals, each reason in Polish, the count following every one.
	var admin market.Player
	for _, p := range players {
		if p.Name == "Admin" { // the seed's admin, with market.admin
			admin = market.Player{ID: p.ID, Name: p.Name}
		}
	}
	page, err := e.svc.Query(market.Query{Limit: -1, Sort: market.SortOldest})
	if err != nil {
		t.Fatal(err)
	}
	removals := []struct {
		remove func(market.Listing) error
		reason string
	}{
		{func(l market.Listing) error { return e.svc.RemoveListing(l.ID, market.Player{ID: l.Seller}) }, "wycofana przez sprzedawcę"},
		{func(l market.Listing) error { return e.svc.RemoveListing(l.ID, admin) }, "usunięta przez administratora"},
		{func(l market.Listing) error { return e.svc.ForceExpire(l.ID, admin) }, "wygaszona przez administratora"},
	}
	want := map[int]string{22: "22 aktywne oferty", 21: "21 aktywnych ofert", 12: "12 aktywnych ofert", 5: "5 aktywnych ofert",
		4: "4 aktywne oferty", 2: "2 aktywne oferty", 1: "1 aktywna oferta", 0: "0 aktywnych ofert"}
	for i, l := range page.Listings {
		r := removals[i%len(removals)]
		if err := r.remove(l); err != nil {
			t.Fatal(err)
		}
		if i < len(removals) {
			b.waitFor(`document.getElementById("feed").firstChild.textContent`, itemPhrase(l)+" — oferta "+r.reason)
		}
		if w, ok := want[active()]; ok {
			b.waitFor(text("active"), w)
		}
	}
	b.waitFor(text("version"), fmt.Sprintf("zdarzenie #%d", e.svc.Version()))
	if path := os.Getenv("RYNEK_BOARD_SCREENSHOT"); path != "" {
		os.WriteFile(strings.TrimSuffix(path, ".png")+"-polish.png", b.screenshot(), 0o644)
	}
}

// itemPhrase is how the board names a listing's item: "3× Diamond".
func itemPhrase(l market.Listing) string {
	name := playertext.StripColors(l.Item.DisplayName)
	if name == "" {
		info, _ := catalog.LookupMaterial(l.Item.Material)
		name = info.Name
	}
	if l.Item.Amount > 1 {
		return fmt.Sprintf("%d× %s", l.Item.Amount, name)
	}
	return name
}

// TestBoardSearch: the board's search box takes the console's language
// (words, Polish words, #ids, price: and amount:), says how many match in
// the right plural form, keeps that count live, and shows a bad filter's
// error where one types instead of failing quietly.
func TestBoardSearch(t *testing.T) {
	bin := chromium(t)
	e := newEnv(t, seed.Options{Listings: 400, Days: 1}, Options{})
	b := startBrowser(t, bin)
	b.navigate(e.srv.URL + "/")
	b.waitFor(`document.getElementById("status").className`, "live")
	search := func(q string) {
		t.Helper()
		b.eval(`document.getElementById("q").value = ` + jsString(q) + `; document.getElementById("search").requestSubmit(); "ok"`)
	}
	matches := func(q string) market.Page {
		t.Helper()
		parsed, err := market.ParseQuery(q, e.cfg.MinPrice, 1_000_000_00)
		if err != nil {
			t.Fatal(err)
		}
		parsed.Limit = 20
		page, err := e.svc.Query(parsed)
		if err != nil {
			t.Fatal(err)
		}
		return page
	}
	rows := `Array.from(document.querySelectorAll("#listings tr")).map(r => r.dataset.id).join(",")`
	ids := func(p market.Page) string {
		var s []string
		for _, l := range p.Listings {
			s = append(s, fmt.Sprint(l.ID))
		}
		return strings.Join(s, ",")
	}
	for _, q := range []string{"kilof price:..100", "amount:64", "diament"} {
		p := matches(q)
		if p.Total < 5 {
			t.Fatalf("%q matches %d listings; the test needs 5 or more", q, p.Total)
		}
		search(q)
		b.waitFor(rows, ids(p))
		b.waitFor(`document.getElementById("count").textContent`, polishCount(p.Total, "pasująca oferta", "pasujące oferty", "pasujących ofert"))
	}
	one := matches("kilof price:..100").Listings[0]
	search(fmt.Sprintf("#%d", one.ID))
	b.waitFor(`document.getElementById("count").textContent`, "1 pasująca oferta")
	// Live: the one match sells out; the count follows.
	if err := e.svc.RemoveListing(one.ID, market.Player{ID: one.Seller}); err != nil {
		t.Fatal(err)
	}
	b.waitFor(`document.getElementById("count").textContent`, "0 pasujących ofert")
	search("diament price:abc")
	b.waitFor(`document.getElementById("count").textContent`, `price:abc: price "abc" is not a number`)
	b.waitFor(rows, "") // no stale rows under the error
	// A bad query is not a broken connection.
	b.waitFor(`document.getElementById("status").className`, "live")
}

// polishCount is n and the form of a counted noun that Polish gives n
// (CLDR's rule for whole numbers, written out here independently of the
// browser's Intl): one for 1; few when the last digit is 2-4 but the last
// two are not 12-14 (2, 3, 4, 22, 124); many otherwise (0, 5-21, 25).
func polishCount(n int, one, few, many string) string {
	form := many
	switch {
	case n == 1:
		form = one
	case n%10 >= 2 && n%10 <= 4 && (n%100 < 12 || n%100 > 14):
		form = few
	}
	return fmt.Sprintf("%d %s", n, form)
}

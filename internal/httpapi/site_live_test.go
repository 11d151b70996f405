package httpapi

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/rynek/rynek/market"
	"github.com/rynek/rynek/seed"
)

// buyNewest sells the market's newest listing to some other player, on the
// test's goroutine (the market's main thread).
func buyNewest(t *testing.T, e *env) market.Transaction {
	t.Helper()
	page, err := e.svc.Query(market.Query{Limit: 1})
	if err != nil {
		t.Fatal(err)
	}
	l := page.Listings[0]
	players, _ := e.svc.Players()
	for _, p := range players {
		if p.ID == l.Seller {
			continue
		}
		if tx, err := e.svc.Buy(p, l.ID); err == nil && tx.State == market.StateCompleted {
			return tx
		}
	}
	t.Fatalf("no player could buy listing %d", l.ID)
	return market.Transaction{}
}

// TestSiteFollowsASale: a sale made on the market shows on the open pages
// without a reload: in the market's live feed, with links to the buyer and
// seller, and its row marked sold; and on the listing's own page, which
// says it was sold, when, for how much and to whom.
func TestSiteFollowsASale(t *testing.T) {
	e := siteEnv(t)
	b := newBrowser(t, e.srv.URL, phone)
	b.open("/")
	b.waitText("#status", "na żywo")
	b.waitFor(`String(document.querySelectorAll("table.listings tbody tr").length)`, "20")
	tx := buyNewest(t, e)
	b.waitContains("ul.feed", tx.BuyerName+" kupuje ")
	b.waitFor(`document.querySelector("ul.feed li.sale a[href='/player/`+tx.Buyer.String()+`']") ? "linked" : "no link"`, "linked")
	b.waitFor(fmt.Sprintf(`document.querySelector('tr[data-id="%d"]')?.classList.contains("gone") ? "marked" : "not marked"`, tx.ListingID), "marked")
	b.waitFor(fmt.Sprintf(`document.querySelector('tr[data-id="%d"]') ? "still there" : "gone"`, tx.ListingID), "gone")
	b.clean("/ after a sale")

	// The listing's page, open when it sells.
	page, err := e.svc.Query(market.Query{Limit: 1})
	if err != nil {
		t.Fatal(err)
	}
	b.open(fmt.Sprintf("/listing/%d", page.Listings[0].ID))
	b.waitFor(`document.querySelector(".countdown")?.textContent.startsWith("za ") ? "counting" : "not yet"`, "counting")
	tx = buyNewest(t, e)
	b.waitContains(".state", "Sprzedana ")
	b.waitContains(".state", " za "+plMoney(cents(tx.Price))+". Kupił(a): "+tx.BuyerName+".")
	b.clean("the listing's page after its sale")
	b.accessible("the listing's page after its sale")
	b.screenshot(artifacts(t), "listing-sold-phone-light")

	// A listing gone before the page opened.
	b.open(fmt.Sprintf("/listing/%d", tx.ListingID))
	b.waitText("h1", fmt.Sprintf("Oferty #%d nie ma już na rynku", tx.ListingID))
	b.clean("a listing already gone", "404")
}

// TestSiteSpeaksPolish drives the market's page through a market that
// changes under it: one count of active listings, kept live by the stream,
// in the Polish plural forms; removal reasons in Polish; money formatted
// the Polish way; the stream's position kept out of the player's sight
// (data-version of the status, no "zdarzenie #N" jargon in the header).
func TestSiteSpeaksPolish(t *testing.T) {
	e := newEnv(t, seed.Options{Listings: 30, Days: 1, Now: time.Now().UTC().Truncate(time.Second)}, Options{})
	b := newBrowser(t, e.srv.URL, desktop)
	b.open("/")
	b.waitText("#status", "na żywo")
	active := func() int {
		t.Helper()
		n, err := e.svc.GetActiveListingsCount()
		if err != nil {
			t.Fatal(err)
		}
		return n
	}
	b.waitText("#active", fmt.Sprintf("%d aktywnych ofert", active()))
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
	b.waitText(fmt.Sprintf(`tr[data-id="%d"] td.price`, l.ID), "12"+nbsp+"345,67")
	b.waitFor(`document.getElementById("status").dataset.version`, strconv.FormatUint(e.svc.Version(), 10))
	b.waitText("header .live", "na żywo "+fmt.Sprintf("%d aktywnych ofert", active()))

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
			b.waitFor(`document.querySelector("ul.feed li").textContent.replace(/^\S+ /, "")`, itemPhrase(l)+" — oferta "+r.reason)
		}
		if w, ok := want[active()]; ok {
			b.waitText("#active", w)
		}
	}
	b.waitFor(`document.getElementById("status").dataset.version`, strconv.FormatUint(e.svc.Version(), 10))
	b.waitText("p.empty", "Na rynku nie ma ofert.")
	b.clean("/ emptied")
}

// TestSiteSearch: the search box takes the console's language (words,
// Polish words, #ids, price: and amount:), says how many match in the right
// plural form, keeps that count live, and shows a bad filter's error where
// one types. A search is the page's address: a link to it searches again.
func TestSiteSearch(t *testing.T) {
	e := newEnv(t, seed.Options{Listings: 400, Days: 1, Now: time.Now().UTC().Truncate(time.Second)}, Options{})
	b := newBrowser(t, e.srv.URL, desktop)
	b.open("/")
	b.waitText("#status", "na żywo")
	search := func(q string) {
		t.Helper()
		b.eval(`document.querySelector("input[name=q]").value = ` + jsString(q) + `; document.querySelector("form.search").requestSubmit(); "ok"`)
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
	rows := `Array.from(document.querySelectorAll("table.listings tbody tr")).map(r => r.dataset.id).join(",")`
	ids := func(p market.Page) string {
		var s []string
		for _, l := range p.Listings {
			s = append(s, fmt.Sprint(l.ID))
		}
		return strings.Join(s, ",")
	}
	document := b.eval(`String(window.__document)`)
	for _, q := range []string{"kilof price:..100", "amount:64", "diament"} {
		p := matches(q)
		if p.Total < 5 {
			t.Fatalf("%q matches %d listings; the test needs 5 or more", q, p.Total)
		}
		search(q)
		b.waitFor(rows, ids(p))
		b.waitText("p.note[role=status]", polishCount(p.Total, "pasująca oferta", "pasujące oferty", "pasujących ofert"))
		b.waitFor(`new URLSearchParams(location.search).get("q")`, q)
	}
	if got := b.eval(`String(window.__document)`); got != document {
		t.Error("a search reloaded the page")
	}
	// The address of a search is the search.
	b.open("/?q=" + strings.ReplaceAll("kilof price:..100", " ", "+"))
	b.waitFor(rows, ids(matches("kilof price:..100")))
	b.waitFor(`document.querySelector("input[name=q]").value`, "kilof price:..100")

	one := matches("kilof price:..100").Listings[0]
	search(fmt.Sprintf("#%d", one.ID))
	b.waitText("p.note[role=status]", "1 pasująca oferta")
	// Live: the one match is withdrawn; the count follows.
	if err := e.svc.RemoveListing(one.ID, market.Player{ID: one.Seller}); err != nil {
		t.Fatal(err)
	}
	b.waitText("p.note[role=status]", "0 pasujących ofert")
	// A bad filter is told in Polish (the API's detail is English, for
	// developers), naming what was typed and what is allowed.
	for _, c := range []struct{ q, want string }{
		{"diament price:abc", "Nie można wyszukać: „price:abc”: cena to kwota, np. price:10..200 albo price:..50."},
		{"price:5..1", "Nie można wyszukać: „price:5..1”: dolna granica jest wyższa niż górna."},
		{"amount:200", "Nie można wyszukać: „amount:200”: liczba sztuk to liczba całkowita od 1 do 99, np. amount:64 albo amount:16..64."},
	} {
		search(c.q)
		b.waitText("p.note[role=status]", c.want)
		b.waitFor(rows, "")              // no stale rows under the error
		b.waitText("#status", "na żywo") // a bad query is not a broken connection
	}
	b.open("/?min_price=abc")
	b.waitText("p.note[role=status]", "Nie można wyszukać: „Cena od”: podaj kwotę od 1,00 do 1"+nbsp+"000"+nbsp+"000,00, np. 12,50.")
	b.waitFor(`document.querySelector("input[name=min_price]").getAttribute("aria-invalid")`, "true")
	b.open("/?min_amount=50&max_amount=2")
	b.waitText("p.note[role=status]", "Nie można wyszukać: „Sztuk od” jest więcej niż „Sztuk do”.")
	b.open("/?category=nope")
	b.waitText("p.note[role=status]", "Nie można wyszukać: nie ma kategorii „nope”.")
	b.clean("/ searching", "400")
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

// TestSiteShowsAStoreFailure: while the market's store refuses changes,
// every page shows a banner that says why in Polish (the store's English
// error is the operator's, in /api/health); once a change is saved again
// the banner goes.
func TestSiteShowsAStoreFailure(t *testing.T) {
	chromium(t)
	disk := &fullDisk{}
	e := newWrappedEnv(t, seed.Options{Listings: 30}, Options{}, func(st market.Store) market.Store { disk.Store = st; return disk })
	b := newBrowser(t, e.srv.URL, desktop)
	b.open("/stats")
	b.waitText("#status", "na żywo")
	b.waitFor(`String(document.getElementById("store").hidden)`, "true")

	buyer, listing := e.buyerOfOne()
	disk.full.Store(true)
	if _, err := e.svc.Buy(buyer, listing); !errors.Is(err, market.ErrStore) {
		t.Fatalf("a purchase on a full disk: %v", err)
	}
	b.waitFor(`String(document.getElementById("store").hidden)`, "false")
	want := "Rynek nie może zapisywać zmian: na dysku serwera zabrakło miejsca. Od " + fixedNow.Local().Format("2.01.2006, 15:04:05") +
		", nieudane zapisy: 1. Kupno i sprzedaż są wstrzymane; oferty poniżej są aktualne."
	b.waitText("#store", want)
	b.screenshot(artifacts(t), "store-failure-desktop-light")

	disk.full.Store(false)
	if _, err := e.svc.Buy(buyer, listing); err != nil {
		t.Fatal(err)
	}
	e.clock.Advance(market.StoreSettle)
	b.waitFor(`String(document.getElementById("store").hidden)`, "true")
}

// TestSiteByKeyboard: the website works without a mouse. Tab reaches the
// skip link first, then the pages; the search box takes a query and Enter;
// a listing's link followed with Enter opens its page without a reload,
// focus on its heading; the chart's span is a button Enter presses.
func TestSiteByKeyboard(t *testing.T) {
	e := siteEnv(t)
	b := newBrowser(t, e.srv.URL, desktop)
	b.open("/")
	b.waitText("#status", "na żywo")
	b.waitFor(`String(document.querySelectorAll("table.listings tbody tr").length)`, "20")
	document := b.eval(`String(window.__document)`)
	focused := `document.activeElement.textContent || document.activeElement.name || document.activeElement.tagName`
	b.key("\t")
	b.waitFor(focused, "Przejdź do treści")
	b.key("\t")
	b.waitFor(focused, "Rynek")
	// The market's figures read slowly, as on a loaded server: the results
	// are drawn, and focused, before the page's last read ends. The end of
	// that read must not take the focus (and the Enter after it) away from
	// the result to the page's heading.
	b.eval(`const f = window.fetch; window.fetch = (u, o) => String(u).startsWith("/api/stats") ? new Promise((r) => setTimeout(r, 1500)).then(() => f(u, o)) : f(u, o); "slowed"`)
	statsReads := `performance.getEntriesByType("resource").filter((r) => r.name.includes("/api/stats")).length`
	before := b.eval(statsReads)
	b.eval(`document.querySelector("input[name=q]").focus(); "ok"`)
	b.key("diament miecz\r")
	b.waitFor(`new URLSearchParams(location.search).get("q")`, "diament miecz")
	b.waitFor(`document.querySelector("table.listings tbody tr td.item a")?.textContent.includes("Diamond Sword") ? "found" : "not yet"`, "found")
	b.eval(`document.querySelector("table.listings tbody tr td.item a").focus(); "ok"`)
	b.waitFor(statsReads+` > `+before+` ? "read" : "reading"`, "read")
	time.Sleep(100 * time.Millisecond) // the router's turn after the read
	b.waitFor(`document.activeElement.closest("td.item") ? "on the result" : document.activeElement.tagName`, "on the result")
	b.key("\r")
	b.waitFor(`location.pathname.startsWith("/listing/") ? "listing" : location.pathname`, "listing")
	b.waitFor(`document.activeElement.tagName + " " + document.activeElement.textContent.includes("Diamond Sword")`, "H1 true")
	b.eval(`document.querySelector(".crumbs a[href^='/item/']").focus(); "ok"`)
	b.key("\r")
	b.waitFor(`document.querySelector(".chart")?.dataset.drawn ?? "none"`, "7d")
	b.eval(`document.querySelector(".spans button").focus(); "ok"`)
	b.key("\r")
	b.waitFor(`document.querySelector(".chart").dataset.drawn + " " + document.querySelector(".spans button").getAttribute("aria-pressed")`, "24h true")
	b.waitFor(`location.search`, "?span=24h")
	if got := b.eval(`String(window.__document)`); got != document {
		t.Error("following links reloaded the page")
	}
	// Back goes back, also without a reload.
	b.eval(`history.back(); "ok"`)
	b.waitFor(`location.pathname.startsWith("/listing/") ? "listing" : location.pathname`, "listing")
	b.clean("by keyboard")
}

// TestSiteLeavesNoStreamOpen: a page left for another address closes its
// event stream at once. Pages kept for "back" with their streams open took
// one of the browser's six connections to the server each, until the
// seventh page waited a minute for one.
func TestSiteLeavesNoStreamOpen(t *testing.T) {
	e := newEnv(t, seed.Options{Listings: 30}, Options{})
	b := newBrowser(t, e.srv.URL, desktop)
	for i := range 8 {
		start := time.Now()
		b.open(fmt.Sprintf("/?q=%d", i))
		b.waitText("#status", "na żywo")
		if took := time.Since(start); took > 5*time.Second {
			t.Errorf("page %d took %v to open", i+1, took)
		}
	}
	deadline := time.Now().Add(5 * time.Second)
	for e.api.hub.streams() > 1 && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	if n := e.api.hub.streams(); n != 1 {
		t.Errorf("%d event streams open after 8 pages in one tab, want 1", n)
	}
}

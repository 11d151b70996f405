package httpapi

import (
	"fmt"
	"strings"
	"testing"

	"github.com/rynek/rynek/market"
	"github.com/rynek/rynek/market/catalog"
)

// TestSiteFilters drives the market page's search form on a phone as a
// player would: the filters open from a button (the listings start on the
// first screen); a category chosen searches at once; price and amount
// ranges (a decimal comma taken) and a sort narrow and order it; the pager
// walks the results by cursor and back; every step is the page's address,
// changed without a reload, and the site keeps one event stream open
// throughout.
func TestSiteFilters(t *testing.T) {
	e := siteEnv(t)
	b := newBrowser(t, e.srv.URL, phone)
	b.open("/")
	b.waitText("#status", "na żywo")
	document := b.eval(`String(window.__document)`)
	rows := `Array.from(document.querySelectorAll("table.listings tbody tr")).map(r => r.dataset.id).join(",")`
	blocks, ok := catalog.ParseCategory("blocks")
	if !ok {
		t.Fatal("no category blocks")
	}
	// page is what the market gives q: the ids of its listings, in order.
	page := func(q market.Query) (string, market.Page) {
		t.Helper()
		q.Limit = 20
		p, err := e.svc.Query(q)
		if err != nil {
			t.Fatal(err)
		}
		var ids []string
		for _, l := range p.Listings {
			ids = append(ids, fmt.Sprint(l.ID))
		}
		return strings.Join(ids, ","), p
	}

	// On a phone the filters wait behind a button, so that the listings
	// start on the first screen.
	b.waitFor(`String(document.querySelectorAll("table.listings tbody tr").length)`, "20")
	b.waitFor(`document.querySelector("table.listings").getBoundingClientRect().top < 300 ? "first screen" : "below: " + document.querySelector("table.listings").getBoundingClientRect().top`, "first screen")
	visible := `["select[name=category]", "input[name=min_price]", "select[name=sort]"].map((s) => document.querySelector(s).checkVisibility()).join(" ")`
	b.waitFor(visible, "false false false")
	b.click("button.filters-toggle")
	b.waitFor(visible+` + " " + document.querySelector("button.filters-toggle").getAttribute("aria-expanded")`, "true true true true")
	b.waitFor(`document.querySelectorAll("select[name=category] option").length > 1 ? "filled" : "empty"`, "filled")
	b.eval(`const c = document.querySelector("select[name=category]"); c.value = "blocks"; c.dispatchEvent(new Event("change")); "ok"`)
	b.waitFor(`location.search`, "?category=blocks")
	ids, p := page(market.Query{Category: blocks})
	b.waitFor(rows, ids)
	b.waitText("p.note[role=status]", polishCount(p.Total, "pasująca oferta", "pasujące oferty", "pasujących ofert"))

	b.eval(`for (const [k, v] of Object.entries({min_price: "10", max_price: "200,50", min_amount: "16", max_amount: "64"}))
		document.querySelector("input[name=" + k + "]").value = v;
	const s = document.querySelector("select[name=sort]"); s.value = "price"; s.dispatchEvent(new Event("change")); "ok"`)
	b.waitFor(`location.search`, "?category=blocks&min_price=10&max_price=200%2C50&min_amount=16&max_amount=64&sort=price")
	q := market.Query{Category: blocks, MinPrice: 10_00, MaxPrice: 200_50, MinAmount: 16, MaxAmount: 64, Sort: market.SortCheapest}
	first, p := page(q)
	if p.Total <= 40 || p.Next == nil {
		t.Fatalf("the search matches %d listings; the test needs three pages", p.Total)
	}
	b.waitFor(rows, first)
	b.waitText("p.note[role=status]", polishCount(p.Total, "pasująca oferta", "pasujące oferty", "pasujących ofert"))
	b.waitText(".pager span", fmt.Sprintf("oferty 1–20 z %d", p.Total))

	// The next pages, by the cursor the API gave; then back.
	q.After = p.Next
	second, p2 := page(q)
	b.click(".pager button:nth-of-type(3)") // Następna ›
	b.waitFor(rows, second)
	b.waitText(".pager span", fmt.Sprintf("oferty 21–40 z %d", p.Total))
	b.waitFor(`new URLSearchParams(location.search).has("cursor") ? "paged" : "not paged"`, "paged")
	q.After = p2.Next
	third, _ := page(q)
	b.click(".pager button:nth-of-type(3)")
	b.waitFor(rows, third)
	b.waitText(".pager span", fmt.Sprintf("oferty 41–60 z %d", p.Total))
	b.click(".pager button:nth-of-type(2)") // ‹ Poprzednia
	b.waitFor(rows, second)
	b.click(".pager button:nth-of-type(1)") // « Pierwsza
	b.waitFor(rows, first)
	b.waitFor(`String(document.querySelector(".pager button").disabled)`, "true")
	b.waitFor(`document.querySelector("input[name=max_price]").value + " " + document.querySelector("select[name=sort]").value`, "200,50 price")
	b.waitFor(visible, "true true true") // a search with filters shows them

	if got := b.eval(`String(window.__document)`); got != document {
		t.Error("searching and paging reloaded the page")
	}
	if n := e.api.hub.streams(); n != 1 {
		t.Errorf("%d event streams open for one tab, want 1", n)
	}
	b.clean("/ filtered and paged")
	b.fits("/ filtered and paged")
	b.accessible("/ filtered and paged")
}

package httpapi

import (
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/rynek/rynek/market"
	"github.com/rynek/rynek/market/catalog"
	"github.com/rynek/rynek/market/playertext"
	"github.com/rynek/rynek/seed"
)

// siteEnv is the demo market (`rynek serve`'s, generator seed 1) at the
// real time, so that the browser's clock and the market's agree.
func siteEnv(t *testing.T) *env {
	return newEnv(t, seed.Options{Players: 300, Listings: 3000, Days: 30, Rand: 1, Now: time.Now().UTC().Truncate(time.Second)}, Options{})
}

// nbsp is the group separator of Polish numbers (Intl's pl-PL).
const nbsp = "\u00a0"

// plMoney is an amount of cents as the website shows it, written out here
// independently of the browser's Intl: "12 345,67" (a no-break space
// groups thousands; Intl's pl-PL leaves four-digit numbers ungrouped).
func plMoney(cents int64) string {
	whole := strconv.FormatInt(cents/100, 10)
	if len(whole) > 4 {
		var b strings.Builder
		for i, r := range whole {
			if i > 0 && (len(whole)-i)%3 == 0 {
				b.WriteString(nbsp)
			}
			b.WriteRune(r)
		}
		whole = b.String()
	}
	return fmt.Sprintf("%s,%02d", whole, cents%100)
}

// itemPhrase is how the website names a listing's item: "3× Diamond".
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

// pageCheck is one page of the website and what it must show.
type pageCheck struct {
	name, path string
	ready      func(b *browser) // waits until the page shows what it must
	allowed    []string         // console errors it may log (a 404 it asked for)
}

// TestSitePagesInARealBrowser loads every page of the website on the demo
// market in headless Chromium, at a phone's and a desktop's width, light
// and dark: each shows what it should (a listing's price, a chart drawn, a
// player's name), fits the screen's width (no table to scroll sideways),
// logs no console error and meets no CSP violation, holds still while it
// loads (no layout shift of 0.05 or more), breaks no player's name, and
// axe-core finds no serious or critical accessibility violation. The
// screenshots are kept in $RYNEK_ARTIFACTS (or a directory the log names).
func TestSitePagesInARealBrowser(t *testing.T) {
	chromium(t)
	e := siteEnv(t)
	newest, err := e.svc.Query(market.Query{Limit: 1})
	if err != nil {
		t.Fatal(err)
	}
	l := newest.Listings[0]
	st, err := e.svc.Stats(10)
	if err != nil {
		t.Fatal(err)
	}
	top, seller := st.TopItems[0], st.TopSellers[0]
	sum, err := e.svc.PriceSummary(top.Material)
	if err != nil {
		t.Fatal(err)
	}
	pages := []pageCheck{
		{"market", "/", func(b *browser) {
			b.waitFor(`String(document.querySelectorAll("table.listings tbody tr").length)`, "20")
			b.waitText(`table.listings tbody tr td.price`, plMoney(cents(l.Price)))
			b.waitText("#status", "na żywo")
		}, nil},
		{"item", "/item/" + top.Material, func(b *browser) {
			b.waitText("h1", top.Name)
			b.waitFor(`document.querySelector(".chart canvas") && document.querySelector(".chart").dataset.drawn`, "7d")
			b.waitContains(".item-page", plMoney(cents(sum.Week.Median)))
			// Listed by unit price, they show it, also on a phone.
			b.waitFor(`getComputedStyle(document.querySelector("table.listings td.unit")).display`, "table-cell")
		}, nil},
		{"listing", fmt.Sprintf("/listing/%d", l.ID), func(b *browser) {
			b.waitText("h1", itemPhrase(l))
			b.waitText(".price.big", plMoney(cents(l.Price)))
			b.waitContains(".listing-page", l.SellerName)
			b.waitFor(`/^za \d/.test(document.querySelector(".countdown").textContent) ? "counting" : document.querySelector(".countdown").textContent`, "counting")
		}, nil},
		{"player", "/player/" + seller.Seller.String(), func(b *browser) {
			b.waitText("h1", seller.Name)
			b.waitFor(`String(document.querySelectorAll("table.history tbody tr").length)`, "10")
		}, nil},
		{"stats", "/stats", func(b *browser) {
			b.waitFor(`document.querySelector(".chart canvas") && document.querySelector(".chart").dataset.drawn`, "30d")
			b.waitContains("table.sellers tbody tr", seller.Name)
		}, nil},
		{"never-listed", "/listing/2999999", func(b *browser) {
			b.waitText("h1", "Nie ma takiej oferty")
			b.waitText("main p", "Na rynku nigdy nie było oferty #2999999.")
		}, []string{"404"}},
		{"missing", "/nie-ma", func(b *browser) {
			b.waitText("h1", "Nie ma takiej strony")
		}, []string{"404"}},
	}
	dir := artifacts(t)
	for _, vp := range []viewport{desktop, phone} {
		b := newBrowser(t, e.srv.URL, vp)
		for _, scheme := range []string{"light", "dark"} {
			b.view(vp, scheme)
			for _, p := range pages {
				where := fmt.Sprintf("%s at %s, %s", p.path, vp.name, scheme)
				b.open(p.path)
				p.ready(b)
				b.clean(where, p.allowed...)
				b.holdsStill(where)
				b.fits(where)
				b.namesWhole(where)
				b.accessible(where)
				b.screenshot(dir, fmt.Sprintf("%s-%s-%s", p.name, vp.name, scheme))
			}
		}
	}
	t.Logf("screenshots of every page: %s", dir)
}

package httpapi

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"
	"github.com/google/uuid"
	"github.com/rynek/rynek/market"
	"github.com/rynek/rynek/seed"
)

// goneListings makes listings go each way a listing leaves the market, on
// the test's goroutine: sold, withdrawn by its seller, removed and
// force-expired by the admin, expired by the timer. It returns their ids
// by how the API names the way, the purchase, and when the timer's
// listing expired (the others went at the market's clock, fixedNow).
func goneListings(t *testing.T, e *env) (map[string]int, market.Transaction, time.Time) {
	t.Helper()
	players, err := e.svc.Players()
	if err != nil {
		t.Fatal(err)
	}
	var admin, seller, buyer market.Player
	for _, p := range players {
		switch {
		case p.Name == "Admin":
			admin = market.Player{ID: p.ID, Name: p.Name}
		case seller.ID == uuid.Nil:
			seller = market.Player{ID: p.ID, Name: p.Name}
		case buyer.ID == uuid.Nil:
			buyer = market.Player{ID: p.ID, Name: p.Name}
		}
	}
	sell := func(price float64) market.Listing {
		t.Helper()
		stack, _, err := e.svc.GiveItem(seller.ID, market.ItemStack{ID: uuid.New(), Material: "DIAMOND", Amount: 3})
		if err != nil {
			t.Fatal(err)
		}
		l, err := e.svc.SellItem(seller, stack, price)
		if err != nil {
			t.Fatal(err)
		}
		return l
	}
	ids := map[string]int{}
	l := sell(30)
	tx, err := e.svc.Buy(buyer, l.ID)
	if err != nil {
		t.Fatal(err)
	}
	ids["sold"] = l.ID
	l = sell(31)
	if err := e.svc.RemoveListing(l.ID, seller); err != nil {
		t.Fatal(err)
	}
	ids["removed"] = l.ID
	l = sell(32)
	if err := e.svc.RemoveListing(l.ID, admin); err != nil {
		t.Fatal(err)
	}
	ids["admin-removed"] = l.ID
	l = sell(33)
	if err := e.svc.ForceExpire(l.ID, admin); err != nil {
		t.Fatal(err)
	}
	ids["force-expire"] = l.ID
	l = sell(34)
	e.clock.Advance(l.ExpiresAt.Sub(e.clock.Now()) + time.Minute) // the timer: no event
	ids["expired"] = l.ID
	return ids, tx, l.ExpiresAt
}

// TestGoneListingSaysHow: the API's 404 for a listing no longer on the
// market says how it went ("gone"), its page is 200; a listing id the
// market never gave is 404, its problem without "gone", and so is its page.
func TestGoneListingSaysHow(t *testing.T) {
	e := newEnv(t, seed.Options{Listings: 30}, Options{})
	ids, tx, expired := goneListings(t, e)
	for how, id := range ids {
		var p Problem
		var a answer
		waitFor(t, "the server to hear how #"+fmt.Sprint(id)+" went", func() bool {
			a = e.get(fmt.Sprintf("/api/listings/%d", id))
			p = Problem{}
			json.Unmarshal(a.body, &p)
			return p.Gone != nil && p.Gone.How == how
		})
		when := fixedNow
		if how == "expired" {
			when = expired
		}
		if a.status != 404 || p.Code != CodeListingNotFound || !p.Gone.At.Equal(when) {
			t.Errorf("listing %d (%s): %d %s", id, how, a.status, a.body)
		}
		if page := e.get(fmt.Sprintf("/listing/%d", id), "Accept: text/html"); page.status != 200 {
			t.Errorf("the page of listing %d (%s): %d", id, how, page.status)
		}
	}
	var p Problem
	json.Unmarshal(e.get(fmt.Sprintf("/api/listings/%d", ids["sold"])).body, &p)
	if g := p.Gone; g.Price != "30.00" || g.Buyer == nil || g.Buyer.Name != tx.BuyerName || g.Buyer.UUID != tx.Buyer.String() || g.Transaction != tx.ID {
		t.Errorf("a sale's gone: %+v", g)
	}
	never := ids["expired"] + 1000
	a := e.get(fmt.Sprintf("/api/listings/%d", never))
	if a.status != 404 || !strings.Contains(string(a.body), `"detail":"listing `+fmt.Sprint(never)+` was never on the market"`) || strings.Contains(string(a.body), `"gone"`) {
		t.Errorf("a listing never given: %d %s", a.status, a.body)
	}
	if page := e.get(fmt.Sprintf("/listing/%d", never), "Accept: text/html"); page.status != 404 || !strings.Contains(string(page.body), "<html") {
		t.Errorf("the page of a listing never given: %d", page.status)
	}
}

// TestSiteGoneListingPage: the page of a listing gone before it opened
// says, in Polish, how it went: sold (when, for how much, to whom),
// withdrawn, removed or expired by the admin, expired; the page of an id
// the market never gave says there never was such a listing.
func TestSiteGoneListingPage(t *testing.T) {
	chromium(t)
	e := newEnv(t, seed.Options{Listings: 30}, Options{})
	ids, tx, expired := goneListings(t, e)
	b := newBrowser(t, e.srv.URL, phone)
	b.open("/")
	at := func(iso time.Time) string {
		t.Helper()
		s, err := chromedp.Run(b.ctx, chromedp.Evaluate[string](`import("/static/js/polish.js").then((m) => m.dateTime(`+jsString(iso.Format(time.RFC3339Nano))+`))`,
			func(p *runtime.EvaluateParams) { p.AwaitPromise = ptr(true) }))
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	now := at(fixedNow) // when the market's clock stood while they went
	want := map[string]string{
		"sold":          "Sprzedana " + now + " za 30,00. Kupił(a): " + tx.BuyerName + ".",
		"removed":       "Oferta wycofana przez sprzedawcę " + now + ".",
		"admin-removed": "Oferta usunięta przez administratora " + now + ".",
		"force-expire":  "Oferta wygaszona przez administratora " + now + ".",
		"expired":       "Oferta wygasła " + at(expired) + " i wróciła do sprzedawcy.",
	}
	for how, id := range ids {
		b.open(fmt.Sprintf("/listing/%d", id))
		b.waitText("h1", fmt.Sprintf("Oferty #%d nie ma już na rynku", id))
		b.waitText(".state.ended", want[how])
		b.clean("the page of a listing "+how, "404")
	}
	b.screenshot(artifacts(t), "listing-gone-expired-phone-light")
	b.open(fmt.Sprintf("/listing/%d", ids["expired"]+1000))
	b.waitText("h1", "Nie ma takiej oferty")
	b.waitText("main p", fmt.Sprintf("Na rynku nigdy nie było oferty #%d.", ids["expired"]+1000))
	b.clean("a listing never given", "404")
}

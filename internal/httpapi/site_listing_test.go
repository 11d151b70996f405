package httpapi

import (
	"fmt"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/rynek/rynek/market"
)

// TestSiteListingShowsTheWholeItem: a listing's page shows the whole item
// as the game has it, with the player's text sanitized and only ever set
// as text (§ codes and control characters gone, markup shown as typed,
// never made an element): its name, stack, enchantments and lore, the
// seller, price and unit price. When the seller withdraws it while the
// page is open, the page says so in Polish.
func TestSiteListingShowsTheWholeItem(t *testing.T) {
	e := siteEnv(t)
	players, _ := e.svc.Players()
	seller := market.Player{ID: players[2].ID, Name: players[2].Name}
	stack, _, err := e.svc.GiveItem(seller.ID, market.ItemStack{ID: uuid.New(), Material: "DIAMOND_SWORD", Amount: 1,
		DisplayName:  "§6Miecz <b>Zagłady</b>",
		Lore:         []string{"§cOstry\u0007 jak <img src=x onerror=alert(1)>", "§7Drugi wiersz"},
		Enchantments: []market.Enchantment{{Key: "sharpness", Level: 5}, {Key: "unbreaking", Level: 3}}})
	if err != nil {
		t.Fatal(err)
	}
	l, err := e.svc.SellItem(seller, stack, 2500)
	if err != nil {
		t.Fatal(err)
	}
	b := newBrowser(t, e.srv.URL, phone)
	b.open(fmt.Sprintf("/listing/%d", l.ID))
	b.waitText("h1", "Miecz <b>Zagłady</b>")
	b.waitText(".price.big", "2500,00")
	b.waitFor(`Array.from(document.querySelectorAll("ul.enchantments li")).map(li => li.textContent).join("|")`, "Sharpness V|Unbreaking III")
	b.waitFor(`Array.from(document.querySelectorAll("ul.lore li")).map(li => li.textContent).join("|")`, "Ostry jak <img src=x onerror=alert(1)>|Drugi wiersz")
	b.waitFor(`String(document.querySelectorAll("main img, main b").length)`, "0")
	// The stack: how many, in words, and its id named as such.
	b.waitFor(`Array.from(document.querySelectorAll(".listing-page dl.figures > div")).find((d) => d.querySelector("dt").textContent === "Stos")?.querySelector("dd").textContent`, "1 sztuka")
	b.waitText(".listing-page p.stack", "Identyfikator stosu: "+stack.ID.String())
	b.waitContains(".listing-page", seller.Name)
	b.clean("a listing with player text")
	b.accessible("a listing with player text")
	b.fits("a listing with player text")

	if err := e.svc.RemoveListing(l.ID, seller); err != nil {
		t.Fatal(err)
	}
	b.waitFor(`document.querySelector(".state").textContent.replace(/ \d.*$/, "")`, "Oferta wycofana przez sprzedawcę")
	b.waitFor(`document.querySelector(".listing-page").classList.contains("ended") ? "ended" : "open"`, "ended")
	b.clean("a listing withdrawn while open")
}

// TestSiteAuctionListing: an auction's page shows its bidding and bids, and
// follows the market: a bid made while it is open (a new leader, a new
// least next bid, the bid on top of the list), then its end with the winner.
func TestSiteAuctionListing(t *testing.T) {
	e := siteEnv(t)
	players, _ := e.svc.Players()
	seller, first, second := players[2], players[3], players[4]
	for _, p := range []market.Player{first, second} {
		if _, err := e.svc.Deposit(p.ID, 100); err != nil {
			t.Fatal(err)
		}
	}
	stack, _, err := e.svc.GiveItem(seller.ID, market.ItemStack{ID: uuid.New(), Material: "DIAMOND_SWORD", Amount: 1})
	if err != nil {
		t.Fatal(err)
	}
	l, err := e.svc.StartAuction(seller, stack, 10, 40, time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.svc.Bid(first, l.ID, 12); err != nil {
		t.Fatal(err)
	}
	b := newBrowser(t, e.srv.URL, phone)
	b.open(fmt.Sprintf("/listing/%d", l.ID))
	b.waitText(".price.big", "12,00")
	b.waitContains(`section[aria-labelledby="s-licytacja"]`, "Prowadzi"+first.Name)
	b.waitContains(`section[aria-labelledby="s-licytacja"]`, "Najniższa następna oferta13,00")
	b.waitContains(`section[aria-labelledby="s-licytacja"]`, "Złożone oferty1")
	b.waitContains(`section[aria-labelledby="s-licytacja"]`, "Kup teraz40,00")
	b.waitFor(`document.querySelectorAll("ol.bids li").length + ""`, "1")
	b.clean("an auction")
	b.accessible("an auction")
	b.fits("an auction")

	if _, err := e.svc.Bid(second, l.ID, 15); err != nil {
		t.Fatal(err)
	}
	b.waitText(".price.big", "15,00")
	b.waitContains(`section[aria-labelledby="s-licytacja"]`, "Prowadzi"+second.Name)
	b.waitContains(`section[aria-labelledby="s-licytacja"]`, "Złożone oferty2")
	b.waitFor(`document.querySelector("ol.bids li").textContent.replace(/ · .*$/, "")`, "15,00 — "+second.Name)

	e.clock.Advance(2 * time.Hour)
	e.sweep()
	b.waitFor(`document.querySelector(".state").textContent.replace(/ \d.*? za /, " … za ")`, "Licytacja wygrana … za 15,00. Wygrał(a): "+second.Name+".")
	b.clean("an auction won while open")
}

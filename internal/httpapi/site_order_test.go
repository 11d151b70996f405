package httpapi

import (
	"fmt"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/rynek/rynek/market"
	"github.com/rynek/rynek/seed"
)

// bookRows is a script giving a side's rows of the item page's book as
// "price|items|count;…".
func bookRows(side string) string {
	return `Array.from(document.querySelectorAll("table.book.` + side + ` tbody tr")).map((tr) => Array.from(tr.cells).map((td) => td.textContent).join("|")).join(";")`
}

// orderRows is a script giving the ids of an orders table's rows.
const orderRows = `Array.from(document.querySelectorAll("table.orders tbody tr")).map((tr) => tr.dataset.order).join(",")`

// feedLines is a script giving the live feed's lines without their times.
const feedLines = `Array.from(document.querySelectorAll("ul.feed li")).map((li) => li.textContent.replace(/^\S+ /, "")).join("\n")`

// hasLine is a script that says whether the feed has line.
func hasLine(line string) string {
	return feedLines + `.split("\n").includes(` + jsString(line) + `) ? "shown" : ` + feedLines
}

// TestSiteOrderBook watches buy orders end to end on the website: the item
// page's book shows both sides with their depth (buy highest first, sell
// cheapest first, items and counts, the best prices and their gap) and the
// open orders best first, and follows a fill and a cancel live; the
// buyer's page lists their resting orders and follows a new one; the live
// feed tells an order placed, filled from an inventory and from part of a
// listing (whose row stays, and the header's count with it), cancelled
// and expired, in Polish; on a phone it all fits, light and dark.
func TestSiteOrderBook(t *testing.T) {
	e, a, b, seller := orderEnv(t, seed.Options{Players: 20, Now: time.Now().UTC().Truncate(time.Second)})
	o1 := place(t, e, a, "OAK_LOG", 100, 1.5)
	o2 := place(t, e, b, "OAK_LOG", 50, 2)
	e.clock.Advance(time.Second)
	o3 := place(t, e, a, "OAK_LOG", 10, 2)
	big := list(t, e, seller, "OAK_LOG", 64, 192) // 3.00 a log
	list(t, e, seller, "OAK_LOG", 32, 96)
	list(t, e, seller, "OAK_LOG", 16, 64) // 4.00

	br := newBrowser(t, e.srv.URL, desktop)
	br.open("/item/OAK_LOG")
	br.waitText("#status", "na żywo")
	br.waitText("#book-title", "Arkusz zleceń: kupno i sprzedaż")
	br.waitFor(bookRows("buy"), "2,00|60|2;1,50|100|1")
	br.waitFor(bookRows("sell"), "3,00|96|2;4,00|16|1")
	br.waitFor(`Array.from(document.querySelectorAll(".order-book dl.spread > div")).map((d) => d.textContent).join(" / ")`,
		"Najwyższe zlecenie2,00 / Najtańsza oferta3,00 / Różnica1,00")
	br.waitFor(`Array.from(document.querySelectorAll("table.book th")).map((th) => th.textContent).join("|")`, "Za sztukę|Sztuk|Zleceń|Za sztukę|Sztuk|Ofert")
	br.waitFor(`Array.from(document.querySelectorAll(".book-sides h3")).map((h) => h.textContent).join(" / ")`, "Kupują · 160 sztuk / Sprzedają · 112 sztuk")
	// The depth: each price's bar is its share of the side's largest.
	br.waitFor(`Array.from(document.querySelectorAll("table.book.buy .bar")).map((s) => s.style.width).join(" ")`, "60% 100%")
	br.waitText(`section[aria-labelledby="orders-title"] .note`, "3 otwarte zlecenia kupna")
	br.waitFor(orderRows, fmt.Sprintf("%d,%d,%d", o2.ID, o3.ID, o1.ID))
	br.waitFor(`Array.from(document.querySelector('tr[data-order="`+fmt.Sprint(o2.ID)+`"]').cells).slice(0, 4).map((td) => td.textContent).join("|")`,
		"50× Oak Log|"+b.Name+"|2,00|0 z 50")
	br.clean("an item's order book")
	br.accessible("an item's order book")
	br.fits("an item's order book")
	br.screenshot(artifacts(t), "order-book-desktop-light")

	// A listing at 1.50 a log: the best order buys it whole at once; the
	// book and the orders follow without a reload.
	list(t, e, seller, "OAK_LOG", 20, 30)
	br.waitFor(bookRows("buy"), "2,00|40|2;1,50|100|1")
	br.waitFor(`document.querySelector('tr[data-order="`+fmt.Sprint(o2.ID)+`"] td.filled').textContent`, "20 z 50")
	if err := e.svc.CancelOrder(o2.ID, b); err != nil {
		t.Fatal(err)
	}
	br.waitFor(bookRows("buy"), "2,00|10|1;1,50|100|1")
	br.waitFor(orderRows, fmt.Sprintf("%d,%d", o3.ID, o1.ID))
	br.waitText(`section[aria-labelledby="orders-title"] .note`, "2 otwarte zlecenia kupna")
	br.clean("an item's book, live")

	// On a phone, dark: the two sides stacked, every column in sight.
	br.view(phone, "dark")
	// The chart takes the new width when its resize observer fires.
	br.waitFor(`String(document.documentElement.scrollWidth <= document.documentElement.clientWidth)`, "true")
	br.fits("an item's order book on a phone")
	br.accessible("an item's order book on a phone, dark")
	br.screenshot(artifacts(t), "order-book-phone-dark")
	br.view(desktop, "light")

	// The buyer's page: their resting orders, best first, and a new one.
	br.open("/player/" + a.ID.String())
	br.waitText("#p-orders", "Zlecenia kupna")
	br.waitFor(orderRows, fmt.Sprintf("%d,%d", o3.ID, o1.ID))
	br.waitFor(`Array.from(document.querySelectorAll("table.orders th")).map((th) => th.textContent).join("|")`, "Przedmiot|Za sztukę|Kupione|Wygasa")
	br.waitText("#status", "na żywo")
	o4 := place(t, e, a, "DIAMOND", 3, 50)
	br.waitFor(orderRows, fmt.Sprintf("%d,%d,%d", o4.ID, o3.ID, o1.ID))
	br.waitText(`section[aria-labelledby="p-orders"] .note`, "3 otwarte zlecenia kupna")
	br.waitText(`section[aria-labelledby="p-orders"] tr[data-order="`+fmt.Sprint(o4.ID)+`"] td.item`, "3× Diamond")
	br.clean("a buyer's orders")
	br.accessible("a buyer's orders")
	br.view(phone, "light")
	br.waitFor(`document.querySelector("table.orders td.expires").offsetWidth === 0 ? "hidden" : "shown"`, "hidden")
	br.fits("a buyer's orders on a phone")
	br.screenshot(artifacts(t), "player-orders-phone-light")
	br.view(desktop, "light")

	// The feed: placed, filled from an inventory, filled from part of a
	// listing, cancelled, expired.
	br.open("/")
	br.waitText("#status", "na żywo")
	br.waitFor(`getComputedStyle(document.querySelector("ul.feed"), "::after").content`,
		`"Na razie cisza: nowe oferty, licytacje, zlecenia kupna, sprzedaże i wycofania pojawią się tu od razu."`)
	stone := place(t, e, a, "STONE", 64, 0.5)
	br.waitFor(hasLine(a.Name+" chce kupić 64× Stone po 0,50"), "shown")
	given, _, err := e.svc.GiveItem(seller.ID, market.ItemStack{ID: uuid.New(), Material: "STONE", Amount: 32})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.svc.SellToOrder(seller, given, stone.ID); err != nil {
		t.Fatal(err)
	}
	br.waitFor(hasLine(a.Name+" kupuje 32× Stone od "+seller.Name+" po 0,50"), "shown")
	active := br.eval(`document.getElementById("active").textContent`)
	bought := place(t, e, b, "OAK_LOG", 10, 3) // the 64 logs at 3.00 are the cheapest on sale: it takes 10 of them
	if bought.State != "filled" {
		t.Fatalf("the order at 3.00 did not fill at once: %+v", bought)
	}
	br.waitFor(hasLine(b.Name+" kupuje 10× Oak Log od "+seller.Name+" po 3,00"), "shown")
	if err := e.svc.CancelOrder(stone.ID, a); err != nil {
		t.Fatal(err)
	}
	br.waitFor(hasLine(a.Name+" wycofuje zlecenie kupna: 32× Stone po 0,50"), "shown")
	if _, err := e.svc.PlaceOrder(b, "DIAMOND", 2, 5, time.Minute); err != nil {
		t.Fatal(err)
	}
	e.clock.Advance(time.Minute)
	e.sweep()
	br.waitFor(hasLine("Wygasa zlecenie kupna gracza "+b.Name+": 2× Diamond po 5,00"), "shown")
	// A fill's purchase has no line of its own (its fill says it), and
	// the listing it took part of is still on sale: the count stays.
	br.waitFor(`String(Array.from(document.querySelectorAll("ul.feed li")).filter((li) => / za /.test(li.textContent) && / kupuje /.test(li.textContent)).length)`, "0")
	if got := br.eval(`document.getElementById("active").textContent`); got != active {
		t.Errorf("the header's count went from %q to %q on a partial fill", active, got)
	}
	br.waitFor(textOf(row(big.ID)+`?.querySelector("td.item")`), "54× Oak Log")
	br.waitFor(textOf(row(big.ID)+`?.querySelector(".badge")`), "(none)")
	br.clean("the feed's buy orders")
	br.accessible("the feed's buy orders")
	br.screenshot(artifacts(t), "order-feed-desktop-light")
}

// TestSiteListingPartlyBought: a listing's page follows a buy order that
// takes part of its stack (the rest stays on sale at the rest of the
// price, and the page says what the order bought), then one that takes
// the rest (the listing is sold).
func TestSiteListingPartlyBought(t *testing.T) {
	e, a, b, seller := orderEnv(t, seed.Options{Players: 20, Now: time.Now().UTC().Truncate(time.Second)})
	l := list(t, e, seller, "OAK_LOG", 64, 192) // 3.00 a log
	br := newBrowser(t, e.srv.URL, desktop)
	br.open(fmt.Sprintf("/listing/%d", l.ID))
	br.waitText("#status", "na żywo")
	br.waitText("h1", "64× Oak Log")
	place(t, e, a, "OAK_LOG", 10, 3)
	br.waitText(".state", a.Name+" kupuje ze zlecenia kupna 10 sztuk za 30,00; w ofercie zostaje 54 sztuki.")
	br.waitText("h1", "54× Oak Log")
	br.waitText(".price.big", "162,00")
	br.waitFor(`document.querySelector(".listing-page").classList.contains("ended") ? "ended" : "on sale"`, "on sale")
	place(t, e, b, "OAK_LOG", 54, 3)
	br.waitFor(`document.querySelector(".state").textContent.replace(/ \d.*$/, "")`, "Sprzedana")
	br.waitFor(`document.querySelector(".state").textContent.replace(/^.* za /, "")`, "162,00. Kupił(a): "+b.Name+".")
	br.clean("a listing partly bought")
	br.accessible("a listing partly bought")
}

// TestSiteBookExplainsRounding: a stack whose price per item is not whole
// grosze stands in the book at its unit price rounded up (what a buy
// order must pay to take it), and in the price box and the listings at
// the nearest grosz: the page says so, and works it out for the cheapest.
func TestSiteBookExplainsRounding(t *testing.T) {
	chromium(t)
	e := newEnv(t, seed.Options{Listings: 30, Now: time.Now().UTC().Truncate(time.Second)}, Options{})
	players, err := e.svc.Players()
	if err != nil {
		t.Fatal(err)
	}
	seller := market.Player{ID: players[2].ID, Name: players[2].Name}
	stack, _, err := e.svc.GiveItem(seller.ID, market.ItemStack{ID: uuid.New(), Material: "DIAMOND", Amount: 3})
	if err != nil {
		t.Fatal(err)
	}
	l, err := e.svc.SellItem(seller, stack, 10) // 3.3333… an item
	if err != nil {
		t.Fatal(err)
	}
	b := newBrowser(t, e.srv.URL, phone)
	b.open("/item/DIAMOND")
	b.waitContains(".item-page", "Najtańsza oferta3,33 za sztukę")
	b.waitFor(bookRows("sell")+`.split(";")[0]`, "3,34|3|1")
	b.waitText(".book-note", "Arkusz zaokrągla cenę za sztukę w górę do pełnego grosza (tyle najmniej musi dać zlecenie kupna), "+
		"a oferty w tabelach — do najbliższego grosza, więc tu cena bywa o 1 gr wyższa. "+
		fmt.Sprintf("Najtańsza oferta, #%d (3 sztuki za 10,00, czyli 3,3333 za sztukę), stoi w arkuszu po 3,34, a w tabeli ofert po 3,33.", l.ID))
	b.clean("the item page's book")
}

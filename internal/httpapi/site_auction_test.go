package httpapi

import (
	"fmt"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/rynek/rynek/market"
	"github.com/rynek/rynek/seed"
)

// rowsOf is a script giving the ids of a listing table's rows, in order.
const rowsOf = `Array.from(document.querySelectorAll("table.listings tbody tr")).map((tr) => tr.dataset.id).join(",")`

// textOf is a script giving the text of the element expr finds ("(none)"
// when it finds none).
func textOf(expr string) string { return `(` + expr + `)?.textContent ?? "(none)"` }

// row is a script expression for the row of listing id.
func row(id int) string { return fmt.Sprintf(`document.querySelector('tr[data-id="%d"]')`, id) }

// TestSiteAuctionsView watches two auctions end to end on the website: the
// kind filter turns the market page into the auctions view (ending soonest,
// a deep link the header names), each row shows the mark, the current bid
// or "brak ofert", the bids, the buy-now and a countdown that ticks without
// a read; a bid redraws its row live (amount, leader, the end a late bid
// moved) and is a line of the live feed; the item's page lists its auctions
// beside its fixed-price listings, the seller's page follows them; and each
// end marks its row and writes its line, with the winner or without bids.
func TestSiteAuctionsView(t *testing.T) {
	e := newEnv(t, seed.Options{Players: 30, Listings: 40, Auctions: -1, Now: time.Now().UTC().Truncate(time.Second)}, Options{})
	players, _ := e.svc.Players()
	seller, first, second := players[2], players[3], players[4]
	for _, p := range []market.Player{first, second} {
		if _, err := e.svc.Deposit(p.ID, 100); err != nil {
			t.Fatal(err)
		}
	}
	start := func(material string, amount int, startingBid, buyNow float64, d time.Duration) market.Listing {
		t.Helper()
		stack, _, err := e.svc.GiveItem(seller.ID, market.ItemStack{ID: uuid.New(), Material: material, Amount: amount})
		if err != nil {
			t.Fatal(err)
		}
		l, err := e.svc.StartAuction(seller, stack, startingBid, buyNow, d)
		if err != nil {
			t.Fatal(err)
		}
		return l
	}
	fixed, _, err := e.svc.GiveItem(seller.ID, market.ItemStack{ID: uuid.New(), Material: "DIAMOND_SWORD", Amount: 1})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.svc.SellItem(seller, fixed, 30); err != nil {
		t.Fatal(err)
	}
	sword := start("DIAMOND_SWORD", 1, 10, 40, 2*time.Minute)
	logs := start("OAK_LOG", 16, 5, 0, 10*time.Minute)
	sw, lg := row(sword.ID), row(logs.ID)

	b := newBrowser(t, e.srv.URL, desktop)
	b.open("/")
	b.waitText("#status", "na żywo")
	// The market's rows: an auction is marked and shows its bidding.
	b.waitFor(textOf(sw+`?.querySelector(".mark")`), "⚑ licytacja")
	b.waitFor(textOf(sw+`?.querySelector(".bids")`), "brak ofert")
	b.waitFor(textOf(sw+`?.querySelector(".buy-now")`), "kup teraz 40,00")
	b.waitFor(sw+`.querySelector("td.price").firstChild.textContent`, "10,00")
	b.waitFor(lg+`.querySelector(".buy-now") ? "buy-now" : "none"`, "none")

	// The kind filter: auctions, in the order one looks at them for.
	b.eval(`const k = document.querySelector("select[name=kind]"); k.value = "auction"; k.dispatchEvent(new Event("change")); "ok"`)
	b.waitFor(`location.search`, "?kind=auction&sort=ending")
	b.waitText("h1", "Licytacje kończące się najwcześniej")
	b.waitText("main .note", "2 licytacje")
	b.waitFor(`document.querySelector("header nav a[aria-current=page]").textContent`, "Licytacje")
	b.waitFor(`document.querySelector("select[name=kind]").value + " " + document.querySelector("select[name=sort]").value`, "auction ending")
	b.waitFor(rowsOf, fmt.Sprintf("%d,%d", sword.ID, logs.ID))
	b.waitFor(`Array.from(document.querySelectorAll("table.listings th")).map((th) => th.textContent).join("|")`, "Przedmiot|Sprzedawca|Aktualna oferta|Za sztukę|Do końca")
	b.waitFor(lg+`.querySelector("td.unit").textContent`, "0,31")

	// The countdown ticks every second from the end its row holds: no read.
	reads := `String(performance.getEntriesByType("resource").filter((r) => r.name.includes("/api/listings")).length)`
	before, was := b.eval(reads), b.eval(sw+`.querySelector("td.expires").textContent`)
	b.waitFor(fmt.Sprintf(`/^za\u00a0[12]\u00a0min \d\d\u00a0s$/.test(%s.querySelector("td.expires").textContent) ? "ticking" : %[1]s.querySelector("td.expires").textContent`, sw), "ticking")
	b.waitFor(sw+`.querySelector("td.expires").textContent !== `+jsString(was)+` ? "ticked" : "still"`, "ticked")
	if after := b.eval(reads); after != before {
		t.Errorf("the countdown read the listings again: %s reads, then %s", before, after)
	}
	b.clean("the auctions view")
	b.accessible("the auctions view")
	b.fits("the auctions view")

	// A bid: its row at once, and a line of the feed.
	if _, err := e.svc.Bid(first, sword.ID, 12); err != nil {
		t.Fatal(err)
	}
	b.waitFor(sw+`.querySelector("td.price").firstChild.textContent`, "12,00")
	b.waitFor(textOf(sw+`.querySelector(".bids")`), "1 oferta")
	b.waitFor(textOf(sw+`.querySelector(".leader")`), "prowadzi "+first.Name)
	b.waitFor(`document.querySelector("ul.feed li.bid")?.textContent.replace(/^\S+ /, "")`, fmt.Sprintf("%s licytuje #%d: 12,00", first.Name, sword.ID))
	b.waitFor(fmt.Sprintf(`document.querySelector("ul.feed li.bid a[href='/listing/%d']") ? "linked" : "no link"`, sword.ID), "linked")

	// A late bid moves the end (anti-snipe: a minute after the bid).
	e.clock.Advance(90 * time.Second)
	late, err := e.svc.Bid(second, sword.ID, 14)
	if err != nil {
		t.Fatal(err)
	}
	if want := e.clock.Now().Add(time.Minute); !late.ExpiresAt.Equal(want) {
		t.Fatalf("the late bid moved the end to %v, want %v", late.ExpiresAt, want)
	}
	b.waitFor(`String(Date.parse(`+sw+`.querySelector("td.expires").dataset.ends))`, fmt.Sprint(late.ExpiresAt.UnixMilli()))
	b.waitFor(textOf(sw+`.querySelector(".leader")`), "prowadzi "+second.Name)
	b.waitFor(textOf(sw+`.querySelector(".bids")`), "2 oferty")
	b.waitFor(sw+`.querySelector("td.price").firstChild.textContent`, "14,00")
	b.screenshot(artifacts(t), "auctions-desktop-light")

	// On a phone: every column the table keeps, the countdown among them, in sight.
	b.view(phone, "dark")
	b.waitFor(sw+`.querySelector("td.expires").offsetWidth > 0 ? "shown" : "hidden"`, "shown")
	b.fits("the auctions view on a phone")
	b.accessible("the auctions view on a phone, dark")
	b.screenshot(artifacts(t), "auctions-phone-dark")
	b.view(desktop, "light")

	// The item's page: its auctions beside its fixed-price listings.
	b.open("/item/DIAMOND_SWORD")
	auctions := `section[aria-labelledby="auctions-title"]`
	b.waitFor(`document.querySelector('`+auctions+` table') ? "drawn" : "not yet"`, "drawn")
	b.waitText(`#auctions-title`, "Licytacje (kończące się najwcześniej)")
	b.waitText(auctions+` .note`, "1 licytacja")
	b.waitFor(`Array.from(document.querySelectorAll('`+auctions+` tbody tr')).map((tr) => tr.dataset.id).join(",")`, fmt.Sprint(sword.ID))
	b.waitText(auctions+` .leader`, "prowadzi "+second.Name)
	was = b.eval(`document.querySelector('` + auctions + ` td.expires').textContent`)
	b.waitFor(`document.querySelector('`+auctions+` td.expires').textContent !== `+jsString(was)+` ? "ticked" : "still"`, "ticked")
	b.waitFor(`document.querySelectorAll('section[aria-labelledby="cheapest-title"] tr.auction').length + " " + (document.querySelectorAll('section[aria-labelledby="cheapest-title"] tbody tr').length > 0)`, "0 true")
	b.clean("an item's auctions")
	b.accessible("an item's auctions")

	// The seller's page: their auction's row follows its bids too.
	b.open("/player/" + seller.ID.String())
	b.waitFor(textOf(sw+`?.querySelector(".bids")`), "2 oferty")
	if _, err := e.svc.Bid(first, sword.ID, 16); err != nil {
		t.Fatal(err)
	}
	b.waitFor(textOf(sw+`.querySelector(".bids")`), "3 oferty")
	b.waitFor(textOf(sw+`.querySelector(".leader")`), "prowadzi "+first.Name)
	b.waitFor(sw+`.querySelector("td.price").firstChild.textContent`, "16,00")
	b.clean("a seller's auction")

	// The ends: the won auction's row says who won and goes; its line
	// names the winner and the price; the one without bids says so.
	b.open("/?kind=auction&sort=ending")
	b.waitFor(rowsOf, fmt.Sprintf("%d,%d", sword.ID, logs.ID))
	b.waitText("#status", "na żywo")
	e.clock.Advance(2 * time.Minute)
	e.sweep()
	b.waitFor(`Array.from(document.querySelectorAll("ul.feed li")).map((li) => li.textContent.replace(/^\S+ /, "")).find((s) => s.startsWith("Licytacja")) ?? ""`,
		fmt.Sprintf("Licytacja #%d zakończona: wygrywa %s za 16,00", sword.ID, first.Name))
	b.waitFor(`document.querySelector("ul.feed li.sale a[href='/player/`+first.ID.String()+`']") ? "linked" : "no link"`, "linked")
	b.waitFor(textOf(sw+`?.querySelector(".badge")`), "wygrywa "+first.Name)
	b.waitFor(rowsOf, fmt.Sprint(logs.ID))
	b.waitText("main .note", "1 licytacja")

	e.clock.Advance(10 * time.Minute)
	e.sweep()
	b.waitFor(`document.querySelector("ul.feed li")?.textContent.replace(/^\S+ /, "")`, fmt.Sprintf("Licytacja #%d zakończona bez ofert", logs.ID))
	b.waitFor(textOf(lg+`?.querySelector(".badge")`), "zakończona bez ofert")
	b.waitText("main .empty", "Nikt teraz niczego nie licytuje.")
	b.clean("the auctions' ends")

	// Fixed prices only: no auction among them.
	b.eval(`const k = document.querySelector("select[name=kind]"); k.value = "fixed"; k.dispatchEvent(new Event("change")); "ok"`)
	b.waitFor(`location.search`, "?kind=fixed&sort=ending")
	b.waitText("h1", "Oferty po stałej cenie")
	b.waitFor(`document.querySelectorAll("table.listings tbody tr").length > 0 && !document.querySelector("tr.auction, .mark") ? "fixed only" : "not yet"`, "fixed only")
	b.clean("fixed prices only")

	// A kind the market lacks, or two kinds at once, is told in Polish.
	b.open("/?kind=barter")
	b.waitText("p.note[role=status]", "Nie można wyszukać: nie ma rodzaju ofert „barter”; są licytacje i stała cena.")
	b.waitFor(`document.querySelector("select[name=kind]").getAttribute("aria-invalid")`, "true")
	b.open("/?q=kind:auction&kind=fixed")
	b.waitText("p.note[role=status]", "Nie można wyszukać: wyszukiwanie już wybiera rodzaj (kind:); wybierz go tam albo w polu „Rodzaj”, nie w obu.")
	b.clean("a bad kind", "400")
}

// Buy orders on the website: a commodity's order book with its depth, and
// a table of open orders.

import { el, link, table, figures } from "./dom.js";
import { money, moneyValue, number, ago, counted, NOUNS } from "./polish.js";
import { playerLink } from "./parts.js";

// bookView draws an order book (GET /api/order-book/{material}): the best
// buy and sell prices and the gap between, then the two sides side by side,
// buy highest first, sell cheapest first, each price with its items (a bar
// as long as its share of the side's largest) and its orders or listings.
// cheapest is the item's cheapest listing by unit price (the price
// summary's), which the note under the book may name.
export function bookView(book, cheapest) {
  const buy = book.buy[0], sell = book.sell[0];
  return el("div", {},
    figures([
      ["Najwyższe zlecenie", buy ? money(buy.unitPrice) : "brak"],
      ["Najtańsza oferta", sell ? money(sell.unitPrice) : "brak"],
      buy && sell && ["Różnica", moneyValue(Number(sell.unitPrice) - Number(buy.unitPrice))],
    ], "row spread"),
    el("div", { class: "book-sides" },
      side("Kupują", "Zlecenia kupna, od najwyższej ceny", book.buy, "orders", NOUNS.order, "Nikt nie składa teraz zleceń kupna tego przedmiotu.", "buy"),
      side("Sprzedają", "Oferty zwykłych stosów po stałej cenie, od najtańszej", book.sell, "listings", NOUNS.listing, "Nikt nie sprzedaje teraz zwykłych stosów tego przedmiotu po stałej cenie.", "sell")),
    sell ? roundingNote(sell, cheapest) : "");
}

const exact = new Intl.NumberFormat("pl-PL", { minimumFractionDigits: 2, maximumFractionDigits: 4 });

// roundingNote says why the book's sell side may ask a grosz more than a
// listing's unit price elsewhere on the page: the book rounds a stack's
// price per item up to the grosz (what a buy order must pay at least to
// take it), the listings round it to the nearest. When the cheapest
// listing is such a case, the note works it out for it.
function roundingNote(sell, cheapest) {
  let text = "Arkusz zaokrągla cenę za sztukę w górę do pełnego grosza (tyle najmniej musi dać zlecenie kupna), " +
    "a oferty w tabelach — do najbliższego grosza, więc tu cena bywa o 1 gr wyższa.";
  if (cheapest && cheapest.kind === "fixed" && !cheapest.item.enchanted) {
    const per = Number(cheapest.price) / cheapest.item.amount;
    const up = Math.ceil(Math.round(per * 1e6) / 1e4) / 100; // (the float's noise off before rounding up)
    if (up.toFixed(2) === Number(sell.unitPrice).toFixed(2) && up.toFixed(2) !== Number(cheapest.unitPrice).toFixed(2)) {
      text += " Najtańsza oferta, #" + cheapest.id + " (" + counted(cheapest.item.amount, NOUNS.piece) + " za " + money(cheapest.price) +
        ", czyli " + exact.format(per) + " za sztukę), stoi w arkuszu po " + money(sell.unitPrice) + ", a w tabeli ofert po " + money(cheapest.unitPrice) + ".";
    }
  }
  return el("p", { class: "muted small book-note", text });
}

function side(title, caption, levels, count, noun, none, cls) {
  const most = Math.max(1, ...levels.map((l) => l.amount));
  const total = levels.reduce((a, l) => a + l.amount, 0);
  return el("div", { class: "side-" + cls },
    el("h3", {}, title, el("span", { class: "muted small", text: levels.length ? " · " + counted(total, NOUNS.piece) : "" })),
    levels.length ? table(caption, [["Za sztukę", "num"], ["Sztuk", "num depth"], [cls === "buy" ? "Zleceń" : "Ofert", "num"]],
      levels.map((l) => {
        const bar = el("span", { class: "bar", "aria-hidden": "true" });
        bar.style.width = (100 * l.amount / most).toFixed(1) + "%";
        return el("tr", { "data-price": l.unitPrice },
          el("td", { class: "num price", text: money(l.unitPrice) }),
          el("td", { class: "num depth" }, bar, el("span", { text: number(l.amount) })),
          el("td", { class: "num", title: counted(l[count], noun), text: number(l[count]) }));
      }), "book " + cls) : el("p", { class: "empty", text: none }));
}

// orderTable is a table of open buy orders: the item (a link to its page
// and book), the unit price, how much of it is bought, the buyer unless
// one buyer's orders are shown, and when it expires.
export function orderTable(caption, orders, { buyer = true } = {}) {
  const now = Date.now();
  const columns = [["Przedmiot", "item"], buyer && ["Kupujący", "buyer"], ["Za sztukę", "num price"], ["Kupione", "num"], ["Wygasa", "num expires"]].filter(Boolean);
  return table(caption, columns, orders.map((o) => el("tr", { "data-order": o.id },
    el("td", { class: "item" }, link("/item/" + o.material, number(o.amount) + "× " + o.name)),
    buyer && el("td", { class: "buyer" }, playerLink({ uuid: o.buyer, name: o.buyerName })),
    el("td", { class: "num price", text: money(o.unitPrice) }),
    el("td", { class: "num filled", text: number(o.filled) + " z " + number(o.amount) }),
    el("td", { class: "num expires", text: ago(o.expiresAt, now) }))), "orders");
}

// An item: its price over 24 h, 7 d or 30 d (median line, min–max band,
// volume bars), the week's price summary, its order book (the buy orders'
// prices against the plain stacks on sale, with their depth) and its open
// buy orders, the cheapest fixed-price listings by unit price and, beside
// them, its auctions ending soonest, their countdowns ticking, all
// following the market live.

import { api, query } from "../api.js";
import { el, link, section, figures, status } from "../dom.js";
import { subscribe, seen } from "../live.js";
import { counted, number, money, moneyValue, NOUNS } from "../polish.js";
import { listingTable, markGone, goneText, goneListingId, paged, showBid, countdowns } from "../parts.js";
import { chartBox, priceChart, priceTable, reserve } from "../chart.js";
import { bookView, orderTable } from "../orders.js";
import { missingPage } from "./missing.js";

const PAGE = 10;
// SPANS are the chart's spans: the API's name, the button's, and "in the
// last …" for a span without sales.
const SPANS = [["24h", "24 godziny", "w ostatnich 24 godzinach"], ["7d", "7 dni", "w ostatnich 7 dniach"], ["30d", "30 dni", "w ostatnich 30 dniach"]];

export async function itemPage(ctx, material) {
  let summary;
  try {
    summary = await api("/api/price-summary/" + encodeURIComponent(material), ctx.signal);
  } catch (err) {
    if (err.code === "item-not-found") return missingPage(ctx, "Nie ma takiego przedmiotu", "Katalog rynku nie zna przedmiotu „" + material + "”.");
    throw err;
  }
  material = summary.material;
  let span = SPANS.some(([s]) => s === ctx.search.get("span")) ? ctx.search.get("span") : "7d";
  ctx.title(summary.name);

  const summaryBox = el("div");
  const spanButtons = SPANS.map(([s, label]) => el("button", { type: "button", text: label, "aria-pressed": String(s === span), onclick: () => choose(s) }));
  // (Figures and the chart hold their room from the start: see reserve.)
  const spanFigures = el("div", {}, spanRow(["—", "—", "—", "—", "—"]));
  const box = chartBox("Wykres ceny za sztukę: " + summary.name);
  const data = el("details", { class: "data" }, el("summary", { text: "Dane wykresu" }));
  const listings = el("div");
  const listingsNote = status("");
  const pagerSlot = el("div");
  const auctions = el("div");
  const auctionsNote = status("");
  const auctionsPager = el("div");
  const book = el("div", { class: "order-book" });
  const orders = el("div"), ordersNote = status(""), ordersPager = el("div");
  ctx.main.replaceChildren(
    el("nav", { class: "crumbs", "aria-label": "Ścieżka" }, link("/", "Oferty"), " › ", el("span", { text: summary.name })),
    el("h1", { tabindex: "-1", text: summary.name }),
    el("p", { class: "muted", text: material }),
    el("div", { class: "item-page" },
      section("Cena w ostatnim tygodniu", summaryBox),
      el("section", { class: "wide", "aria-labelledby": "chart-title" },
        el("div", { class: "chart-head" }, el("h2", { id: "chart-title", text: "Cena i obrót" }),
          el("div", { class: "spans", role: "group", "aria-label": "Okres wykresu" }, spanButtons)),
        spanFigures, box, data),
      el("section", { class: "wide", "aria-labelledby": "book-title" },
        el("h2", { id: "book-title", text: "Arkusz zleceń: kupno i sprzedaż" }), book),
      el("section", { class: "wide", "aria-labelledby": "orders-title" },
        el("h2", { id: "orders-title", text: "Zlecenia kupna (od najwyższej ceny)" }), ordersNote, orders, ordersPager),
      el("section", { "aria-labelledby": "cheapest-title" },
        el("h2", { id: "cheapest-title", text: "Najtańsze oferty (za sztukę)" }), listingsNote, listings, pagerSlot),
      el("section", { "aria-labelledby": "auctions-title" },
        el("h2", { id: "auctions-title", text: "Licytacje (kończące się najwcześniej)" }), auctionsNote, auctions, auctionsPager)));

  reserve(box, "price");
  let stopChart = null;
  ctx.onLeave(() => stopChart?.());

  function showSummary(s) {
    summaryBox.replaceChildren(figures([
      ["Sprzedaże (7 dni)", number(s.sales)],
      ["Najniższa za sztukę", s.min ? money(s.min) : "brak sprzedaży"],
      ["Mediana za sztukę", s.median ? money(s.median) : "brak sprzedaży"],
      ["Najwyższa za sztukę", s.max ? money(s.max) : "brak sprzedaży"],
      ["Najtańsza oferta", s.cheapest ? link("/listing/" + s.cheapest.id, money(s.cheapest.unitPrice) + " za sztukę") : "brak ofert"],
    ]));
  }

  async function loadSummary() {
    const s = await api("/api/price-summary/" + material, ctx.signal);
    seen(s.version);
    summary = s;
    showSummary(s);
  }

  async function loadChart() {
    const h = await api("/api/price-history/" + material + query({ span }), ctx.signal);
    seen(h.version);
    const sold = h.buckets.filter((b) => b.count > 0);
    const total = (f) => sold.reduce((a, b) => a + f(b), 0);
    const label = SPANS.find(([s]) => s === span)[1];
    spanFigures.replaceChildren(spanRow([
      counted(total((b) => b.count), NOUNS.transaction),
      counted(total((b) => b.amount), NOUNS.piece),
      moneyValue(total((b) => Number(b.volume))),
      sold.length ? moneyValue(Math.min(...sold.map((b) => Number(b.min)))) : "—",
      sold.length ? moneyValue(Math.max(...sold.map((b) => Number(b.max)))) : "—",
    ]));
    box.setAttribute("aria-label", "Wykres ceny za sztukę i obrotu, " + label + ": " + summary.name +
      (sold.length ? "; szczegóły w tabeli pod wykresem" : "; brak sprzedaży w tym okresie"));
    stopChart?.();
    stopChart = null;
    stopChart = await priceChart(box, h, "Nikt nie kupił tego przedmiotu " + SPANS.find(([s]) => s === span)[2] + ".");
    box.dataset.drawn = span;
    data.replaceChildren(el("summary", { text: "Dane wykresu (" + label + ")" }),
      sold.length ? priceTable(h) : el("p", { text: "Brak sprzedaży w tym okresie." }));
  }

  async function loadBook() {
    const b = await api("/api/order-book/" + material, ctx.signal);
    seen(b.version);
    book.replaceChildren(bookView(b, summary.cheapest));
  }

  function choose(s) {
    span = s;
    spanButtons.forEach((b, i) => b.setAttribute("aria-pressed", String(SPANS[i][0] === s)));
    history.replaceState(null, "", location.pathname + query({ span: s === "7d" ? "" : s }));
    loadChart().catch(() => {});
  }

  // The cheapest fixed-price listings and the auctions, each paged by
  // cursor within the page.
  const listingPages = paged(pagerSlot, "Strony ofert", PAGE, async (cursor) => {
    const page = await api("/api/listings" + query({ material, kind: "fixed", sort: "unit_price", limit: PAGE, cursor }), ctx.signal);
    seen(page.version);
    listingsNote.textContent = counted(page.total, NOUNS.active) + " po stałej cenie";
    listings.replaceChildren(page.items.length ? listingTable("Najtańsze oferty", page.items, "by-unit") : el("p", { class: "empty", text: "Nikt teraz nie sprzedaje tego przedmiotu po stałej cenie." }));
    return page;
  });
  const auctionPages = paged(auctionsPager, "Strony licytacji", PAGE, async (cursor) => {
    const page = await api("/api/listings" + query({ material, kind: "auction", sort: "ending", limit: PAGE, cursor }), ctx.signal);
    seen(page.version);
    auctionsNote.textContent = page.total ? counted(page.total, NOUNS.auction) : ""; // none: the empty list says so
    auctions.replaceChildren(page.items.length ? listingTable("Licytacje", page.items, "auctions") : el("p", { class: "empty", text: "Nikt teraz nie licytuje tego przedmiotu." }));
    return page;
  });
  const orderPages = paged(ordersPager, "Strony zleceń kupna", PAGE, async (cursor) => {
    const page = await api("/api/orders" + query({ material, limit: PAGE, cursor }), ctx.signal);
    seen(page.version);
    ordersNote.textContent = page.total ? counted(page.total, NOUNS.openOrder) : "";
    orders.replaceChildren(page.items.length ? orderTable("Zlecenia kupna", page.items) : el("p", { class: "empty", text: "Nikt nie składa teraz zleceń kupna tego przedmiotu." }));
    return page;
  });
  ctx.onLeave(countdowns(auctions));

  const soon = new Set();
  let timer = null;
  const later = (fn) => { soon.add(fn); timer ??= setTimeout(() => { timer = null; for (const f of soon) f().catch(() => {}); soon.clear(); }, 800); };
  ctx.onLeave(() => clearTimeout(timer));
  ctx.onLeave(subscribe((e) => {
    if (e.event === "reset") { loadSummary(); loadChart(); loadBook(); orderPages.first(); listingPages.first(); auctionPages.first(); return; }
    // A buy order placed, filled or closed moves the book's buy side.
    if (e.order) {
      if (e.order.material === material) { later(loadBook); later(orderPages.again); }
      return;
    }
    // An auction's end names only its listing: its row, if shown, says it.
    if (e.event === "AuctionEndedEvent") {
      if (markGone(auctions, goneListingId(e), goneText(e))) later(auctionPages.again);
      return;
    }
    const mat = (e.listing || e.transaction).item.material;
    if (mat !== material) return;
    if (e.event === "BidPlacedEvent") {
      const ends = auctions.querySelector('tr[data-id="' + e.listing.id + '"] td[data-ends]')?.dataset.ends;
      if (showBid(auctions, e.listing) && ends !== e.listing.expiresAt) later(auctionPages.again); // a late bid moved its end, and its place
      return;
    }
    if (e.event !== "ListingCreatedEvent") { markGone(listings, goneListingId(e), goneText(e)); markGone(auctions, goneListingId(e), goneText(e)); }
    if (e.event === "TransactionCompletedEvent") later(loadChart);
    later(loadBook); // the sell side: a listing came, went or sold part of its stack
    later(loadSummary);
    later(listingPages.again);
    later(auctionPages.again);
  }, { auctions: true, orders: true }));

  showSummary(summary);
  await Promise.all([loadChart(), loadBook(), orderPages.first(), listingPages.first(), auctionPages.first()]);
}

// spanRow is the figures of the span the chart shows, in a row.
function spanRow(values) {
  return figures(["Sprzedaże", "Sprzedane", "Obrót", "Najniższa za sztukę", "Najwyższa za sztukę"].map((k, i) => [k, values[i]]), "row");
}

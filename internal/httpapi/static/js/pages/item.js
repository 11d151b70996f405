// An item: its price over 24 h, 7 d or 30 d (median line, min–max band,
// volume bars), the week's price summary and the cheapest listings by unit
// price, all following the market live.

import { api, query } from "../api.js";
import { el, link, section, figures, status } from "../dom.js";
import { subscribe, seen } from "../live.js";
import { counted, number, money, moneyValue, NOUNS } from "../polish.js";
import { listingTable, markGone, goneText, eventListingId, paged } from "../parts.js";
import { chartBox, priceChart, priceTable } from "../chart.js";
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
  const spanFigures = el("div");
  const box = chartBox("Wykres ceny za sztukę: " + summary.name);
  const data = el("details", { class: "data" }, el("summary", { text: "Dane wykresu" }));
  const listings = el("div");
  const listingsNote = status("");
  const pagerSlot = el("div");
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
      el("section", { class: "wide", "aria-labelledby": "cheapest-title" },
        el("h2", { id: "cheapest-title", text: "Najtańsze oferty (za sztukę)" }), listingsNote, listings, pagerSlot)));

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
    showSummary(s);
  }

  async function loadChart() {
    const h = await api("/api/price-history/" + material + query({ span }), ctx.signal);
    seen(h.version);
    const sold = h.buckets.filter((b) => b.count > 0);
    const total = (f) => sold.reduce((a, b) => a + f(b), 0);
    const label = SPANS.find(([s]) => s === span)[1];
    spanFigures.replaceChildren(figures([
      ["Sprzedaże", counted(total((b) => b.count), NOUNS.transaction)],
      ["Sprzedane", counted(total((b) => b.amount), NOUNS.piece)],
      ["Obrót", moneyValue(total((b) => Number(b.volume)))],
      ["Najniższa za sztukę", sold.length ? moneyValue(Math.min(...sold.map((b) => Number(b.min)))) : "—"],
      ["Najwyższa za sztukę", sold.length ? moneyValue(Math.max(...sold.map((b) => Number(b.max)))) : "—"],
    ], "row"));
    box.setAttribute("aria-label", "Wykres ceny za sztukę i obrotu, " + label + ": " + summary.name +
      (sold.length ? "; szczegóły w tabeli pod wykresem" : "; brak sprzedaży w tym okresie"));
    stopChart?.();
    stopChart = null;
    stopChart = await priceChart(box, h, "Nikt nie kupił tego przedmiotu " + SPANS.find(([s]) => s === span)[2] + ".");
    box.dataset.drawn = span;
    data.replaceChildren(el("summary", { text: "Dane wykresu (" + label + ")" }),
      sold.length ? priceTable(h) : el("p", { text: "Brak sprzedaży w tym okresie." }));
  }

  function choose(s) {
    span = s;
    spanButtons.forEach((b, i) => b.setAttribute("aria-pressed", String(SPANS[i][0] === s)));
    history.replaceState(null, "", location.pathname + query({ span: s === "7d" ? "" : s }));
    loadChart().catch(() => {});
  }

  // The cheapest listings, paged by cursor within the page.
  const listingPages = paged(pagerSlot, "Strony ofert", PAGE, async (cursor) => {
    const page = await api("/api/listings" + query({ material, sort: "unit_price", limit: PAGE, cursor }), ctx.signal);
    seen(page.version);
    listingsNote.textContent = counted(page.total, NOUNS.active);
    listings.replaceChildren(page.items.length ? listingTable("Najtańsze oferty", page.items, "by-unit") : el("p", { class: "empty", text: "Nikt teraz nie sprzedaje tego przedmiotu." }));
    return page;
  });

  const soon = new Set();
  let timer = null;
  const later = (fn) => { soon.add(fn); timer ??= setTimeout(() => { timer = null; for (const f of soon) f().catch(() => {}); soon.clear(); }, 800); };
  ctx.onLeave(() => clearTimeout(timer));
  ctx.onLeave(subscribe((e) => {
    if (e.event === "reset") { loadSummary(); loadChart(); listingPages.first(); return; }
    const mat = (e.listing || e.transaction).item.material;
    if (mat !== material) return;
    if (e.event !== "ListingCreatedEvent") markGone(listings, eventListingId(e), goneText(e));
    if (e.event === "TransactionCompletedEvent") later(loadChart);
    later(loadSummary);
    later(listingPages.again);
  }));

  showSummary(summary);
  await Promise.all([loadChart(), listingPages.first()]);
}

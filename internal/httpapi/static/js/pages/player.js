// A player's public profile: name, rating, counts, their listings on the
// market, their open buy orders and their sales and purchases, each paged,
// following the market live. Never a balance, an inventory or mail: the API has none of them.

import { api, query } from "../api.js";
import { el, link, section, figures, table, status } from "../dom.js";
import { subscribe, seen } from "../live.js";
import { counted, number, money, rating, NOUNS, plain } from "../polish.js";
import { listingTable, markGone, goneText, goneListingId, txRow, paged, showBid, countdowns } from "../parts.js";
import { orderTable } from "../orders.js";
import { missingPage } from "./missing.js";

const PAGE = 10;

export async function playerPage(ctx, uuid) {
  let p;
  try {
    p = await api("/api/players/" + uuid, ctx.signal);
  } catch (err) {
    if (err.code === "player-not-found") return missingPage(ctx, "Nie ma takiego gracza", "Rynek nie zna gracza " + uuid + ".");
    throw err;
  }
  uuid = p.uuid;
  seen(p.version);
  const name = plain(p.name);
  ctx.title(name);

  const profile = el("div");
  const listings = el("div"), listingsNote = status(""), listingsPager = el("div");
  const orders = el("div"), ordersNote = status(""), ordersPager = el("div");
  const history = el("div"), historyNote = status(""), historyPager = el("div");
  ctx.main.replaceChildren(
    el("nav", { class: "crumbs", "aria-label": "Ścieżka" }, link("/", "Oferty"), " › ", el("span", { text: "Gracze" })),
    el("h1", { tabindex: "-1", text: name }),
    el("div", { class: "player-page loading" },
      section("Profil", profile),
      el("section", { class: "wide", "aria-labelledby": "p-listings" }, el("h2", { id: "p-listings", text: "Oferty na rynku" }), listingsNote, listings, listingsPager),
      el("section", { class: "wide", "aria-labelledby": "p-orders" }, el("h2", { id: "p-orders", text: "Zlecenia kupna" }), ordersNote, orders, ordersPager),
      el("section", { class: "wide", "aria-labelledby": "p-history" }, el("h2", { id: "p-history", text: "Sprzedaże i zakupy" }), historyNote, history, historyPager)));

  function showProfile(p) {
    profile.replaceChildren(figures([
      ["Ocena", p.rating === null ? "brak ocen" : el("span", {}, el("span", { class: "stars", "aria-hidden": "true", text: stars(p.rating) + " " }),
        rating(p.rating) + " z 5 (" + counted(p.ratings, NOUNS.rating) + ")")],
      ["Aktywne oferty", number(p.activeListings)],
      ["Sprzedaże", number(p.sales)],
      ["Zakupy", number(p.purchases)],
      ["Zarobione", money(p.earned)],
    ]));
  }

  async function loadProfile() {
    const q = await api("/api/players/" + uuid, ctx.signal);
    seen(q.version);
    showProfile(q);
  }

  const listingPages = paged(listingsPager, "Strony ofert gracza", PAGE, async (cursor) => {
    const page = await api("/api/listings" + query({ seller: uuid, limit: PAGE, cursor }), ctx.signal);
    seen(page.version);
    listingsNote.textContent = counted(page.total, NOUNS.active);
    listings.replaceChildren(page.items.length ? listingTable("Oferty gracza " + name, page.items)
      : el("p", { class: "empty", text: name + " nic teraz nie sprzedaje." }));
    return page;
  });
  const orderPages = paged(ordersPager, "Strony zleceń kupna gracza", PAGE, async (cursor) => {
    const page = await api("/api/orders" + query({ buyer: uuid, limit: PAGE, cursor }), ctx.signal);
    seen(page.version);
    ordersNote.textContent = page.total ? counted(page.total, NOUNS.openOrder) : "";
    orders.replaceChildren(page.items.length ? orderTable("Zlecenia kupna gracza " + name, page.items, { buyer: false })
      : el("p", { class: "empty", text: name + " nie składa teraz zleceń kupna." }));
    return page;
  });
  const historyPages = paged(historyPager, "Strony historii gracza", PAGE, async (cursor) => {
    const page = await api("/api/history" + query({ player: uuid, limit: PAGE, cursor }), ctx.signal);
    seen(page.version);
    historyNote.textContent = counted(page.total, NOUNS.transaction);
    history.replaceChildren(page.items.length ? table("Sprzedaże i zakupy gracza " + name,
      [["Rodzaj", ""], ["Przedmiot", ""], ["Z kim", ""], ["Cena", "num"], ["Ocena", "num"], ["Kiedy", "num"]],
      page.items.map((t) => txRow(t, uuid)), "history") : el("p", { class: "empty", text: "Bez transakcji." }));
    return page;
  });

  let timer = null, ordersTimer = null;
  ctx.onLeave(() => { clearTimeout(timer); clearTimeout(ordersTimer); });
  ctx.onLeave(countdowns(listings));
  ctx.onLeave(subscribe((e) => {
    if (e.event === "reset") { loadProfile(); listingPages.first(); orderPages.first(); historyPages.first(); return; }
    // The player's buy orders: placed, filled (a purchase too) or closed.
    if (e.order) {
      if (e.order.buyer === uuid) ordersTimer ??= setTimeout(() => { ordersTimer = null; orderPages.again().catch(() => {}); }, 800);
      return;
    }
    // The player's auctions show their bids; an end names only its listing.
    if (e.event === "BidPlacedEvent") { showBid(listings, e.listing); return; }
    if (e.event === "AuctionEndedEvent") {
      if (markGone(listings, goneListingId(e), goneText(e))) timer ??= setTimeout(() => { timer = null; loadProfile().catch(() => {}); listingPages.again().catch(() => {}); }, 800);
      return;
    }
    const mine = e.listing ? e.listing.seller.uuid === uuid : e.transaction.seller.uuid === uuid || e.transaction.buyer.uuid === uuid;
    if (e.event !== "ListingCreatedEvent") markGone(listings, goneListingId(e), goneText(e));
    if (!mine) return;
    timer ??= setTimeout(() => {
      timer = null;
      loadProfile().catch(() => {});
      listingPages.again().catch(() => {});
      if (e.event === "TransactionCompletedEvent") historyPages.again().catch(() => {});
    }, 800);
  }, { auctions: true, orders: true }));

  showProfile(p);
  // The orders and the history stay out of the layout until the three
  // reads are in, so that the listings' arrival does not push them down in
  // sight (a layout shift of 0.085).
  try {
    await Promise.all([listingPages.first(), orderPages.first(), historyPages.first()]);
  } finally {
    ctx.main.querySelector(".player-page").classList.remove("loading");
  }
}

// stars draws a rating to the nearest half star as whole and empty stars.
function stars(r) {
  const full = Math.round(r);
  return "★".repeat(full) + "☆".repeat(5 - full);
}

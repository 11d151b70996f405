// A listing: the whole item (enchantments, lore, stack), seller, price and
// unit price, when it was listed and a live countdown to its expiry; the
// item's week of prices beside it. An auction also shows its bidding (the
// current bid, its leader, the least next bid, buy-now) and its bids, which
// follow the market live. When the listing goes while the page is open the
// page says how (sold, to whom; won; withdrawn; removed; expired), and a
// listing already gone gets a page that says so.

import { api, categories } from "../api.js";
import { el, link, section, figures } from "../dom.js";
import { subscribe, seen } from "../live.js";
import { money, dateTime, ago, duration, plain, level, reason, number, counted, NOUNS } from "../polish.js";
import { itemText, playerLink, auctionMark } from "../parts.js";
import { missingPage } from "./missing.js";

export async function listingPage(ctx, id) {
  let l;
  try {
    l = await api("/api/listings/" + id, ctx.signal);
  } catch (err) {
    if (err.code !== "listing-not-found") throw err;
    if (!err.gone) return missingPage(ctx, "Nie ma takiej oferty", "Na rynku nigdy nie było oferty #" + id + ".");
    return gonePage(ctx, id, err.gone);
  }
  seen(l.version || 0);
  ctx.title(itemText(l.item) + " — oferta #" + l.id);
  const names = await categories().then((c) => new Map(c.items.map((x) => [x.name, x.displayName]))).catch(() => new Map());

  const countdown = el("span", { class: "countdown" });
  const state = el("p", { class: "state", role: "status" });
  const market = el("div");
  const bidding = el("div");
  const bids = el("ol", { class: "bids" });
  const price = el("strong", { class: "price big", text: money(l.price) });
  const it = l.item;
  const auction = l.kind === "auction";
  const heading = el("h1", { tabindex: "-1", class: it.enchanted ? "ench" : "", text: itemText(it) });
  const pieces = el("span", { text: counted(it.amount, NOUNS.piece) });
  ctx.main.replaceChildren(
    el("nav", { class: "crumbs", "aria-label": "Ścieżka" }, link("/", "Oferty"), " › ", link("/item/" + it.material, plain(it.name)), " › ", el("span", { text: "#" + l.id })),
    heading,
    state,
    el("div", { class: "listing-page" },
      section("Oferta", figures([
        [auction ? "Aktualna cena" : "Cena", price],
        it.amount > 1 && ["Za sztukę", money(l.unitPrice)],
        ["Sprzedawca", playerLink(l.seller)],
        ["Rodzaj", auction ? auctionMark() : "stała cena"],
        ["Wystawiona", el("span", {}, dateTime(l.createdAt), el("span", { class: "muted", text: " (" + ago(l.createdAt) + ")" }))],
        [auction ? "Kończy się" : "Wygasa", el("span", {}, el("span", { class: "ends", text: dateTime(l.expiresAt) }), el("br"), countdown)],
        ["Numer oferty", "#" + l.id],
      ])),
      section("Przedmiot", figures([
        ["Przedmiot", link("/item/" + it.material, plain(it.name === it.material ? it.material : it.name))],
        ["Materiał", it.material],
        ["Stos", pieces],
        ["Kategorie", l.categories.filter((c) => c !== "ALL").map((c) => names.get(c) || c).join(", ") || "—"],
      ]),
      it.enchantments.length ? el("div", {}, el("h3", { text: "Zaklęcia" }),
        el("ul", { class: "enchantments" }, it.enchantments.map((e) => el("li", { class: "ench", text: plain(e.name) + " " + level(e.level) })))) : "",
      it.lore.length ? el("div", {}, el("h3", { text: "Opis" }),
        el("ul", { class: "lore" }, it.lore.map((line) => el("li", { text: plain(line) })))) : "",
      el("p", { class: "muted small stack", text: "Identyfikator stosu: " + it.stackId })),
      auction ? section("Licytacja", bidding, el("h3", { text: "Ostatnie oferty" }), bids) : "",
      section("Ceny tego przedmiotu", market)));

  // An auction's bidding as the listing l says, and its newest bids.
  function showBidding(x) {
    const a = x.auction;
    price.textContent = money(x.price);
    bidding.replaceChildren(figures([
      ["Aktualna oferta", a.currentBid ? money(a.currentBid) : "brak — cena wywoławcza " + money(a.startingBid)],
      ["Prowadzi", a.leader ? playerLink(a.leader) : "nikt"],
      ["Najniższa następna oferta", money(a.minimumBid)],
      ["Złożone oferty", number(a.bids)],
      a.buyNow && ["Kup teraz", money(a.buyNow)],
    ]));
  }
  const bidLine = (b) => el("li", {}, el("strong", { class: "price", text: money(b.amount) }), " — ", playerLink(b.bidder),
    el("span", { class: "muted", text: " · " + dateTime(b.at) }));
  if (auction) {
    showBidding(l);
    const page = await api("/api/listings/" + l.id + "/bids?limit=20", ctx.signal).catch(() => null);
    bids.replaceChildren(...(page && page.items.length ? page.items.map(bidLine) : [el("li", { class: "muted", text: "Nikt jeszcze nie licytował." })]));
  }

  if (l.reserved) state.textContent = "Ktoś właśnie ją kupuje.";

  // The countdown, every second; at zero the listing has expired (the timer
  // takes it off the market without an event).
  let expires = Date.parse(l.expiresAt);
  let over = false;
  const tickDown = () => {
    const left = expires - Date.now();
    if (left <= 0 && auction) {
      countdown.textContent = "zakończona";
      if (!over) { over = true; state.textContent = "Licytacja dobiegła końca; trwa rozliczenie."; }
      return;
    }
    if (left <= 0) {
      countdown.textContent = "wygasła";
      if (!over) { over = true; end("Oferta wygasła " + dateTime(l.expiresAt) + " i wróciła do sprzedawcy."); }
      return;
    }
    countdown.textContent = "za " + duration(left);
  };
  tickDown();
  const timer = setInterval(tickDown, 1000);
  ctx.onLeave(() => clearInterval(timer));

  function end(text, extra) {
    clearInterval(timer);
    ctx.main.querySelector(".listing-page").classList.add("ended");
    state.className = "state ended";
    state.replaceChildren(el("strong", { text }), extra || "");
  }

  ctx.onLeave(subscribe((e) => {
    if (e.event === "TransactionCompletedEvent" && e.transaction.listingId === l.id && e.listingLeft) {
      // A buy order bought part of the stack: the rest stays on sale, at
      // the rest of the price.
      const t = e.transaction;
      l = { ...l, price: (Number(l.price) - Number(t.price)).toFixed(2), item: { ...l.item, amount: e.listingLeft } };
      price.textContent = money(l.price);
      heading.textContent = itemText(l.item);
      pieces.textContent = counted(l.item.amount, NOUNS.piece);
      state.replaceChildren(playerLink(t.buyer), " kupuje ze zlecenia kupna " + counted(t.item.amount, NOUNS.piece) + " za " + money(t.price) +
        "; w ofercie zostaje " + counted(l.item.amount, NOUNS.piece) + ".");
    } else if (e.event === "TransactionCompletedEvent" && e.transaction.listingId === l.id) {
      const t = e.transaction;
      end("Sprzedana " + dateTime(t.updatedAt) + " za " + money(t.price) + ".", el("span", {}, " Kupił(a): ", playerLink(t.buyer), "."));
    } else if (e.event === "ListingRemovedEvent" && e.listing.id === l.id) {
      end("Oferta " + reason(e.reason) + " " + dateTime(e.at) + ".");
    } else if (e.event === "BidPlacedEvent" && e.listing.id === l.id) {
      showBidding(e.listing);
      if (bids.querySelector("li.muted")) bids.replaceChildren();
      bids.prepend(bidLine({ bidder: e.bid.bidder, amount: e.bid.amount, at: e.at }));
      expires = Date.parse(e.listing.expiresAt); // a late bid moves the end
      ctx.main.querySelector(".ends").textContent = dateTime(e.listing.expiresAt);
      tickDown();
    } else if (e.event === "AuctionEndedEvent" && e.ended.listingId === l.id) {
      const x = e.ended;
      if (x.winner) end("Licytacja wygrana " + dateTime(e.at) + " za " + money(x.price) + ".", el("span", {}, " Wygrał(a): ", playerLink(x.winner), "."));
      else end("Licytacja zakończona " + dateTime(e.at) + " bez ofert; przedmiot wrócił do sprzedawcy.");
    }
  }, { auctions: true }));

  const s = await api("/api/price-summary/" + it.material, ctx.signal).catch(() => null);
  if (!s) return;
  const rows = [["Sprzedaże (7 dni)", number(s.sales)], ["Mediana za sztukę", s.median ? money(s.median) : "brak sprzedaży"]];
  if (s.median) {
    const diff = (Number(l.unitPrice) - Number(s.median)) / Number(s.median);
    rows.push(["Ta oferta", Math.abs(diff) < 0.005 ? "po medianie" :
      new Intl.NumberFormat("pl-PL", { style: "percent", maximumFractionDigits: 0 }).format(Math.abs(diff)) + (diff < 0 ? " taniej niż mediana" : " drożej niż mediana")]);
  }
  if (s.cheapest && s.cheapest.id !== l.id) rows.push(["Najtańsza oferta", link("/listing/" + s.cheapest.id, money(s.cheapest.unitPrice) + " za sztukę")]);
  market.replaceChildren(figures(rows), el("p", { class: "more" }, link("/item/" + it.material, "Wykres ceny ›")));
}

// gonePage is a listing no longer on the market, and how it went, as the
// API says (its 404's "gone"): sold, to whom and for how much; won at
// auction; an auction without bids; withdrawn; removed or expired by an
// admin; expired. A listing gone before the server heard how says what
// it could have been.
function gonePage(ctx, id, gone) {
  ctx.title("Oferta #" + id + " zniknęła");
  const when = gone.at ? " " + dateTime(gone.at) : "";
  const buyer = gone.buyer ? [playerLink(gone.buyer), "."] : ["."];
  const how = {
    sold: () => ["Sprzedana" + when + " za " + money(gone.price) + ". Kupił(a): ", ...buyer],
    won: () => ["Licytacja wygrana" + when + " za " + money(gone.price) + ". Wygrał(a): ", ...buyer],
    unsold: () => ["Licytacja zakończona" + when + " bez ofert; przedmiot wrócił do sprzedawcy."],
    expired: () => ["Oferta wygasła" + when + " i wróciła do sprzedawcy."],
    removed: () => ["Oferta " + reason("removed") + when + "."],
    "admin-removed": () => ["Oferta " + reason("admin-removed") + when + "."],
    "force-expire": () => ["Oferta " + reason("force-expire") + when + "."],
  }[gone.how];
  ctx.main.replaceChildren(
    el("nav", { class: "crumbs", "aria-label": "Ścieżka" }, link("/", "Oferty"), " › ", el("span", { text: "#" + id })),
    el("h1", { tabindex: "-1", text: "Oferty #" + id + " nie ma już na rynku" }),
    el("p", { class: "state ended" }, ...(how ? how() :
      ["Została sprzedana, wycofana przez sprzedawcę, usunięta przez administratora albo wygasła, zanim serwer rynku to zapisał."])),
    el("p", {}, link("/", "Zobacz oferty na rynku ›")));
}

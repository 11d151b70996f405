// Pieces more than one page shows: a listing's row, a transaction's row,
// the live feed's line, a pager.

import { el, link, table } from "./dom.js";
import { money, ago, plain, level, reason, number, counted, left, NOUNS } from "./polish.js";

// itemText names a stack: "64× Oak Log" (the display name when it has one).
export function itemText(item) {
  return (item.amount > 1 ? number(item.amount) + "× " : "") + plain(item.name);
}

export function itemLabel(item) {
  const label = [el("span", { class: item.enchanted ? "ench" : "", text: itemText(item) })];
  if (item.enchanted) {
    const names = item.enchantments.map((e) => plain(e.name) + " " + level(e.level)).join(", ");
    label.push(el("span", { class: "muted small", text: " ✦ " + names }));
  }
  return label;
}

export function playerLink(p) {
  const a = link("/player/" + p.uuid, plain(p.name));
  a.className = "player"; // (a name breaks only where it must: site.css)
  return a;
}

// listingRow is a listing in a table of listings: its item (a link to the
// listing), seller, price, unit price and expiry. An auction's row is
// marked as one and shows its bidding (auctionCells): the price is its
// current bid (its starting bid before the first), and its end ticks down
// (countdowns).
export function listingRow(l, now = Date.now()) {
  const tr = el("tr", { "data-id": l.id },
    el("td", { class: "item" }, link("/listing/" + l.id, ...itemLabel(l.item))),
    el("td", { class: "seller" }, playerLink(l.seller)),
    el("td", { class: "num price", text: money(l.price) }),
    el("td", { class: "num unit", text: l.item.amount > 1 ? money(l.unitPrice) : "" }),
    el("td", { class: "num expires", text: ago(l.expiresAt, now) }));
  if (l.reserved) tr.classList.add("reserved");
  if (l.auction) auctionCells(tr, l, now);
  return tr;
}

// auctionMark is the mark an auction carries wherever a listing is shown:
// the console's ⚑ (hidden from screen readers, which read the word) and
// the word.
export function auctionMark() {
  return el("span", { class: "mark" }, el("span", { "aria-hidden": "true", text: "⚑ " }), "licytacja");
}

// auctionCells draws an auction's bidding into its row: the mark and the
// leader beside the item, the current bid with the count of bids ("brak
// ofert" before the first) and the buy-now price, and the end to count
// down to.
function auctionCells(tr, l, now) {
  const a = l.auction;
  tr.classList.add("auction");
  const item = tr.querySelector("td.item");
  for (const old of item.querySelectorAll(".mark, .leader")) old.remove();
  item.append(auctionMark());
  if (a.leader) item.append(el("span", { class: "leader muted small" }, "prowadzi ", playerLink(a.leader)));
  tr.querySelector("td.price").replaceChildren(money(l.price),
    el("span", { class: "bids muted small", text: a.bids ? counted(a.bids, NOUNS.bid) : "brak ofert" }),
    a.buyNow ? el("span", { class: "buy-now muted small", text: "kup teraz " + money(a.buyNow) }) : "");
  tr.querySelector("td.unit").textContent = l.item.amount > 1 ? money(l.unitPrice) : "";
  const ends = tr.querySelector("td.expires");
  ends.dataset.ends = l.expiresAt;
  ends.textContent = left(Date.parse(l.expiresAt) - now);
}

// fresh holds the timers that take a bid's highlight off its row.
const fresh = new WeakMap();

// showBid redraws an auction's row in root after a bid (the listing as the
// BidPlacedEvent carries it: the new bid, its leader, the end a late bid
// moved) and lights it up a moment; false when root does not show it.
export function showBid(root, l) {
  const tr = root.querySelector('tr[data-id="' + l.id + '"]');
  if (!tr || tr.classList.contains("gone")) return false;
  auctionCells(tr, l, Date.now());
  tr.classList.add("fresh");
  clearTimeout(fresh.get(tr));
  fresh.set(tr, setTimeout(() => tr.classList.remove("fresh"), 2000));
  return true;
}

// listingTable is a table of listings; cls adds a class to it ("by-unit":
// listed by unit price, which a phone then shows too). A table of auctions
// only ("auctions") heads its columns for them and keeps their countdowns
// in sight on a phone.
export function listingTable(caption, listings, cls) {
  const now = Date.now();
  const auctions = (cls || "").split(" ").includes("auctions");
  return table(caption, [["Przedmiot", "item"], ["Sprzedawca", "seller"], [auctions ? "Aktualna oferta" : "Cena", "num price"], ["Za sztukę", "num unit"],
    [auctions ? "Do końca" : "Wygasa", "num expires"]], listings.map((l) => listingRow(l, now)), "listings " + (cls || ""));
}

// countdowns keeps the auctions' countdowns in root ticking every second
// (from the ends their rows hold: nothing is read again); it returns the
// stop.
export function countdowns(root) {
  const timer = setInterval(() => {
    const now = Date.now();
    for (const td of root.querySelectorAll("tr:not(.gone) td[data-ends]")) td.textContent = left(Date.parse(td.dataset.ends) - now);
  }, 1000);
  return () => clearInterval(timer);
}

// markGone marks a listing's row as gone (sold, withdrawn, an auction
// ended) and takes it out a moment later, so that the eye sees what
// happened. A row marked already gets the newer word: an auction's sale
// (TransactionCompletedEvent) is followed by its end, which names the
// winner.
export function markGone(root, id, text) {
  const tr = root.querySelector('tr[data-id="' + id + '"]');
  if (!tr) return false;
  if (tr.classList.contains("gone")) {
    tr.querySelector("td.item .badge").textContent = text;
    return false;
  }
  tr.classList.add("gone");
  tr.querySelector("td.item").append(el("span", { class: "badge", text }));
  setTimeout(() => tr.remove(), 4000);
  return true;
}

// goneText is what became of a listing an event took off the market.
export function goneText(e) {
  if (e.event === "TransactionCompletedEvent") return "sprzedana";
  if (e.event === "AuctionEndedEvent") return e.ended.winner ? "wygrywa " + plain(e.ended.winner.name) : "zakończona bez ofert";
  return reason(e.reason);
}

// goneListingId is the listing an event (other than a new listing) takes
// off the market, 0 for none: a buy order's fill that buys part of a
// stack leaves the rest on sale (listingLeft, see live.js).
export function goneListingId(e) {
  if (e.listing) return e.listing.id;
  if (e.transaction) return e.listingLeft ? 0 : e.transaction.listingId;
  if (e.ended) return e.ended.listingId;
  return 0;
}

// feedLine is one event of the live feed, with links to what it names.
export function feedLine(e) {
  const at = new Date(e.at);
  const time = el("time", { dateTime: e.at, class: "muted small", text: at.toLocaleTimeString("pl-PL") + " " });
  if (e.event === "ListingCreatedEvent") {
    const l = e.listing;
    return el("li", { class: "new" }, time, playerLink(l.seller), " wystawia ", link("/listing/" + l.id, itemText(l.item)), " za " + money(l.price));
  }
  if (e.event === "ListingRemovedEvent") {
    const l = e.listing;
    return el("li", { class: "gone" }, time, link("/item/" + l.item.material, itemText(l.item)), " — oferta " + reason(e.reason));
  }
  if (e.event === "BidPlacedEvent") {
    return el("li", { class: "bid" }, time, playerLink(e.bid.bidder), " licytuje ", link("/listing/" + e.listing.id, "#" + e.listing.id), ": " + money(e.bid.amount));
  }
  if (e.event === "AuctionEndedEvent") {
    const x = e.ended, auction = link("/listing/" + x.listingId, "#" + x.listingId);
    if (!x.winner) return el("li", { class: "gone" }, time, "Licytacja ", auction, " zakończona bez ofert");
    return el("li", { class: "sale" }, time, "Licytacja ", auction, " zakończona: wygrywa ", playerLink(x.winner), " za " + money(x.price));
  }
  if (e.order) return orderLine(e, time);
  const t = e.transaction;
  if (t.buyOrder) return null; // a buy order's fill: its BuyOrderFilledEvent's line says it
  return el("li", { class: "sale" }, time, playerLink(t.buyer), " kupuje ", link("/item/" + t.item.material, itemText(t.item)),
    " od ", playerLink(t.seller), " za " + money(t.price));
}

// orderLine is a buy order's event in the feed: placed, filled (what the
// buyer bought, from whom, at what unit price), cancelled or expired with
// what it still wanted. Its close when filled has no line: the fill says it.
function orderLine(e, time) {
  const o = e.order, buyer = playerLink({ uuid: o.buyer, name: o.buyerName });
  const what = (n) => link("/item/" + o.material, itemText({ amount: n, name: o.name }));
  if (e.event === "BuyOrderPlacedEvent") return el("li", { class: "order" }, time, buyer, " chce kupić ", what(o.amount), " po " + money(o.unitPrice));
  if (e.event === "BuyOrderFilledEvent") {
    const f = e.fill;
    return el("li", { class: "sale fill" }, time, buyer, " kupuje ", what(f.amount), " od ", playerLink(f.seller), " po " + money(f.unitPrice));
  }
  if (e.reason === "cancelled") return el("li", { class: "gone" }, time, buyer, " wycofuje zlecenie kupna: ", what(o.amount - o.filled), " po " + money(o.unitPrice));
  if (e.reason === "expired") return el("li", { class: "gone" }, time, "Wygasa zlecenie kupna gracza ", buyer, ": ", what(o.amount - o.filled), " po " + money(o.unitPrice));
  return null;
}

// feed is a live list of events, newest first, at most max long.
export function feed(max) {
  const ul = el("ul", { class: "feed", "aria-live": "off" });
  return {
    node: ul,
    add(e) {
      const line = feedLine(e);
      if (!line) return;
      ul.prepend(line);
      while (ul.children.length > max) ul.lastChild.remove();
    },
  };
}

// txRow is a completed transaction as one player sees it: a sale or a
// purchase, the item, the other side, the price, when.
export function txRow(t, player) {
  const sold = t.seller.uuid === player;
  return el("tr", { "data-id": t.id },
    el("td", { text: sold ? "sprzedaż" : "zakup", class: sold ? "sold" : "bought" }),
    el("td", { class: "item" }, link("/item/" + t.item.material, ...itemLabel(t.item))),
    el("td", {}, playerLink(sold ? t.buyer : t.seller)),
    el("td", { class: "num", text: money(t.price) }),
    el("td", { class: "num", text: t.rating ? "★".repeat(t.rating) : "" }),
    el("td", { class: "num", text: ago(t.updatedAt) }));
}

// pager is the first/next page buttons of a paged list; pages holds the
// cursors of the pages before (for "previous").
export function pager(label, { hasPrevious, hasNext, first, previous, next, position }) {
  const nav = el("nav", { class: "pager", "aria-label": label });
  nav.append(
    el("button", { type: "button", text: "« Pierwsza", disabled: !hasPrevious, onclick: first }),
    el("button", { type: "button", text: "‹ Poprzednia", disabled: !hasPrevious, onclick: previous }),
    el("span", { class: "muted small", text: position }),
    el("button", { type: "button", text: "Następna ›", disabled: !hasNext, onclick: next }));
  return nav;
}

// paged runs a list read by cursor (read(cursor) draws a page and returns
// it) with a pager under it in slot; first() shows the first page, again()
// reads the page shown again when it is the first (later pages stay put).
export function paged(slot, label, size, read) {
  const before = [];
  let cursor = "";
  async function show() {
    const page = await read(cursor);
    const shown = before.length * size;
    slot.replaceChildren(page.total > size ? pager(label, {
      hasPrevious: before.length > 0, hasNext: !!page.nextCursor,
      position: number(shown + 1) + "–" + number(shown + page.items.length) + " z " + number(page.total),
      first: () => { before.length = 0; cursor = ""; show().catch(() => {}); },
      previous: () => { cursor = before.pop() || ""; show().catch(() => {}); },
      next: () => { before.push(cursor); cursor = page.nextCursor; show().catch(() => {}); },
    }) : "");
  }
  return {
    first() { before.length = 0; cursor = ""; return show(); },
    again() { return cursor ? Promise.resolve() : show(); },
  };
}

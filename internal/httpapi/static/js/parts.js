// Pieces more than one page shows: a listing's row, a transaction's row,
// the live feed's line, a pager.

import { el, link, table } from "./dom.js";
import { money, ago, plain, level, reason, number } from "./polish.js";

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

export function playerLink(p) { return link("/player/" + p.uuid, plain(p.name)); }

// listingRow is a listing in a table of listings: its item (a link to the
// listing), seller, price, unit price and expiry.
export function listingRow(l, now = Date.now()) {
  const tr = el("tr", { "data-id": l.id },
    el("td", { class: "item" }, link("/listing/" + l.id, ...itemLabel(l.item))),
    el("td", { class: "seller" }, playerLink(l.seller)),
    el("td", { class: "num price", text: money(l.price) }),
    el("td", { class: "num unit", text: l.item.amount > 1 ? money(l.unitPrice) : "" }),
    el("td", { class: "num expires", text: ago(l.expiresAt, now) }));
  if (l.reserved) tr.classList.add("reserved");
  return tr;
}

// listingTable is a table of listings; cls adds a class to it ("by-unit":
// listed by unit price, which a phone then shows too).
export function listingTable(caption, listings, cls) {
  const now = Date.now();
  return table(caption, [["Przedmiot", "item"], ["Sprzedawca", "seller"], ["Cena", "num price"], ["Za sztukę", "num unit"], ["Wygasa", "num expires"]],
    listings.map((l) => listingRow(l, now)), "listings " + (cls || ""));
}

// markGone marks a listing's row as gone (sold, withdrawn) and takes it out
// a moment later, so that the eye sees what happened.
export function markGone(root, id, text) {
  const tr = root.querySelector('tr[data-id="' + id + '"]');
  if (!tr || tr.classList.contains("gone")) return false;
  tr.classList.add("gone");
  tr.querySelector("td.item").append(el("span", { class: "badge", text }));
  setTimeout(() => tr.remove(), 4000);
  return true;
}

// goneText is what became of a listing an event took off the market.
export function goneText(e) {
  if (e.event === "TransactionCompletedEvent") return "sprzedana";
  return reason(e.reason);
}

// eventListingId is the listing an event is about.
export function eventListingId(e) {
  if (e.listing) return e.listing.id;
  if (e.transaction) return e.transaction.listingId;
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
  const t = e.transaction;
  return el("li", { class: "sale" }, time, playerLink(t.buyer), " kupuje ", link("/item/" + t.item.material, itemText(t.item)),
    " od ", playerLink(t.seller), " za " + money(t.price));
}

// feed is a live list of events, newest first, at most max long.
export function feed(max) {
  const ul = el("ul", { class: "feed", "aria-live": "off" });
  return {
    node: ul,
    add(e) {
      ul.prepend(feedLine(e));
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

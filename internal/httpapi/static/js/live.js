// The live market: one EventSource for the whole site, kept across page
// changes, and the header that shows it (connection, the count of active
// listings, the stream's position) and the store's health. Pages subscribe
// to the events while they are shown.

import { api, health, token, query, trouble } from "./api.js";
import { $ } from "./dom.js";
import { counted, number, NOUNS } from "./polish.js";

const HEALTH_EVERY = 5000, STATS_EVERY = 60000;
const NAMES = ["ListingCreatedEvent", "ListingRemovedEvent", "TransactionCompletedEvent", "BidPlacedEvent", "AuctionEndedEvent",
  "BuyOrderPlacedEvent", "BuyOrderFilledEvent", "BuyOrderClosedEvent"];
// AUCTIONS are the auctions' events and ORDERS the buy orders', which
// reach only the pages that ask for them (subscribe's auctions, orders).
const AUCTIONS = new Set(["BidPlacedEvent", "AuctionEndedEvent"]);
const ORDERS = new Set(["BuyOrderPlacedEvent", "BuyOrderFilledEvent", "BuyOrderClosedEvent"]);

const live = {
  version: 0,    // the stream's position: the newest event seen or read
  active: null,  // {n, version}: active listings read from /api/stats, moved by events
  source: null,
  listeners: new Set(),
};

// subscribe calls fn with every event (parsed), and with {event: "reset"}
// when the stream had to start again (the page should read again); it
// returns the unsubscribe.
//
// A buy order's fill is a purchase (TransactionCompletedEvent, naming the
// order) that may take part of a listing's stack: its BuyOrderFilledEvent,
// next in the stream, says how many items the listing has left. The
// purchase reaches the pages with that count as listingLeft (0: the
// listing is gone), so that none takes a listing still on sale for sold.
export function subscribe(fn, { auctions = false, orders = false } = {}) {
  const l = { fn, auctions, orders };
  live.listeners.add(l);
  return () => live.listeners.delete(l);
}

export function version() { return live.version; }

// seen moves the position shown to a page's version.
export function seen(v) { if (v > live.version) live.version = v; showVersion(); }

// The position is no player's business (the API has it): the header keeps
// it out of sight, as data-version of the connection's status, for tests
// and the curious.
function showVersion() { $("status").dataset.version = String(live.version); }

function setStatus(text, ok) {
  $("status").textContent = text;
  $("status").className = ok ? "live" : "down";
}

function showActive() {
  if (live.active) $("active").textContent = counted(live.active.n, NOUNS.active);
}

// stats reads the market's figures for the header's count (pages that show
// figures use theirs through setStats).
export async function readStats() {
  const st = await api("/api/stats");
  setStats(st);
  return st;
}

export function setStats(st) {
  if (!live.active || st.version >= live.active.version) live.active = { n: st.activeListings, version: st.version };
  seen(st.version);
  showActive();
}

function moveActive(seq, by) {
  if (live.active && seq > live.active.version) {
    live.active = { n: live.active.n + by, version: seq };
    showActive();
  }
}

// filling is a fill's purchase waiting for its BuyOrderFilledEvent.
let filling = null;

function onEvent(msg) {
  const e = JSON.parse(msg.data);
  if (e.seq > live.version) { live.version = e.seq; showVersion(); }
  if (filling) {
    const fill = e.event === "BuyOrderFilledEvent" && e.fill.transactionId === filling.transaction.id ? e.fill : null;
    if (fill) filling.listingLeft = fill.listingLeft;
    const t = filling;
    filling = null;
    deliver(t);
  }
  if (e.event === "TransactionCompletedEvent" && e.transaction.buyOrder) filling = e;
  else deliver(e);
}

// deliver moves the header's count and passes e to the pages that want it.
function deliver(e) {
  // The count: a listing came, or went (sold whole, removed, or an auction
  // that ended without a bid; one sold was counted by its purchase). A
  // fill from an inventory (no listing) or of part of a stack takes none.
  const sold = e.event === "TransactionCompletedEvent" && e.transaction.listingId && !e.listingLeft;
  if (e.event === "ListingCreatedEvent") moveActive(e.seq, +1);
  else if (e.event === "ListingRemovedEvent" || sold || e.event === "AuctionEndedEvent" && !e.ended.winner) moveActive(e.seq, -1);
  for (const l of live.listeners) if ((l.auctions || !AUCTIONS.has(e.event)) && (l.orders || !ORDERS.has(e.event))) l.fn(e);
}

function follow() {
  if (live.source) live.source.close();
  // From the count's version: every event after it moves the count. (A
  // page's read may be newer; the events between reach the page too, which
  // reads again, and the count, which needs them.)
  const since = live.active ? live.active.version : live.version;
  const source = new EventSource("/api/events" + query({ since, access_token: token }));
  live.source = source;
  for (const name of NAMES) source.addEventListener(name, onEvent);
  // reset: the stream cannot continue from our position: read again.
  source.addEventListener("reset", (msg) => {
    source.close();
    live.source = null;
    filling = null; // the pages read everything again
    try { live.version = JSON.parse(msg.data).version; } catch (_) { /* keep ours */ }
    for (const l of live.listeners) l.fn({ event: "reset" });
    start();
  });
  source.onopen = () => setStatus("na żywo", true);
  source.onerror = () => setStatus(source.readyState === EventSource.CLOSED ? "rozłączono" : "ponowne łączenie…", false);
}

// start reads the figures and follows the stream from them.
export async function start() {
  try {
    await readStats();
    follow();
  } catch (err) {
    setStatus("błąd: " + trouble(err), false);
    setTimeout(start, 3000);
  }
}

// While the market's store refuses changes (a full disk, say) a banner
// says so, from /api/health; it goes once the failure is over. While the
// store cannot reach its database at all the banner says that instead,
// and goes as soon as it answers again.
// storeTrouble says in Polish what the store's error (English, for the
// operator, in /api/health) is about: the usual causes by their words,
// anything else as a refusal.
function storeTrouble(error) {
  const e = String(error).toLowerCase();
  if (/full|no space|enospc|quota/.test(e)) return "na dysku serwera zabrakło miejsca";
  if (/read-?only|readonly|erofs|permission|denied/.test(e)) return "baza danych jest tylko do odczytu";
  if (/locked|busy|timeout|deadline/.test(e)) return "baza danych nie odpowiada na czas";
  if (/corrupt|malformed/.test(e)) return "plik bazy danych jest uszkodzony";
  return "baza danych odrzuca zapisy";
}

async function watchStore() {
  try {
    const h = await health();
    const f = h.store && h.store.failure;
    const o = h.store && h.store.outage;
    if (h.store && !h.store.reachable && o) {
      $("store").textContent = h.name + " nie ma połączenia z bazą danych od " +
        new Date(o.since).toLocaleString("pl-PL") + ", odrzucone zmiany: " + number(o.refused) +
        ". Kupno i sprzedaż są wstrzymane do jej powrotu, a wtedy wznowią się same; oferty poniżej są aktualne." +
        (o.inDoubt ? " Zmiana wysłana w chwili zerwania połączenia czeka, aż baza powie, czy ją zapisała." : "");
      $("store").hidden = false;
    } else if (h.store && !h.store.ok && f && !(o && o.back && new Date(f.last) <= new Date(o.back))) {
      // (A failure that was the outage, which is over, says nothing more.)
      $("store").textContent = h.name + " nie może zapisywać zmian: " + storeTrouble(f.error) + ". Od " +
        new Date(f.since).toLocaleString("pl-PL") + ", nieudane zapisy: " + number(f.failures) +
        ". Kupno i sprzedaż są wstrzymane; oferty poniżej są aktualne.";
      $("store").hidden = false;
    } else if (h.store) {
      $("store").hidden = true;
    }
    if (h.release) $("release").textContent = h.release;
  } catch (_) { /* the server is away: the status says so */ }
  setTimeout(watchStore, HEALTH_EVERY);
}

// A page left (another address typed, a reload, the back button) closes
// its stream at once: a browser opens at most six connections to a server,
// and pages kept for "back" with their streams open would take them all.
// A page shown again from that cache follows again from its position.
window.addEventListener("pagehide", () => {
  live.source?.close();
  live.source = null;
});
window.addEventListener("pageshow", (e) => { if (e.persisted) start(); });

// Timer expiries send no event: the count is read again now and then.
setInterval(() => readStats().catch(() => {}), STATS_EVERY);
watchStore();

// The site's router: the path names the page (/, /item/{material},
// /listing/{id}, /player/{uuid}, /stats), every one a shareable link the
// server answers with this same app. Links within the site change the page
// without a reload (History API), so the live stream and the header stay.

import { el } from "./dom.js";
import { start } from "./live.js";
import { go, onNavigate } from "./nav.js";
import { trouble } from "./api.js";
import { marketPage } from "./pages/market.js";
import { itemPage } from "./pages/item.js";
import { listingPage } from "./pages/listing.js";
import { playerPage } from "./pages/player.js";
import { statsPage } from "./pages/stats.js";
import { missingPage } from "./pages/missing.js";

const ROUTES = [
  [/^\/$/, marketPage],
  [/^\/item\/([A-Za-z0-9_:.-]+)$/, itemPage],
  [/^\/listing\/([1-9][0-9]{0,9})$/, listingPage],
  [/^\/player\/([0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12})$/, playerPage],
  [/^\/stats$/, statsPage],
];

// current is the page shown: its leave() stops its timers, subscriptions
// and reads.
let current = null;

// page is what a page's function gets: where to draw, the path's part, the
// query, and the ways to stop with the page.
function context(main, controller) {
  const cleanups = [];
  return {
    main,
    signal: controller.signal,
    search: new URLSearchParams(location.search),
    // title sets the document's title and the page's heading.
    title(text) { document.title = text + " — Rynek"; },
    onLeave(fn) { cleanups.push(fn); },
    leave() { controller.abort(); for (const fn of cleanups) fn(); },
  };
}

// show draws the page the address names. focus (a link followed, back or
// forward) moves the keyboard's focus to the new page's heading once the
// page is drawn, unless the reader has moved it meanwhile: a page is drawn
// when its slowest read ends, and a reader who tabbed to a result the
// first read drew, or pressed Enter on it, must not lose it (nor the Enter)
// to the heading a later read's end focuses.
async function show(focus) {
  if (current) current.leave();
  const from = document.activeElement; // the link followed, or the body
  const main = document.getElementById("main");
  main.replaceChildren(el("p", { class: "note", text: "Wczytywanie…" }));
  const path = location.pathname;
  const ctx = context(main, new AbortController());
  current = ctx;
  for (const [re, page] of ROUTES) {
    const m = path.match(re);
    if (m) {
      markNav(path);
      try {
        await page(ctx, decodeURIComponent(m[1] || ""));
      } catch (err) {
        if (err.name === "AbortError") return;
        main.replaceChildren(el("h1", { text: "Nie udało się wczytać strony" }), el("p", { class: "bad", text: "Powód: " + trouble(err) + "." }));
      }
      const now = document.activeElement;
      if (focus && current === ctx && (!now || now === from || now === document.body)) main.querySelector("h1")?.focus();
      return;
    }
  }
  markNav("");
  missingPage(ctx);
}

// markNav marks the header's link to the page shown: the auctions view is
// the market page with kind=auction, whatever else it filters by.
function markNav(path) {
  const auctions = path === "/" && new URLSearchParams(location.search).get("kind") === "auction";
  for (const a of document.querySelectorAll("header nav a")) {
    const url = new URL(a.href);
    const here = url.pathname === path && (url.searchParams.get("kind") === "auction") === auctions;
    if (here) a.setAttribute("aria-current", "page");
    else a.removeAttribute("aria-current");
  }
}

// Links within the site are followed here; others (the API document, a new
// tab, a modified click) as the browser does.
document.addEventListener("click", (e) => {
  const a = e.target.closest("a");
  if (!a || e.defaultPrevented || e.button !== 0 || e.metaKey || e.ctrlKey || e.shiftKey || e.altKey) return;
  const url = new URL(a.href, location.href);
  if (url.origin !== location.origin || url.pathname.startsWith("/api/") || a.target || a.hasAttribute("download")) return;
  e.preventDefault();
  if (url.pathname + url.search !== location.pathname + location.search) go(url.pathname + url.search);
});
window.addEventListener("popstate", () => show(true));

onNavigate(show);
start();
show(false);

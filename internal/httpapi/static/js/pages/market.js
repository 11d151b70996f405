// The market: search in the console's language with category, kind, price
// and amount ranges and sorts, paged by cursor; the market's figures, its
// categories and the live feed. The search is the page's query string, so
// a search is a link: /?kind=auction&sort=ending is the auctions view, the
// auctions ending soonest, their bids and ends followed live.

import { api, categories, query } from "../api.js";
import { el, link, section, figures, status } from "../dom.js";
import { subscribe, setStats, seen } from "../live.js";
import { counted, number, money, NOUNS, SORTS, KINDS, plain } from "../polish.js";
import { listingTable, markGone, goneText, goneListingId, feed, pager, showBid, countdowns } from "../parts.js";
import { go } from "../nav.js";

const PAGE = 20, FEED = 40;
const FILTERS = ["q", "category", "kind", "min_price", "max_price", "min_amount", "max_amount", "sort"];
// BY_BID are the orders a bid can change: by what an auction costs now,
// and by its end (a late bid moves it).
const BY_BID = new Set(["price", "price_desc", "unit_price", "ending"]);

// cursors are the pages before the one shown, per search, for "previous".
const cursors = new Map();

export async function marketPage(ctx) {
  const filters = {};
  for (const k of FILTERS) filters[k] = ctx.search.get(k) || "";
  const cursor = ctx.search.get("cursor") || "";
  const key = FILTERS.map((k) => filters[k]).join("\u0000");
  const stack = cursors.get(key) || [];
  if (!cursor) stack.length = 0;
  cursors.set(key, stack);
  const searching = FILTERS.some((k) => k !== "sort" && k !== "kind" && filters[k]);
  const auctions = filters.kind === "auction";
  ctx.title(filters.q ? "Szukaj: " + filters.q : auctions ? "Licytacje" : "Oferty");

  const form = searchForm(filters);
  const count = status("");
  const results = el("div", { class: "results" });
  const pagerSlot = el("div");
  const stats = el("div");
  const cats = el("ul", { class: "categories" });
  const events = feed(FEED);
  // The side column stays out of the layout until the first results, the
  // figures and the categories are in: on a phone it stands under the
  // results, and would be pushed down a screen by their arrival (a layout
  // shift of 0.36); on a wide screen its sections would push each other.
  const market = el("div", { class: "market loading" },
      el("div", { class: "primary" },
        el("h1", { tabindex: "-1", text: searching ? "Wyniki wyszukiwania" : heading(filters) }),
        form, count, results, pagerSlot),
      el("aside", { class: "side", "aria-label": "Rynek na żywo" },
        section("Rynek", stats),
        section("Kategorie", cats),
        section("Na żywo", events.node)));
  ctx.main.replaceChildren(market);

  const categoriesIn = fillCategories(form, cats, filters.category).catch(() => {});

  async function load() {
    let page;
    try {
      page = await api("/api/listings" + query({ ...filters, limit: PAGE, cursor }), ctx.signal);
    } catch (err) {
      if (!err.refused) throw err;
      results.replaceChildren(); // a bad search matches nothing; its error says why, under the form
      count.textContent = "Nie można wyszukać: " + refusal(err, filters) + ".";
      form.querySelector("[name=" + err.parameter + "]")?.setAttribute("aria-invalid", "true");
      count.className = "note bad";
      pagerSlot.replaceChildren();
      return;
    }
    seen(page.version);
    count.className = "note";
    count.textContent = searching ? counted(page.total, NOUNS.matching) : auctions ? counted(page.total, NOUNS.auction) : "";
    results.replaceChildren(page.items.length ? listingTable(auctions ? "Licytacje" : "Oferty", page.items, auctions ? "auctions" : "")
      : el("p", { class: "empty", text: searching ? "Nic nie pasuje do wyszukiwania." : auctions ? "Nikt teraz niczego nie licytuje." : "Na rynku nie ma ofert." }));
    if (!performance.getEntriesByName("listings-shown").length) performance.mark("listings-shown"); // the first page's time, for its benchmark
    const shown = stack.length * PAGE;
    pagerSlot.replaceChildren(page.total > PAGE || cursor ? pager("Strony wyników", {
      hasPrevious: !!cursor,
      hasNext: !!page.nextCursor,
      position: (auctions ? "licytacje " : "oferty ") + number(shown + 1) + "–" + number(shown + page.items.length) + " z " + number(page.total),
      first: () => go("/" + query(filters)),
      previous: () => { stack.pop(); go("/" + query({ ...filters, cursor: stack[stack.length - 1] })); },
      next: () => { stack.push(page.nextCursor); go("/" + query({ ...filters, cursor: page.nextCursor })); },
    }) : "");
  }

  async function loadStats() {
    const st = await api("/api/stats", ctx.signal);
    setStats(st);
    stats.replaceChildren(figures([
      ["Sprzedaże", number(st.totalSales)],
      ["Obrót", money(st.marketVolume)],
      ["Konto opłat", money(st.feeBalance)],
      st.topSellers.length && ["Najlepszy sprzedawca", link("/player/" + st.topSellers[0].seller.uuid, plain(st.topSellers[0].seller.name))],
      st.topItems.length && ["Najczęściej kupowane", link("/item/" + st.topItems[0].material, st.topItems[0].name)],
    ]), el("p", { class: "more" }, link("/stats", "Wszystkie statystyki ›")));
  }

  const reread = later(() => load(), 700);
  const restats = later(() => loadStats(), 2000);
  ctx.onLeave(subscribe((e) => {
    if (e.event === "reset") { load(); loadStats(); return; }
    events.add(e);
    if (e.order) return; // a buy order's events: its fills' purchases move the listings
    if (e.event === "BidPlacedEvent") {
      // The auction's row shows the bid at once; the page is read again
      // only when the bid can move the row in its order.
      if (showBid(results, e.listing) && !cursor && BY_BID.has(filters.sort)) reread();
      return;
    }
    if (e.event !== "ListingCreatedEvent") markGone(results, goneListingId(e), goneText(e));
    if (!cursor) reread(); // the first page follows the market; later ones only mark what went
    restats();
  }, { auctions: true, orders: true }));
  ctx.onLeave(countdowns(results));
  ctx.onLeave(() => { reread.cancel(); restats.cancel(); });
  try {
    await Promise.all([load(), loadStats(), categoriesIn]);
  } finally {
    market.classList.remove("loading");
  }
}

// FIELDS are the search form's range fields by their parameters' names.
const FIELDS = { min_price: "Cena od", max_price: "Cena do", min_amount: "Sztuk od", max_amount: "Sztuk do" };

// refusal says in Polish why the API refused a search: the API's detail is
// English, for developers; what it quotes (the filter typed, the bounds
// allowed) is kept.
export function refusal(err, filters) {
  const d = err.message, p = err.parameter;
  const bounds = d.match(/from (\S+) to (\S+?)[ ,]/);
  if (p === "q") {
    if (/^q is \d+ bytes/.test(d)) return "tekst wyszukiwania jest za długi";
    const token = d.slice(0, d.indexOf(": ")); // the market quotes the bad filter first: "price:abc: …"
    if (/ is above /.test(d)) return "„" + token + "”: dolna granica jest wyższa niż górna";
    if (/^amount:/i.test(token)) {
      return "„" + token + "”: liczba sztuk to liczba całkowita od " + (bounds ? bounds[1] + " do " + bounds[2] : "1 do 99") +
        ", np. amount:64 albo amount:16..64";
    }
    if (/^price:/i.test(token)) return "„" + token + "”: cena to kwota, np. price:10..200 albo price:..50";
    if (/^kind:/i.test(token)) return "„" + token + "”: rodzaj to kind:auction (licytacje) albo kind:fixed (stałe ceny)";
  }
  if (FIELDS[p]) {
    const other = FIELDS[p.replace("min_", "max_")];
    if (/ is above /.test(d)) return "„" + FIELDS[p] + "” jest " + (p.endsWith("price") ? "wyższa" : "więcej") + " niż „" + other + "”";
    if (p.endsWith("price")) return "„" + FIELDS[p] + "”: podaj kwotę" + (bounds ? " od " + money(bounds[1]) + " do " + money(bounds[2]) : "") + ", np. 12,50";
    return "„" + FIELDS[p] + "”: podaj liczbę całkowitą" + (bounds ? " od " + bounds[1] + " do " + bounds[2] : "");
  }
  if (p === "category") return "nie ma kategorii „" + filters.category + "”";
  if (p === "sort") return "nie ma kolejności „" + filters.sort + "”";
  if (p === "kind" && /^q already/.test(d)) return "wyszukiwanie już wybiera rodzaj (kind:); wybierz go tam albo w polu „Rodzaj”, nie w obu";
  if (p === "kind") return "nie ma rodzaju ofert „" + filters.kind + "”; są licytacje i stała cena";
  if (p === "cursor") return "ta strona wyników jest już nieaktualna; zacznij od pierwszej";
  return "serwer odrzucił wyszukiwanie";
}

// heading is the market's heading without a search: what it lists.
function heading(f) {
  if (f.kind === "auction") return f.sort === "ending" ? "Licytacje kończące się najwcześniej" : "Licytacje";
  if (f.kind === "fixed") return "Oferty po stałej cenie";
  return "Najnowsze oferty";
}

// later runs fn once, delay ms after the first call of a burst: a burst of
// events costs one read.
function later(fn, delay) {
  let timer = null;
  const call = () => {
    if (timer) return;
    timer = setTimeout(() => { timer = null; fn().catch(() => {}); }, delay);
  };
  call.cancel = () => clearTimeout(timer);
  return call;
}

// searchForm is the search box and its filters. On a phone the filters
// wait behind a button (the listings then start on the first screen),
// shown at once when the search uses them.
function searchForm(f) {
  const input = (name, label, props) => el("label", { class: "field filter " + name },
    el("span", { text: label }), el("input", { name, value: f[name], ...props }));
  const sort = el("select", { name: "sort" }, SORTS.map(([v, t]) => el("option", { value: v, text: t, selected: (f.sort || "newest") === v })));
  const category = el("select", { name: "category" }, el("option", { value: "", text: "wszystkie" }));
  const kind = el("select", { name: "kind" }, KINDS.map(([v, t]) => el("option", { value: v, text: t, selected: f.kind === v })));
  if (f.category) category.append(el("option", { value: f.category, text: f.category, selected: true }));
  const toggle = el("button", { type: "button", class: "filters-toggle", text: "Filtry i kolejność" });
  const form = el("form", { class: "search", role: "search" },
    el("label", { class: "field q" }, el("span", { text: "Szukaj" }),
      el("input", { type: "search", name: "q", value: f.q, maxLength: 1024, placeholder: "diament miecz, kilof price:..100, amount:64, #1234" })),
    el("label", { class: "field filter category" }, el("span", { text: "Kategoria" }), category),
    input("min_price", "Cena od", { inputMode: "decimal", size: 7 }),
    input("max_price", "Cena do", { inputMode: "decimal", size: 7 }),
    input("min_amount", "Sztuk od", { type: "number", min: 1, max: 99, size: 3 }),
    input("max_amount", "Sztuk do", { type: "number", min: 1, max: 99, size: 3 }),
    el("label", { class: "field filter kind" }, el("span", { text: "Rodzaj" }), kind),
    el("label", { class: "field filter sort" }, el("span", { text: "Kolejność" }), sort),
    el("div", { class: "actions" }, el("button", { type: "submit", text: "Szukaj" }), toggle, link("/", "Wyczyść")));
  // The auctions view (kind=auction, ending soonest) is named by its
  // heading: its filters wait behind the button too.
  const view = (k) => f.kind === "auction" && (k === "kind" || k === "sort" && f.sort === "ending");
  const filtered = FILTERS.some((k) => k !== "q" && f[k] && !view(k));
  const show = (open) => { form.classList.toggle("open", open); toggle.setAttribute("aria-expanded", String(open)); };
  toggle.addEventListener("click", () => show(!form.classList.contains("open")));
  show(filtered);
  form.addEventListener("submit", (e) => {
    e.preventDefault();
    const data = new FormData(form);
    const next = {};
    for (const k of FILTERS) {
      const v = String(data.get(k) || "").trim();
      if (v && !(k === "sort" && v === "newest")) next[k] = v;
    }
    go("/" + query(next));
  });
  // A category chosen is a search at once.
  category.addEventListener("change", () => form.requestSubmit());
  sort.addEventListener("change", () => form.requestSubmit());
  // Auctions chosen in the default order are shown ending soonest first:
  // what one looks at auctions for.
  kind.addEventListener("change", () => {
    if (kind.value === "auction" && sort.value === "newest") sort.value = "ending";
    form.requestSubmit();
  });
  return form;
}

async function fillCategories(form, list, chosen) {
  const cats = await api("/api/categories");
  const select = form.querySelector("select[name=category]");
  select.replaceChildren(el("option", { value: "", text: "wszystkie" }),
    ...cats.items.filter((c) => c.name !== "ALL").map((c) =>
      el("option", { value: c.name.toLowerCase(), text: c.displayName + " (" + number(c.active) + ")", selected: c.name.toLowerCase() === chosen.toLowerCase() })));
  list.replaceChildren(...cats.items.filter((c) => c.name !== "ALL").map((c) =>
    el("li", {}, link("/" + query({ category: c.name.toLowerCase() }), c.displayName), el("span", { class: "muted num", text: number(c.active) }))));
  categories(); // the names, for other pages
}

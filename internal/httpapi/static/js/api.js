// The site's reads of the Rynek HTTP API of the server that served it. A
// token, when the server needs one, is given once in the page's fragment
// (#token=…, which browsers never send to the server) and kept for the
// tab's session, so that links within the site keep it.

const KEY = "rynek.token";
const fromHash = new URLSearchParams(location.hash.slice(1)).get("token");
if (fromHash) {
  sessionStorage.setItem(KEY, fromHash);
  history.replaceState(history.state, "", location.pathname + location.search); // out of the address bar
}
export const token = sessionStorage.getItem(KEY) || "";
const headers = token ? { Authorization: "Bearer " + token } : {};

// Problem is an API refusal: its status, stable code and English detail.
export class Problem extends Error {
  constructor(status, code, detail, parameter) {
    super(detail);
    this.status = status;
    this.code = code;
    this.parameter = parameter;
  }
  // refused: the request was wrong (a 4xx other than too many), not the
  // server or the network.
  get refused() { return this.status >= 400 && this.status < 500 && this.status !== 429; }
}

// trouble says in Polish what went wrong with a read (the API's details
// are English, for developers): refusals by their status, anything else
// as the connection.
export function trouble(err) {
  if (!(err instanceof Problem)) return "brak połączenia z serwerem rynku";
  if (err.status === 401 || err.status === 403) return "ten rynek wymaga klucza dostępu: otwórz adres z #token=…";
  if (err.status === 429) return "za dużo zapytań naraz; spróbuj za chwilę";
  if (err.status === 503) return "rynek nie jest teraz gotowy; spróbuj za chwilę";
  if (err.status >= 500) return "błąd serwera rynku (" + err.status + ")";
  return "serwer odrzucił zapytanie (" + err.status + ")";
}

// api reads a route; signal aborts it when its page is left.
export async function api(path, signal) {
  const r = await fetch(path, { headers, signal });
  if (!r.ok) {
    let p = {};
    try { p = await r.json(); } catch (_) { /* not a problem body */ }
    const err = new Problem(r.status, p.code || "", p.detail || String(r.status), p.parameter);
    if (p.gone) err.gone = p.gone; // listing-not-found: how the listing went
    throw err;
  }
  return r.json();
}

// query is a URL's query string from an object, without empty values.
export function query(params) {
  const p = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) if (v !== undefined && v !== null && v !== "") p.set(k, v);
  const s = p.toString();
  return s ? "?" + s : "";
}

// health reads /api/health, which answers 503 with the same body while the
// store refuses changes.
export async function health() {
  const r = await fetch("/api/health", { headers });
  return r.json();
}

// categories reads the market's categories once per page load: their
// names and Polish display names do not change (their counts are read
// again by the pages that show them).
let categoryList = null;
export function categories() {
  if (!categoryList) categoryList = api("/api/categories").catch((err) => { categoryList = null; throw err; });
  return categoryList;
}

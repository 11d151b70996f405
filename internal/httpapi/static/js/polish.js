// Polish: numbers, money and dates through Intl (pl-PL: a no-break space
// groups thousands, a comma marks decimals), counted nouns in the CLDR
// plural form their number takes, and the words for the market's removal
// reasons (the pages show completed transactions only, so no other
// state). Item and enchantment names stay as the game has them (English).

const rules = new Intl.PluralRules("pl-PL");
const numbers = new Intl.NumberFormat("pl-PL");
const moneys = new Intl.NumberFormat("pl-PL", { minimumFractionDigits: 2, maximumFractionDigits: 2 });
const oneDecimal = new Intl.NumberFormat("pl-PL", { minimumFractionDigits: 1, maximumFractionDigits: 1 });
const dateTimes = new Intl.DateTimeFormat("pl-PL", { dateStyle: "medium", timeStyle: "short" });
const times = new Intl.DateTimeFormat("pl-PL", { timeStyle: "medium" });
const hours = new Intl.DateTimeFormat("pl-PL", { hour: "2-digit", minute: "2-digit" });
const days = new Intl.DateTimeFormat("pl-PL", { day: "numeric", month: "short" });
const dayHours = new Intl.DateTimeFormat("pl-PL", { day: "numeric", month: "short", hour: "2-digit", minute: "2-digit" });
const relative = new Intl.RelativeTimeFormat("pl-PL", { numeric: "auto" });

// Nouns by CLDR category: one (1), few (2-4, 22-24…), many (0, 5-21, 25…),
// other (fractions).
export const NOUNS = {
  listing: { one: "oferta", few: "oferty", many: "ofert", other: "oferty" },
  bid: { one: "oferta", few: "oferty", many: "ofert", other: "oferty" },
  auction: { one: "licytacja", few: "licytacje", many: "licytacji", other: "licytacji" },
  order: { one: "zlecenie", few: "zlecenia", many: "zleceń", other: "zlecenia" },
  openOrder: { one: "otwarte zlecenie kupna", few: "otwarte zlecenia kupna", many: "otwartych zleceń kupna", other: "otwartego zlecenia kupna" },
  active: { one: "aktywna oferta", few: "aktywne oferty", many: "aktywnych ofert", other: "aktywnej oferty" },
  matching: { one: "pasująca oferta", few: "pasujące oferty", many: "pasujących ofert", other: "pasującej oferty" },
  sale: { one: "sprzedaż", few: "sprzedaże", many: "sprzedaży", other: "sprzedaży" },
  purchase: { one: "zakup", few: "zakupy", many: "zakupów", other: "zakupu" },
  rating: { one: "ocena", few: "oceny", many: "ocen", other: "oceny" },
  item: { one: "przedmiot", few: "przedmioty", many: "przedmiotów", other: "przedmiotu" },
  piece: { one: "sztuka", few: "sztuki", many: "sztuk", other: "sztuki" },
  transaction: { one: "transakcja", few: "transakcje", many: "transakcji", other: "transakcji" },
  newListing: { one: "nowa oferta", few: "nowe oferty", many: "nowych ofert", other: "nowej oferty" },
  day: { one: "dzień", few: "dni", many: "dni", other: "dnia" },
  hour: { one: "godzina", few: "godziny", many: "godzin", other: "godziny" },
  minute: { one: "minuta", few: "minuty", many: "minut", other: "minuty" },
  second: { one: "sekunda", few: "sekundy", many: "sekund", other: "sekundy" },
};

// form is the noun's form for n.
export function form(n, noun) { return noun[rules.select(n)]; }
// counted is n and its noun: "1 oferta", "22 oferty", "12 ofert".
export function counted(n, noun) { return numbers.format(n) + " " + form(n, noun); }
export function number(n) { return numbers.format(n); }
// money formats the API's decimal string of cents ("3072658.93") the
// Polish way ("3 072 658,93").
export function money(s) { return moneys.format(Number(s)); }
export function moneyValue(v) { return moneys.format(v); }
export function rating(v) { return oneDecimal.format(v); }
const compacts = new Intl.NumberFormat("pl-PL", { notation: "compact", maximumFractionDigits: 1 });
// axisMoney is an amount on a chart's axis: in full while short, then
// compact ("700 tys.", "1,2 mln").
export function axisMoney(v) { return Math.abs(v) < 10000 ? moneys.format(v) : compacts.format(v); }

export function dateTime(iso) { return dateTimes.format(new Date(iso)); }
export function clock(d) { return times.format(d); }
// tick is a chart axis label for a time, as wide as its span needs.
export function tick(ms, span) {
  const d = new Date(ms);
  if (span === "24h") return hours.format(d);
  if (span === "7d") return d.getHours() || d.getMinutes() ? hours.format(d) : days.format(d); // days, their hours between
  return days.format(d);
}
export function tickWide(ms) { return dayHours.format(new Date(ms)); }

// ago says how long ago (or how soon) a time is: "5 minut temu", "za 2 dni".
export function ago(iso, now = Date.now()) {
  const s = Math.round((new Date(iso).getTime() - now) / 1000);
  const a = Math.abs(s);
  if (a < 60) return relative.format(s, "second");
  if (a < 3600) return relative.format(Math.round(s / 60), "minute");
  if (a < 86400) return relative.format(Math.round(s / 3600), "hour");
  return relative.format(Math.round(s / 86400), "day");
}

// duration is a countdown's text: "2 dni 3 godziny 4 minuty 5 sekund",
// its two largest parts only once it is over an hour.
export function duration(ms) {
  let s = Math.max(0, Math.floor(ms / 1000));
  const parts = [[86400, NOUNS.day], [3600, NOUNS.hour], [60, NOUNS.minute], [1, NOUNS.second]]
    .map(([unit, noun]) => { const n = Math.floor(s / unit); s -= n * unit; return [n, noun]; });
  const first = parts.findIndex(([n]) => n > 0);
  if (first < 0) return counted(0, NOUNS.second);
  const shown = parts.slice(first, first + (first < 2 ? 2 : 3)).filter(([n]) => n > 0);
  return shown.map(([n, noun]) => counted(n, noun)).join(" ");
}

// left is an auction's time left as its row's countdown shows it, ticking
// every second: "za 45 s", "za 12 min 03 s", "za 3 godz. 05 min", "za 2 dni
// 3 godz.", and "kończy się…" once it is over (until its end's event).
export function left(ms) {
  const s = Math.floor(ms / 1000);
  if (s <= 0) return "kończy się…";
  const d = Math.floor(s / 86400), h = Math.floor(s / 3600) % 24, m = Math.floor(s / 60) % 60, sec = s % 60;
  // No-break spaces keep each number with its unit when a phone wraps it.
  const two = (n) => String(n).padStart(2, "0"), nb = "\u00a0";
  if (d > 0) return "za" + nb + counted(d, NOUNS.day).replace(" ", nb) + (h ? " " + h + nb + "godz." : "");
  if (h > 0) return "za" + nb + h + nb + "godz. " + two(m) + nb + "min";
  if (m > 0) return "za" + nb + m + nb + "min " + two(sec) + nb + "s";
  return "za" + nb + sec + nb + "s";
}

// REASONS are the removal reasons of ListingRemovedEvent.
export const REASONS = {
  "removed": "wycofana przez sprzedawcę",
  "admin-removed": "usunięta przez administratora",
  "force-expire": "wygaszona przez administratora",
};
export function reason(r) { return REASONS[r] || "zdjęta z rynku"; }

export const SORTS = [
  ["newest", "najnowsze"],
  ["oldest", "najstarsze"],
  ["price", "najtańsze"],
  ["price_desc", "najdroższe"],
  ["unit_price", "najtańsze za sztukę"],
  ["amount", "najmniejsze stosy"],
  ["amount_desc", "największe stosy"],
  ["ending", "kończące się najwcześniej"],
];

// KINDS are the market's kinds of listing, as the kind filter names them.
export const KINDS = [
  ["", "wszystkie"],
  ["fixed", "stała cena"],
  ["auction", "licytacje"],
];

const ROMAN = ["", "I", "II", "III", "IV", "V", "VI", "VII", "VIII", "IX", "X"];
// level is an enchantment's level as the game shows it: roman to X.
export function level(n) { return ROMAN[n] || String(n); }

// plain is player text made safe to show as text: no § formatting codes,
// no control characters (it is then only ever set as textContent).
export function plain(s) {
  return String(s).replace(/§[0-9a-fk-orx]/gi, "").replace(/[\u0000-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/g, "");
}

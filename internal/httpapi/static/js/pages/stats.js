// The market's statistics: its figures and the fee account, the volume over
// time, the top sellers and items and the most expensive sales, following
// the market live.

import { api, query } from "../api.js";
import { el, link, section, figures, table } from "../dom.js";
import { subscribe, setStats } from "../live.js";
import { counted, number, money, moneyValue, NOUNS, dateTime } from "../polish.js";
import { itemText, playerLink } from "../parts.js";
import { chartBox, volumeChart, reserve } from "../chart.js";

// SPANS are the chart's spans: the API's name, the button's, and "in the
// last …" for a span without sales.
const SPANS = [["24h", "24 godziny", "w ostatnich 24 godzinach"], ["7d", "7 dni", "w ostatnich 7 dniach"], ["30d", "30 dni", "w ostatnich 30 dniach"]];

// The figures' names: the market's, the fee account's and issuance's, the
// volume chart's span's.
const NUMBERS = ["Sprzedaże", "Obrót", "Średnia cena sprzedaży"];
const ISSUED = ["Konto opłat", "Pieniądze wprowadzone", "Pieniądze wyprowadzone", "Przedmioty wprowadzone", "Przedmioty wyprowadzone"];
const VOLUME = ["Sprzedaże", "Sprzedane", "Obrót"];
const ISSUED_NOTE = () => el("p", { class: "muted small", text: "Konto opłat trzyma każdą opłatę pobraną od sprzedaży. Emisja to pieniądze i przedmioty, które weszły na rynek z zewnątrz (wpłaty, dary, start nowych graczy) i które go opuściły." });

export async function statsPage(ctx) {
  ctx.title("Statystyki");
  let span = "30d";
  // Every figure holds its room from the start ("—" until read), and so
  // does the chart (reserve): nothing below moves when they come.
  const numbers = el("div", {}, figures(NUMBERS.map((k) => [k, "—"])));
  const issued = el("div", {}, figures(ISSUED.map((k) => [k, "—"])), ISSUED_NOTE());
  const spanButtons = SPANS.map(([s, label]) => el("button", { type: "button", text: label, "aria-pressed": String(s === span), onclick: () => choose(s) }));
  const volumeFigures = el("div", {}, figures(VOLUME.map((k) => [k, "—"]), "row"));
  const box = chartBox("Wykres obrotu rynku");
  const sellers = el("div"), items = el("div"), expensive = el("div");
  ctx.main.replaceChildren(
    el("h1", { tabindex: "-1", text: "Statystyki rynku" }),
    el("div", { class: "stats-page" },
      section("Rynek", numbers),
      section("Konto opłat i emisja", issued),
      el("section", { class: "wide", "aria-labelledby": "volume-title" },
        el("div", { class: "chart-head" }, el("h2", { id: "volume-title", text: "Obrót w czasie" }),
          el("div", { class: "spans", role: "group", "aria-label": "Okres wykresu" }, spanButtons)),
        volumeFigures, box),
      section("Najlepsi sprzedawcy", sellers),
      section("Najczęściej kupowane", items),
      el("section", { class: "wide", "aria-labelledby": "expensive-title" }, el("h2", { id: "expensive-title", text: "Najdroższe sprzedaże" }), expensive)));

  reserve(box, "volume");
  let stopChart = null;
  ctx.onLeave(() => stopChart?.());

  async function loadStats() {
    const st = await api("/api/stats", ctx.signal);
    setStats(st);
    const values = (keys, vs) => figures(keys.map((k, i) => [k, vs[i]]));
    numbers.replaceChildren(values(NUMBERS, [
      number(st.totalSales),
      money(st.marketVolume),
      st.totalSales ? moneyValue(Number(st.marketVolume) / st.totalSales) : "—",
    ]));
    issued.replaceChildren(values(ISSUED, [
      el("strong", { text: money(st.feeBalance) }),
      money(st.issued.moneyIn),
      money(st.issued.moneyOut),
      counted(st.issued.itemsIn, NOUNS.item),
      counted(st.issued.itemsOut, NOUNS.item),
    ]), ISSUED_NOTE());
    sellers.replaceChildren(st.topSellers.length ? table("Najlepsi sprzedawcy", [["#", "num"], ["Gracz", ""], ["Sprzedaże", "num"], ["Zarobione", "num"]],
      st.topSellers.map((s, i) => el("tr", {}, el("td", { class: "num", text: String(i + 1) }), el("td", {}, playerLink(s.seller)),
        el("td", { class: "num", text: number(s.sales) }), el("td", { class: "num", text: money(s.earned) }))), "sellers") : empty());
    items.replaceChildren(st.topItems.length ? table("Najczęściej kupowane przedmioty", [["#", "num"], ["Przedmiot", ""], ["Sztuk", "num"], ["Obrót", "num"]],
      st.topItems.map((t, i) => el("tr", {}, el("td", { class: "num", text: String(i + 1) }), el("td", {}, link("/item/" + t.material, t.name)),
        el("td", { class: "num", text: number(t.amount) }), el("td", { class: "num", text: money(t.volume) }))), "items") : empty());
    expensive.replaceChildren(st.mostExpensive.length ? table("Najdroższe sprzedaże", [["Przedmiot", ""], ["Sprzedawca", ""], ["Kupujący", "buyer"], ["Cena", "num"], ["Kiedy", "num"]],
      // On a phone the buyer's column gives way: the buyer stands under
      // the seller ("→ Nowak"), so that both names fit whole.
      st.mostExpensive.map((t) => el("tr", {}, el("td", {}, link("/item/" + t.item.material, itemText(t.item))),
        el("td", {}, playerLink(t.seller), el("span", { class: "to" }, "→ ", playerLink(t.buyer))),
        el("td", { class: "buyer" }, playerLink(t.buyer)), el("td", { class: "num", text: money(t.price) }), el("td", { class: "num", text: dateTime(t.updatedAt) }))), "expensive") : empty());
  }

  async function loadVolume() {
    const h = await api("/api/volume-history" + query({ span }), ctx.signal);
    const sum = (f) => h.buckets.reduce((a, b) => a + f(b), 0);
    volumeFigures.replaceChildren(figures([
      counted(sum((b) => b.count), NOUNS.transaction),
      counted(sum((b) => b.amount), NOUNS.piece),
      moneyValue(sum((b) => Number(b.volume))),
    ].map((v, i) => [VOLUME[i], v]), "row"));
    box.setAttribute("aria-label", "Wykres obrotu rynku i liczby sprzedaży, " + SPANS.find(([s]) => s === span)[1]);
    stopChart?.();
    stopChart = null;
    stopChart = await volumeChart(box, h, "Nic nie sprzedano " + SPANS.find(([s]) => s === span)[2] + ".");
    box.dataset.drawn = span;
  }

  function choose(s) {
    span = s;
    spanButtons.forEach((b, i) => b.setAttribute("aria-pressed", String(SPANS[i][0] === s)));
    loadVolume().catch(() => {});
  }

  let statsTimer = null, volumeTimer = null;
  ctx.onLeave(() => { clearTimeout(statsTimer); clearTimeout(volumeTimer); });
  ctx.onLeave(subscribe((e) => {
    statsTimer ??= setTimeout(() => { statsTimer = null; loadStats().catch(() => {}); }, 2000);
    if (e.event === "TransactionCompletedEvent" || e.event === "reset") {
      volumeTimer ??= setTimeout(() => { volumeTimer = null; loadVolume().catch(() => {}); }, 6000);
    }
  }));
  await Promise.all([loadStats(), loadVolume()]);
}

function empty() { return el("p", { class: "empty", text: "Jeszcze nic nie sprzedano." }); }

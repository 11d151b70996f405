// Charts, drawn by the vendored uPlot (static/vendor/uplot, the global
// uPlot): an item's unit price per bucket (median line, min–max band) over
// its volume bars, and the market's volume. Colours come from the page's
// CSS variables, so the chart follows light and dark. A chart is a canvas:
// its figures are also in a table below it (for screen readers and for
// anyone who wants the numbers).

import { el, table } from "./dom.js";
import { moneyValue, money, number, axisMoney, tick, tickWide } from "./polish.js";

// uPlot is loaded with the first chart: the market's page, the one most
// opened, has none and does not wait for it.
let library = null;
function uPlotReady() {
  library ??= new Promise((resolve, reject) => {
    const s = document.createElement("script");
    s.src = "/static/vendor/uplot/uPlot.iife.min.js";
    s.onload = resolve;
    s.onerror = () => { library = null; reject(new Error("nie udało się wczytać wykresów")); };
    document.head.append(s);
  });
  return library;
}

function color(name) { return getComputedStyle(document.documentElement).getPropertyValue(name).trim(); }

// chartBox is a chart's frame: the canvas's place, sized to its width.
function chartBox(label) {
  return el("div", { class: "chart", role: "img", "aria-label": label });
}

// The charts' heights (the canvas) at a width: a price chart's, and the
// market's volume chart's.
const priceHeight = (width) => Math.round(Math.min(360, Math.max(220, width * 0.45)));
const volumeHeight = (width) => Math.round(Math.min(320, Math.max(200, width * 0.35)));

// reserve keeps a chart's room in a box already on the page, before its
// reads end: the canvas's height at the box's width and its legend's, as
// measured in Chromium (three rows of five series on a phone, two of
// three, one on a wide screen). The sections under it then stay where they
// are when it is drawn (without, an item page shifted by 0.15 on a wide
// screen).
export function reserve(box, kind) {
  const width = Math.max(260, box.clientWidth);
  const rows = width < 500 ? (kind === "price" ? 3 : 2) : width < 900 ? 2 : 1;
  box.style.minHeight = (kind === "price" ? priceHeight(width) : volumeHeight(width)) + 29 * rows + "px";
}

// nothing puts a note in place of a chart that would be an empty frame:
// nobody bought in the span shown.
function nothing(box, text) {
  box.replaceChildren(el("p", { class: "chart-empty", text }));
  return () => {};
}

// mount draws a chart made by make(width) into box, and again when the box
// changes width or the colour scheme changes; it returns the stop.
async function mount(box, make) {
  await uPlotReady();
  let plot = null;
  const draw = () => {
    plot?.destroy();
    plot = make(Math.max(260, box.clientWidth));
    box.replaceChildren(plot.root);
    box.chart = plot; // (its scales and axes, for the browser tests)
  };
  let width = 0;
  const resized = new ResizeObserver(() => {
    if (Math.abs(box.clientWidth - width) > 8) { width = box.clientWidth; draw(); }
  });
  resized.observe(box);
  const scheme = matchMedia("(prefers-color-scheme: dark)");
  scheme.addEventListener("change", draw);
  draw();
  return () => { resized.disconnect(); scheme.removeEventListener("change", draw); plot?.destroy(); };
}

function axis(values, extra) {
  return {
    stroke: color("--muted"),
    grid: { stroke: color("--line"), width: 1 },
    ticks: { stroke: color("--line"), width: 1 },
    values,
    ...extra,
  };
}

const num = (v) => (v === undefined || v === "" ? null : Number(v));

// padded is a time scale that reaches half a bucket past the first and
// the last bucket, so that their bars stand whole inside the axes and not
// half under them.
function padded(xs) {
  const half = xs.length > 1 ? (xs[1] - xs[0]) / 2 : 1800;
  return { time: true, range: () => [xs[0] - half, xs[xs.length - 1] + half] };
}

// fromZero is a scale from 0 to a little above its largest value: volumes
// and counts start at nothing, whatever the smallest bucket.
const fromZero = (u, min, max) => [0, max > 0 ? max * 1.08 : 1];

// latestLegend shows the newest bucket with a sale in the legend while the
// pointer is not over the chart, rather than dashes.
function latestLegend(counts) {
  let last = counts.length - 1;
  while (last > 0 && !(counts[last] > 0)) last--;
  const show = (u) => { if (u.cursor.idx == null) u.setLegend({ idx: last }, false); };
  return { ready: [show], setCursor: [show] };
}

// priceChart draws an item's price history (the API's buckets of one
// span), or says empty when none of them holds a sale.
export async function priceChart(box, history, empty) {
  const b = history.buckets;
  if (!b.some((x) => x.count > 0)) return nothing(box, empty);
  const data = [
    b.map((x) => Date.parse(x.start) / 1000),
    b.map((x) => num(x.median)),
    b.map((x) => num(x.min)),
    b.map((x) => num(x.max)),
    b.map((x) => Number(x.volume)),
  ];
  // The volume has a scale and an axis of its own, on the right: its bars
  // take the lower half of the chart, under the prices, and its axis is
  // labelled up to the largest bar only.
  const maxVol = Math.max(1, ...data[4]);
  const fmt = (u, v) => (v == null ? "—" : moneyValue(v));
  return mount(box, (width) => new uPlot({
    width,
    height: priceHeight(width),
    scales: { x: padded(data[0]), vol: { range: [0, maxVol * 2] } },
    axes: [
      axis((u, splits) => splits.map((s) => tick(s * 1000, history.span)), { space: 70 }),
      axis((u, splits) => splits.map((s) => axisMoney(s)), { scale: "price", size: 70, label: "Cena za sztukę", labelSize: 18 }),
      axis((u, splits) => splits.map((s) => (s <= maxVol * 1.05 ? axisMoney(s) : "")), { scale: "vol", side: 1, size: 70,
        grid: { show: false }, label: "Obrót", labelSize: 18 }),
    ],
    series: [
      { label: "Czas", value: (u, v) => (v == null ? "—" : tickWide(v * 1000)) },
      { label: "Mediana", scale: "price", stroke: color("--accent"), width: 2, spanGaps: true, value: fmt,
        points: { show: true, size: 5, fill: color("--accent") } },
      { label: "Minimum", scale: "price", stroke: color("--muted"), width: 1, dash: [4, 4], spanGaps: true, value: fmt },
      { label: "Maksimum", scale: "price", stroke: color("--muted"), width: 1, dash: [4, 4], spanGaps: true, value: fmt },
      { label: "Obrót", scale: "vol", stroke: color("--bars"), fill: color("--bars"), width: 0,
        paths: uPlot.paths.bars({ size: [0.7, 40] }), value: fmt, points: { show: false } },
    ],
    bands: [{ series: [3, 2], fill: color("--band") }],
    legend: { live: true },
    hooks: latestLegend(b.map((x) => x.count)),
  }, data));
}

// volumeChart draws the market's volume history (sum of prices per
// bucket), or says empty when nothing sold in the span.
export async function volumeChart(box, history, empty) {
  const b = history.buckets;
  if (!b.some((x) => x.count > 0)) return nothing(box, empty);
  const data = [b.map((x) => Date.parse(x.start) / 1000), b.map((x) => Number(x.volume)), b.map((x) => x.count)];
  return mount(box, (width) => new uPlot({
    width,
    height: volumeHeight(width),
    scales: { x: padded(data[0]), vol: { range: fromZero }, n: { range: fromZero } },
    axes: [
      axis((u, splits) => splits.map((s) => tick(s * 1000, history.span)), { space: 70 }),
      axis((u, splits) => splits.map((s) => axisMoney(s)), { scale: "vol", size: 80 }),
      axis((u, splits) => splits.map((s) => (Number.isInteger(s) ? number(s) : "")), { scale: "n", side: 1, grid: { show: false }, size: 50 }),
    ],
    series: [
      { label: "Czas", value: (u, v) => (v == null ? "—" : tickWide(v * 1000)) },
      { label: "Obrót", scale: "vol", stroke: color("--bars-strong"), fill: color("--bars"), width: 1,
        paths: uPlot.paths.bars({ size: [0.7, 40] }), value: (u, v) => (v == null ? "—" : moneyValue(v)), points: { show: false } },
      { label: "Sprzedaże", scale: "n", stroke: color("--accent"), width: 2, value: (u, v) => (v == null ? "—" : number(v)) },
    ],
    legend: { live: true },
    hooks: latestLegend(data[2]),
  }, data));
}

export { chartBox };

// priceTable is a price history's buckets as a table.
export function priceTable(history) {
  return table("Ceny za sztukę i obrót w kolejnych okresach",
    [["Od", ""], ["Sprzedaże", "num"], ["Sztuk", "num"], ["Minimum", "num"], ["Mediana", "num"], ["Maksimum", "num"], ["Obrót", "num"]],
    history.buckets.filter((x) => x.count > 0).reverse().map((x) => el("tr", {},
      el("td", { text: tickWide(Date.parse(x.start)) }), el("td", { class: "num", text: number(x.count) }),
      el("td", { class: "num", text: number(x.amount) }), el("td", { class: "num", text: money(x.min) }),
      el("td", { class: "num", text: money(x.median) }), el("td", { class: "num", text: money(x.max) }),
      el("td", { class: "num", text: money(x.volume) }))), "data");
}

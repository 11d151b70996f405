// Building the page. Every text goes in as text (textContent, attribute
// values): nothing here parses markup, so a player's name can never become
// an element or a script.

// el makes an element: props are properties or, for "class", "data-*",
// "aria-*" and the like, attributes; children are nodes or strings (text).
export function el(tag, props, ...children) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(props || {})) {
    if (v === undefined || v === null || v === false) continue;
    if (k === "class") e.className = v;
    else if (k === "text") e.textContent = v;
    else if (k.startsWith("on")) e.addEventListener(k.slice(2), v);
    else if (k.includes("-") || ["role", "for", "scope", "colspan", "tabindex"].includes(k)) e.setAttribute(k, v === true ? "" : v);
    else e[k] = v;
  }
  append(e, children);
  return e;
}

function append(e, children) {
  for (const c of children.flat(Infinity)) {
    if (c === undefined || c === null || c === false) continue;
    e.append(c instanceof Node ? c : document.createTextNode(String(c)));
  }
}

// link is a link inside the site: the router follows it without a reload.
export function link(href, ...children) { return el("a", { href }, ...children); }

export const $ = (id) => document.getElementById(id);

// section is a titled part of a page.
export function section(title, ...children) {
  const id = "s-" + title.toLowerCase().replace(/[^a-ząćęłńóśźż0-9]+/g, "-");
  return el("section", { "aria-labelledby": id }, el("h2", { id, text: title }), ...children);
}

// figures is a definition list of [label, value] pairs (values may be nodes).
export function figures(rows, cls) {
  return el("dl", { class: "figures " + (cls || "") }, rows.filter(Boolean).map(([k, v]) => el("div", {}, el("dt", { text: k }), el("dd", {}, v))));
}

// table is a table with a caption (read by screen readers), a head of
// [text, class] columns and rows of cells.
// It scrolls sideways inside its frame when a phone is too narrow for it.
export function table(caption, columns, rows, cls) {
  return el("div", { class: "scroll" }, el("table", { class: cls || "" },
    el("caption", { class: "sr-only", text: caption }),
    el("thead", {}, el("tr", {}, columns.map(([t, c]) => el("th", { scope: "col", class: c || "", text: t })))),
    el("tbody", {}, rows)));
}

// status is a polite live region: what it says is read out when it changes.
export function status(text, cls) { return el("p", { class: "note " + (cls || ""), role: "status", text }); }

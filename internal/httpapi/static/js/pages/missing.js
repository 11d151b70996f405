// The page for a path that names nothing: an unknown address, an item the
// catalogue lacks, a player the market does not know.

import { el, link } from "../dom.js";

export function missingPage(ctx, title = "Nie ma takiej strony", text = "Pod adresem " + location.pathname + " nic nie ma.") {
  ctx.title(title);
  ctx.main.replaceChildren(
    el("h1", { tabindex: "-1", text: title }),
    el("p", { text }),
    el("p", {}, link("/", "Oferty na rynku ›"), " · ", link("/stats", "Statystyki ›")));
}

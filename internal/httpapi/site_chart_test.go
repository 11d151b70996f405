package httpapi

import (
	"testing"
	"time"

	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"
)

// TestSiteChartWithoutSales: an item nobody bought in the span chosen gets
// a chart that says so, not an empty frame; a span with sales draws it.
// The 7-day chart's time axis names days, whose labels fit beside each
// other on a phone.
func TestSiteChartWithoutSales(t *testing.T) {
	e := siteEnv(t)
	// An item sold in the last week but not in the last day.
	material := ""
	st, err := e.svc.Stats(200)
	if err != nil {
		t.Fatal(err)
	}
	for _, it := range st.TopItems {
		h, err := e.svc.PriceHistory(it.Material, 24*time.Hour, time.Hour)
		if err != nil {
			t.Fatal(err)
		}
		var day, week int
		for _, w := range h.Windows {
			switch w.Window {
			case 24 * time.Hour:
				day = w.Sales
			case 7 * 24 * time.Hour:
				week = w.Sales
			}
		}
		if day == 0 && week > 0 {
			material = it.Material
			break
		}
	}
	if material == "" {
		t.Fatal("the demo market has no item sold in the week but not in the day")
	}
	b := newBrowser(t, e.srv.URL, phone)
	b.open("/item/" + material + "?span=24h")
	b.waitFor(`document.querySelector(".chart").dataset.drawn`, "24h")
	b.waitText(".chart", "Nikt nie kupił tego przedmiotu w ostatnich 24 godzinach.")
	b.waitFor(`String(document.querySelectorAll(".chart canvas").length)`, "0")
	b.click(".spans button:nth-of-type(2)") // 7 dni
	b.waitFor(`document.querySelector(".chart").dataset.drawn + " " + document.querySelectorAll(".chart canvas").length`, "7d 1")
	// The time axis (drawn on the canvas) names a 7-day span's days and the
	// hours between, short enough for their labels to stand apart on a
	// phone ("19 lis, 00:00" overlapped).
	labels, err := chromedp.Run(b.ctx, chromedp.Evaluate[string](`import("/static/js/polish.js").then((m) =>
		[new Date(2026, 10, 19), new Date(2026, 10, 19, 12)].map((d) => m.tick(d.getTime(), "7d")).join(" | "))`,
		func(p *runtime.EvaluateParams) { p.AwaitPromise = ptr(true) }))
	if err != nil {
		t.Fatal(err)
	}
	if labels != "19 lis | 12:00" {
		t.Errorf("the 7-day axis labels midnight and noon %q, want %q", labels, "19 lis | 12:00")
	}
	b.clean("an item's chart without sales")
	b.accessible("an item's chart without sales")
}

// TestSiteChartsScales: an item's chart draws its volume on a scale and an
// axis of its own (on the right, from 0), not on the price's; the market's
// volume chart counts its sales from 0; both reach half a bucket past the
// first and the last, so that no bar or point stands under an axis; and
// their legends show the newest bucket with a sale until pointed at, not
// dashes.
func TestSiteChartsScales(t *testing.T) {
	chromium(t)
	e := siteEnv(t)
	st, err := e.svc.Stats(1)
	if err != nil {
		t.Fatal(err)
	}
	b := newBrowser(t, e.srv.URL, phone)
	b.open("/item/" + st.TopItems[0].Material)
	b.waitFor(`document.querySelector(".chart").dataset.drawn`, "7d")
	const plot = `document.querySelector(".chart").chart`
	b.waitFor(plot+`.axes.map((a) => a.scale + (a.side === 1 ? " right" : "")).join(", ")`, "x, price, vol right")
	b.waitFor(plot+`.scales.vol.min`, "0")
	edges := `(() => { const u = ` + plot + `, xs = u.data[0], half = (xs[1] - xs[0]) / 2;
		return (u.scales.x.min === xs[0] - half) + " " + (u.scales.x.max === xs[xs.length - 1] + half); })()`
	b.waitFor(edges, "true true")
	// The legend: the newest bucket's median and volume, as its row of the
	// chart's table (newest first) says them.
	b.waitFor(`[...document.querySelectorAll(".chart .u-legend .u-value")].map((v) => v.textContent).slice(1, 2).concat([4].map((i) => document.querySelectorAll(".chart .u-legend .u-value")[i].textContent)).join(" | ")`,
		b.eval(`(() => { const r = document.querySelector("table.data tbody tr").cells; return r[4].textContent + " | " + r[6].textContent; })()`))
	b.screenshot(artifacts(t), "item-chart-phone-light")

	b.open("/stats")
	b.waitFor(`document.querySelector(".chart").dataset.drawn`, "30d")
	b.waitFor(plot+`.scales.n.min + " " + `+plot+`.scales.vol.min`, "0 0")
	b.waitFor(edges, "true true")
	b.waitFor(`document.querySelector(".chart .u-legend .u-value").textContent === "—" ? "dashes" : "a bucket"`, "a bucket")
	b.screenshot(artifacts(t), "stats-chart-phone-light")
	b.clean("the charts")
}

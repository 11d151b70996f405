package httpapi

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"
)

// The website's browser tests drive headless Chromium (Debian's chromium)
// through github.com/chromedp/chromedp. Without Chromium they skip and say
// so; CI installs it and sets RYNEK_REQUIRE_CHROMIUM, which turns the skip
// into a failure.

// chromium returns the browser's path, or skips (fails under
// RYNEK_REQUIRE_CHROMIUM) without one.
func chromium(t testing.TB) string {
	t.Helper()
	bin, err := exec.LookPath("chromium")
	if err != nil {
		if os.Getenv("RYNEK_REQUIRE_CHROMIUM") != "" {
			t.Fatal("chromium is not installed and RYNEK_REQUIRE_CHROMIUM is set")
		}
		t.Skip("SKIPPED: chromium is not installed (apt-get install chromium); the website was not tested in a browser")
	}
	return bin
}

// Widths the website is looked at: a phone's and a desktop's.
var (
	phone   = viewport{"phone", 390, 844, true}
	desktop = viewport{"desktop", 1280, 900, false}
)

type viewport struct {
	name          string
	width, height int64
	mobile        bool
}

// browser is one headless Chromium tab on the website, with what its
// console said and the Content-Security-Policy violations its pages met.
type browser struct {
	t    testing.TB
	ctx  context.Context
	base string // the server's URL

	mu       sync.Mutex
	messages []chromedp.ConsoleMessage
}

// watchScript runs in every document before the page's own scripts: it
// keeps the CSP violations where the test reads them, and marks the
// document, so that a test can tell a page change (same document) from a
// reload.
const watchScript = `window.__violations = [];
document.addEventListener("securitypolicyviolation", (e) => window.__violations.push(e.violatedDirective + " " + e.blockedURI));
window.__document = Math.random();
window.__shifts = [];
new PerformanceObserver((list) => {
	for (const e of list.getEntries()) {
		if (e.hadRecentInput) continue;
		window.__shifts.push({value: e.value, nodes: e.sources.map((s) => s.node ? s.node.nodeName + (s.node.className && typeof s.node.className === "string" ? "." + s.node.className.trim().split(/\s+/).join(".") : "") +
			" " + Math.round(s.previousRect.y) + "→" + Math.round(s.currentRect.y) : "?").join(", ")});
	}
}).observe({type: "layout-shift", buffered: true});`

func newBrowser(t testing.TB, base string, vp viewport) *browser {
	t.Helper()
	bin := chromium(t)
	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(bin), chromedp.NoSandbox, chromedp.DisableGPU,
		chromedp.Flag("disable-dev-shm-usage", true), chromedp.Flag("lang", "pl-PL"),
		chromedp.WindowSize(int(vp.width), int(vp.height)))
	alloc, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancel := chromedp.NewContext(alloc)
	t.Cleanup(func() { cancel(); cancelAlloc() })
	b := &browser{t: t, ctx: ctx, base: base}
	messages := chromedp.Console(ctx)
	go func() {
		for m, err := range messages {
			if err != nil {
				return
			}
			b.mu.Lock()
			b.messages = append(b.messages, m)
			b.mu.Unlock()
		}
	}()
	b.do(chromedp.Func(func(ctx context.Context, tg *chromedp.Target) error {
		_, err := chromedp.Call(ctx, page.AddScriptToEvaluateOnNewDocument, page.AddScriptToEvaluateOnNewDocumentParams{Source: watchScript})
		return err
	}))
	b.view(vp, "light")
	return b
}

// do runs actions, failing the test on an error.
func (b *browser) do(actions ...chromedp.Action[chromedp.Void]) {
	b.t.Helper()
	if err := chromedp.Do(b.ctx, actions...); err != nil {
		b.t.Fatal(err)
	}
}

// view sets the viewport and the colour scheme ("light" or "dark").
func (b *browser) view(vp viewport, scheme string) {
	b.t.Helper()
	b.do(chromedp.EmulateViewport(vp.width, vp.height, func(p *emulation.SetDeviceMetricsOverrideParams, touch *emulation.SetTouchEmulationEnabledParams) {
		p.Mobile = vp.mobile
		touch.Enabled = vp.mobile
	}), chromedp.Func(func(ctx context.Context, tg *chromedp.Target) error {
		_, err := chromedp.Call(ctx, emulation.SetEmulatedMedia, emulation.SetEmulatedMediaParams{
			Features: []*emulation.MediaFeature{{Name: "prefers-color-scheme", Value: scheme}}})
		return err
	}))
}

// open loads a path of the website as a new document.
func (b *browser) open(path string) {
	b.t.Helper()
	b.do(chromedp.Navigate(b.base + path))
}

// eval returns a JavaScript expression's value, as a string.
func (b *browser) eval(expr string) string {
	b.t.Helper()
	v, err := chromedp.Run(b.ctx, chromedp.Evaluate[any](expr))
	if err != nil {
		b.t.Fatalf("%s: %v", expr, err)
	}
	if s, ok := v.(string); ok {
		return s
	}
	j, _ := json.Marshal(v)
	return string(j)
}

// waitFor evaluates expr until it gives want, for up to 20 s.
func (b *browser) waitFor(expr, want string) {
	b.t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	got := ""
	for time.Now().Before(deadline) {
		v, err := chromedp.Run(b.ctx, chromedp.Evaluate[any](expr))
		if err == nil {
			got = fmt.Sprint(v)
			if s, ok := v.(string); ok {
				got = s
			}
			if got == want {
				return
			}
		} else {
			got = err.Error()
		}
		time.Sleep(40 * time.Millisecond)
	}
	b.t.Fatalf("%s is %q, want %q", strings.TrimSpace(expr), got, want)
}

// text is the text of the first element a CSS selector finds ("" when none).
func (b *browser) text(selector string) string {
	return b.eval(`document.querySelector(` + jsString(selector) + `)?.textContent ?? ""`)
}

// waitText waits until the first element selector finds has text want.
func (b *browser) waitText(selector, want string) {
	b.t.Helper()
	b.waitFor(`document.querySelector(`+jsString(selector)+`)?.textContent ?? "(no `+strings.ReplaceAll(selector, `"`, `'`)+`)"`, want)
}

// waitContains waits until the first element selector finds contains want.
func (b *browser) waitContains(selector, want string) {
	b.t.Helper()
	b.waitFor(`(document.querySelector(`+jsString(selector)+`)?.textContent ?? "").includes(`+jsString(want)+`) ? "yes" : document.querySelector(`+jsString(selector)+`)?.textContent`, "yes")
}

// click clicks the first element a selector finds, through the DOM (as
// Enter on a focused link or button does).
func (b *browser) click(selector string) {
	b.t.Helper()
	b.waitFor(`document.querySelector(`+jsString(selector)+`) ? "found" : "missing"`, "found")
	b.eval(`document.querySelector(` + jsString(selector) + `).click(); "ok"`)
}

// key sends keys to the focused element, as a keyboard would.
func (b *browser) key(keys string) {
	b.t.Helper()
	b.do(chromedp.KeyEvent(keys))
}

// problems are the console's errors and exceptions and the CSP violations
// since the last call; allowed are substrings of messages expected (a 404
// the page asked for, say).
func (b *browser) problems(allowed ...string) []string {
	b.t.Helper()
	var out []string
	b.mu.Lock()
	msgs := b.messages
	b.messages = nil
	b.mu.Unlock()
next:
	for _, m := range msgs {
		if m.Type != chromedp.ConsoleError && m.Type != chromedp.ConsoleException {
			continue
		}
		for _, a := range allowed {
			if strings.Contains(m.Text, a) {
				continue next
			}
		}
		out = append(out, m.String())
	}
	if v := b.eval(`JSON.stringify(window.__violations || [])`); v != "[]" {
		out = append(out, "CSP violations: "+v)
	}
	return out
}

// clean fails the test on any console error or CSP violation.
func (b *browser) clean(where string, allowed ...string) {
	b.t.Helper()
	time.Sleep(100 * time.Millisecond) // messages arrive as events, after the page's work
	for _, p := range b.problems(allowed...) {
		b.t.Errorf("%s: %s", where, p)
	}
}

// fits fails the test when something on the page reaches past the
// screen's right edge, or a table is wider than its frame (to be scrolled
// sideways, its last columns out of sight).
func (b *browser) fits(where string) {
	b.t.Helper()
	got := b.eval(`(() => {
		const out = [], w = document.documentElement.clientWidth;
		if (document.documentElement.scrollWidth > w) out.push("the page is " + document.documentElement.scrollWidth + " px wide on a " + w + " px screen");
		for (const s of document.querySelectorAll(".scroll")) {
			if (s.scrollWidth > s.clientWidth + 1) out.push("table " + JSON.stringify(s.querySelector("caption")?.textContent) + " is " + s.scrollWidth + " px wide in " + s.clientWidth + " px");
		}
		return out.join("; ");
	})()`)
	if got != "" {
		b.t.Errorf("%s: %s", where, got)
	}
}

// holdsStill fails the test when the page's layout shifted by 0.05 or
// more while it loaded (the sum of every shift since the document opened,
// which bounds Lighthouse's CLS; its budget is 0.1, docs/performance.md):
// the parts drawn after their reads must keep their room.
func (b *browser) holdsStill(where string) {
	b.t.Helper()
	time.Sleep(300 * time.Millisecond) // a chart drawn a frame after its read
	got := b.eval(`(() => {
		const sum = window.__shifts.reduce((a, s) => a + s.value, 0);
		return sum < 0.05 ? "" : sum.toFixed(3) + ": " + window.__shifts.filter((s) => s.value >= 0.001).map((s) => s.value.toFixed(3) + " " + s.nodes).join("; ");
	})()`)
	if got != "" {
		b.t.Errorf("%s: the layout shifted by %s", where, got)
	}
}

// namesWhole fails the test when a player's name of one word in a table is
// broken over two lines ("Czarodzi / ej2003").
func (b *browser) namesWhole(where string) {
	b.t.Helper()
	got := b.eval(`[...document.querySelectorAll("td a.player")].filter((a) => a.offsetParent && a.getClientRects().length > 1 && !/\s/.test(a.textContent)).map((a) => a.textContent).join(", ")`)
	if got != "" {
		b.t.Errorf("%s: names broken over lines: %s", where, got)
	}
}

// axeSource is axe-core, injected into pages by the test (never embedded).
var axeSource = sync.OnceValues(func() ([]byte, error) {
	return os.ReadFile(filepath.Join("testdata", "axe-core", "axe.min.js"))
})

type axeViolation struct {
	ID     string `json:"id"`
	Impact string `json:"impact"`
	Help   string `json:"help"`
	Nodes  []struct {
		Target string `json:"target"`
		HTML   string `json:"html"`
	} `json:"nodes"`
}

// accessible runs axe-core on the page and fails the test on every serious
// or critical violation (moderate and minor ones are logged).
func (b *browser) accessible(where string) {
	b.t.Helper()
	src, err := axeSource()
	if err != nil {
		b.t.Fatal(err)
	}
	if b.eval(`typeof axe`) == "undefined" {
		b.eval(string(src) + `; "injected"`)
	}
	res, err := chromedp.Run(b.ctx, chromedp.Evaluate[[]axeViolation](`axe.run(document, {resultTypes: ["violations"]}).then((r) =>
		r.violations.map((v) => ({id: v.id, impact: v.impact, help: v.help,
			nodes: v.nodes.slice(0, 3).map((n) => ({target: n.target.join(" "), html: n.html.slice(0, 200)}))})))`,
		func(p *runtime.EvaluateParams) { p.AwaitPromise = ptr(true) }))
	if err != nil {
		b.t.Fatalf("%s: axe: %v", where, err)
	}
	for _, v := range res {
		msg := fmt.Sprintf("%s: axe %s (%s): %s", where, v.ID, v.Impact, v.Help)
		for _, n := range v.Nodes {
			msg += fmt.Sprintf("\n\t%s: %s", n.Target, n.HTML)
		}
		if v.Impact == "serious" || v.Impact == "critical" {
			b.t.Error(msg)
		} else {
			b.t.Log(msg)
		}
	}
}

func ptr[T any](v T) *T { return &v }

// artifacts is where the tests' screenshots go and stay after the tests:
// $RYNEK_ARTIFACTS, or one new directory under the system's temporary
// directory per test binary, which the log names (a t.TempDir would be
// gone by the time anyone read the log).
func artifacts(t testing.TB) string {
	t.Helper()
	dir, err := artifactDir()
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("screenshots kept in %s", dir)
	return dir
}

var artifactDir = sync.OnceValues(func() (string, error) {
	if dir := os.Getenv("RYNEK_ARTIFACTS"); dir != "" {
		return dir, os.MkdirAll(dir, 0o755)
	}
	return os.MkdirTemp("", "rynek-website-")
})

// screenshot writes the whole page as a PNG into dir and returns its path.
func (b *browser) screenshot(dir, name string) string {
	b.t.Helper()
	png, err := chromedp.Run(b.ctx, chromedp.FullScreenshot(100))
	if err != nil {
		b.t.Fatal(err)
	}
	path := filepath.Join(dir, name+".png")
	if err := os.WriteFile(path, png, 0o644); err != nil {
		b.t.Fatal(err)
	}
	return path
}

func jsString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

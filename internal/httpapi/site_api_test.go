package httpapi

import (
	"bytes"
	"compress/gzip"
	"io"
	"strings"
	"testing"

	"github.com/rynek/rynek/seed"
)

// TestSitePathsAnswerTheApp: every page of the website is a link the server
// answers with the app, under the strict policy (scripts and styles from
// the server only, no inline ones); a path that cannot name anything (a
// listing id the market never gave among them) is the
// app with 404 (it says so in Polish) for a browser and a problem for
// anything else.
func TestSitePathsAnswerTheApp(t *testing.T) {
	e := newEnv(t, seed.Options{Listings: 20}, Options{})
	players, _ := e.svc.Players()
	html := "Accept: text/html,application/xhtml+xml"
	for _, c := range []struct {
		path   string
		status int
	}{
		{"/", 200}, {"/?q=diament&sort=price&category=tools", 200}, {"/item/DIAMOND_SWORD", 200}, {"/item/diamond_sword?span=30d", 200},
		{"/listing/5", 200}, {"/listing/999999", 404}, {"/player/" + players[0].ID.String(), 200}, {"/stats", 200},
		{"/item/NOT_AN_ITEM", 404}, {"/listing/abc", 404}, {"/listing/007", 404}, {"/player/nope", 404}, {"/nie-ma", 404},
		{"/item/DIAMOND/extra", 404},
	} {
		a := e.get(c.path, html)
		if a.status != c.status || !bytes.Equal(a.body, sitePage) {
			t.Errorf("%s: %d (%d bytes), want %d and the app", c.path, a.status, len(a.body), c.status)
		}
		if got := a.header.Get("Content-Security-Policy"); got != sitePolicy {
			t.Errorf("%s: Content-Security-Policy %q", c.path, got)
		}
	}
	if !strings.Contains(sitePolicy, "script-src 'self';") || !strings.Contains(sitePolicy, "style-src 'self';") || strings.Contains(sitePolicy, "unsafe") {
		t.Errorf("the policy allows more than the server's own scripts and styles: %s", sitePolicy)
	}
	if bytes.Contains(sitePage, []byte("<script>")) || bytes.Contains(sitePage, []byte("<style")) || bytes.Contains(sitePage, []byte(" style=")) {
		t.Error("the page has an inline script or style, which the policy refuses")
	}
	// Not a browser: a problem, as for every unknown route.
	if a := e.get("/nie-ma"); a.status != 404 || a.problem(t).Code != CodeNotFound {
		t.Errorf("/nie-ma without text/html: %d %s", a.status, a.body)
	}
	if a := e.get("/api/nie-ma", html); a.status != 404 || a.problem(t).Code != CodeNotFound {
		t.Errorf("/api/nie-ma: %d %s", a.status, a.body)
	}
}

// TestSharedLinksOpenThePage: a link a chat app shared carries parameters
// of its own (utm_source, fbclid), and a page opens with them, in Polish,
// as without them; the API goes on refusing a parameter it does not take.
func TestSharedLinksOpenThePage(t *testing.T) {
	e := newEnv(t, seed.Options{Listings: 5}, Options{})
	html := "Accept: text/html,application/xhtml+xml"
	for _, path := range []string{"/?utm_source=discord", "/item/DIAMOND?fbclid=abc", "/listing/3?utm_campaign=x", "/stats?ref=x",
		"/?categroy=tools", "/item/DIAMOND?sort=price&sort=x", "/?q=diament&utm_medium=social&utm_medium=chat", "/stats?%zz", "/?ref=%ff"} {
		a := e.get(path, html)
		if a.status != 200 || a.header.Get("Content-Type") != "text/html; charset=utf-8" || !bytes.Equal(a.body, sitePage) ||
			!bytes.Contains(a.body, []byte(`<html lang="pl">`)) {
			t.Errorf("%s: %d %q (%d bytes), want 200 and the Polish page", path, a.status, a.header.Get("Content-Type"), len(a.body))
		}
	}
	if a := e.get("/listing/abc?utm_source=discord", html); a.status != 404 || !bytes.Equal(a.body, sitePage) {
		t.Errorf("/listing/abc with utm_source: %d, want 404 and the page that says so", a.status)
	}
	a := e.get("/api/listings?utm_source=discord", html)
	if p := a.problem(t); a.status != 400 || p.Parameter != "utm_source" ||
		p.Detail != `unknown parameter "utm_source"; this route takes: q, category, seller, material, min_price, max_price, min_amount, max_amount, kind, sort, limit, cursor` {
		t.Errorf("/api/listings?utm_source=discord: %d %+v", a.status, p)
	}
}

// TestSiteBundle: the scripts and style sheets are served from the binary,
// gzipped when asked, revalidated by their tag; unknown files are 404; and
// together, gzipped, they stay under the budget of 150 KB.
func TestSiteBundle(t *testing.T) {
	e := newEnv(t, seed.Options{Listings: 5}, Options{})
	size, files := BundleSize()
	t.Logf("JavaScript and CSS, gzipped: %d bytes in %d files", size, len(files))
	if size >= 150_000 {
		t.Errorf("the bundle is %d bytes gzipped; the budget is 150,000", size)
	}
	for _, want := range []string{"js/main.js", "css/site.css", "vendor/uplot/uPlot.iife.min.js", "vendor/uplot/uPlot.min.css"} {
		if !strings.Contains(strings.Join(files, " "), want) {
			t.Errorf("the bundle lacks %s: %v", want, files)
		}
	}
	// Every file the page names is in the bundle.
	for _, m := range bytes.Split(sitePage, []byte(`"/static/`))[1:] {
		name := string(m[:bytes.IndexByte(m, '"')])
		if assets[name] == nil {
			t.Errorf("the page names /static/%s, which the bundle lacks", name)
		}
	}
	a := e.get("/static/js/main.js", "Accept-Encoding: gzip, br")
	if a.status != 200 || a.header.Get("Content-Encoding") != "gzip" || a.header.Get("Content-Type") != "text/javascript; charset=utf-8" {
		t.Fatalf("main.js: %d %v", a.status, a.header)
	}
	zr, err := gzip.NewReader(bytes.NewReader(a.body))
	if err != nil {
		t.Fatal(err)
	}
	if plain, _ := io.ReadAll(zr); !bytes.Equal(plain, assets["js/main.js"].body) {
		t.Error("main.js gzipped is not main.js")
	}
	if a := e.get("/static/js/main.js", "Accept-Encoding: gzip;q=0"); a.header.Get("Content-Encoding") != "" || !bytes.Equal(a.body, assets["js/main.js"].body) {
		t.Errorf("main.js for a client that refuses gzip: %v", a.header)
	}
	if a := e.get("/static/js/main.js", "If-None-Match: "+a.header.Get("ETag")); a.status != 304 {
		t.Errorf("main.js revalidated: %d", a.status)
	}
	for _, path := range []string{"/static/js/nope.js", "/static/index.html", "/static/openapi.json", "/static/", "/static/vendor/uplot"} {
		if a := e.get(path); a.status != 404 && a.status != 400 {
			t.Errorf("%s: %d", path, a.status)
		}
	}
	if a := e.get("/static/vendor/uplot/LICENSE"); a.status != 200 || !bytes.Contains(a.body, []byte("MIT")) {
		t.Errorf("uPlot's licence: %d", a.status)
	}
}

package httpapi

import (
	"crypto/sha256"
	"encoding/base64"
	"io/fs"
	"mime"
	"net/http"
	"path"
	"sort"
	"strconv"
	"strings"

	"github.com/rynek/rynek/market/catalog"
)

// The market's website: one HTML page (static/index.html) that loads the
// app's ES modules and style sheets from /static/, the same page for every
// path route; the app reads the path and draws the page it names
// (static/js/main.js). Pages hold no data: every figure comes from /api.

// sitePolicy is the Content-Security-Policy of the website's pages: scripts
// and style sheets from this origin only (no inline script or style, no
// eval), requests to this origin only, no frames, forms or base. Player
// text that somehow became markup could run nothing and load nothing.
const sitePolicy = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; connect-src 'self'; " +
	"base-uri 'none'; form-action 'none'; frame-ancestors 'none'"

// asset is one file of the website's bundle, kept as served: its bytes,
// their gzip, its type and entity tag.
type asset struct {
	body, gz    []byte
	contentType string
	tag         string
}

// assetDirs are the folders of static/ served under /static/: the app's
// modules, its style sheets and the vendored chart library.
var assetDirs = []string{"js", "css", "img", "vendor"}

// assets are the bundle's files by their path under /static/.
var assets = loadAssets()

func loadAssets() map[string]*asset {
	out := map[string]*asset{}
	for _, dir := range assetDirs {
		err := fs.WalkDir(static, "static/"+dir, func(name string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				return err
			}
			body := mustRead(name)
			ct := mime.TypeByExtension(path.Ext(name))
			switch path.Ext(name) {
			case ".js":
				ct = "text/javascript; charset=utf-8"
			case ".css":
				ct = "text/css; charset=utf-8"
			case "", ".txt":
				ct = "text/plain; charset=utf-8" // the licences
			}
			sum := sha256.Sum256(body)
			out[strings.TrimPrefix(name, "static/")] = &asset{body: body, gz: gzipped(body), contentType: ct,
				tag: `"` + base64.RawURLEncoding.EncodeToString(sum[:9]) + `"`}
			return nil
		})
		if err != nil {
			panic(err) // embedded at build time: cannot fail
		}
	}
	return out
}

// BundleSize is what a browser downloads of the website's scripts and
// style sheets, gzipped as the server sends them, and which files they
// are: the budget is 150 KB (docs/performance.md).
func BundleSize() (gzippedBytes int, files []string) {
	for name, a := range assets {
		if strings.HasSuffix(name, ".js") || strings.HasSuffix(name, ".css") {
			gzippedBytes += len(a.gz)
			files = append(files, name)
		}
	}
	sort.Strings(files)
	return gzippedBytes, files
}

// serveAsset answers GET /static/{path...} from the bundle, gzipped when
// the client takes it. Assets revalidate (no-cache) by their entity tag,
// so a new binary's bundle is used at once.
func (s *Server) serveAsset(w http.ResponseWriter, r *http.Request) {
	a := assets[r.PathValue("path")]
	if a == nil {
		writeProblem(w, r, &problemError{status: http.StatusNotFound, code: CodeNotFound, detail: "no such file in the website's bundle"})
		return
	}
	if _, err := parseParams(r.URL.RawQuery); err != nil {
		writeError(w, r, err)
		return
	}
	serveBytes(w, r, a.contentType, a.tag, encoding(w, r, a.body, a.gz))
}

// pagePath checks a website path's parameter before the page is served:
// a listing id the market gave, a player UUID or a material the catalogue
// knows. One that cannot name anything, or a listing that never was, is
// answered with the page and 404, and the page says so in Polish; a
// listing gone is the page's to tell, with how it went.
type pagePath func(s *Server, r *http.Request) bool

// sitePages are the website's pages. A page's query is not checked: the
// app reads the parameters it knows (the market's search, an item's span)
// and the API judges their values, which the page shows in Polish.
// Anything else in a link (a chat app's utm_source or fbclid) is ignored,
// so that a shared link opens the page.
var sitePages = []struct {
	pattern string
	valid   pagePath
}{
	{"GET /{$}", func(*Server, *http.Request) bool { return true }},
	{"GET /item/{material}", func(_ *Server, r *http.Request) bool {
		_, ok := catalog.LookupMaterial(r.PathValue("material"))
		return ok
	}},
	{"GET /listing/{id}", (*Server).listingPageStatus},
	{"GET /player/{uuid}", func(_ *Server, r *http.Request) bool { _, err := parseUUID(r.PathValue("uuid")); return err == nil }},
	{"GET /stats", func(*Server, *http.Request) bool { return true }},
}

// siteRoutes adds the website's pages and its bundle to the mux.
func (s *Server) siteRoutes() {
	for _, p := range sitePages {
		s.mux.HandleFunc(p.pattern, func(w http.ResponseWriter, r *http.Request) {
			status := http.StatusOK
			if !p.valid(s, r) {
				status = http.StatusNotFound
			}
			s.page(w, r, status)
		})
	}
	s.mux.HandleFunc("GET /static/{path...}", s.serveAsset)
}

// page answers with the website's page (it draws the path's page itself).
func (s *Server) page(w http.ResponseWriter, r *http.Request, status int) {
	h := w.Header()
	h.Set("Content-Security-Policy", sitePolicy)
	h.Set("Referrer-Policy", "no-referrer")
	body := encoding(w, r, sitePage, sitePageGz)
	if status != http.StatusOK {
		h.Set("Content-Type", "text/html; charset=utf-8")
		h.Set("Content-Length", strconv.Itoa(len(body)))
		h.Set("Cache-Control", "no-cache")
		w.WriteHeader(status)
		if r.Method != http.MethodHead {
			w.Write(body)
		}
		return
	}
	serveBytes(w, r, "text/html; charset=utf-8", staticTag, body)
}

// notFound answers a path no route has: a browser asking for a page gets
// the website's Polish page that says so (404), anything else, and every
// path under /api/, a problem.
func (s *Server) notFound(w http.ResponseWriter, r *http.Request) {
	if !strings.HasPrefix(r.URL.Path, "/api/") && !strings.HasPrefix(r.URL.Path, "/static/") &&
		strings.Contains(r.Header.Get("Accept"), "text/html") {
		s.page(w, r, http.StatusNotFound)
		return
	}
	writeProblem(w, r, &problemError{status: http.StatusNotFound, code: CodeNotFound,
		detail: "no such route; see /api/openapi.json"})
}

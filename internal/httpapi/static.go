package httpapi

import (
	"bytes"
	"crypto/sha256"
	"embed"
	"encoding/base64"
	"net/http"
	"strconv"
)

// static holds the board page and the OpenAPI document, served from the
// binary.
//
//go:embed static/index.html static/openapi.json
var static embed.FS

var (
	boardPage   = mustRead("static/index.html")
	openAPIDoc  = mustRead("static/openapi.json")
	boardPolicy = contentPolicy(boardPage)
)

func mustRead(name string) []byte {
	b, err := static.ReadFile(name)
	if err != nil {
		panic(err) // embedded at build time: cannot fail
	}
	return b
}

// OpenAPI returns the OpenAPI 3.1 document of the API.
func OpenAPI() []byte { return bytes.Clone(openAPIDoc) }

// contentPolicy allows the page's own inline script (by its hash), its
// inline style and requests to this origin only: player text that somehow
// became markup could run nothing.
func contentPolicy(page []byte) string {
	script := page
	if i := bytes.Index(script, []byte("<script>")); i >= 0 {
		script = script[i+len("<script>"):]
	}
	if i := bytes.Index(script, []byte("</script>")); i >= 0 {
		script = script[:i]
	}
	sum := sha256.Sum256(script)
	return "default-src 'none'; script-src 'sha256-" + base64.StdEncoding.EncodeToString(sum[:]) +
		"'; style-src 'unsafe-inline'; connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"
}

func serveStatic(w http.ResponseWriter, r *http.Request, contentType string, body []byte) {
	h := w.Header()
	h.Set("Content-Type", contentType)
	h.Set("Content-Length", strconv.Itoa(len(body)))
	h.Set("Cache-Control", "no-cache")
	h.Set("ETag", staticTag)
	if etagMatch(r.Header.Get("If-None-Match"), staticTag) {
		w.WriteHeader(http.StatusNotModified)
		return
	}
	if r.Method != http.MethodHead {
		w.Write(body)
	}
}

// staticTag changes with the embedded files.
var staticTag = func() string {
	sum := sha256.Sum256(append(bytes.Clone(boardPage), openAPIDoc...))
	return `"` + base64.RawURLEncoding.EncodeToString(sum[:9]) + `"`
}()

func (s *Server) board(w http.ResponseWriter, r *http.Request) {
	if _, err := parseParams(r.URL.RawQuery); err != nil {
		writeError(w, r, err)
		return
	}
	w.Header().Set("Content-Security-Policy", boardPolicy)
	w.Header().Set("Referrer-Policy", "no-referrer")
	serveStatic(w, r, "text/html; charset=utf-8", boardPage)
}

func (s *Server) openAPI(w http.ResponseWriter, r *http.Request) {
	if _, err := parseParams(r.URL.RawQuery); err != nil {
		writeError(w, r, err)
		return
	}
	serveStatic(w, r, "application/json", openAPIDoc)
}

package httpapi

import (
	"bytes"
	"crypto/sha256"
	"embed"
	"encoding/base64"
	"net/http"
	"strconv"
)

// static holds the website (its page, scripts, style sheets and the
// vendored chart library) and the OpenAPI document, served from the binary.
//
//go:embed static/index.html static/openapi.json static/js static/css static/img static/vendor
var static embed.FS

var (
	sitePage   = mustRead("static/index.html")
	openAPIDoc = mustRead("static/openapi.json")
	// Their gzip, sent to clients that take it.
	sitePageGz   = gzipped(sitePage)
	openAPIDocGz = gzipped(openAPIDoc)
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

// serveBytes answers with body, or 304 when If-None-Match names tag.
func serveBytes(w http.ResponseWriter, r *http.Request, contentType, tag string, body []byte) {
	h := w.Header()
	h.Set("Content-Type", contentType)
	h.Set("Cache-Control", "no-cache")
	h.Set("ETag", tag)
	if etagMatch(r.Header.Get("If-None-Match"), tag) {
		h.Del("Content-Encoding")
		w.WriteHeader(http.StatusNotModified)
		return
	}
	h.Set("Content-Length", strconv.Itoa(len(body)))
	if r.Method != http.MethodHead {
		w.Write(body)
	}
}

// staticTag changes with the embedded page and document.
var staticTag = func() string {
	sum := sha256.Sum256(append(bytes.Clone(sitePage), openAPIDoc...))
	return `"` + base64.RawURLEncoding.EncodeToString(sum[:9]) + `"`
}()

func (s *Server) openAPI(w http.ResponseWriter, r *http.Request) {
	if _, err := parseParams(r.URL.RawQuery); err != nil {
		writeError(w, r, err)
		return
	}
	serveBytes(w, r, "application/json", staticTag, encoding(w, r, openAPIDoc, openAPIDocGz))
}

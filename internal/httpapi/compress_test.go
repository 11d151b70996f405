package httpapi

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"io"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/rynek/rynek/seed"
)

// TestTextIsGzipped: the page, the OpenAPI document and the API's JSON
// answers go gzipped to a client that takes gzip, each the same bytes once
// unzipped, with Vary: Accept-Encoding; a client that does not gets them
// plain, and so does every client for an answer under a kilobyte. The
// event stream is never gzipped: its events leave at once.
func TestTextIsGzipped(t *testing.T) {
	e := newEnv(t, seed.Options{Listings: 200}, Options{})
	for _, path := range []string{"/", "/stats", "/api/openapi.json", "/api/stats", "/api/listings?limit=20", "/api/listings/1"} {
		plain := e.get(path, "Accept-Encoding: identity", "Accept: text/html")
		zipped := e.get(path, "Accept-Encoding: gzip, deflate, br", "Accept: text/html")
		if plain.status != 200 || zipped.status != 200 {
			t.Fatalf("%s: %d and %d", path, plain.status, zipped.status)
		}
		if !strings.Contains(zipped.header.Get("Vary"), "Accept-Encoding") || !strings.Contains(plain.header.Get("Vary"), "Accept-Encoding") {
			t.Errorf("%s: Vary %q and %q", path, plain.header.Get("Vary"), zipped.header.Get("Vary"))
		}
		if plain.header.Get("Content-Encoding") != "" {
			t.Errorf("%s without gzip: Content-Encoding %q", path, plain.header.Get("Content-Encoding"))
		}
		if len(plain.body) < minGzip {
			if zipped.header.Get("Content-Encoding") != "" || !bytes.Equal(zipped.body, plain.body) {
				t.Errorf("%s (%d bytes) was gzipped", path, len(plain.body))
			}
			continue
		}
		if zipped.header.Get("Content-Encoding") != "gzip" {
			t.Errorf("%s (%d bytes): Content-Encoding %q", path, len(plain.body), zipped.header.Get("Content-Encoding"))
			continue
		}
		zr, err := gzip.NewReader(bytes.NewReader(zipped.body))
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		body, err := io.ReadAll(zr)
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		if !bytes.Equal(body, plain.body) {
			t.Errorf("%s unzipped differs from the plain answer", path)
		}
		if zipped.header.Get("Content-Length") != itoa(len(zipped.body)) {
			t.Errorf("%s: Content-Length %s for %d bytes", path, zipped.header.Get("Content-Length"), len(zipped.body))
		}
		t.Logf("%s: %d bytes, %d gzipped", path, len(plain.body), len(zipped.body))
	}
	if a := e.get("/api/health", "Accept-Encoding: gzip"); len(a.body) >= minGzip || a.header.Get("Content-Encoding") != "" {
		t.Errorf("/api/health, %d bytes: Content-Encoding %q", len(a.body), a.header.Get("Content-Encoding"))
	}

	// The stream: plain, and its first event arrives while it is open.
	req, _ := http.NewRequest("GET", e.srv.URL+"/api/events?since=0", nil)
	req.Header.Set("Accept-Encoding", "gzip")
	res, err := e.srv.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	if ce := res.Header.Get("Content-Encoding"); ce != "" {
		t.Fatalf("the event stream: Content-Encoding %q", ce)
	}
	buyer, listing := e.buyerOfOne()
	if _, err := e.svc.Buy(buyer, listing); err != nil {
		t.Fatal(err)
	}
	got := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(res.Body)
		for sc.Scan() {
			if strings.HasPrefix(sc.Text(), "event: TransactionCompletedEvent") {
				got <- sc.Text()
				return
			}
		}
	}()
	select {
	case <-got:
	case <-time.After(10 * time.Second):
		t.Fatal("the purchase's event did not reach the open stream")
	}
}

func itoa(n int) string { return strconv.Itoa(n) }

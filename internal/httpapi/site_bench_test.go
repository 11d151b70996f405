package httpapi

import (
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

// BenchmarkSiteFirstPage is the website's first page at a million listings
// (RYNEK_BENCH_API_LISTINGS changes it) on loopback, cold: the kept answers
// are forgotten before each load, as after every change of the market.
//
// http: what a browser fetches before it shows the listings, over TCP, six
// connections at a time as a browser does: the page, then its scripts and
// style sheets (gzipped), then the four reads its scripts make.
//
// chromium: headless Chromium opening / as a new document, to the load
// event and to the first page of listings on screen.
func BenchmarkSiteFirstPage(b *testing.B) {
	_, api := loadBenchAPI(b)
	srv := httptest.NewServer(api)
	defer srv.Close()
	forget := func() {
		api.answers.mu.Lock()
		clear(api.answers.entries)
		api.answers.mu.Unlock()
	}
	var files []string
	for name := range assets {
		if strings.Contains(string(sitePage), `"/static/`+name+`"`) || strings.HasPrefix(name, "js/") {
			files = append(files, "/static/"+name)
		}
	}
	reads := []string{"/api/health", "/api/stats", "/api/listings?limit=20", "/api/categories"}
	client := &http.Client{Transport: &http.Transport{MaxConnsPerHost: 6, MaxIdleConnsPerHost: 6, DisableCompression: true}}
	get := func(path string) {
		req, _ := http.NewRequest("GET", srv.URL+path, nil)
		req.Header.Set("Accept-Encoding", "gzip")
		req.Header.Set("Accept", "text/html")
		res, err := client.Do(req)
		if err != nil {
			b.Fatal(err)
		}
		io.Copy(io.Discard, res.Body)
		res.Body.Close()
		if res.StatusCode != 200 {
			b.Fatalf("%s: %d", path, res.StatusCode)
		}
	}
	all := func(paths []string) {
		var wg sync.WaitGroup
		for _, p := range paths {
			wg.Go(func() { get(p) })
		}
		wg.Wait()
	}
	b.Run("http", func(b *testing.B) {
		var ds []time.Duration
		for b.Loop() {
			forget()
			start := time.Now()
			get("/")
			all(files)
			all(reads)
			ds = append(ds, time.Since(start))
		}
		reportPercentiles(b, ds)
	})
	b.Run("chromium", func(b *testing.B) {
		br := newBrowser(b, srv.URL, desktop)
		var load, shown []time.Duration
		for b.Loop() {
			forget()
			br.open("/")
			br.waitFor(`document.querySelectorAll("table.listings tbody tr").length === 20 ? "shown" : "not yet"`, "shown")
			ms := func(expr string) time.Duration {
				v := br.eval(expr)
				d, err := time.ParseDuration(v + "ms")
				if err != nil {
					b.Fatalf("%s: %q", expr, v)
				}
				return d
			}
			load = append(load, ms(`String(performance.getEntriesByType("navigation")[0].loadEventEnd)`))
			shown = append(shown, ms(`String(performance.getEntriesByName("listings-shown")[0]?.startTime ?? -1)`))
		}
		reportPercentiles(b, load)
		p50, p99 := percentiles(shown)
		b.ReportMetric(p50, "shown-p50-ms")
		b.ReportMetric(p99, "shown-p99-ms")
	})
}

func percentiles(ds []time.Duration) (p50, p99 float64) {
	s := slices.Sorted(slices.Values(ds))
	at := func(q float64) float64 { return float64(s[min(len(s)-1, int(q*float64(len(s))))].Microseconds()) / 1e3 }
	return at(0.5), at(0.99)
}

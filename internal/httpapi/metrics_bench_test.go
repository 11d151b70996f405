package httpapi

import (
	"net/http"
	"net/http/httptest"
	"testing"
)

// BenchmarkRequestCounted is what counting a request for the metrics
// costs: its route's pattern and its series' counter.
func BenchmarkRequestCounted(b *testing.B) {
	_, api := loadBenchAPI(b)
	r := httptest.NewRequest("GET", "/api/listings/1", nil)
	api.mux.ServeHTTP(httptest.NewRecorder(), r) // routed: r.Pattern is set
	b.ReportAllocs()
	for b.Loop() {
		api.metrics.count(api.routeOf(r), http.StatusOK)
	}
}

// BenchmarkScrape is one scrape of /metrics in the handler: gathering
// the market's figures, the runtime's and the process's, and encoding
// them.
func BenchmarkScrape(b *testing.B) {
	_, api := loadBenchAPI(b)
	b.ReportAllocs()
	for b.Loop() {
		w := httptest.NewRecorder()
		api.ServeHTTP(w, httptest.NewRequest("GET", MetricsPath, nil))
		if w.Code != http.StatusOK {
			b.Fatalf("GET /metrics: %d", w.Code)
		}
	}
}

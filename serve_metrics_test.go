package main

import (
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"time"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
)

// TestServeIsScrapedByPrometheus: `rynek serve` says where its metrics
// are, and a scrape of them moves with the running market: its main
// loop's ticks, 20 a second, each in the tick histogram; the bots' changes
// committed behind the tick, each commit in the commit histogram; the
// log's head.
func TestServeIsScrapedByPrometheus(t *testing.T) {
	path := filepath.Join(t.TempDir(), "m.db")
	srv := startServe(t, "--db", path, "--seed", "200", "--api", "127.0.0.1:0", "--bots", "50")
	defer srv.stop()
	if !strings.Contains(srv.first, "(API under /api/, Prometheus metrics at /metrics, the website at /)") {
		t.Errorf("the first line does not say where the metrics are: %q", srv.first)
	}
	scrape := func() map[string]*dto.MetricFamily {
		t.Helper()
		res, err := http.Get(srv.base + "/metrics")
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		if res.StatusCode != 200 {
			t.Fatalf("GET /metrics: %d", res.StatusCode)
		}
		p := expfmt.NewTextParser(model.UTF8Validation)
		fams, err := p.TextToMetricFamilies(res.Body)
		if err != nil {
			t.Fatal(err)
		}
		return fams
	}
	count := func(fams map[string]*dto.MetricFamily, name string) uint64 {
		t.Helper()
		f := fams[name]
		if f == nil || len(f.Metric) != 1 || f.Metric[0].Histogram == nil {
			t.Fatalf("no histogram %s", name)
		}
		return f.Metric[0].Histogram.GetSampleCount()
	}
	head := func(fams map[string]*dto.MetricFamily) float64 {
		t.Helper()
		f := fams["rynek_events_head"]
		if f == nil || len(f.Metric) != 1 {
			t.Fatal("no rynek_events_head")
		}
		return f.Metric[0].Gauge.GetValue()
	}
	before := scrape()
	time.Sleep(time.Second)
	after := scrape()
	if b, a := count(before, "rynek_tick_duration_seconds"), count(after, "rynek_tick_duration_seconds"); a < b+10 || a > b+40 {
		t.Errorf("ticks counted %d, then %d a second later: want about 20 more", b, a)
	}
	if b, a := count(before, "rynek_commit_duration_seconds"), count(after, "rynek_commit_duration_seconds"); a <= b {
		t.Errorf("commits counted %d, then %d a second later, with bots", b, a)
	}
	if b, a := head(before), head(after); a <= b {
		t.Errorf("the log's head %v, then %v a second later, with bots", b, a)
	}
}

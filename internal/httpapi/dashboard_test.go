package httpapi

import (
	"encoding/json"
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/rynek/rynek/internal/webhook"
	"github.com/rynek/rynek/seed"
)

// dashboard is what the test reads of docs/grafana-dashboard.json.
type dashboard struct {
	Inputs []struct {
		Name, Type, PluginID string
	} `json:"__inputs"`
	Panels []dashboardPanel `json:"panels"`
}

type dashboardPanel struct {
	Type, Title string
	Datasource  *struct{ Type, UID string } `json:"datasource"`
	Targets     []struct {
		Expr       string                      `json:"expr"`
		Datasource *struct{ Type, UID string } `json:"datasource"`
	} `json:"targets"`
}

// metricName finds the metrics a PromQL expression reads.
var metricName = regexp.MustCompile(`\b(?:rynek|go|process)_[a-z0-9_]+`)

// TestGrafanaDashboardQueriesWhatIsScraped: docs/grafana-dashboard.json
// parses, imports anywhere (every panel and query on the DS_PROMETHEUS
// input), and every metric its panels query is in a scrape of /metrics
// (a histogram's _bucket, _count and _sum by its family); every rynek_
// metric of the scrape has a panel.
func TestGrafanaDashboardQueriesWhatIsScraped(t *testing.T) {
	text, err := os.ReadFile("../../docs/grafana-dashboard.json")
	if err != nil {
		t.Fatal(err)
	}
	var d dashboard
	if err := json.Unmarshal(text, &d); err != nil {
		t.Fatalf("the dashboard is not JSON: %v", err)
	}
	if len(d.Inputs) != 1 || d.Inputs[0].Name != "DS_PROMETHEUS" || d.Inputs[0].Type != "datasource" || d.Inputs[0].PluginID != "prometheus" {
		t.Fatalf("inputs %+v, want the one Prometheus datasource DS_PROMETHEUS", d.Inputs)
	}
	hooks := &fakeHooks{statuses: []webhook.Status{{Name: "site", Lag: 2}}}
	e := newEnv(t, seed.Options{Listings: 10}, Options{Webhooks: hooks})
	e.get("/api/stats")
	fams := scrape(t, e)
	queried := map[string]bool{}
	for _, p := range d.Panels {
		if p.Type == "row" {
			continue
		}
		if p.Datasource == nil || p.Datasource.UID != "${DS_PROMETHEUS}" || len(p.Targets) == 0 {
			t.Errorf("panel %q: datasource %+v, %d queries", p.Title, p.Datasource, len(p.Targets))
		}
		for _, q := range p.Targets {
			if q.Datasource == nil || q.Datasource.UID != "${DS_PROMETHEUS}" {
				t.Errorf("panel %q: a query on %+v", p.Title, q.Datasource)
			}
			names := metricName.FindAllString(q.Expr, -1)
			if len(names) == 0 {
				t.Errorf("panel %q: %q reads no metric", p.Title, q.Expr)
			}
			for _, name := range names {
				family := name
				for _, suffix := range []string{"_bucket", "_count", "_sum"} {
					if f := strings.TrimSuffix(name, suffix); f != name && fams[f] != nil {
						family = f
					}
				}
				if fams[family] == nil {
					t.Errorf("panel %q queries %s, which the scrape lacks", p.Title, name)
				}
				queried[family] = true
			}
		}
	}
	var missing []string
	for name := range fams {
		if strings.HasPrefix(name, "rynek_") && !queried[name] {
			missing = append(missing, name)
		}
	}
	slices.Sort(missing)
	if len(missing) > 0 {
		t.Errorf("no panel shows %v", missing)
	}
}

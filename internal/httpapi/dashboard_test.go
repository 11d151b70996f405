package httpapi

import (
	"encoding/json"
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"

	dto "github.com/prometheus/client_model/go"
	"go.yaml.in/yaml/v3"

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

// familyOf is the family of a metric a query names: a histogram's
// _bucket, _count and _sum are its family's.
func familyOf(fams map[string]*dto.MetricFamily, name string) string {
	for _, suffix := range []string{"_bucket", "_count", "_sum"} {
		if f := strings.TrimSuffix(name, suffix); f != name && fams[f] != nil {
			return f
		}
	}
	return name
}

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
				family := familyOf(fams, name)
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

// TestDocumentedAlertsQueryWhatIsScraped: the alerting rules of
// docs/operations.md parse as Prometheus rule groups, and every metric
// their expressions read is in a scrape of /metrics.
func TestDocumentedAlertsQueryWhatIsScraped(t *testing.T) {
	text, err := os.ReadFile("../../docs/operations.md")
	if err != nil {
		t.Fatal(err)
	}
	_, after, ok := strings.Cut(string(text), "Alerts worth having")
	_, block, ok2 := strings.Cut(after, "```yaml\n")
	block, _, ok3 := strings.Cut(block, "```")
	if !ok || !ok2 || !ok3 {
		t.Fatal("operations.md has no alerting rules after \"Alerts worth having\"")
	}
	var rules struct {
		Groups []struct {
			Name  string
			Rules []struct{ Alert, Expr string }
		}
	}
	if err := yaml.Unmarshal([]byte(block), &rules); err != nil {
		t.Fatalf("the rules are not YAML: %v", err)
	}
	hooks := &fakeHooks{statuses: []webhook.Status{{Name: "site", Lag: 2}}}
	e := newEnv(t, seed.Options{Listings: 10}, Options{Webhooks: hooks})
	fams := scrape(t, e)
	n := 0
	for _, g := range rules.Groups {
		for _, r := range g.Rules {
			n++
			names := metricName.FindAllString(r.Expr, -1)
			if r.Alert == "" || len(names) == 0 {
				t.Errorf("rule %q: %q reads no metric", r.Alert, r.Expr)
			}
			for _, name := range names {
				if fams[familyOf(fams, name)] == nil {
					t.Errorf("rule %q reads %s, which the scrape lacks", r.Alert, name)
				}
			}
		}
	}
	if n < 5 {
		t.Errorf("%d rules found", n)
	}
}

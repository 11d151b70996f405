package httpapi

import (
	"encoding/json"
	"fmt"
	"net/url"
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/rynek/rynek/internal/wire"
	"github.com/rynek/rynek/seed"
)

// demoEnv is the market `rynek serve` seeds on a new file: seed's defaults
// (300 players, 3,000 listings, 30 days of sales), generator seed 1. Its
// players and listings are the same on every machine; only its times (and
// so its transactions' ids) follow the clock.
func demoEnv(t *testing.T) *env {
	return newEnv(t, seed.Options{Players: 300, Listings: 3000, Days: 30, Rand: 1}, Options{})
}

// exampleChecks say what each search example shown to users must find:
// something, and only what it means.
var exampleChecks = map[string]func(wire.Listing) bool{
	"diament miecz": func(l wire.Listing) bool { return l.Item.Material == "DIAMOND_SWORD" },
	"kilof price:..100": func(l wire.Listing) bool {
		return (strings.HasSuffix(l.Item.Material, "_PICKAXE") || strings.Contains(l.Item.Name, "Kilof")) && price(l) <= 100_00
	},
	"amount:64": func(l wire.Listing) bool { return l.Item.Amount == 64 },
	"amount:64 drewno": func(l wire.Listing) bool {
		return l.Item.Amount == 64 && (strings.Contains(l.Item.Material, "WOOD") || strings.Contains(l.Item.Material, "_LOG"))
	},
	"#1234": func(l wire.Listing) bool { return l.ID == 1234 },
}

func price(l wire.Listing) int64 {
	var whole, cents int64
	fmt.Sscanf(l.Price, "%d.%d", &whole, &cents)
	return whole*100 + cents
}

// checkExample runs one search example on e and checks what it finds.
func checkExample(t *testing.T, e *env, where, q string) {
	t.Helper()
	check, ok := exampleChecks[q]
	if !ok {
		t.Errorf("%s shows the example %q, which no check here covers: add one", where, q)
		return
	}
	var page wire.ListingPage
	e.getJSON("/api/listings?limit=500&q="+url.QueryEscape(q), &page)
	if page.Total == 0 {
		t.Errorf("%s: %q finds nothing on the demo market", where, q)
	}
	for _, l := range page.Items {
		if !check(l) {
			t.Errorf("%s: %q finds listing %d, %d× %s (%s) at %s", where, q, l.ID, l.Item.Amount, l.Item.Name, l.Item.Material, l.Price)
		}
	}
}

// TestSiteExamplesWorkOnTheDemo: every search example of the website's
// search box (its placeholder) finds listings on the demo market, and only
// relevant ones.
func TestSiteExamplesWorkOnTheDemo(t *testing.T) {
	e := demoEnv(t)
	m := regexp.MustCompile(`placeholder: "([^"]+)"`).FindSubmatch(assets["js/pages/market.js"].body)
	if m == nil {
		t.Fatal("the website's search box has no examples")
	}
	for _, q := range strings.Split(string(m[1]), ", ") {
		checkExample(t, e, "the website", q)
	}
}

// TestOpenAPIExamplesWorkOnTheDemo: every example in the OpenAPI document
// answers 200 on the demo market, a collection with items, and a search
// example only relevant ones.
func TestOpenAPIExamplesWorkOnTheDemo(t *testing.T) {
	e := demoEnv(t)
	var doc struct {
		Paths map[string]struct {
			Get struct {
				Parameters []struct {
					Name     string `json:"name"`
					In       string `json:"in"`
					Example  any    `json:"example"`
					Examples map[string]struct {
						Value any `json:"value"`
					} `json:"examples"`
				} `json:"parameters"`
			} `json:"get"`
		} `json:"paths"`
	}
	if err := json.Unmarshal(openAPIDoc, &doc); err != nil {
		t.Fatal(err)
	}
	tried := 0
	for path, item := range doc.Paths {
		// A path's parameters all take their examples; each example is
		// tried in turn on top of them.
		base := path
		for _, p := range item.Get.Parameters {
			if p.In == "path" && p.Example != nil {
				base = strings.Replace(base, "{"+p.Name+"}", url.PathEscape(fmt.Sprint(p.Example)), 1)
			}
		}
		for _, p := range item.Get.Parameters {
			var values []string
			if p.Example != nil {
				values = append(values, fmt.Sprint(p.Example))
			}
			for _, x := range p.Examples {
				values = append(values, fmt.Sprint(x.Value))
			}
			for _, v := range values {
				tried++
				target := base
				switch p.In {
				case "path":
					target = strings.Replace(path, "{"+p.Name+"}", url.PathEscape(v), 1)
					for _, q := range item.Get.Parameters {
						if q.In == "path" && q.Example != nil {
							target = strings.Replace(target, "{"+q.Name+"}", url.PathEscape(fmt.Sprint(q.Example)), 1)
						}
					}
				case "query":
					if p.Name == "q" {
						checkExample(t, e, "the OpenAPI document", v)
						continue
					}
					target += "?" + url.Values{p.Name: {v}}.Encode()
				}
				a := e.get(target)
				if a.status != 200 {
					t.Errorf("the example %s=%q: GET %s is %d: %s", p.Name, v, target, a.status, a.body)
					continue
				}
				var coll struct {
					Items *[]json.RawMessage `json:"items"`
				}
				json.Unmarshal(a.body, &coll)
				if coll.Items != nil && len(*coll.Items) == 0 {
					t.Errorf("the example %s=%q: GET %s finds nothing", p.Name, v, target)
				}
			}
		}
	}
	if tried < 10 {
		t.Errorf("the document has %d examples; the routes' parameters should have them", tried)
	}
}

// TestDocumentedCurlExamplesWorkOnTheDemo: every curl example of
// docs/http-api.md and README.md whose target is written out answers 200
// on the demo market, a collection with items. Those that take a value
// from another request ($CURSOR, $TX, the stream's since) are left to the
// routes' own tests.
func TestDocumentedCurlExamplesWorkOnTheDemo(t *testing.T) {
	e := demoEnv(t)
	example := regexp.MustCompile(`curl -sN? "\$A(/api/[^"$]*)"`)
	tried := 0
	for _, doc := range []string{"../../docs/http-api.md", "../../README.md"} {
		text, err := os.ReadFile(doc)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range example.FindAllSubmatch(text, -1) {
			target := string(m[1])
			if strings.HasPrefix(target, "/api/events") {
				continue // a stream: it answers as long as it is read
			}
			tried++
			a := e.get(target)
			if a.status != 200 {
				t.Errorf("%s: GET %s is %d: %s", doc, target, a.status, a.body)
				continue
			}
			var coll struct {
				Items *[]json.RawMessage `json:"items"`
			}
			json.Unmarshal(a.body, &coll)
			if coll.Items != nil && len(*coll.Items) == 0 {
				t.Errorf("%s: GET %s finds nothing on the demo market", doc, target)
			}
		}
	}
	if tried < 15 {
		t.Errorf("found %d curl examples in the docs; the pattern no longer matches how they are written", tried)
	}
}

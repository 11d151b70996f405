package httpapi

import (
	"bytes"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"

	"github.com/rynek/rynek/internal/webhook"
	"github.com/rynek/rynek/market"
	"github.com/rynek/rynek/seed"
)

// fakeHooks is a webhook delivery as the metrics see it: endpoints'
// states set by the test. While hold is set, Status waits for it to close
// (a Control slow to answer).
type fakeHooks struct {
	mu       sync.Mutex
	statuses []webhook.Status
	hold     chan struct{}
}

func (f *fakeHooks) Status() []webhook.Status {
	f.mu.Lock()
	hold := f.hold
	f.mu.Unlock()
	if hold != nil {
		<-hold
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]webhook.Status(nil), f.statuses...)
}

func (f *fakeHooks) Pause(string) error    { return nil }
func (f *fakeHooks) Resume(string) error   { return nil }
func (f *fakeHooks) SendTest(string) error { return nil }

// scrape reads e's /metrics and parses it as Prometheus does.
func scrape(t *testing.T, e *env, headers ...string) map[string]*dto.MetricFamily {
	t.Helper()
	a := e.get(MetricsPath, headers...)
	if a.status != 200 {
		t.Fatalf("GET /metrics: %d %s", a.status, a.body)
	}
	if ct := a.header.Get("Content-Type"); !strings.HasPrefix(ct, "text/plain; version=0.0.4") {
		t.Fatalf("GET /metrics: content type %q, want the text exposition format", ct)
	}
	p := expfmt.NewTextParser(model.UTF8Validation)
	fams, err := p.TextToMetricFamilies(bytes.NewReader(a.body))
	if err != nil {
		t.Fatalf("the scrape does not parse: %v\n%s", err, a.body)
	}
	return fams
}

// sample is the metric of family name whose labels are exactly labels
// ("name=value" each), or nil.
func sample(fams map[string]*dto.MetricFamily, name string, labels ...string) *dto.Metric {
	f := fams[name]
	if f == nil {
		return nil
	}
	for _, m := range f.Metric {
		var got []string
		for _, l := range m.Label {
			got = append(got, l.GetName()+"="+l.GetValue())
		}
		if strings.Join(got, ",") == strings.Join(labels, ",") {
			return m
		}
	}
	return nil
}

// value is the value of a gauge or counter sample, failing when absent.
func value(t *testing.T, fams map[string]*dto.MetricFamily, name string, labels ...string) float64 {
	t.Helper()
	m := sample(fams, name, labels...)
	switch {
	case m == nil:
		t.Fatalf("no %s%v in the scrape", name, labels)
	case m.Gauge != nil:
		return m.Gauge.GetValue()
	case m.Counter != nil:
		return m.Counter.GetValue()
	}
	t.Fatalf("%s%v is neither a gauge nor a counter", name, labels)
	return 0
}

// observations is how many samples histogram name has counted.
func observations(t *testing.T, fams map[string]*dto.MetricFamily, name string) uint64 {
	t.Helper()
	m := sample(fams, name)
	if m == nil || m.Histogram == nil {
		t.Fatalf("no histogram %s in the scrape", name)
	}
	return m.Histogram.GetSampleCount()
}

// TestMetricsHaveEveryFamily: a scrape of /metrics holds every metric
// docs/operations.md names, each of its type, the histograms with their
// documented buckets, each webhook endpoint's lag under its name, and the
// Go runtime's and the process's metrics.
func TestMetricsHaveEveryFamily(t *testing.T) {
	hooks := &fakeHooks{statuses: []webhook.Status{{Name: "site", Lag: 3}, {Name: "discord", Lag: 0, Failing: true}}}
	e := newEnv(t, seed.Options{Listings: 30}, Options{Webhooks: hooks})
	e.get("/api/stats")
	fams := scrape(t, e)
	for name, typ := range map[string]dto.MetricType{
		MetricListingsActive: dto.MetricType_GAUGE, MetricVolume: dto.MetricType_GAUGE, MetricSales: dto.MetricType_COUNTER,
		MetricEventsHead: dto.MetricType_GAUGE, MetricReady: dto.MetricType_GAUGE, MetricTick: dto.MetricType_HISTOGRAM,
		MetricCommit: dto.MetricType_HISTOGRAM, MetricRequests: dto.MetricType_COUNTER, MetricStreamClients: dto.MetricType_GAUGE,
		MetricWebhookLag: dto.MetricType_GAUGE, MetricWebhookFailing: dto.MetricType_GAUGE,
		MetricStoreOK: dto.MetricType_GAUGE, MetricStoreReachable: dto.MetricType_GAUGE,
		"go_goroutines": dto.MetricType_GAUGE, "go_memstats_heap_alloc_bytes": dto.MetricType_GAUGE,
		"process_cpu_seconds_total": dto.MetricType_COUNTER, "process_resident_memory_bytes": dto.MetricType_GAUGE,
	} {
		f := fams[name]
		if f == nil {
			t.Errorf("%s is missing", name)
			continue
		}
		if f.GetType() != typ {
			t.Errorf("%s is a %s, want a %s", name, f.GetType(), typ)
		}
		if f.GetHelp() == "" {
			t.Errorf("%s has no help", name)
		}
	}
	buckets := func(name string) []float64 {
		var bounds []float64
		for _, b := range sample(fams, name).Histogram.Bucket {
			bounds = append(bounds, b.GetUpperBound())
		}
		return bounds
	}
	if got := fmt.Sprint(buckets(MetricTick)); got != "[0.0001 0.00025 0.0005 0.001 0.0025 0.005 0.01 0.025 0.05 0.1 0.25 0.5 1 +Inf]" {
		t.Errorf("tick buckets %s", got)
	}
	if got := fmt.Sprint(buckets(MetricCommit)); got != "[0.0001 0.00025 0.0005 0.001 0.0025 0.005 0.01 0.025 0.05 0.1 0.25 0.5 1 2.5 5 +Inf]" {
		t.Errorf("commit buckets %s", got)
	}
	if v := value(t, fams, MetricWebhookLag, "webhook=site"); v != 3 {
		t.Errorf("site's lag %v, want 3", v)
	}
	if v := value(t, fams, MetricWebhookLag, "webhook=discord"); v != 0 {
		t.Errorf("discord's lag %v, want 0", v)
	}
	if v := value(t, fams, MetricWebhookFailing, "webhook=discord"); v != 1 {
		t.Errorf("discord failing %v, want 1", v)
	}
	if v := value(t, fams, MetricWebhookFailing, "webhook=site"); v != 0 {
		t.Errorf("site failing %v, want 0", v)
	}
	if v := value(t, fams, MetricReady); v != 1 {
		t.Errorf("ready %v, want 1", v)
	}
	n, _ := e.svc.GetActiveListingsCount()
	if v := value(t, fams, MetricListingsActive); v != float64(n) {
		t.Errorf("listings %v, want %d", v, n)
	}

	// No webhooks configured: no lag series at all.
	bare := newEnv(t, seed.Options{Listings: 5}, Options{})
	if f := scrape(t, bare)[MetricWebhookLag]; f != nil {
		t.Errorf("without webhooks: %v", f)
	}
}

// TestMetricsMoveWithTheMarket: a sell raises the active listings and the
// log's head, a purchase the sales and the volume by its price, each tick
// and each commit is counted in its histogram, and an open event stream
// is a stream client.
func TestMetricsMoveWithTheMarket(t *testing.T) {
	e := newEnv(t, seed.Options{Listings: 30}, Options{})
	before := scrape(t, e)
	players, err := e.svc.Players()
	if err != nil {
		t.Fatal(err)
	}
	st, err := e.svc.GetPlayer(players[1].ID)
	if err != nil {
		t.Fatal(err)
	}
	var stack *market.ItemStack
	for _, s := range st.Inventory {
		if s != nil {
			stack = s
			break
		}
	}
	l, err := e.svc.SellItem(players[1], *stack, 12.34)
	if err != nil {
		t.Fatal(err)
	}
	for range 3 {
		if _, _, err := e.svc.MeasureTick(func() {}); err != nil {
			t.Fatal(err)
		}
	}
	sold := scrape(t, e)
	if b, a := value(t, before, MetricListingsActive), value(t, sold, MetricListingsActive); a != b+1 {
		t.Errorf("listings %v, then %v after a sell", b, a)
	}
	if b, a := value(t, before, MetricEventsHead), value(t, sold, MetricEventsHead); a <= b || a != float64(e.svc.Version()) {
		t.Errorf("events head %v, then %v after a sell (version %d)", b, a, e.svc.Version())
	}
	if b, a := observations(t, before, MetricCommit), observations(t, sold, MetricCommit); a != b+1 {
		t.Errorf("commits counted %d, then %d after a sell", b, a)
	}
	if b, a := observations(t, before, MetricTick), observations(t, sold, MetricTick); a != b+3 {
		t.Errorf("ticks counted %d, then %d after 3 ticks", b, a)
	}

	buyer := players[2]
	if _, err := e.svc.Buy(buyer, l.ID); err != nil {
		t.Fatal(err)
	}
	bought := scrape(t, e)
	if b, a := value(t, sold, MetricSales), value(t, bought, MetricSales); a != b+1 {
		t.Errorf("sales %v, then %v after a purchase", b, a)
	}
	if b, a := value(t, sold, MetricVolume), value(t, bought, MetricVolume); fmt.Sprintf("%.2f", a-b) != "12.34" {
		t.Errorf("volume %v, then %v after a purchase of 12.34", b, a)
	}
	vol, _ := e.svc.GetMarketVolume()
	if a := value(t, bought, MetricVolume); a != vol {
		t.Errorf("volume %v, the market says %v", a, vol)
	}

	if v := value(t, bought, MetricStreamClients); v != 0 {
		t.Errorf("stream clients %v before any stream", v)
	}
	s := e.stream("/api/events")
	if v := value(t, scrape(t, e), MetricStreamClients); v != 1 {
		t.Errorf("stream clients %v with one open", v)
	}
	s.res.Body.Close()

	e.svc.Disable()
	off := scrape(t, e)
	if v := value(t, off, MetricReady); v != 0 {
		t.Errorf("ready %v while disabled", v)
	}
	if off[MetricListingsActive] != nil || off[MetricSales] != nil {
		t.Errorf("the market's figures while it is not ready: %v %v", off[MetricListingsActive], off[MetricSales])
	}
}

// TestMetricsCountRequestsByRoute: requests are counted under their
// route's pattern and status, never their path: two listings' 200s and an
// unknown listing's 404 under /api/listings/{id}, a path no route has
// under "/", a request refused for want of the token under the route it
// asked for.
func TestMetricsCountRequestsByRoute(t *testing.T) {
	e := newEnv(t, seed.Options{Listings: 30}, Options{})
	_, id := e.buyerOfOne()
	for _, path := range []string{fmt.Sprintf("/api/listings/%d", id), fmt.Sprintf("/api/listings/%d", id), "/api/listings/999999",
		"/api/nothing", "/api/listings/x/../1", "/item/DIAMOND", "/"} {
		e.get(path)
	}
	e.do("POST", "/api/stats")
	fams := scrape(t, e)
	for _, c := range []struct {
		route, code string
		want        float64
	}{
		{"/api/listings/{id}", "200", 2},
		{"/api/listings/{id}", "404", 1},
		{"/", "404", 1},
		{"/", "400", 1},
		{"/item/{material}", "200", 1},
		{"/{$}", "200", 1},
		{"/api/stats", "405", 1},
	} {
		if v := value(t, fams, MetricRequests, "code="+c.code, "route="+c.route); v != c.want {
			t.Errorf("%s %s counted %v times, want %v", c.route, c.code, v, c.want)
		}
	}
	for _, m := range fams[MetricRequests].Metric {
		for _, l := range m.Label {
			if l.GetName() == "route" && (strings.Contains(l.GetValue(), "999999") || strings.Contains(l.GetValue(), fmt.Sprint(id))) {
				t.Errorf("a raw path as a route: %q", l.GetValue())
			}
		}
	}
	// The scrape itself is counted by the next one.
	if v := value(t, scrape(t, e), MetricRequests, "code=200", "route="+MetricsPath); v < 1 {
		t.Errorf("/metrics counted %v times", v)
	}

	guarded := newEnv(t, seed.Options{Listings: 5}, Options{Token: "t0ken"})
	guarded.get("/api/stats")
	fams = scrape(t, guarded, "Authorization: Bearer t0ken")
	if v := value(t, fams, MetricRequests, "code=401", "route=/api/stats"); v != 1 {
		t.Errorf("a request without the token counted %v times under /api/stats", v)
	}
}

// TestMetricsNeedTheToken: with a token set, /metrics answers only a
// request that carries it in the Authorization header, as every /api
// route; the event stream's access_token does not open it.
func TestMetricsNeedTheToken(t *testing.T) {
	e := newEnv(t, seed.Options{Listings: 5}, Options{Token: "t0ken"})
	for _, headers := range [][]string{nil, {"Authorization: Bearer nope"}} {
		a := e.get(MetricsPath, headers...)
		if a.status != 401 || a.header.Get("WWW-Authenticate") != `Bearer realm="rynek"` {
			t.Fatalf("without the token (%v): %d %v", headers, a.status, a.header)
		}
		if p := a.problem(t); p.Code != CodeUnauthorized || p.Detail != "this API needs a token: send Authorization: Bearer <token>" {
			t.Errorf("without the token: %+v", p)
		}
		if bytes.Contains(a.body, []byte("rynek_")) {
			t.Errorf("a refused scrape shows metrics: %s", a.body)
		}
	}
	if a := e.get(MetricsPath + "?access_token=t0ken"); a.status != 401 {
		t.Errorf("with access_token in the query: %d", a.status)
	}
	scrape(t, e, "Authorization: Bearer t0ken")
	if a := e.get(MetricsPath+"?format=json", "Authorization: Bearer t0ken"); a.status != 400 || a.problem(t).Code != CodeBadParameter {
		t.Errorf("an unknown parameter: %d %s", a.status, a.body)
	}
}

// TestScrapesNeverHoldUpTheMainThread: scrapes run while the main thread
// sells, buys and ticks (run with -race). A scrape held in the middle of
// its gathering (the webhooks' Control slow to answer) holds no lock the
// main thread takes: its changes and ticks go on meanwhile, and the next
// scrape sees them.
func TestScrapesNeverHoldUpTheMainThread(t *testing.T) {
	hooks := &fakeHooks{statuses: []webhook.Status{{Name: "site", Lag: 1}}}
	e := newEnv(t, seed.Options{Listings: 200, Players: 40}, Options{Webhooks: hooks})
	players, err := e.svc.Players()
	if err != nil {
		t.Fatal(err)
	}
	page, err := e.svc.Query(market.Query{Limit: 100})
	if err != nil {
		t.Fatal(err)
	}

	stop := make(chan struct{})
	var wg sync.WaitGroup
	for range 2 {
		wg.Go(func() {
			for {
				select {
				case <-stop:
					return
				default:
				}
				a := e.get(MetricsPath)
				if a.status != 200 {
					t.Errorf("a scrape during changes: %d", a.status)
					return
				}
			}
		})
	}
	bought := 0
	for i, l := range page.Listings {
		buyer := players[i%len(players)]
		if buyer.ID == l.Seller {
			continue
		}
		if _, _, err := e.svc.MeasureTick(func() {
			if _, err := e.svc.Buy(buyer, l.ID); err == nil {
				bought++
			}
		}); err != nil {
			t.Fatal(err)
		}
	}
	close(stop)
	wg.Wait()
	if bought == 0 {
		t.Fatal("no purchase went through")
	}

	hold := make(chan struct{})
	hooks.mu.Lock()
	hooks.hold = hold
	hooks.mu.Unlock()
	held := make(chan answer, 1)
	go func() { held <- e.get(MetricsPath) }()
	time.Sleep(50 * time.Millisecond) // the scrape is waiting for Status
	before, _ := e.svc.Stats(1)
	start := time.Now()
	for _, l := range page.Listings {
		if l.Seller == players[0].ID {
			continue
		}
		if _, _, err := e.svc.MeasureTick(func() { e.svc.Buy(players[0], l.ID) }); err != nil {
			t.Fatal(err)
		}
	}
	took := time.Since(start)
	after, _ := e.svc.Stats(1)
	select {
	case a := <-held:
		t.Fatalf("the held scrape answered before it was let go: %d", a.status)
	default:
	}
	if took > 5*time.Second || after.TotalSales == before.TotalSales {
		t.Fatalf("the main thread during a held scrape: %d sales in %s", after.TotalSales-before.TotalSales, took)
	}
	close(hold)
	if a := <-held; a.status != 200 {
		t.Fatalf("the held scrape: %d", a.status)
	}
	hooks.mu.Lock()
	hooks.hold = nil
	hooks.mu.Unlock()
	if v := value(t, scrape(t, e), MetricSales); v != float64(after.TotalSales) {
		t.Errorf("sales %v after the held scrape, the market says %d", v, after.TotalSales)
	}
}

// TestTickHistogramCostsTheTickNoAllocation: with the server's histogram
// told every tick, a tick still allocates nothing on the main thread.
func TestTickHistogramCostsTheTickNoAllocation(t *testing.T) {
	e := newEnv(t, seed.Options{Listings: 5}, Options{})
	empty := func() {}
	if allocs := testing.AllocsPerRun(1000, func() { e.svc.MeasureTick(empty) }); allocs != 0 {
		t.Errorf("a tick allocates %.1f times with the histogram", allocs)
	}
	if n := observations(t, scrape(t, e), MetricTick); n < 1000 {
		t.Errorf("%d ticks counted of at least 1000", n)
	}
}

// TestMetricsSayWhenTheStoreFails: while the store refuses the market's
// changes (a full disk), rynek_store_ok is 0, its database still
// reachable; once changes are saved again for market.StoreSettle, 1.
func TestMetricsSayWhenTheStoreFails(t *testing.T) {
	disk := &fullDisk{}
	e := newWrappedEnv(t, seed.Options{Listings: 30}, Options{}, func(st market.Store) market.Store { disk.Store = st; return disk })
	gauges := func() (ok, reachable float64) {
		t.Helper()
		fams := scrape(t, e)
		return value(t, fams, MetricStoreOK), value(t, fams, MetricStoreReachable)
	}
	if ok, reachable := gauges(); ok != 1 || reachable != 1 {
		t.Fatalf("a healthy store: ok %v, reachable %v", ok, reachable)
	}
	buyer, id := e.buyerOfOne()
	disk.full.Store(true)
	if _, err := e.svc.Buy(buyer, id); !errors.Is(err, market.ErrStore) {
		t.Fatalf("a purchase on a full disk: %v", err)
	}
	if ok, reachable := gauges(); ok != 0 || reachable != 1 {
		t.Fatalf("a full disk: ok %v, reachable %v", ok, reachable)
	}
	disk.full.Store(false)
	if _, err := e.svc.Buy(buyer, id); err != nil {
		t.Fatal(err)
	}
	e.clock.Advance(market.StoreSettle)
	if ok, _ := gauges(); ok != 1 {
		t.Fatalf("saving again for %s: ok %v", market.StoreSettle, ok)
	}
}

package httpapi

import (
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	dto "github.com/prometheus/client_model/go"

	"github.com/rynek/rynek/internal/webhook"
	"github.com/rynek/rynek/market"
)

// MetricsPath is where Prometheus scrapes the market: beside the API,
// behind its token and its rate limit.
const MetricsPath = "/metrics"

// The metrics' names, as docs/operations.md and the Grafana dashboard
// (docs/grafana-dashboard.json) use them.
const (
	MetricListingsActive = "rynek_listings_active"
	MetricVolume         = "rynek_volume"
	MetricSales          = "rynek_sales_total"
	MetricEventsHead     = "rynek_events_head"
	MetricReady          = "rynek_ready"
	MetricStoreOK        = "rynek_store_ok"
	MetricStoreReachable = "rynek_store_reachable"
	MetricTick           = "rynek_tick_duration_seconds"
	MetricCommit         = "rynek_commit_duration_seconds"
	MetricRequests       = "rynek_http_requests_total"
	MetricStreamClients  = "rynek_stream_clients"
	MetricWebhookLag     = "rynek_webhook_lag_events"
	MetricWebhookFailing = "rynek_webhook_failing"
)

// The histograms' buckets, in seconds. A tick has 50 ms for the whole game
// server and the market's share is normally well under a millisecond, so
// the tick's run from 100 µs to a second with 50 ms among the bounds (the
// share of ticks over budget is one bucket's count). A commit is a
// millisecond or so on SQLite, a round trip or a few on PostgreSQL, and up
// to the store's timeout when its link is cut: 100 µs to 5 s.
var (
	tickBuckets   = []float64{0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1}
	commitBuckets = []float64{0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5}
)

// metrics is the server's Prometheus registry (its own, not the process's
// default one) and the instruments the server feeds.
type metrics struct {
	registry *prometheus.Registry
	requests *prometheus.CounterVec
	ticks    prometheus.Histogram
	commits  prometheus.Histogram
}

// newMetrics registers the market's figures, the server's requests and
// streams, the webhooks' lag (when hooks is not nil), the Go runtime's and
// the process's.
func newMetrics(svc *market.Service, streams func() int, hooks webhook.Control) *metrics {
	m := &metrics{
		registry: prometheus.NewRegistry(),
		requests: prometheus.NewCounterVec(prometheus.CounterOpts{Name: MetricRequests,
			Help: "HTTP requests answered, by the route's pattern (\"/\": no route) and the status code."},
			[]string{"route", "code"}),
		ticks: prometheus.NewHistogram(prometheus.HistogramOpts{Name: MetricTick,
			Help:    "Wall time of each tick of the market's main thread (its work in the game's tick), in seconds.",
			Buckets: tickBuckets}),
		commits: prometheus.NewHistogram(prometheus.HistogramOpts{Name: MetricCommit,
			Help:    "Duration of each store commit (one change, or a group of them when committing behind the tick), refused or not, in seconds.",
			Buckets: commitBuckets}),
	}
	m.registry.MustRegister(m.requests, m.ticks, m.commits, marketFigures{svc},
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: MetricStreamClients, Help: "Event streams (GET /api/events) open now."},
			func() float64 { return float64(streams()) }),
		collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	if hooks != nil {
		m.registry.MustRegister(webhookLags{hooks})
	}
	svc.ObserveTicks(func(d time.Duration) { m.ticks.Observe(d.Seconds()) })
	svc.ObserveCommits(func(d time.Duration) { m.commits.Observe(d.Seconds()) })
	return m
}

// stop has the service stop telling the histograms its durations.
func (m *metrics) stop(svc *market.Service) {
	svc.ObserveTicks(nil)
	svc.ObserveCommits(nil)
}

// count counts an answered request under its route's pattern: the path
// itself would make a series of every listing id asked for.
func (m *metrics) count(route string, status int) {
	m.requests.WithLabelValues(route, strconv.Itoa(status)).Inc()
}

// routeOf is the pattern of the route that answered r, without its method
// ("/api/listings/{id}"). A request refused before routing (the token, the
// rate limit, a method other than GET) counts under the route it asked
// for; one whose path is not in canonical form, as one that matches no
// route, under "/", the catch-all.
func (s *Server) routeOf(r *http.Request) string {
	pattern := r.Pattern
	if pattern == "" {
		pattern = "/"
		if canonicalPath(r.URL) {
			asked := *r
			asked.Method = http.MethodGet
			_, pattern = s.mux.Handler(&asked)
		}
	}
	if _, p, ok := strings.Cut(pattern, " "); ok {
		return p
	}
	return pattern
}

// serveMetrics answers a scrape in Prometheus' text exposition format (or
// OpenMetrics, when the scraper asks for it), gzipped when it accepts it.
// Gathering reads the market's figures from its snapshots and takes one of
// the working slots, as a read does, so scrapes never take the main
// thread's core; writing the answer out takes none.
func (s *Server) serveMetrics() http.Handler {
	gather := prometheus.GathererFunc(func() ([]*dto.MetricFamily, error) {
		s.working <- struct{}{}
		defer func() { <-s.working }()
		return s.metrics.registry.Gather()
	})
	h := promhttp.HandlerFor(gather, promhttp.HandlerOpts{EnableOpenMetrics: true})
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.NewResponseController(w).SetWriteDeadline(time.Now().Add(s.opts.WriteTimeout))
		if _, err := parseParams(r.URL.RawQuery); err != nil {
			writeError(w, r, err)
			return
		}
		w.Header().Set("Cache-Control", "no-store")
		h.ServeHTTP(w, r)
	})
}

// statusRecorder keeps the status of the answer written through it.
// Unwrap lets http.ResponseController reach the connection beneath (the
// write deadlines, the event stream's flushes).
type statusRecorder struct {
	http.ResponseWriter
	status int
}

func (w *statusRecorder) WriteHeader(code int) {
	if w.status == 0 && code >= 200 {
		w.status = code
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *statusRecorder) Write(b []byte) (int, error) {
	if w.status == 0 {
		w.status = http.StatusOK
	}
	return w.ResponseWriter.Write(b)
}

func (w *statusRecorder) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// answered is the status the client got: 200 when the handler wrote
// nothing, as net/http sends then.
func (w *statusRecorder) answered() int {
	if w.status == 0 {
		return http.StatusOK
	}
	return w.status
}

// marketFigures collects the market's running totals at scrape time from
// one read of its snapshots (Service.Figures), and its store's health:
// never on the main thread, never waiting for it. While the market is not
// ready rynek_ready is 0 and the figures' series go stale.
type marketFigures struct{ svc *market.Service }

var (
	listingsDesc = prometheus.NewDesc(MetricListingsActive, "Listings on the market now (the contract's getActiveListingsCount).", nil, nil)
	volumeDesc   = prometheus.NewDesc(MetricVolume, "The market's volume (the contract's getMarketVolume): the lifetime sum of completed purchases' prices, in the currency's units as a float (12.5 is 12.50).", nil, nil)
	salesDesc    = prometheus.NewDesc(MetricSales, "Completed purchases over the market's life (the sales the volume sums).", nil, nil)
	headDesc     = prometheus.NewDesc(MetricEventsHead, "The newest seq of the market's event log (its version); its rate is the market's events per second.", nil, nil)
	readyDesc    = prometheus.NewDesc(MetricReady, "1 while the market serves reads, 0 while it is not ready (starting, disabled); the market's figures are absent then.", nil, nil)
	storeOKDesc  = prometheus.NewDesc(MetricStoreOK, "1 while the market's store saves its changes, 0 while it refuses them or cannot reach its database (as /api/health's store.ok).", nil, nil)
	reachDesc    = prometheus.NewDesc(MetricStoreReachable, "1 while the market's store reaches its database, 0 while the link is cut or the server away (as /api/health's store.reachable).", nil, nil)
)

func (c marketFigures) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{listingsDesc, volumeDesc, salesDesc, headDesc, readyDesc, storeOKDesc, reachDesc} {
		ch <- d
	}
}

func (c marketFigures) Collect(ch chan<- prometheus.Metric) {
	store := newStoreHealth(c.svc.StoreHealth())
	ch <- prometheus.MustNewConstMetric(storeOKDesc, prometheus.GaugeValue, one(store.OK))
	ch <- prometheus.MustNewConstMetric(reachDesc, prometheus.GaugeValue, one(store.Reachable))
	f, err := c.svc.Figures()
	if err != nil {
		ch <- prometheus.MustNewConstMetric(readyDesc, prometheus.GaugeValue, 0)
		return
	}
	ch <- prometheus.MustNewConstMetric(readyDesc, prometheus.GaugeValue, 1)
	ch <- prometheus.MustNewConstMetric(listingsDesc, prometheus.GaugeValue, float64(f.ActiveListings))
	ch <- prometheus.MustNewConstMetric(volumeDesc, prometheus.GaugeValue, f.Volume.Float())
	ch <- prometheus.MustNewConstMetric(salesDesc, prometheus.CounterValue, float64(f.Sales))
	ch <- prometheus.MustNewConstMetric(headDesc, prometheus.GaugeValue, float64(f.Head))
}

// webhookLags collects each webhook endpoint's delivery state from its
// Control (which answers at once, from any goroutine).
type webhookLags struct{ hooks webhook.Control }

var (
	lagDesc = prometheus.NewDesc(MetricWebhookLag, "Events of the log the webhook endpoint is still to get (its delivered seq to the log's head).",
		[]string{"webhook"}, nil)
	failingDesc = prometheus.NewDesc(MetricWebhookFailing, "1 while the webhook endpoint's receiver refuses deliveries and delivery waits for the admin to resume it, else 0.",
		[]string{"webhook"}, nil)
)

func (c webhookLags) Describe(ch chan<- *prometheus.Desc) {
	ch <- lagDesc
	ch <- failingDesc
}

func (c webhookLags) Collect(ch chan<- prometheus.Metric) {
	for _, st := range c.hooks.Status() {
		ch <- prometheus.MustNewConstMetric(lagDesc, prometheus.GaugeValue, float64(st.Lag), st.Name)
		ch <- prometheus.MustNewConstMetric(failingDesc, prometheus.GaugeValue, one(st.Failing), st.Name)
	}
}

// one is a condition as a gauge's value: 1 or 0.
func one(b bool) float64 {
	if b {
		return 1
	}
	return 0
}

// Package httpapi is Rynek's read-only HTTP interface: the contract's
// routes as JSON, a live event stream (server-sent events) and the market's
// website (search, item, listing, player and statistics pages), all served
// from the market service's goroutine-safe snapshots. No handler ever waits
// for the service's main thread, and the market knows nothing of HTTP.
package httpapi

import (
	"context"
	"crypto/subtle"
	"errors"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"net/url"
	"path"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/rynek/rynek/internal/webhook"
	"github.com/rynek/rynek/market"
)

// DefaultAddr is where the API listens unless told otherwise: loopback only.
const DefaultAddr = "127.0.0.1:8080"

// TokenEnv is the environment variable that may hold the API token instead
// of --api-token (which other users of the machine can read in ps).
const TokenEnv = "RYNEK_API_TOKEN"

// Options configure the API.
type Options struct {
	// Token, when set, is required of every /api request and of
	// /metrics as "Authorization: Bearer <Token>" (the event stream also takes
	// ?access_token=, since a browser's EventSource cannot set headers).
	Token string
	// CORSOrigins are the origins allowed to read the API from a browser
	// ("https://example.com"); none by default.
	CORSOrigins []string
	// RatePerSecond and Burst bound each client's requests (by remote IP):
	// a token bucket; RatePerSecond 0 turns the limit off.
	RatePerSecond float64
	Burst         int
	// Heartbeat is how often an idle event stream sends a comment so that
	// proxies keep it open (default 15 s).
	Heartbeat time.Duration
	// WriteTimeout bounds writing one answer of a non-stream route
	// (default 10 s); an event stream extends its deadline per write.
	WriteTimeout time.Duration
	// StreamLag is how many events a stream client may fall behind the
	// market before it is dropped with a reset (default 16,384).
	StreamLag int
	// MaxStreams bounds the event streams open at once (default
	// DefaultMaxStreams), and MaxStreamsPerClient those of one client (by
	// remote IP, default DefaultMaxStreamsPerClient; off with the rate
	// limit, when RatePerSecond is 0). A stream past either is refused with
	// 429 and Retry-After: each open stream holds a connection, two
	// goroutines and their buffers, about 26 KiB.
	MaxStreams          int
	MaxStreamsPerClient int
	// Now is the rate limiter's clock (tests replace it); deadlines always
	// use the real one.
	Now func() time.Time
	// Webhooks, when set, is the webhook delivery whose endpoints' lag
	// GET /metrics reports; nil: no webhooks.
	Webhooks webhook.Control
}

// Default rate limit: generous for a page and its live feed, tight enough
// that one client cannot take the server's time from everyone else.
const (
	DefaultRate  = 50
	DefaultBurst = 100
)

// Default caps on event streams: a board page holds one, a browser at
// most six to one server; a thousand cost the server about 26 MiB.
const (
	DefaultMaxStreams          = 1000
	DefaultMaxStreamsPerClient = 16
)

func (o Options) withDefaults() Options {
	if o.Heartbeat <= 0 {
		o.Heartbeat = 15 * time.Second
	}
	if o.WriteTimeout <= 0 {
		o.WriteTimeout = 10 * time.Second
	}
	if o.StreamLag <= 0 {
		o.StreamLag = 1 << 14
	}
	if o.MaxStreams <= 0 {
		o.MaxStreams = DefaultMaxStreams
	}
	if o.MaxStreamsPerClient <= 0 {
		o.MaxStreamsPerClient = DefaultMaxStreamsPerClient
	}
	if o.Burst <= 0 {
		o.Burst = max(1, int(o.RatePerSecond*2))
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	return o
}

// Server is the HTTP interface of one market service.
type Server struct {
	svc     *market.Service
	opts    Options
	mux     *http.ServeMux
	limiter *limiter
	hub     *hub
	answers *answerCache
	volumes volumeHistories
	working chan struct{} // see read
	cors    map[string]bool
	metrics *metrics
	fates   *fates // how listings left the market (fates.go)
}

// New returns the API of svc. Close stops its event fan-out.
func New(svc *market.Service, opts Options) *Server {
	opts = opts.withDefaults()
	s := &Server{svc: svc, opts: opts, mux: http.NewServeMux(), cors: map[string]bool{}, answers: newAnswerCache(), working: make(chan struct{}, max(1, runtime.GOMAXPROCS(0)-1))}
	for _, o := range opts.CORSOrigins {
		s.cors[o] = true
	}
	if opts.RatePerSecond > 0 {
		s.limiter = newLimiter(opts.RatePerSecond, opts.Burst, opts.Now)
	}
	perClient := opts.MaxStreamsPerClient
	if opts.RatePerSecond <= 0 {
		perClient = 0 // no per-client limits at all: behind a reverse proxy every client has the proxy's address
	}
	s.fates = newFates()
	s.hub = newHub(svc, opts.StreamLag, newStreamCount(opts.MaxStreams, perClient), s.fates)
	go s.fates.backfill(svc, s.hub.start)
	s.metrics = newMetrics(svc, s.hub.streams, opts.Webhooks)
	s.routes()
	return s
}

// Close stops the event fan-out (open streams end) and the metrics' timing
// of the market's ticks and commits.
func (s *Server) Close() {
	s.hub.close()
	s.metrics.stop(s.svc)
}

func (s *Server) routes() {
	m := s.mux
	m.HandleFunc("GET /api/listings", s.read(s.listings, kept))
	m.HandleFunc("GET /api/listings/{id}", s.read(s.listing, kept))
	m.HandleFunc("GET /api/listings/{id}/bids", s.read(s.bids, kept))
	m.HandleFunc("GET /api/categories", s.read(s.categories, kept))
	m.HandleFunc("GET /api/players/{uuid}", s.read(s.afterHistory(s.player), kept))
	m.HandleFunc("GET /api/stats", s.read(s.afterHistory(s.stats), kept))
	m.HandleFunc("GET /api/history", s.read(s.afterHistory(s.history), kept))
	m.HandleFunc("GET /api/transactions/{id}", s.read(s.afterHistory(s.transaction), kept))
	m.HandleFunc("GET /api/price-history/{item}", s.read(s.afterHistory(s.priceHistory), readEachTime))
	m.HandleFunc("GET /api/price-summary/{item}", s.read(s.afterHistory(s.priceSummary), readEachTime))
	m.HandleFunc("GET /api/volume-history", s.read(s.afterHistory(s.volumeHistory), readEachTime))
	m.HandleFunc("GET /api/orders", s.read(s.orders, kept))
	m.HandleFunc("GET /api/orders/{id}", s.read(s.order, kept))
	m.HandleFunc("GET /api/order-book/{material}", s.read(s.orderBook, kept))
	m.HandleFunc("GET /api/health", s.health)
	m.HandleFunc("GET /api/openapi.json", s.openAPI)
	m.HandleFunc("GET /api/events", s.events)
	m.Handle("GET "+MetricsPath, s.serveMetrics())
	s.siteRoutes()
	m.HandleFunc("/", s.notFound)
}

// maxURI bounds the request target; longer ones are 414.
const maxURI = 8 << 10

// ServeHTTP answers r (dispatch) and counts it for the metrics under its
// route and status.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	rec := &statusRecorder{ResponseWriter: w}
	s.dispatch(rec, r)
	s.metrics.count(s.routeOf(r), rec.answered())
}

// dispatch checks every request before routing it: method, path, size,
// CORS, the token and the rate limit, in that order, so that a refused
// request costs nothing of the market.
func (s *Server) dispatch(w http.ResponseWriter, r *http.Request) {
	h := w.Header()
	h.Set("X-Content-Type-Options", "nosniff")
	if len(s.cors) > 0 {
		h.Add("Vary", "Origin")
	}
	if len(r.RequestURI) > maxURI {
		writeProblem(w, r, &problemError{status: http.StatusRequestURITooLong, code: CodeURITooLong,
			detail: fmt.Sprintf("the request target is %d bytes; at most %d allowed", len(r.RequestURI), maxURI)})
		return
	}
	origin := r.Header.Get("Origin")
	allowed := origin != "" && s.cors[origin]
	if allowed {
		h.Set("Access-Control-Allow-Origin", origin)
		h.Set("Access-Control-Expose-Headers", "ETag, Retry-After")
	}
	switch r.Method {
	case http.MethodGet, http.MethodHead:
	case http.MethodOptions:
		// A CORS preflight, answered for allowed origins only.
		h.Set("Allow", "GET, HEAD, OPTIONS")
		if allowed {
			h.Set("Access-Control-Allow-Methods", "GET, HEAD")
			h.Set("Access-Control-Allow-Headers", "Authorization, If-None-Match, Last-Event-ID")
			h.Set("Access-Control-Max-Age", "600")
		}
		w.WriteHeader(http.StatusNoContent)
		return
	default:
		h.Set("Allow", "GET, HEAD, OPTIONS")
		writeProblem(w, r, &problemError{status: http.StatusMethodNotAllowed, code: CodeMethodNotAllowed,
			detail: "the API is read-only: " + r.Method + " is not allowed; use GET"})
		return
	}
	if r.ContentLength != 0 {
		writeProblem(w, r, &problemError{status: http.StatusBadRequest, code: CodeBadParameter,
			detail: "a GET request has no body"})
		return
	}
	// Paths are taken literally: "..", "//" or a trailing slash are not
	// cleaned into another route but refused, so that one resource has
	// one URL and nothing reaches a handler through a trick.
	if !canonicalPath(r.URL) {
		writeProblem(w, r, &problemError{status: http.StatusBadRequest, code: CodeBadPath,
			detail: "the path is not in canonical form (no '..', '//', encoded '/' or trailing '/')"})
		return
	}
	if p := r.URL.Path; strings.HasPrefix(p, "/api/") || p == MetricsPath {
		if !s.authorized(r) {
			h.Set("WWW-Authenticate", `Bearer realm="rynek"`)
			writeProblem(w, r, &problemError{status: http.StatusUnauthorized, code: CodeUnauthorized,
				detail: "this API needs a token: send Authorization: Bearer <token>"})
			return
		}
		if s.limiter != nil {
			if wait, ok := s.limiter.allow(clientIP(r)); !ok {
				h.Set("Retry-After", strconv.Itoa(int(wait/time.Second)+1))
				writeProblem(w, r, &problemError{status: http.StatusTooManyRequests, code: CodeRateLimited,
					detail: "too many requests from this client; retry after the time in Retry-After"})
				return
			}
		}
	}
	s.mux.ServeHTTP(w, r)
}

// canonicalPath says whether u's path is the one form of its resource's
// URL: no "..", "//", encoded "/" or trailing "/".
func canonicalPath(u *url.URL) bool {
	p := u.Path
	return !(p == "" || p[0] != '/' || (p != "/" && (path.Clean(p) != p || strings.HasSuffix(p, "/"))) ||
		strings.ContainsAny(p, "\x00\\") || u.RawPath != "" && strings.Contains(strings.ToLower(u.RawPath), "%2f"))
}

// authorized checks the token in constant time. The event stream may carry
// it in its query (EventSource cannot set headers); it is never logged.
func (s *Server) authorized(r *http.Request) bool {
	if s.opts.Token == "" {
		return true
	}
	got := ""
	if a := r.Header.Get("Authorization"); len(a) > 7 && strings.EqualFold(a[:7], "Bearer ") {
		got = a[7:]
	} else if r.URL.Path == "/api/events" {
		got = r.URL.Query().Get("access_token")
	}
	return subtle.ConstantTimeCompare([]byte(got), []byte(s.opts.Token)) == 1
}

func clientIP(r *http.Request) string {
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		return r.RemoteAddr
	}
	return host
}

// CheckExposure refuses to serve a non-loopback address without a token:
// the market would otherwise be readable by anyone on the network.
func CheckExposure(addr, token string) error {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return fmt.Errorf("--api %q: %w (give HOST:PORT, e.g. %s)", addr, err, DefaultAddr)
	}
	if token != "" || host == "localhost" {
		return nil
	}
	if ip := net.ParseIP(host); ip != nil && ip.IsLoopback() {
		return nil
	}
	return fmt.Errorf("--api %s is reachable from other machines: set --api-token or %s (every request then needs Authorization: Bearer), or listen on 127.0.0.1", addr, TokenEnv)
}

// HTTPServer wraps h in a server with the hardening limits: a header
// timeout, an idle timeout and a header size bound. Requests have no body
// (ServeHTTP refuses one), so there is no read timeout, which would also
// end every event stream; the write timeout is set per answer by the
// handlers, as the event stream must have none.
func HTTPServer(addr string, h http.Handler) *http.Server {
	return &http.Server{
		Addr:              addr,
		Handler:           h,
		ReadHeaderTimeout: 5 * time.Second,
		IdleTimeout:       60 * time.Second,
		MaxHeaderBytes:    maxHeaderBytes - headerSlack, // a head of 16 KiB at most
	}
}

// Running is an API serving on a listener.
type Running struct {
	// Addr is the address it listens on (the port chosen when ":0" was asked).
	Addr string
	api  *Server
	srv  *http.Server
	done chan error
}

// Listen binds addr for the API after checking the exposure rule (token is
// the API's). A command binds before it opens its market, so that an
// address it cannot have stops it before it creates or seeds anything.
func Listen(addr, token string) (net.Listener, error) {
	if err := CheckExposure(addr, token); err != nil {
		return nil, err
	}
	ln, err := net.Listen("tcp", addr)
	if errors.Is(err, syscall.EADDRINUSE) {
		return nil, fmt.Errorf("--api %s: the address is in use (another program, or another Rynek, listens there); stop it or choose another with --api HOST:PORT", addr)
	}
	if err != nil {
		return nil, fmt.Errorf("--api %s: %w", addr, err)
	}
	return ln, nil
}

// Start serves svc's API on ln (Listen's). Server errors (a client's broken
// TLS attempt, say) go to errorLog; the console passes io.Discard, since
// they would tear its screen.
func Start(svc *market.Service, ln net.Listener, opts Options, errorLog io.Writer) *Running {
	api := New(svc, opts)
	srv := HTTPServer(ln.Addr().String(), api)
	srv.ErrorLog = log.New(errorLog, "rynek api: ", 0)
	r := &Running{Addr: ln.Addr().String(), api: api, srv: srv, done: make(chan error, 1)}
	go func() { r.done <- srv.Serve(problemListener{ln}) }()
	return r
}

// Shutdown ends the event streams, then stops accepting and waits for the
// answers in progress, until ctx ends.
func (r *Running) Shutdown(ctx context.Context) error {
	r.api.Close()
	err := r.srv.Shutdown(ctx)
	if serr := <-r.done; serr != nil && !errors.Is(serr, http.ErrServerClosed) && err == nil {
		err = serr
	}
	return err
}

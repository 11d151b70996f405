package compare_test

// The readers of BenchmarkServerTick: a website reading the API at a fixed
// rate, and clients following the event stream, over real HTTP on
// loopback, each on goroutines of its own beside the market's main thread.

import (
	"bufio"
	"bytes"
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/rynek/rynek/market"
)

// websiteInFlight bounds the website's requests waiting for an answer: a
// request past it is not sent and counts as failed, so that a stalled
// server does not gather an unbounded queue of them.
const websiteInFlight = 64

// website reads what the board's pages read, round robin, at a fixed rate
// whatever the answers' pace (an open loop, as many browsers are).
type website struct {
	mu    sync.Mutex
	stats readStats
	wg    sync.WaitGroup
}

// readStats is what the website saw.
type readStats struct {
	ok, failed int
	lastErr    string
	took       []time.Duration
	// slowest is each path's longest answer; failedPaths counts the
	// failed requests by path ("" for those not sent).
	slowest     map[string]time.Duration
	failedPaths map[string]int
}

// String says how the reads went: how many, the slowest paths, the
// failures.
func (r readStats) String() string {
	paths := slices.Collect(maps.Keys(r.slowest))
	slices.SortFunc(paths, func(x, y string) int { return cmp.Compare(r.slowest[y], r.slowest[x]) })
	var slow []string
	for _, p := range paths[:min(3, len(paths))] {
		slow = append(slow, fmt.Sprintf("%s %s", p, r.slowest[p].Round(time.Microsecond)))
	}
	out := fmt.Sprintf("%d answered, p99 %s, the slowest: %s", r.ok, r.p99().Round(time.Microsecond), strings.Join(slow, ", "))
	if r.failed > 0 {
		out += fmt.Sprintf("; %d failed (by path: %v), the last: %s", r.failed, r.failedPaths, r.lastErr)
	}
	return out
}

// p99 is the 99th percentile of the answered requests' latency.
func (r readStats) p99() time.Duration {
	if len(r.took) == 0 {
		return 0
	}
	s := slices.Clone(r.took)
	slices.Sort(s)
	return s[min(len(s)-1, len(s)*99/100)]
}

// websitePaths are the reads of the board's pages: the market page (its
// first listings, the figures, the categories), the newest page, searches,
// item pages (the page, its listings, its price history and summary), a
// listing's page and stats.
func websitePaths(tb testing.TB, svc *market.Service) []string {
	page, err := svc.Query(market.Query{Limit: 8})
	if err != nil || len(page.Listings) == 0 {
		tb.Fatalf("listings for the website's listing pages: %d, %v", len(page.Listings), err)
	}
	paths := []string{
		"/", "/api/listings?limit=20", "/api/stats", "/api/categories", "/api/health",
		"/api/listings?sort=newest&limit=50",
		"/api/listings?q=diamond&limit=20",
		"/api/listings?q=sword+price:..500&sort=price&limit=20",
		"/item/DIAMOND", "/api/listings?material=diamond&sort=unit_price&limit=20",
		"/api/price-history/DIAMOND", "/api/price-summary/DIAMOND",
		"/item/OAK_LOG", "/api/listings?material=oak_log&sort=unit_price&limit=20",
		"/stats", "/api/history?limit=20",
	}
	for _, l := range page.Listings {
		paths = append(paths, fmt.Sprintf("/listing/%d", l.ID), fmt.Sprintf("/api/listings/%d", l.ID))
	}
	return paths
}

// startWebsite reads base's pages at rate requests a second until ctx ends.
func startWebsite(ctx context.Context, tb testing.TB, svc *market.Service, base string, rate int) *website {
	paths := websitePaths(tb, svc)
	client := &http.Client{Timeout: 10 * time.Second,
		Transport: &http.Transport{MaxIdleConnsPerHost: websiteInFlight, MaxConnsPerHost: websiteInFlight}}
	w := &website{}
	var inFlight atomic.Int32
	w.wg.Add(1)
	go func() {
		defer w.wg.Done()
		defer client.CloseIdleConnections()
		every := time.NewTicker(time.Second / time.Duration(rate))
		defer every.Stop()
		for i := 0; ; i++ {
			select {
			case <-ctx.Done():
				return
			case <-every.C:
			}
			if inFlight.Load() >= websiteInFlight {
				w.record("", 0, fmt.Errorf("not sent: %d requests wait for an answer", websiteInFlight))
				continue
			}
			inFlight.Add(1)
			w.wg.Add(1)
			go func(path string) {
				defer w.wg.Done()
				defer inFlight.Add(-1)
				start := time.Now()
				err := get(ctx, client, base+path)
				if ctx.Err() != nil { // cut short by the end of the run
					if waited := time.Since(start); waited > time.Second {
						w.record(path, 0, fmt.Errorf("%s: no answer in %s, when the run ended", path, waited.Round(time.Millisecond)))
					}
					return
				}
				w.record(path, time.Since(start), err)
			}(paths[i%len(paths)])
		}
	}()
	return w
}

// get reads url's whole answer, which must be 200, or 404 for a listing
// sold meanwhile.
func get(ctx context.Context, client *http.Client, url string) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return err
	}
	res, err := client.Do(req)
	if err != nil {
		return err
	}
	defer res.Body.Close()
	if _, err := io.Copy(io.Discard, res.Body); err != nil {
		return fmt.Errorf("%s: %w", url, err)
	}
	if res.StatusCode != http.StatusOK && res.StatusCode != http.StatusNotFound {
		return fmt.Errorf("%s: %s", url, res.Status)
	}
	return nil
}

func (w *website) record(path string, took time.Duration, err error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	r := &w.stats
	if r.slowest == nil {
		r.slowest, r.failedPaths = map[string]time.Duration{}, map[string]int{}
	}
	if err != nil {
		r.failed++
		r.failedPaths[path]++
		r.lastErr = err.Error()
		return
	}
	r.ok++
	r.took = append(r.took, took)
	r.slowest[path] = max(r.slowest[path], took)
}

// wait waits for the website's requests to end (the run's context has)
// and returns what it saw.
func (w *website) wait() readStats {
	w.wg.Wait()
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.stats
}

// streams are clients following the event stream from a seq on; a client
// whose stream breaks follows again from the last event it got.
type streams struct {
	events atomic.Int64
	wg     sync.WaitGroup
}

// startStreams opens n clients of base's event stream from seq from until
// ctx ends.
func startStreams(ctx context.Context, base string, n int, from uint64) *streams {
	s := &streams{}
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: -1}}
	for range n {
		s.wg.Add(1)
		go func() {
			defer s.wg.Done()
			for last := from; ctx.Err() == nil; {
				last = s.follow(ctx, client, base, last)
				select {
				case <-ctx.Done():
				case <-time.After(100 * time.Millisecond):
				}
			}
		}()
	}
	return s
}

// follow reads one stream from seq after on, counting its events, and
// returns the last seq it got.
func (s *streams) follow(ctx context.Context, client *http.Client, base string, after uint64) uint64 {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, fmt.Sprintf("%s/api/events?since=%d", base, after), nil)
	if err != nil {
		return after
	}
	res, err := client.Do(req)
	if err != nil {
		return after
	}
	defer res.Body.Close()
	r := bufio.NewReaderSize(res.Body, 64<<10)
	for {
		line, err := r.ReadSlice('\n')
		if err != nil && !errors.Is(err, bufio.ErrBufferFull) {
			return after
		}
		if id, ok := bytes.CutPrefix(line, []byte("id: ")); ok {
			if seq, err := strconv.ParseUint(string(bytes.TrimRight(id, "\r\n")), 10, 64); err == nil {
				after = seq
				s.events.Add(1)
			}
		}
	}
}

// wait waits for the clients to end (the run's context has) and returns
// how many events they got together.
func (s *streams) wait() int64 {
	s.wg.Wait()
	return s.events.Load()
}

// lockedWriter lets goroutines write to w one at a time.
type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

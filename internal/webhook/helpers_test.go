package webhook_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/rynek/rynek/internal/pgtest"
	"github.com/rynek/rynek/internal/webhook"
	"github.com/rynek/rynek/market"
	"github.com/rynek/rynek/market/postgres"
	"github.com/rynek/rynek/market/sqlite"
)

func TestMain(m *testing.M) { os.Exit(pgtest.Main(m)) }

// A test market: two players with money and diamonds, its service bound to
// the test's goroutine (its main thread), on the store RYNEK_TEST_STORE
// names.
type testMarket struct {
	t            testing.TB
	spec         string
	svc          *market.Service
	store        market.Store
	alice, bob   market.Player
	listed, sold int
}

var t0 = time.Date(2026, 11, 26, 12, 0, 0, 0, time.UTC)

// openStore opens the market at spec as instance; "seed" opens it as a
// tool, which is no instance of the network (it holds no log back).
func openStore(t testing.TB, spec, instance string) market.Store {
	t.Helper()
	var st market.Store
	var err error
	if path, ok := strings.CutPrefix(spec, "sqlite:"); ok {
		st, err = sqlite.Open(path, sqlite.Options{})
	} else {
		st, err = postgres.Open(spec, postgres.Options{Instance: instance, Tool: instance == "seed"})
	}
	if err != nil {
		t.Fatal(err)
	}
	return st
}

var (
	alice = market.Player{ID: uuid.MustParse("00000000-0000-4000-8000-000000000001"), Name: "Alice"}
	bob   = market.Player{ID: uuid.MustParse("00000000-0000-4000-8000-000000000002"), Name: "Bob"}
)

// seedMarket gives the market at spec its two players.
func seedMarket(t testing.TB, spec string) {
	t.Helper()
	st := openStore(t, spec, "seed")
	defer st.Close()
	b, err := market.NewBulk(st)
	must(t, err)
	for i, p := range []market.Player{alice, bob} {
		must(t, b.AddPlayer(p, 1_000_000_00))
		for slot := range market.InventorySize {
			id := uuid.NewSHA1(uuid.NameSpaceOID, []byte{byte(i), byte(slot)})
			must(t, b.SetSlot(p.ID, slot, market.ItemStack{ID: id, Material: "DIAMOND", Amount: 64}))
		}
	}
	must(t, b.Finish())
}

func newMarket(t testing.TB, opts ...func(*market.Config)) *testMarket {
	t.Helper()
	return newMarketAt(t, pgtest.Store(t), opts...)
}

// newNetworkMarket is newMarket on PostgreSQL whatever RYNEK_TEST_STORE
// says: a network of servers shares one. Without PostgreSQL the test is
// skipped, and CI (RYNEK_REQUIRE_PG) fails it (pgtest).
func newNetworkMarket(t testing.TB, opts ...func(*market.Config)) *testMarket {
	t.Helper()
	return newMarketAt(t, pgtest.Database(t), opts...)
}

func newMarketAt(t testing.TB, spec string, opts ...func(*market.Config)) *testMarket {
	t.Helper()
	m := &testMarket{t: t, spec: spec, alice: alice, bob: bob}
	seedMarket(t, m.spec)
	m.open("", opts...)
	return m
}

// open opens the market's service as instance.
func (m *testMarket) open(instance string, opts ...func(*market.Config)) {
	m.t.Helper()
	m.svc, m.store = openService(m.t, m.spec, instance, opts...)
}

func openService(t testing.TB, spec, instance string, opts ...func(*market.Config)) (*market.Service, market.Store) {
	t.Helper()
	st := openStore(t, spec, instance)
	cfg := market.Config{Clock: market.NewManualClock(t0), ListingCooldown: -1}
	for _, o := range opts {
		o(&cfg)
	}
	svc := market.New(st, cfg)
	must(t, svc.BindMainThread())
	must(t, svc.Enable())
	t.Cleanup(func() { svc.Close() })
	return svc, st
}

// change makes n changes, each a few log entries and contract events: a
// listing of one diamond by Alice, every other one bought by Bob and the
// rest taken back, at prices from 1 to 1000.
func (m *testMarket) change(n int) {
	m.t.Helper()
	for range n {
		inv, err := m.svc.GetPlayer(m.alice.ID)
		must(m.t, err)
		slot := slices.IndexFunc(inv.Inventory[:], func(s *market.ItemStack) bool { return s != nil && s.Material == "DIAMOND" })
		stack := *inv.Inventory[slot]
		stack.Amount = 1
		m.listed++
		l, err := m.svc.SellItem(m.alice, stack, float64(1+m.listed%1000))
		must(m.t, err)
		if m.listed%2 == 0 {
			_, err = m.svc.Buy(m.bob, l.ID)
			m.sold++
		} else {
			err = m.svc.RemoveListing(l.ID, m.alice)
		}
		must(m.t, err)
	}
}

// events is every contract event of the log after seq after.
func (m *testMarket) events(after uint64) []market.Event {
	m.t.Helper()
	var out []market.Event
	for {
		page, err := m.svc.EventsSince(after, market.MaxEventsPage)
		must(m.t, err)
		out = append(out, page.Events...)
		if after = page.Through; page.Through >= page.Head {
			return out
		}
	}
}

func seqsOf(events []market.Event) []uint64 {
	out := make([]uint64, len(events))
	for i, e := range events {
		out[i] = e.Seq()
	}
	return out
}

// lineEncoder is the tests' encoder: up to three events a delivery, as
// JSON lines of seq and name, the first's seq in webhook-id.
type lineEncoder struct{}

func (lineEncoder) Encode(events []market.Event, now time.Time) (webhook.Delivery, int, error) {
	n := min(3, len(events))
	var body []byte
	for _, e := range events[:n] {
		body = fmt.Appendf(body, "{\"seq\":%d,\"event\":%q}\n", e.Seq(), e.EventName())
	}
	h := http.Header{}
	h.Set("webhook-id", strconv.FormatUint(events[0].Seq(), 10))
	return webhook.Delivery{Body: body, Header: h, Through: events[n-1].Seq()}, n, nil
}

type line struct {
	Seq   uint64 `json:"seq"`
	Event string `json:"event"`
}

// receiver is a webhook receiver in httptest: it records the events of
// every delivery it takes, and answers as answer says (nil: 204).
type receiver struct {
	t   testing.TB
	srv *httptest.Server

	mu       sync.Mutex
	got      []line // in the order taken
	requests int
	answer   func(n int, w http.ResponseWriter, r *http.Request) bool // n counts requests from 1; true: taken
}

func newReceiver(t testing.TB, answer func(n int, w http.ResponseWriter, r *http.Request) bool) *receiver {
	rc := &receiver{t: t, answer: answer}
	rc.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var body []byte
		dec := json.NewDecoder(r.Body)
		var lines []line
		for dec.More() {
			var l line
			if err := dec.Decode(&l); err != nil {
				t.Errorf("the receiver cannot read a delivery: %v (%s)", err, body)
				return
			}
			lines = append(lines, l)
		}
		rc.mu.Lock()
		rc.requests++
		n, answer := rc.requests, rc.answer
		rc.mu.Unlock()
		if answer != nil && !answer(n, w, r) {
			return
		}
		rc.mu.Lock()
		rc.got = append(rc.got, lines...)
		rc.mu.Unlock()
		w.WriteHeader(http.StatusNoContent)
	}))
	t.Cleanup(rc.srv.Close)
	return rc
}

func (rc *receiver) lines() []line {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	return slices.Clone(rc.got)
}

// seqs is the seqs taken, in order, each once: a delivery repeated (at
// least once) is there once.
func (rc *receiver) seqs() []uint64 {
	var out []uint64
	for _, l := range rc.lines() {
		if len(out) > 0 && l.Seq <= out[len(out)-1] {
			continue
		}
		out = append(out, l.Seq)
	}
	return out
}

// checkInOrder fails unless what the receiver took is in seq order, with
// nothing again but a repeat of a seq taken before.
func (rc *receiver) checkInOrder() {
	rc.t.Helper()
	seen := map[uint64]bool{}
	var last uint64
	for _, l := range rc.lines() {
		if l.Seq <= last && !seen[l.Seq] {
			rc.t.Fatalf("event %d came after %d and was never taken before", l.Seq, last)
		}
		seen[l.Seq] = true
		last = max(last, l.Seq)
	}
}

// endpoint is a test endpoint posting to rc.
func (rc *receiver) endpoint(name string) webhook.Endpoint {
	return webhook.Endpoint{Name: name, URL: rc.srv.URL + "/hook", Format: webhook.Standard, Secret: "whsec_c2VjcmV0"}
}

// fast is the tests' options: the line encoder, short waits, and the
// report lines kept.
func fast(report *reportLines) webhook.Options {
	return webhook.Options{Encoder: func(webhook.Endpoint) (webhook.Encoder, error) { return lineEncoder{}, nil },
		Retry: webhook.Backoff{First: 10 * time.Millisecond, Max: 50 * time.Millisecond}, Timeout: time.Second,
		Poll: 50 * time.Millisecond, Lease: time.Second, Report: report.add}
}

type reportLines struct {
	mu    sync.Mutex
	lines []string
}

func (r *reportLines) add(l string) {
	r.mu.Lock()
	r.lines = append(r.lines, l)
	r.mu.Unlock()
}

func (r *reportLines) all() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.lines)
}

// waitFor polls cond (from the test's goroutine, the market's main thread)
// until it holds, for up to 10 s.
func waitFor(t testing.TB, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("waited 10 s for %s", what)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func statusOf(t testing.TB, c webhook.Control, name string) webhook.Status {
	t.Helper()
	for _, s := range c.Status() {
		if s.Name == name {
			return s
		}
	}
	t.Fatalf("no status of %s", name)
	return webhook.Status{}
}

func must(t testing.TB, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

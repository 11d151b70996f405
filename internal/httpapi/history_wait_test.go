package httpapi

import (
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"testing"
	"time"

	"github.com/rynek/rynek/market"
	"github.com/rynek/rynek/market/sqlite"
	"github.com/rynek/rynek/seed"
)

// heldHistory holds the market's background history load until released.
type heldHistory struct {
	market.Store
	release chan struct{}
}

func (h *heldHistory) LoadHistory(after [16]byte, limit int, fn func(market.TxRow) error) (int, error) {
	<-h.release
	return h.Store.LoadHistory(after, limit, fn)
}

// TestReadsDoNotWaitBehindTheHistory: while the history of purchases loads,
// a read that needs it (the statistics) waits for it, but outside the API's
// working slots, so the listings, which do not need it, answer at once.
func TestReadsDoNotWaitBehindTheHistory(t *testing.T) {
	path := filepath.Join(t.TempDir(), "m.db")
	st, err := sqlite.Open(path, sqlite.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := seed.Load(st, seed.Options{Listings: 30, Players: 20, Days: 3, Now: fixedNow}); err != nil {
		t.Fatal(err)
	}
	st.Close()
	if st, err = sqlite.Open(path, sqlite.Options{}); err != nil {
		t.Fatal(err)
	}
	held := &heldHistory{Store: st, release: make(chan struct{})}
	svc := market.New(held, market.Config{Clock: market.NewManualClock(fixedNow)})
	if err := svc.BindMainThread(); err != nil {
		t.Fatal(err)
	}
	if err := svc.Enable(); err != nil {
		t.Fatal(err)
	}
	released := false
	release := func() {
		if !released {
			released = true
			close(held.release)
		}
	}
	defer svc.Close()
	srv := httptest.NewServer(New(svc, Options{}))
	defer srv.Close()
	defer release() // before the server closes, which waits for its requests
	// A read held behind the history would wait until the test releases
	// it: the client gives up first.
	client := &http.Client{Timeout: 3 * time.Second}
	get := func(path string) (int, string) {
		res, err := client.Get(srv.URL + path)
		if err != nil {
			t.Error(err)
			return 0, ""
		}
		defer res.Body.Close()
		b, _ := io.ReadAll(res.Body)
		return res.StatusCode, string(b)
	}
	stats := make(chan int, len(statsWaiters))
	for range statsWaiters {
		go func() { code, _ := get("/api/stats"); stats <- code }()
	}
	time.Sleep(100 * time.Millisecond) // the statistics' requests wait for the history
	start := time.Now()
	if code, body := get("/api/listings?limit=5"); code != 200 {
		t.Fatalf("the listings while the history loads: %d %s", code, body)
	}
	if took := time.Since(start); took > time.Second {
		t.Fatalf("the listings took %s behind the statistics' wait for the history", took)
	}
	release()
	for range statsWaiters {
		if code := <-stats; code != 200 {
			t.Fatalf("the statistics once the history loaded: %d", code)
		}
	}
}

// statsWaiters is more requests for the statistics than the API has working
// slots on any machine the tests run on.
var statsWaiters = make([]struct{}, 16)

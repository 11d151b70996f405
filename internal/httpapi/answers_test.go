package httpapi

import (
	"bytes"
	"fmt"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/rynek/rynek/internal/traffic"
	"github.com/rynek/rynek/internal/wire"
	"github.com/rynek/rynek/market"
	"github.com/rynek/rynek/seed"
)

// A kept answer is the market's answer at its version: reused while the
// version stands, read again after a change, and after a listing's expiry
// passes even though the timer has not removed it (no new version yet).
func TestKeptAnswersFollowTheVersionAndTheClock(t *testing.T) {
	e := newEnv(t, seed.Options{Listings: 40}, Options{})
	var first wire.ListingPage
	a := e.getJSON("/api/listings?limit=500&sort=oldest", &first)
	if again := e.get("/api/listings?limit=500&sort=oldest"); !bytes.Equal(again.body, a.body) {
		t.Fatal("the same request at the same version answered differently")
	}
	var st wire.Stats
	e.getJSON("/api/stats", &st)

	// The first listing to expire: its expiry passes, the timer has not
	// run, the version stands; every kept answer that counted it changes.
	soonest := first.Items[0]
	for _, l := range first.Items {
		if l.ExpiresAt.Before(soonest.ExpiresAt.Time) {
			soonest = l
		}
	}
	version := e.svc.Version()
	e.clock.Advance(soonest.ExpiresAt.Sub(e.clock.Now()))
	if e.svc.Version() != version {
		t.Fatal("the clock moved the version")
	}
	var after wire.ListingPage
	e.getJSON("/api/listings?limit=500&sort=oldest", &after)
	if after.Total != first.Total-1 || len(after.Items) != len(first.Items)-1 {
		t.Fatalf("at listing %d's expiry: total %d, %d items; before: %d, %d", soonest.ID, after.Total, len(after.Items), first.Total, len(first.Items))
	}
	for _, l := range after.Items {
		if l.ID == soonest.ID {
			t.Fatalf("listing %d is still listed at its expiry", l.ID)
		}
	}
	var stAfter wire.Stats
	e.getJSON("/api/stats", &stAfter)
	if stAfter.ActiveListings != st.ActiveListings-1 {
		t.Errorf("stats at the expiry: %d active, before %d", stAfter.ActiveListings, st.ActiveListings)
	}
	if got := e.get("/api/listings/" + strconv.Itoa(soonest.ID)); got.status != 404 {
		t.Errorf("listing %d at its expiry: %d", soonest.ID, got.status)
	}

	// A change: the answer is read again at the new version.
	players, _ := e.svc.Players()
	traffic.New(2).Step(e.svc, players, 1000, 50*time.Millisecond)
	var changed wire.ListingPage
	e.getJSON("/api/listings?limit=500&sort=oldest", &changed)
	page, err := e.svc.Query(market.Query{Sort: market.SortOldest, Limit: 500})
	if err != nil {
		t.Fatal(err)
	}
	if changed.Version != e.svc.Version() || changed.Total != page.Total {
		t.Fatalf("after a change: version %d total %d; the market: version %d total %d", changed.Version, changed.Total, e.svc.Version(), page.Total)
	}
	if changed.Version == version {
		t.Fatal("the traffic changed nothing")
	}
}

// Requests for one target at one version read the market once, however
// many arrive together; the cache stays bounded.
func TestAnswerCacheReadsOncePerVersion(t *testing.T) {
	e := newEnv(t, seed.Options{Listings: 10}, Options{})
	var reads atomic.Int64
	read := func() (any, uint64, error) {
		reads.Add(1)
		time.Sleep(20 * time.Millisecond)
		return map[string]int{"n": 1}, e.svc.Version(), nil
	}
	var wg sync.WaitGroup
	bodies := make([][]byte, 16)
	for i := range bodies {
		wg.Add(1)
		go func() {
			defer wg.Done()
			b, _, err := e.api.keptAnswer("/t?", read)
			if err != nil {
				t.Error(err)
			}
			bodies[i] = b
		}()
	}
	wg.Wait()
	if n := reads.Load(); n != 1 {
		t.Errorf("16 requests at one version read %d times", n)
	}
	for _, b := range bodies {
		if string(b) != "{\"n\":1}\n" {
			t.Fatalf("a request got %q", b)
		}
	}

	// A failed read is not kept: the next request reads again.
	fail := func() (any, uint64, error) { reads.Add(1); return nil, 0, fmt.Errorf("store away") }
	for range 2 {
		if _, _, err := e.api.keptAnswer("/fails?", fail); err == nil {
			t.Fatal("a failed read answered")
		}
	}
	if n := reads.Load(); n != 3 {
		t.Errorf("two failed reads counted %d reads in all, want 3", n)
	}

	// A read that saw another version than the horizon is not kept.
	moved := func() (any, uint64, error) { reads.Add(1); return 1, e.svc.Version() + 1, nil }
	for range 2 {
		e.api.keptAnswer("/moved?", moved)
	}
	if n := reads.Load(); n != 5 {
		t.Errorf("two reads that saw another version counted %d reads in all, want 5", n)
	}

	quick := func() (any, uint64, error) { return 1, e.svc.Version(), nil }
	for i := range 3 * answerCacheSize {
		e.api.keptAnswer(fmt.Sprintf("/many?%d", i), quick)
	}
	if n := len(e.api.answers.entries); n > answerCacheSize {
		t.Errorf("%d targets kept, at most %d allowed", n, answerCacheSize)
	}
}

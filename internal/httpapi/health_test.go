package httpapi

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"runtime"
	"sync/atomic"
	"testing"
	"time"

	"github.com/rynek/rynek/market"
	"github.com/rynek/rynek/seed"
)

// fullDisk is a store whose writes fail while full is set, as a full disk
// makes them.
type fullDisk struct {
	market.Store
	full atomic.Bool
}

func (d *fullDisk) Commit(b *market.Batch) error {
	if d.full.Load() {
		return errors.New("database or disk is full (13)")
	}
	return d.Store.Commit(b)
}

// TestHealthSaysWhenTheStoreFails: while the store refuses the market's
// changes, /api/health answers 503 with ready false and the store's error,
// how often and since when it failed; once changes are saved again (for
// market.StoreSettle) it is ready, and says when the failure was over.
func TestHealthSaysWhenTheStoreFails(t *testing.T) {
	disk := &fullDisk{}
	e := newWrappedEnv(t, seed.Options{Listings: 30}, Options{}, func(st market.Store) market.Store { disk.Store = st; return disk })
	c := loadContract(t, e)
	health := func(status int) Health { t.Helper(); return readHealth(t, c, e, status) }
	if h := health(200); !h.Ready || !h.Store.OK || h.Store.Failure != nil {
		t.Fatalf("a healthy market: %+v", h)
	}
	players, err := e.svc.Players()
	if err != nil {
		t.Fatal(err)
	}
	sell := func() error {
		st, err := e.svc.GetPlayer(players[1].ID)
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range st.Inventory {
			if s != nil {
				_, err := e.svc.SellItem(players[1], *s, 50)
				return err
			}
		}
		t.Fatal("the player has nothing to sell")
		return nil
	}
	disk.full.Store(true)
	since := e.clock.Now()
	for range 3 {
		if err := sell(); !errors.Is(err, market.ErrStore) {
			t.Fatalf("a sell on a full disk: %v", err)
		}
		e.clock.Advance(time.Minute)
	}
	h := health(503)
	f := h.Store.Failure
	if h.Ready || h.Store.OK || f == nil || f.Error != "database or disk is full (13)" || f.Failures != 3 ||
		!f.Since.Equal(since) || !f.Last.Equal(since.Add(2*time.Minute)) || !f.Over.IsZero() {
		t.Fatalf("health while the store fails: %+v, failure %+v", h, f)
	}
	disk.full.Store(false)
	worked := e.clock.Now()
	if err := sell(); err != nil {
		t.Fatal(err)
	}
	health(503) // not over until the store has worked for a while
	e.clock.Advance(market.StoreSettle)
	h = health(200)
	if f := h.Store.Failure; !h.Ready || !h.Store.OK || f == nil || f.Failures != 3 || !f.Over.Equal(worked) {
		t.Fatalf("health once changes are saved again: %+v, failure %+v", h, f)
	}
}

// TestHealthCarriesTheTickWork: /api/health says how long the main
// thread's ticks took over the last minute, in microseconds, the main
// thread's CPU time beside the wall time: nothing before the first tick,
// then the ticks the main loop ran (here the test's goroutine, the main
// thread), the one that waited 20 ms the longest by the wall clock and
// not by the CPU.
func TestHealthCarriesTheTickWork(t *testing.T) {
	e := newEnv(t, seed.Options{Listings: 10}, Options{})
	c := loadContract(t, e)
	health := func() Health {
		t.Helper()
		a := c.check(t, e, 200, "/api/health")
		var h Health
		if err := json.Unmarshal(a.body, &h); err != nil {
			t.Fatalf("%s: %v", a.body, err)
		}
		return h
	}
	if w := health().TickWork; w.Ticks != 0 || w.Wall != (TickFigures{}) {
		t.Fatalf("before the first tick: %+v", w)
	}
	for i := range 5 {
		if _, _, err := e.svc.MeasureTick(func() {
			if i == 2 {
				time.Sleep(20 * time.Millisecond)
			}
		}); err != nil {
			t.Fatal(err)
		}
	}
	w := health().TickWork
	if w.Ticks != 5 || w.Wall.Max < 20_000 || w.Wall.P99 != w.Wall.Max || w.Wall.P50 > 5_000 || w.Seconds < 0.02 || w.Seconds > 60 {
		t.Fatalf("after five ticks, one of 20 ms: %+v", w)
	}
	if runtime.GOOS == "linux" && (w.CPU == nil || w.CPU.Max >= 10_000) {
		t.Fatalf("the main thread's CPU time: %+v, want present and far below the sleeping tick's 20 ms", w.CPU)
	}
}

// cutLink is a store behind a link that can be cut (market.Reacher): while
// it is, commits and tries to reach it fail as a cut link's do.
type cutLink struct {
	market.Store
	cut atomic.Bool
}

func (l *cutLink) Commit(b *market.Batch) error {
	if l.cut.Load() {
		return fmt.Errorf("dial tcp 10.0.0.5:5432: connect: connection refused (%w)", market.ErrUnreachable)
	}
	return l.Store.Commit(b)
}

func (l *cutLink) Reach(context.Context) (market.Landed, error) {
	if l.cut.Load() {
		return market.Landed{}, fmt.Errorf("dial tcp 10.0.0.5:5432: connect: connection refused (%w)", market.ErrUnreachable)
	}
	return market.Landed{}, nil
}

// TestHealthSaysWhenTheStoreIsUnreachable: while the store cannot reach its
// database, /api/health answers 503 with ready false, reachable false, and
// the outage: since when, why the newest try to reach it failed. Once the
// database answers, reachable is true again by itself, and the outage says
// when it was back.
func TestHealthSaysWhenTheStoreIsUnreachable(t *testing.T) {
	link := &cutLink{}
	e := newWrappedEnv(t, seed.Options{Listings: 30}, Options{}, func(st market.Store) market.Store { link.Store = st; return link })
	c := loadContract(t, e)
	health := func(status int) Health { t.Helper(); return readHealth(t, c, e, status) }
	if h := health(200); !h.Ready || !h.Store.OK || !h.Store.Reachable || h.Store.Outage != nil {
		t.Fatalf("a healthy market: %+v", h)
	}
	buyer, listing := e.buyerOfOne()
	link.cut.Store(true)
	since := e.clock.Now()
	if _, err := e.svc.Buy(buyer, listing); !errors.Is(err, market.ErrStore) {
		t.Fatalf("a purchase on a cut link: %v", err)
	}
	e.clock.Advance(time.Minute)
	var h Health
	for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		if h = health(503); h.Store.Outage != nil && h.Store.Outage.ProbeError != "" || time.Now().After(deadline) {
			break
		}
	}
	o := h.Store.Outage
	if h.Ready || h.Store.OK || h.Store.Reachable || o == nil || !o.Since.Equal(since) || !o.Back.IsZero() || o.Count != 1 ||
		o.ProbeError != "dial tcp 10.0.0.5:5432: connect: connection refused (store: the database cannot be reached)" || !h.Store.Interrupted {
		t.Fatalf("health while the store is unreachable: %+v, outage %+v", h, o)
	}
	if _, err := e.svc.Buy(buyer, listing); !errors.Is(err, market.ErrUnreachable) {
		t.Fatalf("a purchase while the store is away: %v", err)
	}
	if o := health(503).Store.Outage; o == nil || o.Refused != 1 {
		t.Fatalf("the outage after a purchase refused at once: %+v", o)
	}

	link.cut.Store(false)
	for deadline := time.Now().Add(5 * time.Second); !h.Store.Reachable; time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("not reachable 5 s after the link came back: %+v", h.Store)
		}
		h = health(503) // ready once changes have been saved for a while
	}
	if o := h.Store.Outage; o == nil || !o.Back.Equal(since.Add(time.Minute)) || o.ProbeError != "" || o.Count != 1 {
		t.Fatalf("the outage once the store answers: %+v", o)
	}
	if _, err := e.svc.Buy(buyer, listing); err != nil {
		t.Fatalf("a purchase once the store answers: %v", err)
	}
	e.clock.Advance(market.StoreSettle)
	if h := health(200); !h.Ready || !h.Store.OK || !h.Store.Reachable {
		t.Fatalf("health once changes are saved again: %+v", h)
	}
}

// readHealth reads /api/health, checking its answer against the contract.
func readHealth(t *testing.T, c contract, e *env, status int) Health {
	t.Helper()
	a := c.check(t, e, status, "/api/health")
	var h Health
	if err := json.Unmarshal(a.body, &h); err != nil {
		t.Fatalf("%s: %v", a.body, err)
	}
	return h
}

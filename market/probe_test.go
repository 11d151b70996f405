package market_test

import (
	"context"
	"errors"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/rynek/rynek/market"
)

// linkStore is a store behind a link that can be down (market.Reacher):
// while it is, commits fail with ErrUnreachable and Reach fails too.
type linkStore struct {
	market.Store
	down    atomic.Bool
	commits atomic.Int64
	reaches atomic.Int64
}

var errLinkDown = errors.New("dial tcp 10.0.0.5:5432: connect: connection refused")

func (l *linkStore) Commit(b *market.Batch) error {
	l.commits.Add(1)
	if l.down.Load() {
		return errors.Join(errLinkDown, market.ErrUnreachable)
	}
	return l.Store.Commit(b)
}

func (l *linkStore) Reach(ctx context.Context) (market.Landed, error) {
	l.reaches.Add(1)
	if l.down.Load() {
		return market.Landed{}, errors.Join(errLinkDown, market.ErrUnreachable)
	}
	return market.Landed{}, nil
}

// A store that cannot reach its database is not asked again by every
// change: once a commit says so, changes are refused at once, with the
// STORE error saying since when, while a probe off the main thread asks the
// store; as soon as it answers, changes go through again by themselves.
func TestAnUnreachableStoreIsProbedNotAsked(t *testing.T) {
	defer market.SetProbeWaits(10*time.Millisecond, 20*time.Millisecond)()
	w := newWorld(t)
	must(t, w.svc.Close())
	link := &linkStore{Store: w.openStore()}
	w.store = link
	w.svc = market.New(link, market.Config{Clock: w.clock, ListingCooldown: -1})
	must(t, w.svc.BindMainThread())
	must(t, w.svc.Enable())
	defer w.svc.Close()

	link.down.Store(true)
	away := w.clock.Now()
	if _, err := w.svc.SellItem(w.alice, w.stack(w.alice, 0), 10); !errors.Is(err, market.ErrStore) {
		t.Fatalf("a sell on a cut link: %v", err)
	}
	h := w.svc.StoreHealth()
	if !h.Unreachable || !h.Away.Equal(away) || !h.Failing || h.Outages != 1 || !h.Interrupted {
		t.Fatalf("after a commit on a cut link: %+v", h)
	}
	commits := link.commits.Load()
	w.clock.Advance(time.Second)
	start := time.Now()
	_, err := w.svc.SellItem(w.alice, w.stack(w.alice, 0), 10)
	took := time.Since(start)
	if !errors.Is(err, market.ErrStore) || !errors.Is(err, market.ErrUnreachable) ||
		err.Error() != "the change was not made: the market's database cannot be reached since "+away.UTC().Format("2006-01-02 15:04:05 UTC")+
			"; changes go through again once it answers" {
		t.Fatalf("a sell while the store is away: %v", err)
	}
	if link.commits.Load() != commits {
		t.Fatalf("the store was asked to commit while it was known away")
	}
	if n, err := w.svc.RecoverInterrupted(); n != 0 || err != nil {
		t.Fatalf("the recovery timer while the store is away: %d, %v; want it to wait", n, err)
	}
	if h := w.svc.StoreHealth(); h.Refused != 1 {
		t.Fatalf("%d changes refused, want 1 (the timer's turn is no change)", h.Refused)
	}
	if took > 10*time.Millisecond {
		t.Fatalf("a sell while the store is away took %s, want a refusal at once", took)
	}
	for deadline := time.Now().Add(2 * time.Second); link.reaches.Load() < 2; time.Sleep(5 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("the probe tried %d times in 2 s", link.reaches.Load())
		}
	}
	if h := w.svc.StoreHealth(); !h.Unreachable || !strings.Contains(h.ProbeCause, "connection refused") {
		t.Fatalf("while the probe fails: %+v", h)
	}

	link.down.Store(false)
	for deadline := time.Now().Add(2 * time.Second); w.svc.StoreHealth().Unreachable; time.Sleep(5 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("still unreachable 2 s after the link came back: %+v", w.svc.StoreHealth())
		}
	}
	if h := w.svc.StoreHealth(); !h.Back.Equal(w.clock.Now()) || h.ProbeCause != "" {
		t.Fatalf("once the store answers: %+v", h)
	}
	w.clock.Advance(market.StoreSettle)
	if h := w.svc.StoreHealth(); h.Failing {
		t.Fatalf("%s after the store answered again, with nothing written: %+v", market.StoreSettle, h)
	}
	w.sell(w.alice, 0, 10)
	if n, err := w.svc.RecoverInterrupted(); n != 0 || err != nil {
		t.Fatalf("recovery with nothing interrupted: %d, %v", n, err)
	}
	if h := w.svc.StoreHealth(); h.Interrupted || h.InDoubt {
		t.Fatalf("once the store takes writes again: %+v", h)
	}
}

package market_test

import (
	"errors"
	"testing"
	"time"

	"github.com/rynek/rynek/market"
)

// diskStore is a store whose writes fail while full is set, as a full disk
// would make them, and which can be set to fill up after a number of
// commits.
type diskStore struct {
	market.Store
	full      bool
	fillAfter int // commits that still succeed before full is set (0: off)
}

var errDiskFull = errors.New("database or disk is full (13)")

func (d *diskStore) Commit(b *market.Batch) error {
	if d.fillAfter > 0 {
		if d.fillAfter--; d.fillAfter == 0 {
			d.full = true
		}
	}
	if d.full {
		return errDiskFull
	}
	return d.Store.Commit(b)
}

func (d *diskStore) ReserveListingIDs(n int) (int64, error) {
	if d.full {
		return 0, errDiskFull
	}
	return d.Store.ReserveListingIDs(n)
}

func (d *diskStore) TrimEvents(t market.EventTrim) (uint64, error) {
	if d.full {
		return 0, errDiskFull
	}
	return d.Store.TrimEvents(t)
}

// newDiskWorld is a world whose service runs on a diskStore.
func newDiskWorld(t *testing.T, opts ...func(*market.Config)) (*world, *diskStore) {
	w := newWorld(t)
	must(t, w.svc.Close())
	disk := &diskStore{Store: w.openStore()}
	w.store = disk
	cfg := market.Config{Clock: w.clock, ListingCooldown: -1}
	for _, o := range opts {
		o(&cfg)
	}
	w.svc = market.New(disk, cfg)
	must(t, w.svc.BindMainThread())
	must(t, w.svc.Enable())
	t.Cleanup(func() { w.svc.Close() })
	return w, disk
}

// The store's failures are one run from the first refused write until the
// store has taken writes for StoreSettle without refusing one (a write that
// gets through between failures does not end it): the cause of the first,
// a count, when it began, the newest, and when it was over.
func TestStoreHealthCountsARunOfFailures(t *testing.T) {
	w, disk := newDiskWorld(t)
	if h := w.svc.StoreHealth(); h.Failing || h.Failures != 0 || !h.Over.IsZero() {
		t.Fatalf("a healthy store: %+v", h)
	}
	disk.full = true
	began := w.clock.Now()
	for range 5 {
		if _, err := w.svc.SellItem(w.alice, w.stack(w.alice, 0), 10); !errors.Is(err, market.ErrStore) {
			t.Fatalf("a sell on a full disk: %v", err)
		}
		w.clock.Advance(time.Second)
	}
	h := w.svc.StoreHealth()
	if !h.Failing || h.Failures != 5 || h.Runs != 1 || h.Cause != "database or disk is full (13)" || h.LastCause != h.Cause ||
		!h.Since.Equal(began) || !h.Last.Equal(began.Add(4*time.Second)) || !h.Over.IsZero() {
		t.Fatalf("after 5 refused sells: %+v", h)
	}
	// A write gets through, then the disk refuses one again: the same run.
	disk.full = false
	w.sell(w.alice, 0, 10)
	w.clock.Advance(time.Second)
	disk.full = true
	w.svc.SellItem(w.bob, w.stack(w.bob, 0), 10)
	if h := w.svc.StoreHealth(); !h.Failing || h.Failures != 6 || h.Runs != 1 {
		t.Fatalf("a failure soon after a write got through: %+v", h)
	}
	disk.full = false
	w.clock.Advance(time.Second)
	worked := w.clock.Now()
	w.sell(w.bob, 0, 10)
	w.clock.Advance(market.StoreSettle - time.Millisecond)
	if h := w.svc.StoreHealth(); !h.Failing {
		t.Fatalf("over before the store worked for %s: %+v", market.StoreSettle, h)
	}
	w.clock.Advance(time.Millisecond)
	h = w.svc.StoreHealth()
	if h.Failing || h.Failures != 6 || h.Cause != "database or disk is full (13)" || !h.Over.Equal(worked) {
		t.Fatalf("after the store worked for %s: %+v", market.StoreSettle, h)
	}
	disk.full = true
	w.svc.SellItem(w.admin, w.stack(w.admin, 0), 10)
	if h := w.svc.StoreHealth(); !h.Failing || h.Failures != 1 || !h.Over.IsZero() || h.Runs != 2 {
		t.Fatalf("a new run: %+v", h)
	}
}

// A purchase cut short by a failing store (its compensation could not be
// saved either) holds its listing until RecoverInterrupted finishes it:
// not while the store still fails (it waits longer after each try), at
// once when it takes writes again.
func TestRecoverInterruptedFinishesWhatAFailureLeft(t *testing.T) {
	defer market.SetRecoverWaits(40*time.Millisecond, 100*time.Millisecond)()
	w, disk := newDiskWorld(t)
	before := w.audit()
	l := w.sell(w.alice, 0, 10)
	if n, err := w.svc.RecoverInterrupted(); n != 0 || err != nil {
		t.Fatalf("with nothing to recover: %d, %v", n, err)
	}
	// The purchase's steps up to SELLER_PAID commit; the injected failure
	// there is compensated in a second commit, which the full disk refuses.
	must(t, w.svc.ArmFailure(market.StateItemDelivered))
	disk.fillAfter = 2
	tx, err := w.svc.Buy(w.bob, l.ID)
	if err == nil || tx.State.Terminal() {
		t.Fatalf("the purchase: %+v, %v; want it left unfinished", tx, err)
	}
	if _, err := w.svc.Buy(w.admin, l.ID); !errors.Is(err, market.ErrListingReserved) {
		t.Fatalf("the listing the purchase holds: %v", err)
	}
	n, err := w.svc.RecoverInterrupted()
	if n != 0 || !errors.Is(err, market.ErrStore) {
		t.Fatalf("recovery on the full disk: %d, %v", n, err)
	}
	if n, err := w.svc.RecoverInterrupted(); n != 0 || err != nil {
		t.Fatalf("recovery again at once: %d, %v; want it to wait", n, err)
	}
	time.Sleep(50 * time.Millisecond)
	if _, err := w.svc.RecoverInterrupted(); !errors.Is(err, market.ErrStore) {
		t.Fatalf("recovery after the wait: %v", err)
	}
	disk.full = false
	w.sell(w.bob, 0, 20) // the store takes writes again
	if n, err := w.svc.RecoverInterrupted(); n != 1 || err != nil {
		t.Fatalf("recovery once the store is back: %d, %v", n, err)
	}
	got, err := w.svc.GetTransaction(tx.ID)
	must(t, err)
	if got.State != market.StateCompleted { // recovery rolls forward where it can
		t.Fatalf("the interrupted purchase is %s", got.State)
	}
	if after := w.audit(); after.Money != before.Money || after.Items != before.Items || after.OpenTx != 0 {
		t.Fatalf("audit %+v -> %+v", before, after)
	}
	if n, err := w.svc.RecoverInterrupted(); n != 0 || err != nil {
		t.Fatalf("recovery with nothing left: %d, %v", n, err)
	}
}

// A trim of the event log is a write like the others: one the store
// refuses is a failure of the run, and one it takes counts as the store
// working, so that on a market where nothing else is written (a server at
// night) the run is over once the trims go through again.
func TestATrimTheStoreTakesEndsARunOfFailures(t *testing.T) {
	defer market.SetTrimEvery(0)() // the trim tried again at once, not in 10 s
	w, disk := newDiskWorld(t, func(c *market.Config) { c.EventRetention = market.EventRetention{MaxCount: 1, MaxAge: -1} })
	for i := range 3 {
		w.sell(w.alice, i, 10)
	}
	disk.full = true
	if _, err := w.svc.TrimEventLog(); !errors.Is(err, market.ErrStore) {
		t.Fatalf("a trim on a full disk: %v", err)
	}
	if h := w.svc.StoreHealth(); !h.Failing || h.Failures != 1 {
		t.Fatalf("after a refused trim: %+v", h)
	}
	disk.full = false
	w.clock.Advance(time.Second)
	worked := w.clock.Now()
	if n, err := w.svc.TrimEventLog(); err != nil || n != 2 {
		t.Fatalf("the trim once the disk has room: %d entries, %v", n, err)
	}
	w.clock.Advance(market.StoreSettle)
	if h := w.svc.StoreHealth(); h.Failing || !h.Over.Equal(worked) {
		t.Fatalf("%s after the store took a trim, with no other write: %+v", market.StoreSettle, h)
	}
}

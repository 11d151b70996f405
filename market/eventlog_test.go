package market_test

import (
	"errors"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/rynek/rynek/market"
)

// The event log: one entry per change, in the same transaction as the rows,
// numbered without gaps across restarts; listeners are fed from it.

func TestEveryChangeIsLoggedInOrder(t *testing.T) {
	w := newWorld(t, func(c *market.Config) { c.ListingTTL = time.Hour })
	a := w.sell(w.alice, 0, 10)                 // ListingCreatedEvent
	b := w.sell(w.alice, 1, 20)                 // ListingCreatedEvent
	must(t, w.svc.RemoveListing(a.ID, w.alice)) // ListingRemovedEvent removed
	c := w.sell(w.bob, 0, 30)
	must(t, w.svc.RemoveListing(c.ID, w.admin)) // admin-removed
	d := w.sell(w.bob, 1, 40)
	must(t, w.svc.ForceExpire(d.ID, w.admin)) // force-expire
	_, err := w.svc.Buy(w.bob, b.ID)          // 5 steps and TransactionCompletedEvent
	must(t, err)
	e := w.sell(w.bob, 2, 5)
	must(t, w.svc.ArmFailure(market.StateSellerPaid))
	_, err = w.svc.Buy(w.alice, e.ID) // CREATED, RESERVED, WITHDRAWN, then ROLLED_BACK
	if !errors.Is(err, market.ErrInjectedFailure) {
		t.Fatalf("armed purchase: %v", err)
	}
	w.clock.Advance(2 * time.Hour)
	n, _, err := w.svc.SweepExpired() // ListingExpired, no contract event
	must(t, err)
	if n != 1 {
		t.Fatalf("swept %d", n)
	}
	_, err = w.svc.ClaimAll(w.bob.ID) // MailClaimed
	must(t, err)

	rows := logRows(t, w.store)
	checkLogGapFree(t, rows, 1)
	var kinds []string
	for _, r := range rows {
		kinds = append(kinds, string(r.Kind))
	}
	want := []string{"ListingCreatedEvent", "ListingCreatedEvent", "ListingRemovedEvent", "ListingCreatedEvent",
		"ListingRemovedEvent", "ListingCreatedEvent", "ListingRemovedEvent",
		"TransactionStep", "TransactionStep", "TransactionStep", "TransactionStep", "TransactionStep", "TransactionCompletedEvent",
		"ListingCreatedEvent", "TransactionStep", "TransactionStep", "TransactionStep", "TransactionStep",
		"ListingExpired", "MailClaimed"}
	if !slices.Equal(kinds, want) {
		t.Fatalf("log kinds\n got %v\nwant %v", kinds, want)
	}
	// What the listeners got is exactly the log's contract entries, with
	// the log's seqs; timer expiry and the internal entries reached none.
	var delivered, logged []string
	for _, ev := range w.events {
		delivered = append(delivered, eventKey(ev))
	}
	page, err := w.svc.EventsSince(0, 100)
	must(t, err)
	for _, ev := range page.Events {
		logged = append(logged, eventKey(ev))
	}
	if !slices.Equal(delivered, logged) || len(delivered) != 9 {
		t.Fatalf("delivered %v\nlogged    %v", delivered, logged)
	}
	if page.Through != uint64(len(rows)) || page.Head != uint64(len(rows)) || w.svc.Version() != uint64(len(rows)) {
		t.Fatalf("through %d head %d version %d, want %d", page.Through, page.Head, w.svc.Version(), len(rows))
	}
	reasons := []string{}
	for _, ev := range w.events {
		if r, ok := ev.(market.ListingRemovedEvent); ok {
			reasons = append(reasons, r.Reason())
		}
	}
	if !slices.Equal(reasons, []string{"removed", "admin-removed", "force-expire"}) {
		t.Fatalf("reasons %v", reasons)
	}
	// The seqs go on after a restart: never reused.
	w.reopen()
	f := w.sell(w.alice, 2, 7)
	if got := w.events[len(w.events)-1].Seq(); got != uint64(len(rows))+1 {
		t.Fatalf("after a restart the next event has seq %d, want %d (listing #%d)", got, len(rows)+1, f.ID)
	}
	checkLogGapFree(t, logRows(t, w.store), 1)
}

func TestEventsCarryTheChangeTime(t *testing.T) {
	w := newWorld(t)
	w.clock.Advance(90 * time.Minute)
	w.sell(w.alice, 0, 10)
	if at := w.events[0].At(); !at.Equal(t0.Add(90 * time.Minute)) {
		t.Fatalf("At %v", at)
	}
}

// crash is what a test panics with to stop a mutation between its commit
// and its listeners, as a killed process would stop there.
type crash struct{}

func TestUndeliveredEventsAreDeliveredAfterACrash(t *testing.T) {
	w := newWorld(t)
	first := w.sell(w.alice, 0, 10)
	market.SetBeforeDelivery(w.svc, func(market.Event) { panic(crash{}) })
	func() {
		defer func() {
			if r := recover(); r != (crash{}) {
				t.Fatalf("recovered %v", r)
			}
		}()
		w.sell(w.alice, 1, 20)
		t.Fatal("the sell returned though its delivery crashed")
	}()
	if len(w.events) != 1 {
		t.Fatalf("%d events reached the listener before the crash", len(w.events))
	}
	w.crashAndRestart()
	if len(w.events) != 1 {
		t.Fatalf("after the restart %d events were delivered, want the undelivered one", len(w.events))
	}
	got, ok := w.events[0].(market.ListingCreatedEvent)
	if !ok || got.Seq() != 2 || got.Listing().ID != first.ID+1 || got.Listing().Price != 20 {
		t.Fatalf("redelivered %v", eventKey(w.events[0]))
	}
	// Delivered and recorded: a third start delivers nothing again.
	w.reopen()
	if len(w.events) != 0 {
		t.Fatalf("a clean restart delivered %d events again", len(w.events))
	}
}

func TestDeliveryIsRecordedWithTheNextChange(t *testing.T) {
	w := newWorld(t)
	w.sell(w.alice, 0, 10)
	w.sell(w.alice, 1, 20)
	// A crash now (no Close) redelivers at most the last change's events:
	// the second commit recorded that the first was delivered.
	w.crashAndRestart()
	if len(w.events) != 1 || w.events[0].Seq() != 2 {
		t.Fatalf("after a crash, redelivered %d events (first %v); want only seq 2", len(w.events), w.events)
	}
}

func TestRecoveryCompletesAndDeliversInLogOrder(t *testing.T) {
	w := newWorld(t)
	l := w.sell(w.alice, 1, 200)
	must(t, w.svc.Close())
	st := w.openStore()
	// The purchase fails entering SELLER_PAID and cannot save its
	// compensation: it stops at MONEY_WITHDRAWN.
	cs := &countingStore{Store: st, fail: map[int]bool{2: true}}
	svc := market.New(cs, market.Config{Clock: w.clock, ListingCooldown: -1})
	svc.BindMainThread()
	must(t, svc.Enable())
	must(t, svc.ArmFailure(market.StateSellerPaid))
	_, err := svc.Buy(w.bob, l.ID)
	if err == nil {
		t.Fatal("the purchase went through")
	}
	must(t, st.Close()) // killed: the purchase is left unfinished

	st2 := w.openStore()
	svc2 := market.New(st2, market.Config{Clock: w.clock, ListingCooldown: -1})
	var got []market.Event
	svc2.Subscribe(func(e market.Event) {
		got = append(got, e)
		// A listener runs once the market is ready: reads work.
		if _, err := svc2.GetActiveListingsCount(); err != nil {
			t.Errorf("a listener during Enable: %v", err)
		}
	})
	svc2.BindMainThread()
	must(t, svc2.Enable())
	defer svc2.Close()
	if len(got) != 1 {
		t.Fatalf("%d events after recovery, want the completion", len(got))
	}
	done, ok := got[0].(market.TransactionCompletedEvent)
	if !ok || done.Transaction().State != market.StateCompleted {
		t.Fatalf("delivered %v", eventKey(got[0]))
	}
	rows := logRows(t, st2)
	checkLogGapFree(t, rows, 1)
	if last := rows[len(rows)-1]; last.Kind != market.KindTransactionCompleted || last.Seq != done.Seq() {
		t.Fatalf("the completion is not the newest entry: %v", last.Kind)
	}
}

func TestAListenerThatMutatesKeepsTheOrder(t *testing.T) {
	w := newWorld(t)
	var first, second []uint64
	sold := false
	w.svc.Subscribe(func(e market.Event) {
		first = append(first, e.Seq())
		if !sold {
			sold = true
			w.sell(w.bob, 0, 10) // a listener that reacts with a change
		}
	})
	w.svc.Subscribe(func(e market.Event) { second = append(second, e.Seq()) })
	w.sell(w.alice, 0, 10)
	if !slices.Equal(first, []uint64{1, 2}) || !slices.Equal(second, []uint64{1, 2}) {
		t.Fatalf("first listener %v, second %v: every listener must see 1 before 2", first, second)
	}
}

// tenEntries is a world whose log holds ten entries: Alice's three sells
// (seqs 1-3), Bob's (4), and Alice's purchase of it, five internal steps
// and its completion (seq 10).
func tenEntries(t *testing.T) *world {
	w := newWorld(t)
	for i := 0; i < 3; i++ {
		w.sell(w.alice, i, 10)
	}
	l := w.sell(w.bob, 0, 10)
	_, err := w.svc.Buy(w.alice, l.ID)
	must(t, err)
	return w
}

func TestEventsSince(t *testing.T) {
	w := tenEntries(t)
	cases := []struct {
		after   uint64
		limit   int
		seqs    []uint64
		through uint64
	}{
		{0, 100, []uint64{1, 2, 3, 4, 10}, 10},
		{0, 2, []uint64{1, 2}, 2},
		{4, 100, []uint64{10}, 10},
		{4, 1, []uint64{10}, 10},
		{5, 100, []uint64{10}, 10},
		{10, 100, nil, 10},
	}
	for _, c := range cases {
		page, err := w.svc.EventsSince(c.after, c.limit)
		must(t, err)
		var seqs []uint64
		for _, e := range page.Events {
			seqs = append(seqs, e.Seq())
		}
		if !slices.Equal(seqs, c.seqs) || page.Through != c.through || page.Head != 10 {
			t.Errorf("EventsSince(%d, %d) = %v through %d head %d, want %v through %d", c.after, c.limit, seqs, page.Through, page.Head, c.seqs, c.through)
		}
	}
	_, err := w.svc.EventsSince(11, 10)
	errText(t, err, "event 11 is ahead of the log, whose newest event is 10")
	_, err = w.svc.EventsSince(0, 0)
	errText(t, err, "limit 0 is outside 1..10000")
	// After a restart the same answers come from the store.
	w.reopen()
	page, err := w.svc.EventsSince(0, 100)
	must(t, err)
	if len(page.Events) != 5 || page.Events[4].Seq() != 10 || page.Through != 10 {
		t.Fatalf("from the store: %d events through %d", len(page.Events), page.Through)
	}
	w.svc.Disable()
	_, err = w.svc.EventsSince(0, 1)
	errText(t, err, "Rynek API nie jest gotowe")
}

func TestEventsSinceGivesEachCallerItsOwnCopy(t *testing.T) {
	w := newWorld(t)
	w.sell(w.alice, 1, 10)
	p1, err := w.svc.EventsSince(0, 1)
	must(t, err)
	p1.Events[0].(market.ListingCreatedEvent).Listing().Item.Lore[0] = "scribbled"
	p2, err := w.svc.EventsSince(0, 1)
	must(t, err)
	if lore := p2.Events[0].(market.ListingCreatedEvent).Listing().Item.Lore[0]; lore != "Wykuty w Krakowie" {
		t.Fatalf("a caller changed the log's copy: %q", lore)
	}
}

func TestRetentionTrimsTheOldestWithoutRenumbering(t *testing.T) {
	keepThree := func(c *market.Config) {
		c.EventRetention = market.EventRetention{MaxCount: 3, MaxAge: -1}
	}
	w := newWorld(t, keepThree)
	for i := 0; i < 3; i++ {
		w.sell(w.alice, i, 10)
		w.sell(w.bob, i, 10)
	}
	n, err := w.svc.TrimEventLog()
	must(t, err)
	// Six entries, keep the newest three; the newest is never deleted and
	// every deleted one had been delivered.
	if n != 3 {
		t.Fatalf("trimmed %d, want 3", n)
	}
	rows := logRows(t, w.store)
	checkLogGapFree(t, rows, 4)
	if len(rows) != 3 {
		t.Fatalf("%d entries left", len(rows))
	}
	_, err = w.svc.EventsSince(0, 10)
	errText(t, err, "the events after 0 are no longer kept (the oldest is 4); read the market again and follow it from its version")
	if !errors.Is(err, market.ErrEventsTrimmed) {
		t.Fatalf("not ErrEventsTrimmed: %v", err)
	}
	page, err := w.svc.EventsSince(3, 10)
	must(t, err)
	if len(page.Events) != 3 || page.Events[0].Seq() != 4 {
		t.Fatalf("after the trim: %d events from %d", len(page.Events), page.Events[0].Seq())
	}
	// Seqs go on from where they were, across a restart too.
	w.reopen(keepThree)
	w.sell(w.admin, 0, 10)
	if got := w.events[len(w.events)-1].Seq(); got != 7 {
		t.Fatalf("the next entry after a trim has seq %d, want 7", got)
	}
	if n, _ := w.svc.TrimEventLog(); n != 1 {
		t.Fatalf("second trim deleted %d, want 1", n)
	}
}

func TestRetentionByAgeKeepsTheNewest(t *testing.T) {
	w := newWorld(t, func(c *market.Config) {
		c.EventRetention = market.EventRetention{MaxAge: time.Hour, MaxCount: -1}
	})
	w.sell(w.alice, 0, 10)
	w.sell(w.alice, 1, 10)
	w.clock.Advance(30 * time.Minute)
	w.sell(w.alice, 2, 10)
	w.clock.Advance(45 * time.Minute) // the first two are 75 minutes old
	n, err := w.svc.TrimEventLog()
	must(t, err)
	if n != 2 {
		t.Fatalf("trimmed %d by age, want 2", n)
	}
	w.clock.Advance(24 * time.Hour) // everything is old now
	if n, _ := w.svc.TrimEventLog(); n != 0 {
		t.Fatalf("the newest entry was trimmed (%d)", n)
	}
	checkLogGapFree(t, logRows(t, w.store), 3)
}

func TestRetentionKeepsWhatWasNotDelivered(t *testing.T) {
	w := newWorld(t, func(c *market.Config) {
		c.EventRetention = market.EventRetention{MaxCount: 1, MaxAge: -1}
	})
	w.sell(w.alice, 0, 10)
	market.SetBeforeDelivery(w.svc, func(market.Event) { panic(crash{}) })
	func() {
		defer func() { recover() }()
		w.sell(w.alice, 1, 10)
	}()
	func() {
		defer func() { recover() }()
		w.sell(w.alice, 2, 10)
	}()
	market.SetBeforeDelivery(w.svc, nil)
	// Entries 2 and 3 were never delivered: only entry 1 may go.
	n, err := w.svc.TrimEventLog()
	must(t, err)
	if n != 1 {
		t.Fatalf("trimmed %d, want only the delivered entry", n)
	}
	checkLogGapFree(t, logRows(t, w.store), 2)
}

func TestVersionMovesWithTheChange(t *testing.T) {
	w := newWorld(t)
	if v := w.svc.Version(); v != 0 {
		t.Fatalf("a new market has version %d", v)
	}
	var seen []string
	w.svc.Subscribe(func(e market.Event) {
		// Inside the listener the change is in memory and the version says so.
		l := e.(market.ListingCreatedEvent).Listing()
		if _, err := w.svc.GetListing(l.ID); err != nil || w.svc.Version() != e.Seq() {
			seen = append(seen, fmt.Sprintf("listing #%d at version %d: %v", l.ID, w.svc.Version(), err))
		}
	})
	w.sell(w.alice, 0, 10)
	w.sell(w.alice, 1, 10)
	if len(seen) > 0 || w.svc.Version() != 2 {
		t.Fatalf("%v, version %d", seen, w.svc.Version())
	}
}

// TestPurchaseIsOneCommit: every effect of a purchase is in this one store,
// so a purchase that meets no failure is one store transaction, holding
// every state change with its own log entry, in the saga's order.
func TestPurchaseIsOneCommit(t *testing.T) {
	w := newWorld(t)
	l := w.sell(w.alice, 1, 200)
	must(t, w.svc.Close())
	st := w.openStore()
	cs := &countingStore{Store: st}
	svc := market.New(cs, market.Config{Clock: w.clock, ListingCooldown: -1})
	svc.BindMainThread()
	must(t, svc.Enable())
	defer svc.Close()
	before := svc.Version()
	tx, err := svc.Buy(w.bob, l.ID)
	must(t, err)
	if cs.n != 1 || tx.State != market.StateCompleted {
		t.Fatalf("%d commits, state %s; want 1 commit and COMPLETED", cs.n, tx.State)
	}
	// Each row once, in its final state: the transaction inserted, the
	// listing deleted, buyer, seller, the counters.
	ops := slices.Clone(cs.last)
	slices.Sort(ops)
	if want := []market.OpKind{market.OpPlayerState, market.OpPlayerState, market.OpDelListing, market.OpPutTx, market.OpCounters}; !slices.Equal(ops, want) {
		t.Fatalf("ops of the purchase: %v, want %v", ops, want)
	}
	var kinds []market.EventKind
	_, err = st.ReadEvents(before, 100, func(r market.EventRow) error { kinds = append(kinds, r.Kind); return nil })
	must(t, err)
	step, done := market.KindTransactionStep, market.KindTransactionCompleted
	if want := []market.EventKind{step, step, step, step, step, done}; !slices.Equal(kinds, want) {
		t.Fatalf("log of the purchase: %v, want %v", kinds, want)
	}
	if len(tx.Timeline) != 6 {
		t.Fatalf("timeline %v", tx.Timeline)
	}
}

// countingTrims is a store that counts the trims asked of it.
type countingTrims struct {
	market.Store
	trims int
}

func (c *countingTrims) TrimEvents(t market.EventTrim) (uint64, error) {
	c.trims++
	return c.Store.TrimEvents(t)
}

// TestTrimEventLogAsksTheStoreRarely: the timer calls TrimEventLog every
// tick; with nothing due it asks the store once in trimEvery, not each
// tick (it asked every tick before, 0.1–0.25 ms of the main thread each
// time at 1M listings). A backlog larger than a batch is worked off a
// batch a call, each batch under a millisecond's worth (500 entries),
// and what stays within the retention is kept.
func TestTrimEventLogAsksTheStoreRarely(t *testing.T) {
	var counter *countingTrims
	inner := testStore(t)
	w := &world{t: t, openStore: func() market.Store { counter = &countingTrims{Store: inner()}; return counter },
		clock: market.NewManualClock(t0)}
	w.alice = market.Player{ID: uid(1), Name: "Alice"}
	w.bob = market.Player{ID: uid(2), Name: "Bob"}
	st := w.openStore()
	b := newBulk(t, st)
	must(t, b.AddPlayer(w.alice, 1000_00))
	must(t, b.SetSlot(w.alice.ID, 0, market.ItemStack{ID: uid(10), Material: "DIAMOND", Amount: 64}))
	must(t, b.Finish())
	must(t, st.Close())
	w.start(func(c *market.Config) { c.EventRetention = market.EventRetention{MaxCount: 100} })
	for range 100 {
		n, err := w.svc.TrimEventLog()
		must(t, err)
		if n != 0 {
			t.Fatalf("trimmed %d of a log within its retention", n)
		}
	}
	if counter.trims != 1 {
		t.Fatalf("100 ticks with nothing to trim asked the store %d times, want once", counter.trims)
	}
	// 1,300 entries over the count limit and more: three batches, one a
	// call.
	for range 700 {
		l, err := w.svc.SellItem(w.alice, w.stack(w.alice, 0), 10)
		must(t, err)
		must(t, w.svc.RemoveListing(l.ID, w.alice))
	}
	head := w.svc.Version()
	counter.trims = 0
	var got []int
	for range 5 {
		n, err := w.svc.TrimEventLog()
		must(t, err)
		got = append(got, n)
	}
	if want := []int{500, 500, int(head) - 100 - 1000, 0, 0}; !slices.Equal(got, want) || counter.trims != 3 {
		t.Fatalf("a backlog of %d over the limit: trimmed %v asking the store %d times, want %v asking 3", head-100, got, counter.trims, want)
	}
	if rows := logRows(t, w.store); len(rows) != 100 {
		t.Fatalf("%d entries kept, want the newest 100", len(rows))
	}
}

// TestEventsSinceLetsTheMainThreadIn: a long page of the log is copied in
// chunks with the read lock let go between two, so that a burst of stream
// clients never holds the main thread up; a change made during a pause is
// not on the page, which ends at the head it began at.
func TestEventsSinceLetsTheMainThreadIn(t *testing.T) {
	w := tenEntries(t)
	page, chunks := readAcrossAChange(t, w.svc, 2, func() (market.EventPage, error) { return w.svc.EventsSince(0, 100) }, func() {
		w.sell(w.bob, 1, 10) // seq 11, made while the read waits
	})
	var seqs []uint64
	for _, e := range page.Events {
		seqs = append(seqs, e.Seq())
	}
	if want := []uint64{1, 2, 3, 4, 10}; !slices.Equal(seqs, want) || page.Through != 10 || page.Head != 10 {
		t.Errorf("the page is %v through %d head %d, want %v through 10 head 10", seqs, page.Through, page.Head, want)
	}
	if chunks < 4 {
		t.Errorf("%d chunks over 10 entries in chunks of 2", chunks)
	}
}

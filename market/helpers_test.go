package market_test

import (
	"fmt"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/rynek/rynek/internal/pgtest"
	"github.com/rynek/rynek/market"
	"github.com/rynek/rynek/market/postgres"
	"github.com/rynek/rynek/market/sqlite"
)

func TestMain(m *testing.M) { os.Exit(pgtest.Main(m)) }

// testStore returns a function that opens one new market, again each time
// it is called: an SQLite file, or with RYNEK_TEST_STORE=postgres a
// PostgreSQL database (pgtest), so that the service's suites run on both
// stores (CI runs this package both ways). The store is closed when the test
// ends.
func testStore(t testing.TB) func() market.Store {
	t.Helper()
	spec := pgtest.Store(t)
	return func() market.Store {
		t.Helper()
		st, err := openSpec(spec)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { st.Close() })
		return st
	}
}

// openSpec opens the market spec names.
func openSpec(spec string) (market.Store, error) { return openSpecAs(spec, "") }

// openSpecAs opens the market spec names, a PostgreSQL one as the instance
// named instance (the host name when empty).
func openSpecAs(spec, instance string) (market.Store, error) {
	if path, ok := strings.CutPrefix(spec, "sqlite:"); ok {
		return sqlite.Open(path, sqlite.Options{})
	}
	return postgres.Open(spec, postgres.Options{Instance: instance})
}

// sqliteOnly skips a test of the SQLite store's own features when the
// suites run on another store.
func sqliteOnly(t testing.TB) {
	if kind := os.Getenv("RYNEK_TEST_STORE"); kind != "" && kind != "sqlite" {
		t.Skipf("SKIPPED on %s: a test of the SQLite store's files", kind)
	}
}

// t0 is the fixed start of every test clock.
var t0 = time.Date(2026, 11, 1, 12, 0, 0, 0, time.UTC)

// world is a small market for tests: three players (Alice, Bob, and Admin
// with market.admin), each with a few stacks, on a real store (testStore).
type world struct {
	t         *testing.T
	openStore func() market.Store // the same market again
	store     market.Store
	svc       *market.Service
	clock     *market.ManualClock
	events    []market.Event
	alice     market.Player
	bob       market.Player
	admin     market.Player
}

func uid(n byte) uuid.UUID {
	var u uuid.UUID
	u[15] = n
	u[6] = 0x40
	u[8] = 0x80
	return u
}

// newWorld creates the world; mutate cfg before the service starts via opts.
func newWorld(t *testing.T, opts ...func(*market.Config)) *world {
	t.Helper()
	w := &world{t: t, openStore: testStore(t), clock: market.NewManualClock(t0)}
	w.alice = market.Player{ID: uid(1), Name: "Alice"}
	w.bob = market.Player{ID: uid(2), Name: "Bob"}
	w.admin = market.Player{ID: uid(3), Name: "Admin", Permissions: []string{market.PermAdmin}}
	st := w.openStore()
	w.store = st
	b := newBulk(t, st)
	for i, p := range []market.Player{w.alice, w.bob, w.admin} {
		must(t, b.AddPlayer(p, 1000_00))
		must(t, b.SetSlot(p.ID, 0, market.ItemStack{ID: uid(byte(10 + i)), Material: "DIAMOND", Amount: 64}))
		must(t, b.SetSlot(p.ID, 1, market.ItemStack{ID: uid(byte(20 + i)), Material: "DIAMOND_SWORD", Amount: 1,
			DisplayName: "§bMiecz Łódź", Lore: []string{"Wykuty w Krakowie"},
			Enchantments: []market.Enchantment{{Key: "sharpness", Level: 5}, {Key: "unbreaking", Level: 3}}}))
		must(t, b.SetSlot(p.ID, 2, market.ItemStack{ID: uid(byte(30 + i)), Material: "OAK_LOG", Amount: 32}))
	}
	must(t, b.Finish())
	cfg := market.Config{Clock: w.clock, ListingCooldown: -1}
	for _, o := range opts {
		o(&cfg)
	}
	w.svc = market.New(st, cfg)
	w.svc.BindMainThread()
	must(t, w.svc.Enable())
	must(t, w.svc.WaitHistory()) // refunds, ratings and capped purchases need it
	w.svc.Subscribe(func(e market.Event) { w.events = append(w.events, e) })
	t.Cleanup(func() { w.svc.Close() })
	return w
}

// reopen closes the service and opens a new one on the same market.
func (w *world) reopen(opts ...func(*market.Config)) {
	w.t.Helper()
	must(w.t, w.svc.Close())
	w.start(opts...)
}

// crashAndRestart closes only the store, as a killed process leaves it (the
// service records nothing more), and starts a new service on the file.
func (w *world) crashAndRestart(opts ...func(*market.Config)) {
	w.t.Helper()
	must(w.t, w.store.Close())
	w.start(opts...)
}

// start opens the store again and a new service on it.
func (w *world) start(opts ...func(*market.Config)) {
	w.t.Helper()
	st := w.openStore()
	w.store = st
	cfg := market.Config{Clock: w.clock, ListingCooldown: -1}
	for _, o := range opts {
		o(&cfg)
	}
	w.svc = market.New(st, cfg)
	w.svc.BindMainThread()
	w.events = nil
	w.svc.Subscribe(func(e market.Event) { w.events = append(w.events, e) })
	must(w.t, w.svc.Enable())
	must(w.t, w.svc.WaitHistory()) // refunds, ratings and capped purchases need it
	w.t.Cleanup(func() { w.svc.Close() })
}

func (w *world) stack(p market.Player, slot int) market.ItemStack {
	w.t.Helper()
	st, err := w.svc.GetPlayer(p.ID)
	must(w.t, err)
	if st.Inventory[slot] == nil {
		w.t.Fatalf("%s's slot %d is empty", p.Name, slot)
	}
	return *st.Inventory[slot]
}

func (w *world) sell(p market.Player, slot int, price float64) market.Listing {
	w.t.Helper()
	l, err := w.svc.SellItem(p, w.stack(p, slot), price)
	must(w.t, err)
	return l
}

func (w *world) audit() market.Audit {
	w.t.Helper()
	a, err := w.svc.Audit()
	must(w.t, err)
	if len(a.Problems) > 0 {
		w.t.Fatalf("audit problems: %v", a.Problems)
	}
	return a
}

func must(t testing.TB, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// errText asserts err's exact text.
func errText(t *testing.T, err error, want string) {
	t.Helper()
	if err == nil {
		t.Fatalf("got no error, want %q", want)
	}
	if err.Error() != want {
		t.Fatalf("error text\n got: %q\nwant: %q", err.Error(), want)
	}
}

// logRows reads the whole event log of st.
func logRows(t testing.TB, st market.Store) []market.EventRow {
	t.Helper()
	var rows []market.EventRow
	_, err := st.ReadEvents(0, 1<<30, func(r market.EventRow) error {
		r.Body = append([]byte(nil), r.Body...)
		rows = append(rows, r)
		return nil
	})
	must(t, err)
	return rows
}

// checkLogGapFree fails unless rows are numbered first, first+1, ...
func checkLogGapFree(t testing.TB, rows []market.EventRow, first uint64) {
	t.Helper()
	for i, r := range rows {
		if r.Seq != first+uint64(i) {
			t.Fatalf("log entry %d has seq %d, want %d: the log has a gap", i, r.Seq, first+uint64(i))
		}
	}
}

// eventKey is what identifies a contract event for comparisons.
func eventKey(e market.Event) string {
	switch e := e.(type) {
	case market.ListingCreatedEvent:
		return fmt.Sprintf("%d %s #%d %s", e.Seq(), e.EventName(), e.Listing().ID, e.Listing().Item.ID)
	case market.ListingRemovedEvent:
		return fmt.Sprintf("%d %s #%d %s %s", e.Seq(), e.EventName(), e.Listing().ID, e.Reason(), e.Listing().Item.ID)
	case market.TransactionCompletedEvent:
		return fmt.Sprintf("%d %s %s %s", e.Seq(), e.EventName(), e.Transaction().ID, e.Transaction().State)
	}
	return fmt.Sprintf("%T", e)
}

// newBulk starts a bulk load into the empty store st.
func newBulk(t testing.TB, st market.Store) *market.Bulk {
	t.Helper()
	b, err := market.NewBulk(st)
	must(t, err)
	return b
}

// openLoaded starts a service on a store a bulk load filled, at t0.
func openLoaded(t *testing.T, st market.Store) *market.Service {
	t.Helper()
	svc := market.New(st, market.Config{Clock: market.NewManualClock(t0)})
	svc.BindMainThread()
	must(t, svc.Enable())
	must(t, svc.WaitHistory())
	t.Cleanup(func() { svc.Close() })
	return svc
}

func states(tx market.Transaction) []market.State {
	var out []market.State
	for _, s := range tx.Timeline {
		out = append(out, s.State)
	}
	return out
}

// flush waits for every change committed behind the tick, failing the test
// on a refusal.
func (w *world) flush() {
	w.t.Helper()
	if r := w.svc.Flush(); len(r) > 0 {
		w.t.Fatalf("refused: %+v", r)
	}
}

// threadCount counts the calls of count on the main thread and off it:
// where a test's hook found some work done.
type threadCount struct {
	svc         *market.Service
	mu          sync.Mutex
	onMain, off int
}

func (c *threadCount) count() {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.svc.IsMainThread() {
		c.onMain++
	} else {
		c.off++
	}
}

// counts is how many calls there were on the main thread and off it.
func (c *threadCount) counts() (onMain, off int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.onMain, c.off
}

package compare_test

// Durable writes: Rynek's SellItem and full purchase saga against the floor
// of a durable sell — one raw SQLite transaction that writes the rows a sell
// writes (the seller's inventory, the listing, the event log entry), with
// the sizes of a real sell, on a copy of the same market, through the same
// driver with exactly the same pragmas (sqlite.DSN).

import (
	"context"
	"database/sql"
	"fmt"
	"runtime"
	"slices"
	"testing"
	"time"

	"github.com/rynek/rynek/internal/benchdata"
	"github.com/rynek/rynek/market"
	"github.com/rynek/rynek/market/sqlite"
)

// writesOpen opens a market of n listings with limits that never stop a
// benchmark (cooldown off, no listing cap).
func writesOpen(tb testing.TB, n int, opts sqlite.Options) (*market.Service, *sqlite.Store) {
	tb.Helper()
	svc, st := benchdata.Open(tb, benchdata.Path(tb, n, -1), opts, benchdata.Unlimited)
	tb.Cleanup(func() { svc.Close() })
	return svc, st
}

type writesSource struct {
	p market.Player
	s market.ItemStack
}

// writesSources lists one-item sells that the players' inventories allow.
func writesSources(tb testing.TB, svc *market.Service) []writesSource {
	players, err := svc.Players()
	if err != nil {
		tb.Fatal(err)
	}
	var out []writesSource
	for _, p := range players {
		st, _ := svc.GetPlayer(p.ID)
		for _, x := range st.Inventory {
			if x == nil {
				continue
			}
			one := *x
			one.Amount = 1
			for k := 0; k < x.Amount; k++ {
				out = append(out, writesSource{p, one})
			}
		}
	}
	return out
}

// rawSell is the floor: BEGIN IMMEDIATE; the seller's inventory, the
// listing and the log entry; COMMIT — on one connection with the store's
// pragmas, rotating over the market's players as the sells do.
type rawSell struct {
	db                                    *sql.DB
	begin, player, listing, event, commit *sql.Stmt
	players                               [][]byte
	inventory, rec, body                  []byte
	nextListing, nextSeq                  int64
}

// newRawSell prepares the floor on a copy of the market of n listings. The
// row sizes come from one real sell on that copy: the seller's inventory
// after it, its listing record and its log entry.
func newRawSell(tb testing.TB, n int, opts sqlite.Options) *rawSell {
	tb.Helper()
	path := benchdata.Path(tb, n, -1)
	svc, st := benchdata.Open(tb, path, opts, benchdata.Unlimited)
	src := writesSources(tb, svc)[0]
	l, err := svc.SellItem(src.p, src.s, 10)
	if err != nil {
		tb.Fatal(err)
	}
	r := &rawSell{}
	if _, err := st.ReadEvents(svc.Version()-1, 1, func(e market.EventRow) error {
		r.body = append([]byte(nil), e.Body...)
		return nil
	}); err != nil || r.body == nil {
		tb.Fatalf("the sell's log entry: %v", err)
	}
	if err := svc.Close(); err != nil {
		tb.Fatal(err)
	}
	if r.db, err = sql.Open("sqlite", sqlite.DSN(path, opts)); err != nil {
		tb.Fatal(err)
	}
	r.db.SetMaxOpenConns(1)
	tb.Cleanup(func() { r.db.Close() })
	q := func(query string, args []any, dest ...any) {
		if err := r.db.QueryRow(query, args...).Scan(dest...); err != nil {
			tb.Fatal(err)
		}
	}
	q("SELECT inventory FROM players WHERE id = ?", []any{src.p.ID[:]}, &r.inventory)
	q("SELECT rec FROM listings WHERE id = ?", []any{l.ID}, &r.rec)
	q("SELECT max(id) + 1 FROM listings", nil, &r.nextListing)
	q("SELECT max(seq) + 1 FROM events", nil, &r.nextSeq)
	rows, err := r.db.Query("SELECT id FROM players")
	if err != nil {
		tb.Fatal(err)
	}
	for rows.Next() {
		var id []byte
		rows.Scan(&id)
		r.players = append(r.players, id)
	}
	rows.Close()
	ctx := context.Background()
	for _, s := range []struct {
		st **sql.Stmt
		q  string
	}{{&r.begin, "BEGIN IMMEDIATE"},
		{&r.player, "UPDATE players SET balance = ?, last_sell = ?, inventory = ? WHERE id = ?"},
		{&r.listing, "INSERT INTO listings (id, rec) VALUES (?, ?)"},
		{&r.event, "INSERT INTO events (seq, kind, at, body, published) VALUES (?, ?, ?, ?, ?)"},
		{&r.commit, "COMMIT"}} {
		if *s.st, err = r.db.PrepareContext(ctx, s.q); err != nil {
			tb.Fatal(err)
		}
	}
	return r
}

func (r *rawSell) one() error {
	if _, err := r.begin.Exec(); err != nil {
		return err
	}
	p := r.players[int(r.nextSeq)%len(r.players)]
	if _, err := r.player.Exec(1000, r.nextSeq, r.inventory, p); err != nil {
		return err
	}
	if _, err := r.listing.Exec(r.nextListing, r.rec); err != nil {
		return err
	}
	if _, err := r.event.Exec(r.nextSeq, "ListingCreatedEvent", r.nextSeq, r.body, r.nextSeq-1); err != nil {
		return err
	}
	r.nextListing++
	r.nextSeq++
	_, err := r.commit.Exec()
	return err
}

// startTimer collects the previous run's million-listing market (garbage
// now) outside the measured time, then starts the clock.
func startTimer(b *testing.B) time.Time {
	runtime.GC()
	b.ResetTimer()
	return time.Now()
}

// benchRawSells measures the floor under opts.
func benchRawSells(b *testing.B, opts sqlite.Options) {
	r := newRawSell(b, 1_000_000, opts)
	start := startTimer(b)
	for i := 0; i < b.N; i++ {
		if err := r.one(); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.N)/time.Since(start).Seconds(), "ops/s")
}

// benchSells measures durable sells under opts.
func benchSells(b *testing.B, opts sqlite.Options) {
	svc, _ := writesOpen(b, 1_000_000, opts)
	src := writesSources(b, svc)
	if len(src) < b.N {
		b.Skipf("only %d sellable items", len(src))
	}
	start := startTimer(b)
	for i := 0; i < b.N; i++ {
		if _, err := svc.SellItem(src[i].p, src[i].s, 10); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.N)/time.Since(start).Seconds(), "ops/s")
}

// purchases buys up to n of the cheapest listings, each with a buyer who is
// not its seller, and returns how long each purchase took on the main
// thread (a refused purchase, a buyer short of money, is not counted).
func purchases(tb testing.TB, svc *market.Service, n int) []time.Duration {
	players, _ := svc.Players()
	page, err := svc.Query(market.Query{Sort: market.SortCheapest, Limit: 4 * n})
	if err != nil {
		tb.Fatal(err)
	}
	var took []time.Duration
	for i := 0; len(took) < n && i < len(page.Listings); i++ {
		l := page.Listings[i]
		buyer := players[i%len(players)]
		if buyer.ID == l.Seller {
			buyer = players[(i+1)%len(players)]
		}
		start := time.Now()
		tx, err := svc.Buy(buyer, l.ID)
		if err != nil {
			continue
		}
		took = append(took, time.Since(start))
		if tx.State != market.StateCompleted {
			tb.Fatal(tx.State)
		}
	}
	if len(took) < n {
		tb.Fatalf("only %d purchases possible", len(took))
	}
	return took
}

// BenchmarkCompareWrites: the raw transaction of a sell's rows, a durable
// sell, a durable purchase (six commits), each in operations per second.
func BenchmarkCompareWrites(b *testing.B) {
	b.Run("rawsell", func(b *testing.B) { benchRawSells(b, sqlite.Options{}) })
	b.Run("rynek-sell", func(b *testing.B) { benchSells(b, sqlite.Options{}) })
	b.Run("rynek-purchase", func(b *testing.B) {
		svc, _ := writesOpen(b, 1_000_000, sqlite.Options{})
		start := startTimer(b)
		done := len(purchases(b, svc, b.N))
		b.ReportMetric(float64(done)/time.Since(start).Seconds(), "ops/s")
	})
}

// BenchmarkCompareSyncWrites is the same comparison with Options.Sync: an
// fsync per raw transaction against an fsync per sell.
func BenchmarkCompareSyncWrites(b *testing.B) {
	sync := sqlite.Options{Sync: true}
	b.Run("rawsell", func(b *testing.B) { benchRawSells(b, sync) })
	b.Run("rynek-sell", func(b *testing.B) { benchSells(b, sync) })
}

// BenchmarkMutationLatency measures the main thread's time per mutation on
// a million-listing market: b.N sells, then b.N/6 purchases (six commits
// each), with the store's WAL checkpoints running as they do in use. It
// reports the distribution; a purchase counts as one mutation.
func BenchmarkMutationLatency(b *testing.B) {
	svc, _ := writesOpen(b, 1_000_000, sqlite.Options{})
	src := writesSources(b, svc)
	if len(src) < b.N {
		b.Skipf("only %d sellable items", len(src))
	}
	startTimer(b)
	sells := make([]time.Duration, b.N)
	for i := range sells {
		start := time.Now()
		if _, err := svc.SellItem(src[i].p, src[i].s, 10); err != nil {
			b.Fatal(err)
		}
		sells[i] = time.Since(start)
	}
	buys := purchases(b, svc, max(b.N/6, 1))
	b.StopTimer()
	report := func(name string, d []time.Duration) {
		slices.Sort(d)
		at := func(q float64) float64 { return float64(d[int(q*float64(len(d)-1))].Microseconds()) }
		b.ReportMetric(at(0.5), name+"-p50-µs")
		b.ReportMetric(at(0.99), name+"-p99-µs")
		b.ReportMetric(at(0.999), name+"-p99.9-µs")
		b.ReportMetric(float64(d[len(d)-1].Microseconds()), name+"-max-µs")
	}
	all := append(slices.Clone(sells), buys...)
	report("sell", sells)
	report("purchase", buys)
	report("mutation", all)
}

// TestCompareWritesAgree checks, at small size, that each contender's write
// is durable and writes what it claims: the raw transaction's rows are
// there, a sell and a purchase are in the market after it reopens.
func TestCompareWritesAgree(t *testing.T) {
	r := newRawSell(t, 1_000, sqlite.Options{})
	first := r.nextListing
	for i := 0; i < 10; i++ {
		if err := r.one(); err != nil {
			t.Fatal(err)
		}
	}
	var listings, events int
	if err := r.db.QueryRow("SELECT count(*) FROM listings WHERE id >= ?", first).Scan(&listings); err != nil || listings != 10 {
		t.Fatalf("raw listings %d, %v", listings, err)
	}
	if err := r.db.QueryRow("SELECT count(*) FROM events WHERE length(body) = ?", len(r.body)).Scan(&events); err != nil || events < 10 {
		t.Fatalf("raw log entries %d, %v", events, err)
	}
	svc, _ := writesOpen(t, 1_000, sqlite.Options{})
	src := writesSources(t, svc)
	l, err := svc.SellItem(src[0].p, src[0].s, 10)
	if err != nil {
		t.Fatal(err)
	}
	took := purchases(t, svc, 1)
	if len(took) != 1 {
		t.Fatal("no purchase")
	}
	if _, err := svc.GetListing(l.ID); err != nil {
		t.Fatal(err)
	}
	page, err := svc.EventsSince(0, market.MaxEventsPage)
	if err != nil || len(page.Events) != 2 {
		t.Fatalf("the log holds %d events (%v), want the sell's and the purchase's", len(page.Events), err)
	}
	if fmt.Sprint(page.Events[1].EventName()) != "TransactionCompletedEvent" {
		t.Fatalf("second event %s", page.Events[1].EventName())
	}
}

package compare_test

// Durable writes: Rynek's SellItem and full purchase saga against the floor
// this design can reach — a raw single-row SQLite INSERT and COMMIT on the
// same driver with exactly the same pragmas (sqlite.DSN) — on a market of a
// million listings.

import (
	"context"
	"database/sql"
	"path/filepath"
	"runtime"
	"testing"
	"time"

	"github.com/rynek/rynek/internal/benchdata"
	"github.com/rynek/rynek/market"
	"github.com/rynek/rynek/market/sqlite"
)

// writesOpen opens a market of n listings with limits that never stop a
// benchmark (cooldown off, no listing cap). The store is returned so that a
// benchmark can Flush it: the tables are written after Commit returns, and
// that work belongs inside the measured time.
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

// rawCommit is the floor: BEGIN IMMEDIATE, one INSERT of a listing-sized
// row, COMMIT, on one connection with the store's pragmas.
type rawCommit struct {
	db                    *sql.DB
	begin, insert, commit *sql.Stmt
	rec                   []byte
	next                  int64
}

func newRawCommit(tb testing.TB, opts sqlite.Options) *rawCommit {
	tb.Helper()
	path := filepath.Join(tb.TempDir(), "raw.db")
	db, err := sql.Open("sqlite", sqlite.DSN(path, opts))
	if err != nil {
		tb.Fatal(err)
	}
	db.SetMaxOpenConns(1)
	if _, err := db.Exec("CREATE TABLE listings (id INTEGER PRIMARY KEY, rec BLOB NOT NULL)"); err != nil {
		tb.Fatal(err)
	}
	r := &rawCommit{db: db, rec: make([]byte, 64)} // the size of a plain listing record
	ctx := context.Background()
	for _, s := range []struct {
		st **sql.Stmt
		q  string
	}{{&r.begin, "BEGIN IMMEDIATE"}, {&r.insert, "INSERT INTO listings (id, rec) VALUES (?, ?)"}, {&r.commit, "COMMIT"}} {
		if *s.st, err = db.PrepareContext(ctx, s.q); err != nil {
			tb.Fatal(err)
		}
	}
	tb.Cleanup(func() { db.Close() })
	return r
}

func (r *rawCommit) one() error {
	r.next++
	if _, err := r.begin.Exec(); err != nil {
		return err
	}
	if _, err := r.insert.Exec(r.next, r.rec); err != nil {
		return err
	}
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

// benchRawCommits measures the floor under opts.
func benchRawCommits(b *testing.B, opts sqlite.Options) {
	r := newRawCommit(b, opts)
	start := startTimer(b)
	for i := 0; i < b.N; i++ {
		if err := r.one(); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.N)/time.Since(start).Seconds(), "ops/s")
}

// benchSells measures durable sells under opts, up to the moment the
// tables hold them all.
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

// BenchmarkCompareWrites: raw commit, durable sell, durable purchase (six
// commits), each reported in operations per second.
func BenchmarkCompareWrites(b *testing.B) {
	b.Run("rawcommit", func(b *testing.B) { benchRawCommits(b, sqlite.Options{}) })
	b.Run("rynek-sell", func(b *testing.B) { benchSells(b, sqlite.Options{}) })
	b.Run("rynek-purchase", func(b *testing.B) {
		svc, _ := writesOpen(b, 1_000_000, sqlite.Options{})
		players, _ := svc.Players()
		page, err := svc.Query(market.Query{Sort: market.SortCheapest, Limit: 4 * b.N})
		if err != nil {
			b.Fatal(err)
		}
		start := startTimer(b)
		done := 0
		for i := 0; done < b.N && i < len(page.Listings); i++ {
			l := page.Listings[i]
			buyer := players[i%len(players)]
			if buyer.ID == l.Seller {
				buyer = players[(i+1)%len(players)]
			}
			tx, err := svc.Buy(buyer, l.ID)
			if err != nil {
				continue // a buyer without the money: not a purchase
			}
			if tx.State != market.StateCompleted {
				b.Fatal(tx.State)
			}
			done++
		}
		if done < b.N {
			b.Fatalf("only %d purchases possible", done)
		}
		b.ReportMetric(float64(done)/time.Since(start).Seconds(), "ops/s")
	})
}

// BenchmarkCompareSyncWrites is the same comparison with Options.Sync: an
// fsync per raw commit against an fsync of the change log per sell.
func BenchmarkCompareSyncWrites(b *testing.B) {
	sync := sqlite.Options{Sync: true}
	b.Run("rawcommit", func(b *testing.B) { benchRawCommits(b, sync) })
	b.Run("rynek-sell", func(b *testing.B) { benchSells(b, sync) })
}

// TestCompareWritesAgree checks, at small size, that each contender's write
// is durable: what was committed is there after reopening.
func TestCompareWritesAgree(t *testing.T) {
	r := newRawCommit(t, sqlite.Options{})
	for i := 0; i < 10; i++ {
		if err := r.one(); err != nil {
			t.Fatal(err)
		}
	}
	var n int
	if err := r.db.QueryRow("SELECT count(*) FROM listings").Scan(&n); err != nil || n != 10 {
		t.Fatalf("raw rows %d, %v", n, err)
	}
	svc, _ := writesOpen(t, 1_000, sqlite.Options{})
	src := writesSources(t, svc)
	l, err := svc.SellItem(src[0].p, src[0].s, 10)
	if err != nil {
		t.Fatal(err)
	}
	page, _ := svc.Query(market.Query{Sort: market.SortCheapest, Limit: 50})
	var bought string
	for _, c := range page.Listings {
		players, _ := svc.Players()
		for _, p := range players {
			if p.ID == c.Seller {
				continue
			}
			if tx, err := svc.Buy(p, c.ID); err == nil {
				bought = tx.ID
				break
			}
		}
		if bought != "" {
			break
		}
	}
	if bought == "" {
		t.Fatal("no purchase possible")
	}
	if _, err := svc.GetListing(l.ID); err != nil {
		t.Fatal(err)
	}
	if tx, err := svc.GetTransaction(bought); err != nil || tx.State != market.StateCompleted {
		t.Fatalf("%v %v", tx.State, err)
	}
}

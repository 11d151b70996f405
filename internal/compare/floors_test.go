package compare_test

// The floors of the durable writes (writes_test.go): the raw transaction of
// a purchase's rows, and the pairing of each of Rynek's runs with the
// floor's run of the same round, which the ratios are taken against.

import (
	"context"
	"database/sql"
	"errors"
	"slices"
	"testing"

	"github.com/google/uuid"
	"github.com/rynek/rynek/internal/benchdata"
	"github.com/rynek/rynek/market"
	"github.com/rynek/rynek/market/sqlite"
)

// rawPurchase is a purchase's floor: BEGIN IMMEDIATE; the transaction's
// row, the listing's deletion, the buyer's balance and inventory, the
// seller's balance, the three counters (fees, volume, sales) and the six
// log entries of the saga's steps; COMMIT. Those are the rows of the one
// commit of a purchase that meets no failure (market/purchase.go), with the
// sizes of a real purchase on the same market, buying its listings in id
// order and rotating buyers and sellers over its players.
type rawPurchase struct {
	db                                                         *sql.DB
	begin, tx, listing, buyer, seller, counters, event, commit *sql.Stmt
	players                                                    [][]byte
	listings                                                   []int64
	inventory, rec                                             []byte
	kinds                                                      []string
	bodies                                                     [][]byte
	next                                                       int
	nextSeq                                                    int64
}

// newRawPurchase prepares the floor on a copy of the market of n listings.
// The row sizes come from one real purchase on that copy: its transaction
// record, the buyer's inventory after it and its log entries.
func newRawPurchase(tb testing.TB, n int, opts sqlite.Options) *rawPurchase {
	tb.Helper()
	path := benchdata.Path(tb, n, -1)
	svc, st := benchdata.Open(tb, path, opts, benchdata.Unlimited)
	var bought market.Transaction
	var buyer market.Player
	for _, p := range planPurchases(tb, svc, 1) {
		if tx, err := svc.Buy(p.buyer, p.listing); err == nil {
			bought, buyer = tx, p.buyer
			break
		}
	}
	if bought.State != market.StateCompleted {
		tb.Fatal("no purchase to take the rows' sizes from")
	}
	r := &rawPurchase{}
	head := svc.Version()
	if _, err := st.ReadEvents(head-6, 6, func(e market.EventRow) error {
		r.kinds = append(r.kinds, string(e.Kind))
		r.bodies = append(r.bodies, append([]byte(nil), e.Body...))
		return nil
	}); err != nil || len(r.bodies) != 6 || r.kinds[5] != string(market.KindTransactionCompleted) {
		tb.Fatalf("the purchase's log entries: %q, %v", r.kinds, err)
	}
	if err := svc.Close(); err != nil {
		tb.Fatal(err)
	}
	var err error
	if r.db, err = sql.Open("sqlite", sqlite.DSN(path, opts)); err != nil {
		tb.Fatal(err)
	}
	r.db.SetMaxOpenConns(1)
	tb.Cleanup(func() { r.db.Close() })
	checkpointLikeTheStore(tb, path, opts)
	id, err := uuid.Parse(bought.ID)
	if err != nil {
		tb.Fatal(err)
	}
	q := func(query string, args []any, dest ...any) {
		if err := r.db.QueryRow(query, args...).Scan(dest...); err != nil {
			tb.Fatal(err)
		}
	}
	q("SELECT rec FROM transactions WHERE id = ?", []any{id[:]}, &r.rec)
	q("SELECT inventory FROM players WHERE id = ?", []any{buyer.ID[:]}, &r.inventory)
	q("SELECT max(seq) + 1 FROM events", nil, &r.nextSeq)
	for _, c := range []struct {
		query string
		into  func(*sql.Rows) error
	}{{"SELECT id FROM players", func(rows *sql.Rows) error {
		var id []byte
		err := rows.Scan(&id)
		r.players = append(r.players, id)
		return err
	}}, {"SELECT id FROM listings ORDER BY id", func(rows *sql.Rows) error {
		var id int64
		err := rows.Scan(&id)
		r.listings = append(r.listings, id)
		return err
	}}} {
		rows, err := r.db.Query(c.query)
		if err != nil {
			tb.Fatal(err)
		}
		for rows.Next() {
			if err := c.into(rows); err != nil {
				tb.Fatal(err)
			}
		}
		rows.Close()
	}
	ctx := context.Background()
	for _, s := range []struct {
		st **sql.Stmt
		q  string
	}{{&r.begin, "BEGIN IMMEDIATE"},
		{&r.tx, "INSERT INTO transactions (id, state, rec) VALUES (?, 'COMPLETED', ?)"},
		{&r.listing, "DELETE FROM listings WHERE id = ?"},
		{&r.buyer, "UPDATE players SET balance = balance - ?, inventory = ? WHERE id = ?"},
		{&r.seller, "UPDATE players SET balance = balance + ? WHERE id = ?"},
		{&r.counters, `UPDATE meta SET v = v + CASE k WHEN 'fee_balance' THEN ?1 WHEN 'market_volume' THEN ?2 ELSE 1 END
			WHERE k IN ('fee_balance', 'market_volume', 'total_sales')`},
		{&r.event, "INSERT INTO events (seq, kind, at, body, published) VALUES (?, ?, ?, ?, ?)"},
		{&r.commit, "COMMIT"}} {
		if *s.st, err = r.db.PrepareContext(ctx, s.q); err != nil {
			tb.Fatal(err)
		}
	}
	return r
}

func (r *rawPurchase) one() error {
	if r.next == len(r.listings) {
		return errors.New("every listing is bought")
	}
	var err error
	exec := func(st *sql.Stmt, args ...any) {
		if err == nil {
			_, err = st.Exec(args...)
		}
	}
	exec(r.begin)
	if err != nil {
		return err
	}
	id := uuid.Must(uuid.NewV7())
	buyer, seller := r.players[r.next%len(r.players)], r.players[(r.next+1)%len(r.players)]
	exec(r.tx, id[:], r.rec)
	exec(r.listing, r.listings[r.next])
	exec(r.buyer, 100, r.inventory, buyer)
	exec(r.seller, 95, seller)
	exec(r.counters, 5, 100)
	for i, body := range r.bodies {
		exec(r.event, r.nextSeq+int64(i), r.kinds[i], r.nextSeq, body, r.nextSeq-1)
	}
	exec(r.commit)
	if err != nil {
		r.db.Exec("ROLLBACK")
		return err
	}
	r.next++
	r.nextSeq += int64(len(r.bodies))
	return nil
}

// floor remembers a floor's runs by their b.N, so that each of Rynek's
// runs is paired with the floor's run of the same round: with -count, the
// testing package runs a sub-benchmark's rounds one after another, the
// floor's all before Rynek's.
type floor struct {
	runs map[int][]rate
	used map[int]int
	last rate // the newest run, for a run of Rynek's of another size
}

// add records a run of the floor.
func (f *floor) add(b *testing.B, r rate) {
	if f.runs == nil {
		f.runs = map[int][]rate{}
	}
	f.runs[b.N] = append(f.runs[b.N], r)
	f.last = r
}

// pair returns the floor's run of the same round as Rynek's run b (with
// a benchtime in seconds the sizes differ: then the floor's newest run),
// and false when the floor did not run (a -bench pattern that left it out).
func (f *floor) pair(b *testing.B) (rate, bool) {
	runs := f.runs[b.N]
	if len(runs) == 0 {
		return f.last, f.runs != nil
	}
	if f.used == nil {
		f.used = map[int]int{}
	}
	k := min(f.used[b.N], len(runs)-1)
	f.used[b.N]++
	return runs[k], true
}

// reportRatio reports what rynek achieved against the floor's run of the
// same round: name-ratio, its throughput over the floor's (the target),
// and name-cpu-ratio, the floor's CPU time per operation over rynek's,
// which a machine's steal time and other load move far less.
func reportRatio(b *testing.B, name string, rynek rate, f *floor) {
	raw, ok := f.pair(b)
	if !ok {
		return
	}
	b.ReportMetric(rynek.perSecond/raw.perSecond, name+"-ratio")
	b.ReportMetric(raw.cpuPerOp/rynek.cpuPerOp, name+"-cpu-ratio")
}

// TestRawPurchaseWritesAPurchasesRows checks, at small size, that the
// purchase's floor writes what a purchase writes: a completed transaction,
// one listing fewer, the buyer's money to the seller less the fee, which
// the counters add up, and six log entries ending in the completion.
func TestRawPurchaseWritesAPurchasesRows(t *testing.T) {
	r := newRawPurchase(t, 1_000, sqlite.Options{})
	count := func(query string) (n int64) {
		if err := r.db.QueryRow(query).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	const n = 10
	listings, txs, money := count("SELECT count(*) FROM listings"), count("SELECT count(*) FROM transactions WHERE state = 'COMPLETED'"), count("SELECT sum(balance) FROM players")
	fees, sales, firstSeq := count("SELECT v FROM meta WHERE k = 'fee_balance'"), count("SELECT v FROM meta WHERE k = 'total_sales'"), r.nextSeq
	for range n {
		if err := r.one(); err != nil {
			t.Fatal(err)
		}
	}
	if got := count("SELECT count(*) FROM listings"); got != listings-n {
		t.Fatalf("%d listings after %d purchases of %d", got, n, listings)
	}
	if got := count("SELECT count(*) FROM transactions WHERE state = 'COMPLETED'"); got != txs+n {
		t.Fatalf("%d completed transactions after %d purchases, from %d", got, n, txs)
	}
	if got := count("SELECT sum(balance) FROM players"); got != money-n*5 {
		t.Fatalf("the players hold %d after %d purchases, from %d: the fees (5 each) went elsewhere", got, n, money)
	}
	if got := count("SELECT v FROM meta WHERE k = 'fee_balance'"); got != fees+n*5 {
		t.Fatalf("fee balance %d, from %d", got, fees)
	}
	if got := count("SELECT v FROM meta WHERE k = 'total_sales'"); got != sales+n {
		t.Fatalf("total sales %d, from %d", got, sales)
	}
	var entries, completed int64
	if err := r.db.QueryRow("SELECT count(*), count(*) FILTER (WHERE kind = 'TransactionCompletedEvent') FROM events WHERE seq >= ?", firstSeq).Scan(&entries, &completed); err != nil {
		t.Fatal(err)
	}
	if entries != 6*n || completed != n {
		t.Fatalf("%d log entries (%d completions) after %d purchases, want %d (%d)", entries, completed, n, 6*n, n)
	}
}

// TestFloorPairsRounds: with -count the floor's rounds all run before
// Rynek's; each of Rynek's rounds is paired with the floor's round of the
// same place and size, a round past the floor's last with its last, and
// a round of a size the floor never ran with the floor's newest run.
func TestFloorPairsRounds(t *testing.T) {
	var f floor
	sized := func(n int) *testing.B { return &testing.B{N: n} }
	for i, n := range []int{1, 20000, 1, 20000, 1, 20000} {
		f.add(sized(n), rate{perSecond: float64(i)})
	}
	var got []float64
	for _, n := range []int{1, 20000, 1, 20000, 20000, 1, 20000} {
		r, ok := f.pair(sized(n))
		if !ok {
			t.Fatalf("no floor for N=%d", n)
		}
		got = append(got, r.perSecond)
	}
	if want := []float64{0, 1, 2, 3, 5, 4, 5}; !slices.Equal(got, want) {
		t.Fatalf("paired with the floor's runs %v, want %v", got, want)
	}
	if r, ok := f.pair(sized(7)); !ok || r.perSecond != 5 {
		t.Fatalf("a run of another size paired with %v (%t), want the newest floor run", r, ok)
	}
	if _, ok := new(floor).pair(sized(1)); ok {
		t.Fatal("a run paired with a floor that never ran")
	}
}

package sqlite_test

import (
	"bytes"
	"database/sql"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/rynek/rynek/market"
	"github.com/rynek/rynek/market/sqlite"
	_ "modernc.org/sqlite"
)

// openRaw opens path with the plain driver, past the store.
func openRaw(t *testing.T, path string) *sql.DB {
	t.Helper()
	db, err := sql.Open("sqlite", "file:"+path)
	mustOK(t, err)
	return db
}

func TestNewFileIsPrivate(t *testing.T) {
	path := filepath.Join(t.TempDir(), "m.db")
	st, err := sqlite.Open(path, sqlite.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Perm() != 0o600 {
		t.Fatalf("mode %v, want 0600", fi.Mode().Perm())
	}
}

func TestRefusesForeignAndCorruptFiles(t *testing.T) {
	dir := t.TempDir()
	text := filepath.Join(dir, "notes.txt")
	os.WriteFile(text, []byte("hello, this is not a database at all"), 0o644)
	_, err := sqlite.Open(text, sqlite.Options{})
	if !errors.Is(err, sqlite.ErrForeign) || !strings.Contains(err.Error(), "not an SQLite database") {
		t.Fatalf("text file: %v", err)
	}
	if b, _ := os.ReadFile(text); string(b) != "hello, this is not a database at all" {
		t.Fatal("the foreign file was modified")
	}

	// Someone else's SQLite database.
	other := filepath.Join(dir, "other.db")
	db, _ := sql.Open("sqlite", other)
	if _, err := db.Exec("CREATE TABLE customers (id INTEGER)"); err != nil {
		t.Fatal(err)
	}
	db.Close()
	_, err = sqlite.Open(other, sqlite.Options{})
	if !errors.Is(err, sqlite.ErrForeign) {
		t.Fatalf("foreign sqlite: %v", err)
	}

	// A Rynek database whose pages were overwritten with garbage.
	bad := filepath.Join(dir, "bad.db")
	st, err := sqlite.Open(bad, sqlite.Options{})
	if err != nil {
		t.Fatal(err)
	}
	st.Close()
	b, _ := os.ReadFile(bad)
	for i := 100; i < len(b); i++ {
		b[i] = 0xA5
	}
	os.WriteFile(bad, b, 0o600)
	st, err = sqlite.Open(bad, sqlite.Options{})
	if err == nil {
		// Some corruption is only seen on first read.
		svc := market.New(st, market.Config{})
		svc.BindMainThread()
		err = svc.Enable()
		st.Close()
	}
	if err == nil {
		t.Fatal("a corrupt database opened without error")
	}
	if after, _ := os.ReadFile(bad); !bytes.Equal(after[:100], b[:100]) {
		t.Fatal("the corrupt file was rewritten")
	}
}

func TestRefusesNewerSchema(t *testing.T) {
	path := filepath.Join(t.TempDir(), "m.db")
	st, err := sqlite.Open(path, sqlite.Options{})
	if err != nil {
		t.Fatal(err)
	}
	st.Close()
	db, _ := sql.Open("sqlite", path)
	db.Exec("PRAGMA user_version = 99")
	db.Close()
	_, err = sqlite.Open(path, sqlite.Options{})
	if err == nil || !strings.Contains(err.Error(), "schema version 99, newer than this program's 4") {
		t.Fatalf("newer schema: %v", err)
	}
}

func TestSecondOpenerIsRefused(t *testing.T) {
	path := filepath.Join(t.TempDir(), "m.db")
	st, err := sqlite.Open(path, sqlite.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	start := time.Now()
	st2, err := sqlite.Open(path, sqlite.Options{})
	if err == nil {
		st2.Close()
	}
	want := "open " + path + ": another process has this market open; close it first"
	if err == nil || err.Error() != want {
		t.Fatalf("second opener: %v, want %q", err, want)
	}
	if d := time.Since(start); d > time.Second {
		t.Fatalf("the second opener was refused after %v; it should be told at once", d)
	}
	// Once the first closes, the market opens again.
	mustOK(t, st.Close())
	st3, err := sqlite.Open(path, sqlite.Options{})
	mustOK(t, err)
	mustOK(t, st3.Close())
}

func TestCommitIsAtomicAndConditional(t *testing.T) {
	path := filepath.Join(t.TempDir(), "m.db")
	st, err := sqlite.Open(path, sqlite.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	p := uuid.New()
	tx := uuid.New()
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(st.Commit(&market.Batch{Ops: []market.Op{
		{Kind: market.OpAddPlayer, Player: &market.PlayerRow{ID: p, Name: "A", Balance: 100}},
		{Kind: market.OpPutTx, Tx: &market.TxRow{ID: tx, State: market.StateCreated, Rec: []byte{1}}},
	}}))
	// A conditional update that does not match fails the whole batch,
	// including the balance change before it.
	err = st.Commit(&market.Batch{Ops: []market.Op{
		{Kind: market.OpPlayerState, Player: &market.PlayerRow{ID: p, Balance: 5}},
		{Kind: market.OpTxState, Tx: &market.TxRow{ID: tx, State: market.StateCompleted}, ExpectState: market.StateMoneyWithdrawn},
	}})
	if !errors.Is(err, market.ErrConflict) {
		t.Fatalf("conditional update: %v", err)
	}
	var rec recorder
	must(st.Load(&rec))
	if len(rec.players) != 1 || rec.players[0].Balance != 100 {
		t.Fatalf("partial commit: %+v", rec.players)
	}
	if len(rec.txs) != 1 || rec.txs[0].State != market.StateCreated {
		t.Fatalf("tx %+v", rec.txs)
	}
	// Updating a player that does not exist is an error too.
	err = st.Commit(&market.Batch{Ops: []market.Op{{Kind: market.OpPlayerState, Player: &market.PlayerRow{ID: uuid.New()}}}})
	if !errors.Is(err, market.ErrConflict) {
		t.Fatalf("missing player: %v", err)
	}
}

type recorder struct {
	players []market.PlayerRow
	txs     []market.TxRow
}

func (r *recorder) Meta(market.MetaRow) error        { return nil }
func (r *recorder) Player(p market.PlayerRow) error  { r.players = append(r.players, p); return nil }
func (r *recorder) Mail(market.MailRow) error        { return nil }
func (r *recorder) Listing(market.ListingRow) error  { return nil }
func (r *recorder) Transaction(t market.TxRow) error { r.txs = append(r.txs, t); return nil }

func TestCheckpointsKeepTheWALBounded(t *testing.T) {
	defer sqlite.SetCheckpoints(20*time.Millisecond, 1<<20)()
	path := filepath.Join(t.TempDir(), "m.db")
	st, err := sqlite.Open(path, sqlite.Options{})
	mustOK(t, err)
	defer st.Close()
	p := uuid.New()
	mustOK(t, st.Commit(&market.Batch{Ops: []market.Op{{Kind: market.OpAddPlayer, Player: &market.PlayerRow{ID: p, Name: "A"}}}}))
	inventory := make([]byte, 900)
	walSize := func() int64 {
		fi, err := os.Stat(path + "-wal")
		if err != nil {
			return 0
		}
		return fi.Size()
	}
	// A steady stream of commits until the WAL has started over twice (or,
	// failing, for ten seconds: a slow machine under the race detector may
	// need several): a passive checkpoint alone never lets the WAL start
	// over, so it would only grow.
	restarts, last := 0, int64(0)
	had := []byte{} // the player's inventory as stored
	for start, i := time.Now(), 1; restarts < 2 && time.Since(start) < 10*time.Second; i++ {
		mustOK(t, st.Commit(&market.Batch{
			Ops: []market.Op{
				{Kind: market.OpPlayerState, Delta: 1, Player: &market.PlayerRow{ID: p, Inventory: inventory}, Expect: had},
				{Kind: market.OpAddListing, Listing: &market.ListingRow{ID: int64(i), Rec: inventory[:80]}},
			},
			Events: []market.EventRow{{Kind: market.KindListingCreated, At: int64(i), Body: inventory[:120]}},
		}))
		had = inventory
		if size := walSize(); size < last {
			restarts++
			last = size
		} else {
			last = size
		}
	}
	if restarts < 2 {
		t.Fatalf("the WAL started over %d times under a steady stream of commits", restarts)
	}
}

package sqlite_test

import (
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/rynek/rynek/market"
	"github.com/rynek/rynek/market/sqlite"
)

// logFixture is a store with one player whose tables were held while 50
// commits went to the change log, and a copy of its files taken at that
// moment: what a crash would leave.
type logFixture struct {
	crashed string // the copied database; its log holds the 50 commits
	player  uuid.UUID
	tx      uuid.UUID
}

func newLogFixture(t *testing.T) logFixture {
	t.Helper()
	dir := t.TempDir()
	path := filepath.Join(dir, "m.db")
	st, err := sqlite.Open(path, sqlite.Options{})
	mustOK(t, err)
	f := logFixture{crashed: filepath.Join(dir, "crashed.db"), player: uuid.New(), tx: uuid.New()}
	mustOK(t, st.Commit(&market.Batch{Ops: []market.Op{
		{Kind: market.OpPutPlayer, Player: &market.PlayerRow{ID: f.player, Name: "Ala", Balance: 1000}},
		{Kind: market.OpPutTx, Tx: &market.TxRow{ID: f.tx, State: market.StateCreated, Rec: []byte{1}}},
	}}))
	mustOK(t, st.Flush())
	release := st.HoldTables()
	for i := 1; i <= 50; i++ {
		mustOK(t, st.Commit(&market.Batch{Ops: []market.Op{
			{Kind: market.OpPlayerState, Player: &market.PlayerRow{ID: f.player, Balance: market.Money(1000 - i), Inventory: []byte{byte(i)}}},
			{Kind: market.OpPutListing, Listing: &market.ListingRow{ID: int64(i), Rec: []byte("rec")}},
		}}))
	}
	mustOK(t, st.Commit(&market.Batch{Ops: []market.Op{
		{Kind: market.OpTxState, Tx: &market.TxRow{ID: f.tx, State: market.StateListingReserved, Rec: []byte{2}}, ExpectState: market.StateCreated},
	}}))
	for _, suffix := range []string{"", "-wal", "-rlog"} {
		copyIfExists(t, path+suffix, f.crashed+suffix)
	}
	release()
	mustOK(t, st.Close())
	if _, err := os.Stat(sqlite.LogPath(path)); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("a cleanly closed store left its change log behind: %v", err)
	}
	return f
}

func copyIfExists(t *testing.T, src, dst string) {
	t.Helper()
	in, err := os.Open(src)
	if errors.Is(err, os.ErrNotExist) {
		return
	}
	mustOK(t, err)
	defer in.Close()
	out, err := os.OpenFile(dst, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o600)
	mustOK(t, err)
	_, err = io.Copy(out, in)
	mustOK(t, err)
	mustOK(t, out.Close())
}

func mustOK(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

type fullRecorder struct {
	recorder
	listings []int64
}

func (r *fullRecorder) Listing(l market.ListingRow) error {
	r.listings = append(r.listings, l.ID)
	return nil
}

// loadAll opens path and returns what it holds.
func loadAll(t *testing.T, path string) *fullRecorder {
	t.Helper()
	st, err := sqlite.Open(path, sqlite.Options{})
	mustOK(t, err)
	defer st.Close()
	if n := st.LogSize(); n != 32 {
		t.Fatalf("after Open the change log is %d bytes, want only its 32-byte header", n)
	}
	var r fullRecorder
	mustOK(t, st.Load(&r))
	return &r
}

func TestChangeLogReplaysWhatTheTablesMissed(t *testing.T) {
	f := newLogFixture(t)
	r := loadAll(t, f.crashed)
	if len(r.listings) != 50 || r.listings[49] != 50 {
		t.Fatalf("listings after replay: %v", r.listings)
	}
	if len(r.players) != 1 || r.players[0].Balance != 950 || !bytes.Equal(r.players[0].Inventory, []byte{50}) {
		t.Fatalf("player after replay: %+v", r.players)
	}
	if len(r.txs) != 1 || r.txs[0].State != market.StateListingReserved {
		t.Fatalf("transaction after replay: %+v", r.txs)
	}
	// Replayed once: opening again changes nothing.
	if r2 := loadAll(t, f.crashed); len(r2.listings) != 50 || r2.players[0].Balance != 950 {
		t.Fatalf("second open: %d listings, balance %d", len(r2.listings), r2.players[0].Balance)
	}
}

func TestChangeLogDropsATornTail(t *testing.T) {
	t.Run("cut short", func(t *testing.T) {
		f := newLogFixture(t)
		log := sqlite.LogPath(f.crashed)
		b, err := os.ReadFile(log)
		mustOK(t, err)
		// The last record (the transaction's step) loses its final bytes,
		// as if the process died inside the write.
		mustOK(t, os.WriteFile(log, b[:len(b)-3], 0o600))
		r := loadAll(t, f.crashed)
		if len(r.listings) != 50 || r.txs[0].State != market.StateCreated {
			t.Fatalf("%d listings, tx %s: want 50 and the torn step dropped", len(r.listings), r.txs[0].State)
		}
	})
	t.Run("checksum", func(t *testing.T) {
		f := newLogFixture(t)
		log := sqlite.LogPath(f.crashed)
		b, err := os.ReadFile(log)
		mustOK(t, err)
		b[len(b)-1] ^= 0xFF
		mustOK(t, os.WriteFile(log, b, 0o600))
		r := loadAll(t, f.crashed)
		if len(r.listings) != 50 || r.txs[0].State != market.StateCreated {
			t.Fatalf("%d listings, tx %s: want 50 and the damaged step dropped", len(r.listings), r.txs[0].State)
		}
	})
}

func TestChangeLogOfAnotherDatabaseIsRefused(t *testing.T) {
	a := newLogFixture(t)
	b := newLogFixture(t)
	log, err := os.ReadFile(sqlite.LogPath(a.crashed))
	mustOK(t, err)
	mustOK(t, os.WriteFile(sqlite.LogPath(b.crashed), log, 0o600))
	_, err = sqlite.Open(b.crashed, sqlite.Options{})
	if err == nil || !strings.Contains(err.Error(), "belongs to another database") {
		t.Fatalf("foreign log: %v", err)
	}
	if after, _ := os.ReadFile(sqlite.LogPath(b.crashed)); !bytes.Equal(after, log) {
		t.Fatal("the foreign log was modified")
	}
	// Not a log at all.
	mustOK(t, os.WriteFile(sqlite.LogPath(b.crashed), []byte("some notes"), 0o600))
	if _, err := sqlite.Open(b.crashed, sqlite.Options{}); err == nil || !strings.Contains(err.Error(), "not a Rynek change log") {
		t.Fatalf("not a log: %v", err)
	}
}

func TestChangeLogWithAGapIsRefused(t *testing.T) {
	f := newLogFixture(t)
	log := sqlite.LogPath(f.crashed)
	b, err := os.ReadFile(log)
	mustOK(t, err)
	// Drop the second record (the first is the player, already in the
	// tables): the tables lack it and the log no longer has it.
	size := func(off int) int {
		return 16 + (int(b[off]) | int(b[off+1])<<8 | int(b[off+2])<<16 | int(b[off+3])<<24)
	}
	second := 32 + size(32)
	gap := append(append([]byte{}, b[:second]...), b[second+size(second):]...)
	mustOK(t, os.WriteFile(log, gap, 0o600))
	_, err = sqlite.Open(f.crashed, sqlite.Options{})
	if err == nil || !strings.Contains(err.Error(), "lacks records") {
		t.Fatalf("gap: %v", err)
	}
	if after, _ := os.ReadFile(log); !bytes.Equal(after, gap) {
		t.Fatal("the log was modified")
	}
}

func TestChangeLogIsEmptiedPastItsLimit(t *testing.T) {
	defer sqlite.SetLogLimits(4096, 32)()
	path := filepath.Join(t.TempDir(), "m.db")
	st, err := sqlite.Open(path, sqlite.Options{})
	mustOK(t, err)
	p := uuid.New()
	mustOK(t, st.Commit(&market.Batch{Ops: []market.Op{{Kind: market.OpPutPlayer, Player: &market.PlayerRow{ID: p, Name: "Ala"}}}}))
	var most int64
	for i := 1; i <= 3000; i++ {
		mustOK(t, st.Commit(&market.Batch{Ops: []market.Op{
			{Kind: market.OpPlayerState, Player: &market.PlayerRow{ID: p, Balance: market.Money(i)}},
			{Kind: market.OpPutListing, Listing: &market.ListingRow{ID: int64(i), Rec: bytes.Repeat([]byte{7}, 64)}},
		}}))
		most = max(most, st.LogSize())
	}
	mustOK(t, st.Flush())
	// 3,000 records of ~110 bytes are 330 kB. Emptied past 4 kB, with at
	// most 32 records waiting, the log holds at most 4 kB and two rounds.
	if most > 4096+2*32*128 {
		t.Fatalf("the log grew to %d bytes with a 4096-byte limit", most)
	}
	mustOK(t, st.Close())
	r := loadAll(t, path)
	if len(r.listings) != 3000 || r.players[0].Balance != 3000 {
		t.Fatalf("%d listings, balance %d", len(r.listings), r.players[0].Balance)
	}
}

func TestCommitsAfterCloseAreRefused(t *testing.T) {
	st, err := sqlite.Open(filepath.Join(t.TempDir(), "m.db"), sqlite.Options{})
	mustOK(t, err)
	mustOK(t, st.Close())
	mustOK(t, st.Close()) // twice is harmless
	err = st.Commit(&market.Batch{Ops: []market.Op{{Kind: market.OpMeta}}})
	if err == nil || !strings.Contains(err.Error(), "closed") {
		t.Fatalf("commit after close: %v", err)
	}
}

// FuzzChangeLogRecord: any bytes decode to an error or a batch, never a
// panic, and a batch that decodes re-encodes to the same bytes.
func FuzzChangeLogRecord(f *testing.F) {
	b := &market.Batch{Ops: []market.Op{
		{Kind: market.OpPutPlayer, Player: &market.PlayerRow{ID: uuid.New(), Name: "Ala", Perms: "admin", Balance: -5, LastSell: 9, Inventory: []byte{1, 2}}},
		{Kind: market.OpPlayerState, Player: &market.PlayerRow{ID: uuid.New(), Balance: 7}},
		{Kind: market.OpPutMail, Mail: &market.MailRow{ID: uuid.New(), Player: uuid.New(), Item: []byte{3}, Reason: "EXPIRED", Created: 1, PrevPrice: 2}},
		{Kind: market.OpDelMail, Mail: &market.MailRow{ID: uuid.New()}},
		{Kind: market.OpPutListing, Listing: &market.ListingRow{ID: 42, Rec: []byte("x")}},
		{Kind: market.OpDelListing, Int: 42},
		{Kind: market.OpPutTx, Tx: &market.TxRow{ID: uuid.New(), State: market.StateCreated, Rec: []byte("t")}},
		{Kind: market.OpTxState, Tx: &market.TxRow{ID: uuid.New(), State: market.StateCompleted}, ExpectState: market.StateItemDelivered},
		{Kind: market.OpMeta, Meta: market.MetaRow{NextListingID: 5, FeeBalance: 6, Volume: 7, Sales: 8}},
	}}
	f.Add(sqlite.EncodeBatch(nil, b))
	f.Add([]byte{})
	f.Add([]byte{1, 99})
	f.Fuzz(func(t *testing.T, p []byte) {
		var got market.Batch
		if err := sqlite.DecodeBatch(p, &got); err != nil {
			return
		}
		if again := sqlite.EncodeBatch(nil, &got); !bytes.Equal(again, p) {
			// Varints have one canonical form each; a non-canonical input
			// may decode, but then it must decode to the same batch again.
			var twice market.Batch
			if err := sqlite.DecodeBatch(again, &twice); err != nil || len(twice.Ops) != len(got.Ops) {
				t.Fatalf("re-encoded batch does not decode: %v", err)
			}
		}
	})
}

func TestDuplicateTransactionIsRefused(t *testing.T) {
	path := filepath.Join(t.TempDir(), "m.db")
	st, err := sqlite.Open(path, sqlite.Options{})
	mustOK(t, err)
	id := uuid.New()
	put := &market.Batch{Ops: []market.Op{{Kind: market.OpPutTx, Tx: &market.TxRow{ID: id, State: market.StateFailed, Rec: []byte{1}}}}}
	mustOK(t, st.Commit(put))
	// Still in a record the tables have not taken, then in the table.
	release := st.HoldTables()
	if err := st.Commit(put); err == nil || !strings.Contains(err.Error(), "already exists") {
		t.Fatalf("duplicate while pending: %v", err)
	}
	release()
	mustOK(t, st.Flush())
	if err := st.Commit(put); err == nil || !strings.Contains(err.Error(), "already exists") {
		t.Fatalf("duplicate of a finished transaction in the table: %v", err)
	}
	// Ids are time-ordered; one above every id is new without a lookup, and
	// an old one below it is still found in the table.
	higher := id
	higher[0]++
	if higher[0] == 0 {
		t.Skip("id at the top of the range")
	}
	mustOK(t, st.Commit(&market.Batch{Ops: []market.Op{{Kind: market.OpPutTx, Tx: &market.TxRow{ID: higher, State: market.StateCompleted, Rec: []byte{1}}}}}))
	mustOK(t, st.Flush())
	if err := st.Commit(put); err == nil || !strings.Contains(err.Error(), "already exists") {
		t.Fatalf("duplicate of an older transaction: %v", err)
	}
	mustOK(t, st.Close())
	st, err = sqlite.Open(path, sqlite.Options{})
	mustOK(t, err)
	mustOK(t, st.Close())
}

func TestZeroFilledLogOpens(t *testing.T) {
	// A power cut can leave a new log's size without its data.
	path := filepath.Join(t.TempDir(), "m.db")
	st, err := sqlite.Open(path, sqlite.Options{})
	mustOK(t, err)
	mustOK(t, st.Close())
	mustOK(t, os.WriteFile(sqlite.LogPath(path), make([]byte, 32), 0o600))
	st, err = sqlite.Open(path, sqlite.Options{})
	mustOK(t, err)
	mustOK(t, st.Close())
}

func TestTablesThatFailAreRetriedAndNothingIsLost(t *testing.T) {
	path := filepath.Join(t.TempDir(), "m.db")
	st, err := sqlite.Open(path, sqlite.Options{})
	mustOK(t, err)
	p := uuid.New()
	mustOK(t, st.Commit(&market.Batch{Ops: []market.Op{{Kind: market.OpPutPlayer, Player: &market.PlayerRow{ID: p, Name: "Ala"}}}}))
	mustOK(t, st.Flush())
	defer st.FailTables(3, 20*time.Millisecond)()
	listing := func(id int64) *market.Batch {
		return &market.Batch{Ops: []market.Op{{Kind: market.OpPutListing, Listing: &market.ListingRow{ID: id, Rec: []byte("r")}}}}
	}
	mustOK(t, st.Commit(listing(1))) // in the log; the tables refuse it
	err = st.Flush()
	if err == nil || !strings.Contains(err.Error(), "cannot be written") || !strings.Contains(err.Error(), "nothing committed is lost") {
		t.Fatalf("flush while the tables fail: %v", err)
	}
	if err := st.Commit(listing(2)); err == nil || !strings.Contains(err.Error(), "injected: disk full") {
		t.Fatalf("commit while the tables fail: %v", err)
	}
	// The materializer retries; once the tables accept, commits work again.
	deadline := time.Now().Add(5 * time.Second)
	for st.Commit(listing(2)) != nil {
		if time.Now().After(deadline) {
			t.Fatal("the store did not recover after the tables accepted writes again")
		}
		time.Sleep(10 * time.Millisecond)
	}
	mustOK(t, st.Close())
	r := loadAll(t, path)
	if len(r.listings) != 2 || r.listings[0] != 1 || r.listings[1] != 2 {
		t.Fatalf("listings %v, want [1 2]", r.listings)
	}
}

func TestDuplicateOfABulkLoadedTransactionIsRefused(t *testing.T) {
	st, err := sqlite.Open(filepath.Join(t.TempDir(), "m.db"), sqlite.Options{})
	mustOK(t, err)
	defer st.Close()
	low, high := uuid.New(), uuid.New()
	low[0], high[0] = 0x01, 0xF0
	put := func(id uuid.UUID) *market.Batch {
		return &market.Batch{Ops: []market.Op{{Kind: market.OpPutTx, Tx: &market.TxRow{ID: id, State: market.StateCompleted, Rec: []byte{1}}}}}
	}
	mustOK(t, st.Commit(put(low)))
	// Seeding writes the tables directly; the id it wrote is above every id
	// the log has seen, and must not pass as new.
	mustOK(t, st.BulkLoad(put(high)))
	if err := st.Commit(put(high)); err == nil || !strings.Contains(err.Error(), "already exists") {
		t.Fatalf("duplicate of a bulk-loaded transaction: %v", err)
	}
}

func TestDuplicateWithinOneBatchIsRefused(t *testing.T) {
	path := filepath.Join(t.TempDir(), "m.db")
	st, err := sqlite.Open(path, sqlite.Options{})
	mustOK(t, err)
	id := uuid.New()
	done := market.Op{Kind: market.OpPutTx, Tx: &market.TxRow{ID: id, State: market.StateCompleted, Rec: []byte{1}}}
	open := market.Op{Kind: market.OpPutTx, Tx: &market.TxRow{ID: id, State: market.StateCreated, Rec: []byte{1}}}
	step := market.Op{Kind: market.OpTxState, Tx: &market.TxRow{ID: id, State: market.StateCompleted}, ExpectState: market.StateCreated}
	for _, ops := range [][]market.Op{{done, done}, {open, step, done}} {
		if err := st.Commit(&market.Batch{Ops: ops}); err == nil || !strings.Contains(err.Error(), "already exists") {
			t.Fatalf("%d ops: %v", len(ops), err)
		}
	}
	mustOK(t, st.Close())
	st, err = sqlite.Open(path, sqlite.Options{})
	mustOK(t, err)
	mustOK(t, st.Close())
}

func TestHistoryLoadsWhileTablesFail(t *testing.T) {
	st, err := sqlite.Open(filepath.Join(t.TempDir(), "m.db"), sqlite.Options{})
	mustOK(t, err)
	restore := st.FailTables(1, 200*time.Millisecond)
	defer func() { st.Close(); restore() }() // the materializer reads the delay until Close
	mustOK(t, st.Commit(&market.Batch{Ops: []market.Op{{Kind: market.OpPutListing, Listing: &market.ListingRow{ID: 1, Rec: []byte("r")}}}}))
	time.Sleep(20 * time.Millisecond)
	if _, err := st.LoadHistory([16]byte{}, 10, func(market.TxRow) error { return nil }); err != nil {
		t.Fatalf("LoadHistory while the tables fail: %v", err)
	}
}

func TestFlushAfterAFailedCloseSaysWhereTheChangesAre(t *testing.T) {
	path := filepath.Join(t.TempDir(), "m.db")
	st, err := sqlite.Open(path, sqlite.Options{})
	mustOK(t, err)
	defer st.FailTables(2, time.Hour)()
	mustOK(t, st.Commit(&market.Batch{Ops: []market.Op{{Kind: market.OpPutListing, Listing: &market.ListingRow{ID: 1, Rec: []byte("r")}}}}))
	time.Sleep(20 * time.Millisecond)
	if err := st.Close(); err == nil || !strings.Contains(err.Error(), "replayed on the next start") {
		t.Fatalf("Close while the tables fail: %v", err)
	}
	if err := st.Flush(); err == nil || !strings.Contains(err.Error(), "closed; 1 committed change is kept") {
		t.Fatalf("Flush after the failed Close: %v", err)
	}
	if _, err := st.Empty(); err == nil || !strings.Contains(err.Error(), "closed") {
		t.Fatalf("Empty after Close: %v", err)
	}
	// The change is replayed on the next start.
	r := loadAll(t, path)
	if len(r.listings) != 1 {
		t.Fatalf("listings after replay: %v", r.listings)
	}
}

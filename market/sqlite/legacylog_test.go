package sqlite_test

import (
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/uuid"
	"github.com/rynek/rynek/market"
	"github.com/rynek/rynek/market/sqlite"
)

// The upgrade from schema version 1: a market whose process was killed may
// hold commits in its change log (<db>-rlog) that its tables lack. Open
// replays them once and removes the log.

const legacyLogID = 0x1234567

// legacyFixture is a version 1 database whose tables hold a player and an
// unfinished purchase (change log records 1 and 2 were applied) and whose
// change log holds records 1..52: fifty sells and a saga step the tables
// missed.
type legacyFixture struct {
	path    string
	player  uuid.UUID
	tx      uuid.UUID
	records []sqlite.LegacyRecord
}

func newLegacyFixture(t *testing.T) legacyFixture {
	t.Helper()
	f := legacyFixture{path: filepath.Join(t.TempDir(), "m.db"), player: uuid.New(), tx: uuid.New()}
	mustOK(t, sqlite.CreateVersion1(f.path, legacyLogID, 2))
	first := market.Batch{Ops: []market.Op{
		{Kind: sqlite.LegacyAddPlayer, Player: &market.PlayerRow{ID: f.player, Name: "Ala", Balance: 1000}},
		{Kind: sqlite.LegacyPutTx, Tx: &market.TxRow{ID: f.tx, State: market.StateCreated, Rec: []byte{1}}},
	}}
	// The tables already hold what records 1 and 2 wrote.
	f.records = append(f.records, sqlite.LegacyRecord{Seq: 1, Batch: first},
		sqlite.LegacyRecord{Seq: 2, Batch: market.Batch{Ops: []market.Op{{Kind: sqlite.LegacyMeta, Meta: market.MetaRow{NextListingID: 1}}}}})
	applyV1(t, f.path, first)
	for i := 1; i <= 50; i++ {
		f.records = append(f.records, sqlite.LegacyRecord{Seq: uint64(2 + i), Batch: market.Batch{Ops: []market.Op{
			{Kind: sqlite.LegacyPlayerState, Player: &market.PlayerRow{ID: f.player, Balance: market.Money(1000 - i), Inventory: []byte{byte(i)}}},
			{Kind: sqlite.LegacyPutListing, Listing: &market.ListingRow{ID: int64(i), Rec: []byte("rec")}},
		}}})
	}
	f.records = append(f.records, sqlite.LegacyRecord{Seq: 53, Batch: market.Batch{Ops: []market.Op{
		{Kind: sqlite.LegacyTxState, Tx: &market.TxRow{ID: f.tx, State: market.StateListingReserved, Rec: []byte{2}}, ExpectState: market.StateCreated},
	}}})
	mustOK(t, sqlite.WriteLegacyLog(f.path, legacyLogID, f.records))
	return f
}

// applyV1 writes b into the version 1 database at path with plain SQL, as
// its materializer did.
func applyV1(t *testing.T, path string, b market.Batch) {
	t.Helper()
	db := openRaw(t, path)
	defer db.Close()
	for _, op := range b.Ops {
		var err error
		switch op.Kind {
		case sqlite.LegacyAddPlayer:
			p := op.Player
			_, err = db.Exec("INSERT INTO players (id, name, perms, balance, last_sell, inventory) VALUES (?, ?, ?, ?, ?, ?)",
				p.ID[:], p.Name, p.Perms, int64(p.Balance), p.LastSell, []byte{})
		case sqlite.LegacyPutTx:
			_, err = db.Exec("INSERT INTO transactions (id, state, rec) VALUES (?, ?, ?)", op.Tx.ID[:], string(op.Tx.State), op.Tx.Rec)
		default:
			t.Fatalf("applyV1: op %d", op.Kind)
		}
		mustOK(t, err)
	}
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
	var r fullRecorder
	mustOK(t, st.Load(&r))
	return &r
}

func TestUpgradeReplaysTheOldChangeLogOnce(t *testing.T) {
	f := newLegacyFixture(t)
	r := loadAll(t, f.path)
	if len(r.listings) != 50 || r.listings[49] != 50 {
		t.Fatalf("listings after replay: %v", r.listings)
	}
	if len(r.players) != 1 || r.players[0].Balance != 950 || r.players[0].Booked != 950 || !bytes.Equal(r.players[0].Inventory, []byte{50}) {
		t.Fatalf("player after replay: %+v", r.players)
	}
	if len(r.txs) != 1 || r.txs[0].State != market.StateListingReserved {
		t.Fatalf("transaction after replay: %+v", r.txs)
	}
	if _, err := os.Stat(sqlite.LegacyLogPath(f.path)); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("the replayed change log is still there: %v", err)
	}
	var ver int
	db := openRaw(t, f.path)
	mustOK(t, db.QueryRow("PRAGMA user_version").Scan(&ver))
	db.Close()
	if ver != sqlite.SchemaVersion {
		t.Fatalf("schema version %d after the upgrade, want %d", ver, sqlite.SchemaVersion)
	}
	// Replayed once: opening again changes nothing.
	if r2 := loadAll(t, f.path); len(r2.listings) != 50 || r2.players[0].Balance != 950 {
		t.Fatalf("second open: %d listings, balance %d", len(r2.listings), r2.players[0].Balance)
	}
}

func TestUpgradeAfterACrashBeforeTheLogWasRemoved(t *testing.T) {
	f := newLegacyFixture(t)
	saved := filepath.Join(t.TempDir(), "rlog")
	copyIfExists(t, sqlite.LegacyLogPath(f.path), saved)
	loadAll(t, f.path)
	// The replay committed, then the process died before removing the log.
	copyIfExists(t, saved, sqlite.LegacyLogPath(f.path))
	if r := loadAll(t, f.path); len(r.listings) != 50 || r.players[0].Balance != 950 {
		t.Fatalf("replayed twice: %d listings, balance %d", len(r.listings), r.players[0].Balance)
	}
}

func TestUpgradeDropsATornTail(t *testing.T) {
	t.Run("cut short", func(t *testing.T) {
		f := newLegacyFixture(t)
		lp := sqlite.LegacyLogPath(f.path)
		b, err := os.ReadFile(lp)
		mustOK(t, err)
		mustOK(t, os.WriteFile(lp, b[:len(b)-3], 0o600)) // the last record cut inside
		r := loadAll(t, f.path)
		if len(r.listings) != 50 || r.txs[0].State != market.StateCreated {
			t.Fatalf("%d listings, tx %s: want the 50 sells and not the torn saga step", len(r.listings), r.txs[0].State)
		}
	})
	t.Run("bad checksum", func(t *testing.T) {
		f := newLegacyFixture(t)
		lp := sqlite.LegacyLogPath(f.path)
		b, err := os.ReadFile(lp)
		mustOK(t, err)
		b[len(b)-1] ^= 0xFF
		mustOK(t, os.WriteFile(lp, b, 0o600))
		if r := loadAll(t, f.path); r.txs[0].State != market.StateCreated {
			t.Fatalf("a record with a bad checksum was replayed: %s", r.txs[0].State)
		}
	})
}

func TestUpgradeRefusesAnotherDatabasesLogUntouched(t *testing.T) {
	f := newLegacyFixture(t)
	mustOK(t, sqlite.WriteLegacyLog(f.path, legacyLogID+1, f.records))
	before, _ := os.ReadFile(sqlite.LegacyLogPath(f.path))
	_, err := sqlite.Open(f.path, sqlite.Options{})
	if err == nil || !strings.Contains(err.Error(), "belongs to another database") {
		t.Fatalf("another database's log: %v", err)
	}
	if after, _ := os.ReadFile(sqlite.LegacyLogPath(f.path)); !bytes.Equal(after, before) {
		t.Fatal("the refused log was modified")
	}
}

func TestUpgradeRefusesALogWithAGap(t *testing.T) {
	f := newLegacyFixture(t)
	gap := append(append([]sqlite.LegacyRecord{}, f.records[:10]...), f.records[11:]...)
	mustOK(t, sqlite.WriteLegacyLog(f.path, legacyLogID, gap))
	_, err := sqlite.Open(f.path, sqlite.Options{})
	if err == nil || !strings.Contains(err.Error(), "lacks records 11 to 11") {
		t.Fatalf("a log with a gap: %v", err)
	}
	if _, err := os.Stat(sqlite.LegacyLogPath(f.path)); err != nil {
		t.Fatalf("the refused log was removed: %v", err)
	}
}

func TestUpgradeOfAZeroFilledLog(t *testing.T) {
	f := newLegacyFixture(t)
	// Created just before a power cut took its header: it holds no record.
	mustOK(t, os.WriteFile(sqlite.LegacyLogPath(f.path), make([]byte, 4096), 0o600))
	if r := loadAll(t, f.path); len(r.listings) != 0 || len(r.players) != 1 {
		t.Fatalf("%d listings, %d players", len(r.listings), len(r.players))
	}
	if _, err := os.Stat(sqlite.LegacyLogPath(f.path)); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("the empty log is still there: %v", err)
	}
}

func TestAStrayChangeLogIsRefused(t *testing.T) {
	path := filepath.Join(t.TempDir(), "m.db")
	st, err := sqlite.Open(path, sqlite.Options{})
	mustOK(t, err)
	mustOK(t, st.Close())
	mustOK(t, sqlite.WriteLegacyLog(path, legacyLogID, nil))
	if _, err := sqlite.Open(path, sqlite.Options{}); err == nil || !strings.Contains(err.Error(), "never had a change log; move it aside") {
		t.Fatalf("a change log next to a market that never had one: %v", err)
	}
}

func FuzzLegacyLogRecord(f *testing.F) {
	b := &market.Batch{Ops: []market.Op{
		{Kind: sqlite.LegacyAddPlayer, Player: &market.PlayerRow{ID: uuid.New(), Name: "Ala", Perms: "admin", Balance: -5, LastSell: 9, Inventory: []byte{1, 2}}},
		{Kind: sqlite.LegacyPlayerState, Player: &market.PlayerRow{ID: uuid.New(), Balance: 7}},
		{Kind: sqlite.LegacyPutMail, Mail: &market.MailRow{ID: uuid.New(), Player: uuid.New(), Item: []byte{3}, Reason: "EXPIRED", Created: 1, PrevPrice: 2}},
		{Kind: sqlite.LegacyDelMail, Mail: &market.MailRow{ID: uuid.New()}},
		{Kind: sqlite.LegacyPutListing, Listing: &market.ListingRow{ID: 42, Rec: []byte("x")}},
		{Kind: sqlite.LegacyDelListing, Int: 42},
		{Kind: sqlite.LegacyPutTx, Tx: &market.TxRow{ID: uuid.New(), State: market.StateCreated, Rec: []byte("t")}},
		{Kind: sqlite.LegacyTxState, Tx: &market.TxRow{ID: uuid.New(), State: market.StateCompleted}, ExpectState: market.StateItemDelivered},
		{Kind: sqlite.LegacyMeta, Meta: market.MetaRow{NextListingID: 5, FeeBalance: 6, Volume: 7, Sales: 8}},
	}}
	f.Add(sqlite.EncodeLegacyBatch(b))
	f.Add([]byte{})
	f.Add([]byte{1, 99})
	f.Fuzz(func(t *testing.T, p []byte) {
		var got market.Batch
		if err := sqlite.DecodeLegacyBatch(p, &got); err != nil {
			return
		}
		// Varints have one canonical form each; a non-canonical input may
		// decode, but then it must decode to the same batch again.
		again := sqlite.EncodeLegacyBatch(&got)
		var twice market.Batch
		if err := sqlite.DecodeLegacyBatch(again, &twice); err != nil || len(twice.Ops) != len(got.Ops) {
			t.Fatalf("re-encoded batch does not decode: %v", err)
		}
		if !bytes.Equal(sqlite.EncodeLegacyBatch(&twice), again) {
			t.Fatal("the re-encoded batch does not encode the same again")
		}
	})
}

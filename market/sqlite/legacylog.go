package sqlite

// Upgrading from the change log of schema version 1.
//
// Version 1 wrote each commit to a change log file next to the database
// (<db>-rlog) and a goroutine copied the records into the tables later. A
// market closed cleanly had no log left; a market whose process was killed
// may still hold records the tables lack. Open replays those once, in one
// transaction with the mark of the last one applied, then removes the file:
// nobody loses a change on upgrade. The format is read here and nowhere
// written any more.

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"os"

	"github.com/google/uuid"
	"github.com/rynek/rynek/market"
)

const (
	legacyLogMagic      = "RYNKLOG1"
	legacyLogHeaderSize = 32 // magic (8), log id (8), reserved (16)
	legacyRecHeaderSize = 16 // payload length (4), CRC-32C of seq+payload (4), seq (8)
	legacyMaxRecord     = 1 << 30
)

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// legacyLogPath is the change log of version 1 next to the database at path.
func legacyLogPath(path string) string { return path + "-rlog" }

// The op kinds of a version 1 record. Those days' ops wrote whole rows (the
// process was the market's only writer); applyLegacy replays them as such.
const (
	legacyAddPlayer market.OpKind = iota + 1
	legacyPlayerState
	legacyPutMail
	legacyDelMail
	legacyPutListing
	legacyDelListing
	legacyPutTx
	legacyTxState
	legacyMeta
)

// legacyEntry is one record of a version 1 change log.
type legacyEntry struct {
	seq     uint64
	payload []byte
}

// replayLegacyLog applies what a version 1 change log holds beyond the
// tables, then removes it. Without a log it does nothing.
func (s *Store) replayLegacyLog() error {
	logPath := legacyLogPath(s.path)
	data, err := os.ReadFile(logPath)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("read the old change log: %w", err)
	}
	var id, applied int64
	if err := s.conn.QueryRowContext(s.ctx, "SELECT v FROM meta WHERE k = 'log_id'").Scan(&id); err != nil {
		return fmt.Errorf("%s exists but the database never had a change log; move it aside", logPath)
	}
	if err := s.conn.QueryRowContext(s.ctx, "SELECT v FROM meta WHERE k = 'log_applied'").Scan(&applied); err != nil {
		return fmt.Errorf("read log_applied: %w", describe(err))
	}
	if !allZero(data) {
		if len(data) < legacyLogHeaderSize || string(data[:8]) != legacyLogMagic {
			return fmt.Errorf("%s is not a Rynek change log; move it aside to open the database without it", logPath)
		}
		if got := binary.LittleEndian.Uint64(data[8:16]); got != uint64(id) {
			return fmt.Errorf("the change log %s belongs to another database (log id %#x, the database's is %#x); move it aside", logPath, got, id)
		}
		var replay []legacyEntry
		last := uint64(applied)
		for _, e := range scanLegacyLog(data[legacyLogHeaderSize:]) {
			if e.seq <= uint64(applied) {
				continue
			}
			if e.seq != last+1 {
				return fmt.Errorf("the change log %s lacks records %d to %d: the database and its log do not belong together (restored from different times?)", logPath, last+1, e.seq-1)
			}
			replay = append(replay, e)
			last = e.seq
		}
		if len(replay) > 0 {
			if err := s.applyLegacy(replay); err != nil {
				return fmt.Errorf("replay the change log %s: %w", logPath, err)
			}
		}
	}
	if err := os.Remove(logPath); err != nil {
		return fmt.Errorf("remove the replayed change log: %w", err)
	}
	return nil
}

// applyLegacy writes records to the tables in one transaction, with the
// last one's sequence number as 'log_applied': a crash before the file is
// removed replays nothing twice.
func (s *Store) applyLegacy(entries []legacyEntry) error {
	if err := s.exec("BEGIN IMMEDIATE"); err != nil {
		return describe(err)
	}
	fail := func(err error) error {
		s.exec("ROLLBACK")
		return err
	}
	var b market.Batch
	for _, e := range entries {
		b.Reset()
		if err := decodeLegacyBatch(e.payload, &b); err != nil {
			return fail(fmt.Errorf("change log record %d: %w", e.seq, err))
		}
		for i := range b.Ops {
			if err := s.applyLegacyOp(&b.Ops[i]); err != nil {
				return fail(fmt.Errorf("change log record %d: %w", e.seq, err))
			}
		}
	}
	if _, err := s.conn.ExecContext(s.ctx, "UPDATE meta SET v = ? WHERE k = 'log_applied'", int64(entries[len(entries)-1].seq)); err != nil {
		return fail(describe(err))
	}
	if err := s.exec("COMMIT"); err != nil {
		return fail(describe(err))
	}
	return nil
}

// applyLegacyOp writes one op of a version 1 record as that version did.
func (s *Store) applyLegacyOp(op *market.Op) error {
	var q string
	var args []any
	checked := true // the op must match exactly one row
	switch op.Kind {
	case legacyAddPlayer:
		p := op.Player
		q, args = "INSERT INTO players (id, name, perms, balance, booked, last_sell, inventory) VALUES (?1, ?2, ?3, ?4, ?4, ?5, ?6)",
			[]any{p.ID[:], p.Name, p.Perms, int64(p.Balance), p.LastSell, nonNil(p.Inventory)}
	case legacyPlayerState:
		p := op.Player
		q, args = "UPDATE players SET balance = ?1, booked = ?1, last_sell = ?2, inventory = ?3, version = version + 1 WHERE id = ?4",
			[]any{int64(p.Balance), p.LastSell, nonNil(p.Inventory), p.ID[:]}
	case legacyPutMail:
		m := op.Mail
		q, args = "INSERT INTO mail (id, player, item, reason, created, prev_price) VALUES (?, ?, ?, ?, ?, ?)",
			[]any{m.ID[:], m.Player[:], nonNil(m.Item), m.Reason, m.Created, int64(m.PrevPrice)}
	case legacyDelMail:
		q, args = "DELETE FROM mail WHERE id = ?", []any{op.Mail.ID[:]}
	case legacyPutListing:
		q, args = "INSERT OR REPLACE INTO listings (id, rec) VALUES (?, ?)", []any{op.Listing.ID, nonNil(op.Listing.Rec)}
		checked = false
	case legacyDelListing:
		q, args = "DELETE FROM listings WHERE id = ?", []any{op.Int}
	case legacyPutTx:
		t := op.Tx
		q, args = "INSERT INTO transactions (id, state, rec) VALUES (?, ?, ?)", []any{t.ID[:], string(t.State), nonNil(t.Rec)}
	case legacyTxState:
		t := op.Tx
		q, args = "UPDATE transactions SET state = ?, rec = ? WHERE id = ? AND state = ?",
			[]any{string(t.State), nonNil(t.Rec), t.ID[:], string(op.ExpectState)}
	case legacyMeta:
		m := op.Meta
		q, args = `INSERT INTO meta (k, v) VALUES ('next_listing_id', ?), ('fee_balance', ?), ('market_volume', ?), ('total_sales', ?)
			ON CONFLICT (k) DO UPDATE SET v = excluded.v`, []any{m.NextListingID, int64(m.FeeBalance), int64(m.Volume), m.Sales}
		checked = false
	default:
		return fmt.Errorf("unknown op kind %d", op.Kind)
	}
	res, err := s.conn.ExecContext(s.ctx, q, args...)
	if err != nil {
		return fmt.Errorf("op %d: %w", op.Kind, describe(err))
	}
	if n, err := res.RowsAffected(); err != nil {
		return err
	} else if checked && n != 1 {
		return fmt.Errorf("op %d matched %d rows, want 1: %w", op.Kind, n, market.ErrConflict)
	}
	return nil
}

func allZero(b []byte) bool {
	for _, c := range b {
		if c != 0 {
			return false
		}
	}
	return true
}

// scanLegacyLog returns the intact records of a log body, stopping at the
// first one that is cut short or fails its checksum: that commit never
// returned.
func scanLegacyLog(b []byte) []legacyEntry {
	var out []legacyEntry
	for len(b) >= legacyRecHeaderSize {
		n := binary.LittleEndian.Uint32(b[0:4])
		sum := binary.LittleEndian.Uint32(b[4:8])
		if n > legacyMaxRecord || uint64(len(b)-legacyRecHeaderSize) < uint64(n) {
			break
		}
		body := b[8 : legacyRecHeaderSize+int(n)]
		if crc32.Checksum(body, castagnoli) != sum {
			break
		}
		out = append(out, legacyEntry{seq: binary.LittleEndian.Uint64(body[:8]), payload: body[8:]})
		b = b[legacyRecHeaderSize+int(n):]
	}
	return out
}

// reader decodes a record; the first error sticks.
type reader struct {
	b   []byte
	err error
}

var errShort = errors.New("record cut short")

func (r *reader) fail(err error) {
	if r.err == nil {
		r.err = err
	}
	r.b = nil
}

func (r *reader) byte() byte {
	if len(r.b) < 1 {
		r.fail(errShort)
		return 0
	}
	c := r.b[0]
	r.b = r.b[1:]
	return c
}

func (r *reader) uuid() (u uuid.UUID) {
	if len(r.b) < 16 {
		r.fail(errShort)
		return u
	}
	copy(u[:], r.b)
	r.b = r.b[16:]
	return u
}

func (r *reader) uvarint() uint64 {
	v, n := binary.Uvarint(r.b)
	if n <= 0 {
		r.fail(errShort)
		return 0
	}
	r.b = r.b[n:]
	return v
}

func (r *reader) varint() int64 {
	v, n := binary.Varint(r.b)
	if n <= 0 {
		r.fail(errShort)
		return 0
	}
	r.b = r.b[n:]
	return v
}

func (r *reader) bytes() []byte {
	n := r.uvarint()
	if uint64(len(r.b)) < n {
		r.fail(errShort)
		return nil
	}
	v := r.b[:n:n]
	r.b = r.b[n:]
	return v
}

func (r *reader) string() string { return string(r.bytes()) }

// decodeLegacyBatch reads one record's ops. Byte slices in b point into p.
func decodeLegacyBatch(p []byte, b *market.Batch) error {
	r := &reader{b: p}
	n := r.uvarint()
	if n > uint64(len(p)) {
		return fmt.Errorf("op count %d in a %d-byte record", n, len(p))
	}
	for i := uint64(0); i < n && r.err == nil; i++ {
		op := market.Op{Kind: market.OpKind(r.byte())}
		switch op.Kind {
		case legacyAddPlayer:
			op.Player = &market.PlayerRow{ID: r.uuid(), Name: r.string(), Perms: r.string(),
				Balance: market.Money(r.varint()), LastSell: r.varint(), Inventory: r.bytes()}
		case legacyPlayerState:
			op.Player = &market.PlayerRow{ID: r.uuid(), Balance: market.Money(r.varint()), LastSell: r.varint(), Inventory: r.bytes()}
		case legacyPutMail:
			op.Mail = &market.MailRow{ID: r.uuid(), Player: r.uuid(), Item: r.bytes(), Reason: r.string(),
				Created: r.varint(), PrevPrice: market.Money(r.varint())}
		case legacyDelMail:
			op.Mail = &market.MailRow{ID: r.uuid()}
		case legacyPutListing:
			op.Listing = &market.ListingRow{ID: r.varint(), Rec: r.bytes()}
		case legacyDelListing:
			op.Int = r.varint()
		case legacyPutTx:
			op.Tx = &market.TxRow{ID: r.uuid(), State: market.State(r.string()), Rec: r.bytes()}
		case legacyTxState:
			op.Tx = &market.TxRow{ID: r.uuid(), State: market.State(r.string()), Rec: r.bytes()}
			op.ExpectState = market.State(r.string())
		case legacyMeta:
			op.Meta = market.MetaRow{NextListingID: r.varint(), FeeBalance: market.Money(r.varint()),
				Volume: market.Money(r.varint()), Sales: r.varint()}
		default:
			if r.err == nil {
				return fmt.Errorf("unknown op kind %d", op.Kind)
			}
		}
		b.Ops = append(b.Ops, op)
	}
	if r.err != nil {
		return r.err
	}
	if len(r.b) != 0 {
		return fmt.Errorf("%d bytes after the last op", len(r.b))
	}
	return nil
}

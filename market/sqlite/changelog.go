package sqlite

// The change log.
//
// A live mutation does not write the tables. Commit appends the batch, encoded,
// as one record to the change log (<db>-rlog) with one write system call, and
// returns. A goroutine, the materializer, then applies pending records to the
// tables in one SQLite transaction per round, and records the last applied
// sequence number (meta 'log_applied') in that same transaction.
//
// Why: a sell changes two rows on two pages (the seller's inventory and the
// listing). As an SQLite transaction it costs about 14 µs of the main
// thread's time, against 10 µs for the cheapest possible one-row commit, and
// the in-memory work of the sell comes on top. Appending one record costs a
// few µs. The tables are still written, but on the other core and many
// records per SQLite transaction.
//
// Durability is the same as the tables' own. A write system call survives the
// process being killed, like SQLite's WAL with synchronous=NORMAL. With
// Options.Sync each record is fsynced before Commit returns, which is what
// synchronous=FULL does for a commit.
//
// Atomicity: every record has a length and a CRC-32C. A record that was cut
// short (the process died inside the write) fails its check when the log is
// read. It and everything after it are dropped; that commit never returned.
// At Open, the records after 'log_applied' are replayed into the tables in one
// transaction. Then the log is emptied.
//
// Checks: the tables are written later, so the checks that SQLite made
// at commit time are made on a shadow of the keys instead. The shadow holds
// the ids of players, mail and listings, and the state of every unfinished
// transaction. A batch that deletes or updates a missing row, or whose
// conditional state does not match, is refused with ErrConflict before
// anything is written, as before.
//
// The log belongs to one database: its header carries the database's random
// 'log_id', and a log with another id is refused rather than replayed.

import (
	"bytes"
	"crypto/rand"
	"database/sql"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/RoaringBitmap/roaring/v2/roaring64"
	"github.com/google/uuid"
	"github.com/rynek/rynek/market"
)

const (
	logMagic      = "RYNKLOG1"
	logHeaderSize = 32 // magic (8), log id (8), reserved (16)
	recHeaderSize = 16 // payload length (4), CRC-32C of seq+payload (4), seq (8)
	// maxRecord bounds a record's length when reading, so that a damaged
	// length cannot make Open allocate gigabytes.
	maxRecord = 1 << 30
)

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// logTruncateAt is the size past which the materializer catches up and
// empties the log; maxPending is how many records may wait for the tables
// before Commit waits for the materializer. The second bounds the replay at
// Open (8,192 records replay in well under 0.1 s) and the memory the pending
// records hold, when commits come faster than the tables can take them.
// Variables, so that a test can make them small.
var (
	logTruncateAt   int64 = 64 << 20
	maxPending            = 8192
	maxPendingBytes       = 64 << 20 // a sweep's record can be 200 kB
)

// LogPath returns the path of the change log of the database at path.
func LogPath(path string) string { return path + "-rlog" }

// logEntry is one appended record waiting for the materializer.
type logEntry struct {
	seq     uint64
	payload []byte
}

// openLog opens (or creates) the change log, replays the records the tables
// do not have yet, and empties it. It runs in Open, before the materializer.
func (s *Store) openLog() error {
	id, applied, err := s.logMeta()
	if err != nil {
		return err
	}
	s.logID = id
	f, err := os.OpenFile(s.logPath, os.O_RDWR|os.O_CREATE|os.O_APPEND, 0o600)
	if err != nil {
		return fmt.Errorf("open the change log: %w", err)
	}
	s.logf = f
	data, err := io.ReadAll(f)
	if err != nil {
		return fmt.Errorf("read the change log %s: %w", s.logPath, err)
	}
	last := applied
	if allZero(data) {
		// New, or created just before a power cut took its header: either
		// way it holds no record.
		if err := s.writeHeader(); err != nil {
			return err
		}
	} else {
		if len(data) < logHeaderSize || string(data[:8]) != logMagic {
			return fmt.Errorf("%s is not a Rynek change log; move it aside to open the database without it", s.logPath)
		}
		if got := binary.LittleEndian.Uint64(data[8:16]); got != id {
			return fmt.Errorf("the change log %s belongs to another database (log id %#x, the database's is %#x); move it aside", s.logPath, got, id)
		}
		entries := scanLog(data[logHeaderSize:])
		var replay []logEntry
		for _, e := range entries {
			if e.seq <= applied {
				continue
			}
			if e.seq != last+1 {
				return fmt.Errorf("the change log %s lacks records %d to %d: the database and its log do not belong together (restored from different times?)", s.logPath, last+1, e.seq-1)
			}
			replay = append(replay, e)
			last = e.seq
		}
		if len(replay) > 0 {
			if err := s.applyEntries(replay); err != nil {
				return fmt.Errorf("replay the change log: %w", err)
			}
		}
	}
	s.lastSeq, s.appliedSeq = last, last
	if err := s.readMaxTx(); err != nil {
		return err
	}
	return s.resetLog()
}

// readMaxTx sets maxTx from the table (the primary key's last entry: one
// b-tree descent). Called with nothing pending: at Open and after BulkLoad.
func (s *Store) readMaxTx() error {
	var top []byte
	if err := s.conn.QueryRowContext(s.ctx, "SELECT max(id) FROM transactions").Scan(&top); err != nil {
		return fmt.Errorf("read the highest transaction id: %w", describe(err))
	}
	s.noteTx(toUUID(top))
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

// writeHeader writes the header of a new log. With Options.Sync the file and
// its directory entry are made durable before any record relies on them.
func (s *Store) writeHeader() error {
	if err := s.logf.Truncate(0); err != nil {
		return fmt.Errorf("create the change log: %w", err)
	}
	head := make([]byte, logHeaderSize)
	copy(head, logMagic)
	binary.LittleEndian.PutUint64(head[8:], s.logID)
	if _, err := s.logf.Write(head); err != nil {
		return fmt.Errorf("write the change log header: %w", err)
	}
	if s.sync {
		if err := s.logf.Sync(); err != nil {
			return fmt.Errorf("sync the change log: %w", err)
		}
		if d, err := os.Open(filepath.Dir(s.logPath)); err == nil {
			err = d.Sync()
			d.Close()
			if err != nil {
				return fmt.Errorf("sync the change log's directory: %w", err)
			}
		}
	}
	return nil
}

// scanLog returns the intact records of a log body, stopping at the first
// one that is cut short or fails its checksum.
func scanLog(b []byte) []logEntry {
	var out []logEntry
	for len(b) >= recHeaderSize {
		n := binary.LittleEndian.Uint32(b[0:4])
		sum := binary.LittleEndian.Uint32(b[4:8])
		if n > maxRecord || uint64(len(b)-recHeaderSize) < uint64(n) {
			break
		}
		body := b[8 : recHeaderSize+int(n)]
		if crc32.Checksum(body, castagnoli) != sum {
			break
		}
		out = append(out, logEntry{seq: binary.LittleEndian.Uint64(body[:8]), payload: body[8:]})
		b = b[recHeaderSize+int(n):]
	}
	return out
}

// resetLog empties the log down to its header, in one system call so that
// the header is never at risk. Only called when every record is in the
// tables.
func (s *Store) resetLog() error {
	if err := s.logf.Truncate(logHeaderSize); err != nil {
		return fmt.Errorf("empty the change log: %w", err)
	}
	s.logSize = logHeaderSize
	return nil
}

// logMeta reads the database's log id and last applied sequence number,
// creating them in a database that has none yet.
func (s *Store) logMeta() (id, applied uint64, err error) {
	var v int64
	err = s.conn.QueryRowContext(s.ctx, "SELECT v FROM meta WHERE k = 'log_id'").Scan(&v)
	if err == nil {
		id = uint64(v)
		// A write takes the exclusive lock now, before the log is touched: a
		// second process must fail here, not empty the first one's log.
		if _, err := s.conn.ExecContext(s.ctx, "UPDATE meta SET v = v WHERE k = 'log_id'"); err != nil {
			return 0, 0, describe(err)
		}
		if err := s.conn.QueryRowContext(s.ctx, "SELECT v FROM meta WHERE k = 'log_applied'").Scan(&v); err != nil {
			return 0, 0, fmt.Errorf("read log_applied: %w", describe(err))
		}
		return id, uint64(v), nil
	}
	var b [8]byte
	if _, err := rand.Read(b[:]); err != nil {
		return 0, 0, err
	}
	id = binary.LittleEndian.Uint64(b[:]) >> 1 // fits an SQLite INTEGER
	if _, err := os.Stat(s.logPath); err == nil {
		return 0, 0, fmt.Errorf("the change log %s exists but the database never had one; move it aside", s.logPath)
	}
	if _, err := s.conn.ExecContext(s.ctx, "INSERT INTO meta (k, v) VALUES ('log_id', ?), ('log_applied', 0)", int64(id)); err != nil {
		return 0, 0, fmt.Errorf("create the log id: %w", describe(err))
	}
	return id, 0, nil
}

// Commit appends b to the change log: checked against the shadow, encoded,
// and written with one system call. The materializer writes the tables.
func (s *Store) Commit(b *market.Batch) error {
	s.lmu.Lock()
	defer s.lmu.Unlock()
	if s.closed {
		return errClosed
	}
	if s.logErr != nil {
		return s.logErr
	}
	if s.matErr != nil {
		return s.failure()
	}
	if s.shadow == nil {
		if err := s.loadShadowLocked(); err != nil {
			return err
		}
	}
	for (len(s.pending) >= maxPending || s.pendingBytes >= maxPendingBytes) && s.matErr == nil && !s.matStopped {
		s.cond.Wait()
	}
	// Waiting released lmu: the store may have failed or closed meanwhile.
	if s.matErr != nil {
		return s.failure()
	}
	if s.closed {
		return errClosed
	}
	undo, err := s.shadow.check(b, s.undo[:0], s)
	s.undo = undo[:0]
	if err != nil {
		s.shadow.revert(undo)
		return err
	}
	seq := s.lastSeq + 1
	rec := make([]byte, recHeaderSize, recHeaderSize+estimate(b))
	binary.LittleEndian.PutUint64(rec[8:], seq)
	rec = encodeBatch(rec, b)
	if len(rec)-recHeaderSize > maxRecord {
		s.shadow.revert(undo)
		return fmt.Errorf("a batch of %d operations encodes to %d bytes, over the change log's limit of %d", len(b.Ops), len(rec), maxRecord)
	}
	binary.LittleEndian.PutUint32(rec[0:], uint32(len(rec)-recHeaderSize))
	binary.LittleEndian.PutUint32(rec[4:], crc32.Checksum(rec[8:], castagnoli))
	if _, err := s.logf.Write(rec); err != nil {
		return s.unwrite(undo, fmt.Errorf("write the change log: %w", err))
	}
	if s.sync {
		if err := s.logf.Sync(); err != nil {
			return s.unwrite(undo, fmt.Errorf("sync the change log: %w", err))
		}
	}
	s.logSize += int64(len(rec))
	s.lastSeq = seq
	s.pending = append(s.pending, logEntry{seq: seq, payload: rec[recHeaderSize:]})
	s.pendingBytes += len(rec)
	for i := range b.Ops {
		if b.Ops[i].Kind == market.OpPutTx {
			id := b.Ops[i].Tx.ID
			s.recentTx[id] = seq
			s.noteTx(id)
		}
	}
	select {
	case s.work <- struct{}{}:
	default:
	}
	return nil
}

// unwrite undoes a failed append: the shadow goes back and whatever part of
// the record reached the file is cut off, so nothing of the batch remains.
func (s *Store) unwrite(undo []undoOp, err error) error {
	s.shadow.revert(undo)
	if terr := s.logf.Truncate(s.logSize); terr != nil {
		// The file may hold a partial record that a later append would bury;
		// refuse further commits rather than risk that.
		s.logErr = fmt.Errorf("the change log %s cannot be written (%v, and cutting it back failed: %v); restart to replay what it holds", s.logPath, err, terr)
	}
	return err
}

var errClosed = errors.New("the store is closed")

// failure is the error Commit returns while the materializer is failing.
func (s *Store) failure() error {
	return fmt.Errorf("the market tables cannot be written (%v); nothing committed is lost: it is kept in %s, written out as soon as the tables accept it (retried every %v) or replayed on the next start", s.matErr, s.logPath, retryAfter)
}

// gatherFor is how long the materializer lets records gather before a
// round. Under a stream of commits a round then takes hundreds of records
// in one SQLite transaction instead of a few; a lone commit reaches the
// tables half a millisecond later, which nothing waits for but Flush.
var gatherFor = 500 * time.Microsecond

// retryAfter is how long the materializer waits after a failed round (a
// full disk, say) before trying again; commits are refused meanwhile.
var retryAfter = time.Second

// materialize runs on its own goroutine from Open to Close.
func (s *Store) materialize() {
	defer close(s.matDone)
	for {
		open := true
		if s.failing() {
			t := time.NewTimer(retryAfter)
			select {
			case _, open = <-s.work:
			case <-t.C:
			}
			t.Stop()
		} else {
			_, open = <-s.work
			if open {
				// Let the round gather what the next moments commit: one
				// SQLite transaction rewrites a page once for many records.
				time.Sleep(gatherFor)
			}
		}
		s.round()
		if !open {
			return
		}
	}
}

func (s *Store) failing() bool {
	s.lmu.Lock()
	defer s.lmu.Unlock()
	return s.matErr != nil
}

// round applies everything pending. On failure the records stay pending, in
// order, for the next try.
func (s *Store) round() {
	s.lmu.Lock()
	batch, batchBytes := s.pending, s.pendingBytes
	s.pending = s.spare[:0]
	s.pendingBytes = 0
	s.lmu.Unlock()
	var err error
	if len(batch) > 0 {
		err = s.applyEntries(batch)
	}
	s.lmu.Lock()
	defer s.lmu.Unlock()
	if err != nil {
		s.pending = append(batch, s.pending...)
		s.pendingBytes += batchBytes
		s.spare = nil
		s.matErr = err
		s.cond.Broadcast()
		return
	}
	if len(batch) > 0 {
		s.appliedSeq = batch[len(batch)-1].seq
		for id, seq := range s.recentTx {
			if seq <= s.appliedSeq {
				delete(s.recentTx, id)
			}
		}
	}
	clear(batch)
	s.spare = batch[:0]
	if err == nil && s.logSize >= logTruncateAt {
		// Catch up with commits blocked (a few records: the materializer is
		// rarely more than a round behind), then empty the log.
		if rest := s.pending; len(rest) > 0 {
			if err = s.applyEntries(rest); err == nil {
				s.appliedSeq = rest[len(rest)-1].seq
				clear(s.recentTx)
				clear(rest)
				s.pending = rest[:0]
				s.pendingBytes = 0
			}
		}
		if err == nil {
			err = s.resetLog()
		}
	}
	s.matErr = err
	s.cond.Broadcast()
}

// applyEntries writes records to the tables in one SQLite transaction, with
// the last one's sequence number as 'log_applied'.
func (s *Store) applyEntries(entries []logEntry) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.failApply > 0 { // tests: the tables refuse, as a full disk would
		s.failApply--
		return errors.New("injected: disk full")
	}
	return s.inTx(func() error {
		var b market.Batch
		for _, e := range entries {
			b.Reset()
			if err := decodeBatch(e.payload, &b); err != nil {
				return fmt.Errorf("change log record %d: %w", e.seq, err)
			}
			for i := range b.Ops {
				if err := s.apply(&b.Ops[i]); err != nil {
					return fmt.Errorf("change log record %d: %w", e.seq, err)
				}
			}
		}
		if _, err := s.setApplied.Exec(int64(entries[len(entries)-1].seq)); err != nil {
			return describe(err)
		}
		return nil
	})
}

// inTx runs fn in one SQLite transaction, with mu held: committed if fn
// succeeds, rolled back otherwise.
func (s *Store) inTx(fn func() error) error {
	if _, err := s.begin.Exec(); err != nil {
		return describe(err)
	}
	if err := fn(); err != nil {
		s.rollback.Exec()
		return err
	}
	if _, err := s.commit.Exec(); err != nil {
		s.rollback.Exec()
		return describe(err)
	}
	return nil
}

// drainLocked, with lmu held, refuses a closed store and waits until the
// tables hold every record: what reads and writes the tables directly
// (Load, BulkLoad) need first.
func (s *Store) drainLocked() error {
	if s.closed {
		return errClosed
	}
	return s.flushLocked()
}

// noteTx raises the highest transaction id seen.
func (s *Store) noteTx(id uuid.UUID) {
	if bytes.Compare(id[:], s.maxTx[:]) > 0 {
		s.maxTx = id
	}
}

// flushLocked waits, with lmu held, until every record appended so far is
// in the tables.
func (s *Store) flushLocked() error {
	target := s.lastSeq
	for s.appliedSeq < target && s.matErr == nil && !s.matStopped {
		s.cond.Wait()
	}
	switch {
	case s.appliedSeq >= target:
		return nil
	case s.matStopped:
		n, what := s.lastSeq-s.appliedSeq, "changes are"
		if n == 1 {
			what = "change is"
		}
		return fmt.Errorf("the store is closed; %d committed %s kept in %s and replayed on the next start", n, what, s.logPath)
	default:
		return s.failure()
	}
}

// Flush waits until every committed change is in the tables. Reads of the
// tables (Load, LoadHistory, Empty) flush first; benchmarks call it so that
// the materializer's work is inside the measured time.
func (s *Store) Flush() error {
	s.lmu.Lock()
	defer s.lmu.Unlock()
	return s.flushLocked()
}

// ---- the shadow of the keys --------------------------------------------

// shadow is what Commit checks a batch against: which players, mail and
// listings exist, and the state of each unfinished transaction.
type shadow struct {
	players  map[uuid.UUID]struct{}
	mail     map[uuid.UUID]struct{}
	listings *roaring64.Bitmap
	open     map[uuid.UUID]market.State
}

func newShadow() *shadow {
	return &shadow{players: map[uuid.UUID]struct{}{}, mail: map[uuid.UUID]struct{}{},
		listings: roaring64.New(), open: map[uuid.UUID]market.State{}}
}

func (sh *shadow) tx(t market.TxRow) {
	if !t.State.Terminal() {
		sh.open[t.ID] = t.State
	}
}

// undoOp reverses one change of check.
type undoOp struct {
	kind  market.OpKind
	id    uuid.UUID
	n     int64
	state market.State // OpTxState: the previous state
	had   bool
}

// check applies b's key changes to the shadow, or fails with the changes
// made so far in undo (for revert).
func (sh *shadow) check(b *market.Batch, undo []undoOp, s *Store) ([]undoOp, error) {
	missing := func(k market.OpKind) error {
		return fmt.Errorf("op %d matched 0 rows, want 1: %w", k, market.ErrConflict)
	}
	for i := range b.Ops {
		op := &b.Ops[i]
		switch op.Kind {
		case market.OpPutPlayer:
			_, had := sh.players[op.Player.ID]
			sh.players[op.Player.ID] = struct{}{}
			undo = append(undo, undoOp{kind: op.Kind, id: op.Player.ID, had: had})
		case market.OpPlayerState:
			if _, ok := sh.players[op.Player.ID]; !ok {
				return undo, missing(op.Kind)
			}
		case market.OpPutMail:
			if _, ok := sh.mail[op.Mail.ID]; ok {
				return undo, fmt.Errorf("op %d: mail %s already exists", op.Kind, op.Mail.ID)
			}
			sh.mail[op.Mail.ID] = struct{}{}
			undo = append(undo, undoOp{kind: op.Kind, id: op.Mail.ID})
		case market.OpDelMail:
			if _, ok := sh.mail[op.Mail.ID]; !ok {
				return undo, missing(op.Kind)
			}
			delete(sh.mail, op.Mail.ID)
			undo = append(undo, undoOp{kind: op.Kind, id: op.Mail.ID})
		case market.OpPutListing:
			had := !sh.listings.CheckedAdd(uint64(op.Listing.ID))
			undo = append(undo, undoOp{kind: op.Kind, n: op.Listing.ID, had: had})
		case market.OpDelListing:
			if !sh.listings.CheckedRemove(uint64(op.Int)) {
				return undo, missing(op.Kind)
			}
			undo = append(undo, undoOp{kind: op.Kind, n: op.Int})
		case market.OpPutTx:
			// The shadow holds only unfinished transactions; a finished one is
			// in a record not yet applied or in the table.
			dup := false
			for j := range b.Ops[:i] { // the same batch inserted it already
				if b.Ops[j].Kind == market.OpPutTx && b.Ops[j].Tx.ID == op.Tx.ID {
					dup = true
				}
			}
			if _, ok := sh.open[op.Tx.ID]; ok || dup {
				dup = true
			} else if bytes.Compare(op.Tx.ID[:], s.maxTx[:]) > 0 {
				// Above every id ever written: new. Transaction ids are
				// time-ordered (UUIDv7), so this is the usual case and needs
				// no lookup.
			} else if known, err := s.txKnown(op.Tx.ID); err != nil {
				return undo, err
			} else {
				dup = known
			}
			if dup {
				return undo, fmt.Errorf("op %d: transaction %s already exists", op.Kind, op.Tx.ID)
			}
			if !op.Tx.State.Terminal() {
				sh.open[op.Tx.ID] = op.Tx.State
				undo = append(undo, undoOp{kind: op.Kind, id: op.Tx.ID})
			}
		case market.OpTxState:
			cur, ok := sh.open[op.Tx.ID]
			if !ok || cur != op.ExpectState {
				return undo, market.ErrConflict
			}
			if op.Tx.State.Terminal() {
				delete(sh.open, op.Tx.ID)
			} else {
				sh.open[op.Tx.ID] = op.Tx.State
			}
			undo = append(undo, undoOp{kind: op.Kind, id: op.Tx.ID, state: cur})
		case market.OpMeta:
		default:
			return undo, fmt.Errorf("unknown op kind %d", op.Kind)
		}
	}
	return undo, nil
}

// txKnown reports whether a transaction id is in a record not yet applied or
// in the table.
func (s *Store) txKnown(id uuid.UUID) (bool, error) {
	if _, ok := s.recentTx[id]; ok {
		return true, nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	var one int
	switch err := s.txExists.QueryRow(id[:]).Scan(&one); {
	case errors.Is(err, sql.ErrNoRows):
		return false, nil
	case err != nil:
		return false, describe(err)
	}
	return true, nil
}

// revert undoes check's changes, last first.
func (sh *shadow) revert(undo []undoOp) {
	for i := len(undo) - 1; i >= 0; i-- {
		u := undo[i]
		switch u.kind {
		case market.OpPutPlayer:
			if !u.had {
				delete(sh.players, u.id)
			}
		case market.OpPutMail:
			delete(sh.mail, u.id)
		case market.OpDelMail:
			sh.mail[u.id] = struct{}{}
		case market.OpPutListing:
			if !u.had {
				sh.listings.Remove(uint64(u.n))
			}
		case market.OpDelListing:
			sh.listings.Add(uint64(u.n))
		case market.OpPutTx:
			delete(sh.open, u.id)
		case market.OpTxState:
			sh.open[u.id] = u.state
		}
	}
}

// loadShadowLocked builds the shadow from the tables, for a Commit that
// comes before any Load (Load builds it while it streams the rows).
func (s *Store) loadShadowLocked() error {
	if err := s.flushLocked(); err != nil {
		return err
	}
	if s.shadow != nil {
		return nil // another Commit built it while this one waited
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	sh, err := s.loadWithShadow(discard{})
	if err != nil {
		return err
	}
	s.shadow = sh
	return nil
}

// discard is a Loader that keeps nothing.
type discard struct{}

func (discard) Meta(market.MetaRow) error       { return nil }
func (discard) Player(market.PlayerRow) error   { return nil }
func (discard) Mail(market.MailRow) error       { return nil }
func (discard) Listing(market.ListingRow) error { return nil }
func (discard) Transaction(market.TxRow) error  { return nil }

// ---- the record codec ---------------------------------------------------

// estimate is a capacity hint for an encoded batch.
func estimate(b *market.Batch) int {
	n := 2
	for i := range b.Ops {
		op := &b.Ops[i]
		n += 48
		switch {
		case op.Player != nil:
			n += len(op.Player.Inventory) + len(op.Player.Name) + len(op.Player.Perms)
		case op.Mail != nil:
			n += len(op.Mail.Item) + len(op.Mail.Reason) + 16
		case op.Listing != nil:
			n += len(op.Listing.Rec)
		case op.Tx != nil:
			n += len(op.Tx.Rec) + 32
		}
	}
	return n
}

func putBytes(dst, b []byte) []byte {
	dst = binary.AppendUvarint(dst, uint64(len(b)))
	return append(dst, b...)
}

func putString(dst []byte, s string) []byte {
	dst = binary.AppendUvarint(dst, uint64(len(s)))
	return append(dst, s...)
}

// encodeBatch appends b's encoding: the op count, then per op its kind and
// the fields that kind uses, in the order apply binds them.
func encodeBatch(dst []byte, b *market.Batch) []byte {
	dst = binary.AppendUvarint(dst, uint64(len(b.Ops)))
	for i := range b.Ops {
		op := &b.Ops[i]
		dst = append(dst, byte(op.Kind))
		switch op.Kind {
		case market.OpPutPlayer:
			p := op.Player
			dst = append(dst, p.ID[:]...)
			dst = putString(dst, p.Name)
			dst = putString(dst, p.Perms)
			dst = binary.AppendVarint(dst, int64(p.Balance))
			dst = binary.AppendVarint(dst, p.LastSell)
			dst = putBytes(dst, p.Inventory)
		case market.OpPlayerState:
			p := op.Player
			dst = append(dst, p.ID[:]...)
			dst = binary.AppendVarint(dst, int64(p.Balance))
			dst = binary.AppendVarint(dst, p.LastSell)
			dst = putBytes(dst, p.Inventory)
		case market.OpPutMail:
			m := op.Mail
			dst = append(dst, m.ID[:]...)
			dst = append(dst, m.Player[:]...)
			dst = putBytes(dst, m.Item)
			dst = putString(dst, m.Reason)
			dst = binary.AppendVarint(dst, m.Created)
			dst = binary.AppendVarint(dst, int64(m.PrevPrice))
		case market.OpDelMail:
			dst = append(dst, op.Mail.ID[:]...)
		case market.OpPutListing:
			dst = binary.AppendVarint(dst, op.Listing.ID)
			dst = putBytes(dst, op.Listing.Rec)
		case market.OpDelListing:
			dst = binary.AppendVarint(dst, op.Int)
		case market.OpPutTx:
			dst = append(dst, op.Tx.ID[:]...)
			dst = putString(dst, string(op.Tx.State))
			dst = putBytes(dst, op.Tx.Rec)
		case market.OpTxState:
			dst = append(dst, op.Tx.ID[:]...)
			dst = putString(dst, string(op.Tx.State))
			dst = putBytes(dst, op.Tx.Rec)
			dst = putString(dst, string(op.ExpectState))
		case market.OpMeta:
			m := op.Meta
			dst = binary.AppendVarint(dst, m.NextListingID)
			dst = binary.AppendVarint(dst, int64(m.FeeBalance))
			dst = binary.AppendVarint(dst, int64(m.Volume))
			dst = binary.AppendVarint(dst, m.Sales)
		}
	}
	return dst
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

// decodeBatch is encodeBatch's inverse. Byte slices in b point into p.
func decodeBatch(p []byte, b *market.Batch) error {
	r := &reader{b: p}
	n := r.uvarint()
	if n > uint64(len(p)) {
		return fmt.Errorf("op count %d in a %d-byte record", n, len(p))
	}
	for i := uint64(0); i < n && r.err == nil; i++ {
		op := market.Op{Kind: market.OpKind(r.byte())}
		switch op.Kind {
		case market.OpPutPlayer:
			op.Player = &market.PlayerRow{ID: r.uuid(), Name: r.string(), Perms: r.string(),
				Balance: market.Money(r.varint()), LastSell: r.varint(), Inventory: r.bytes()}
		case market.OpPlayerState:
			op.Player = &market.PlayerRow{ID: r.uuid(), Balance: market.Money(r.varint()), LastSell: r.varint(), Inventory: r.bytes()}
		case market.OpPutMail:
			op.Mail = &market.MailRow{ID: r.uuid(), Player: r.uuid(), Item: r.bytes(), Reason: r.string(),
				Created: r.varint(), PrevPrice: market.Money(r.varint())}
		case market.OpDelMail:
			op.Mail = &market.MailRow{ID: r.uuid()}
		case market.OpPutListing:
			op.Listing = &market.ListingRow{ID: r.varint(), Rec: r.bytes()}
		case market.OpDelListing:
			op.Int = r.varint()
		case market.OpPutTx:
			op.Tx = &market.TxRow{ID: r.uuid(), State: market.State(r.string()), Rec: r.bytes()}
		case market.OpTxState:
			op.Tx = &market.TxRow{ID: r.uuid(), State: market.State(r.string()), Rec: r.bytes()}
			op.ExpectState = market.State(r.string())
		case market.OpMeta:
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

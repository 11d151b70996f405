package sqlite

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"strconv"
	"time"

	"github.com/rynek/rynek/market"
)

// Several instances on one market file (docs/architecture.md).
//
// Each Rynek process that opens a market file (not a tool) is an instance
// of it: a row of the instances table (its name, the command and pid a
// person reads in the console's header, its delivery mark) and a lock on a
// byte of the market file that the kernel holds for as long as the process
// has the file open. A row whose byte no one holds is an instance that is
// gone; its name, and with it its delivery mark, is free to take again.
// One more byte is the duty: whoever holds it runs the market's timers.
//
// The bytes lie below SQLite's own lock bytes (from 0x40000000), which they
// never overlap, and are locked through the descriptor the store keeps
// open for its life (lockFile): closing another descriptor of the file
// would drop SQLite's own locks, which are per process.
const (
	dutyByte  = 0x3FFF0000
	firstSlot = dutyByte + 1
	maxSlots  = 1024
)

// dutyRetry is how often an instance without the duty tries to take it.
const dutyRetry = 250 * time.Millisecond

// watchEvery is how often WaitEvents asks whether another connection
// committed; waitAtMost is how long it waits anyway.
const (
	watchEvery = 5 * time.Millisecond
	waitAtMost = 250 * time.Millisecond
)

// register takes a name and a slot for this instance in one write
// transaction, after the schema is current, and tries to take the duty.
// The name is opts.Instance, or else the command's ("serve"), with -2, -3…
// after it while a live instance has it. A new name's delivery mark is the
// log's end (its listeners get what happens from now on), except for the
// first instance a file ever has, which takes the mark the file had before
// instances were kept.
func (s *Store) register(opts Options) error {
	base := opts.Instance
	if base == "" {
		base = opts.Command
	}
	if base == "" {
		base = "rynek"
	}
	return s.inTx(func() error {
		type row struct {
			name       string
			slot, pid  int64
			live       bool
			registered bool
		}
		var rows []row
		err := each(s.ctx, s.conn, "SELECT name, slot, pid FROM instances", func(r *sql.Rows) error {
			var w row
			if err := r.Scan(&w.name, &w.slot, &w.pid); err != nil {
				return err
			}
			rows = append(rows, w)
			return nil
		})
		if err != nil {
			return fmt.Errorf("read the instances: %w", err)
		}
		taken, usedSlots := map[string]bool{}, map[int64]bool{}
		for i := range rows {
			if rows[i].slot >= 0 {
				held, err := rangeHeld(s.lock, firstSlot+rows[i].slot)
				if err != nil {
					return fmt.Errorf("look at instance %s: %w", rows[i].name, err)
				}
				rows[i].live = held
			}
			if rows[i].live {
				taken[rows[i].name] = true
				usedSlots[rows[i].slot] = true
			}
		}
		name := base
		for n := 2; taken[name]; n++ {
			if opts.Instance != "" {
				return fmt.Errorf("another process is instance %q of this market; give this one another --instance", opts.Instance)
			}
			name = base + "-" + strconv.Itoa(n)
		}
		// The lowest free slot. One no row names may still be held a
		// moment by a process whose Open is failing: the next one then.
		slot := int64(0)
		for ; ; slot++ {
			if slot >= maxSlots {
				return fmt.Errorf("the market has %d instances open, the most one file takes", maxSlots)
			}
			if usedSlots[slot] {
				continue
			}
			ok, err := lockRange(s.lock, firstSlot+slot)
			if err != nil {
				return fmt.Errorf("hold instance slot %d: %w", slot, err)
			}
			if ok {
				break
			}
		}
		s.slot = slot
		mark := s.lastSeq
		if len(rows) == 0 {
			mark = s.published // the file's mark from before instances were kept
		}
		// A dead row that had the slot gives it up; a dead row of the name
		// is this instance's again, with its mark.
		if _, err := s.conn.ExecContext(s.ctx, "UPDATE instances SET slot = -1 WHERE slot = ? AND name <> ?", slot, name); err != nil {
			return describe(err)
		}
		_, err = s.conn.ExecContext(s.ctx, `INSERT INTO instances (name, slot, pid, command, started, published)
			VALUES (?1, ?2, ?3, ?4, ?5, ?6)
			ON CONFLICT (name) DO UPDATE SET slot = excluded.slot, pid = excluded.pid, command = excluded.command,
				started = excluded.started`,
			name, slot, os.Getpid(), opts.Command, time.Now().UnixMilli(), int64(mark))
		if err != nil {
			return fmt.Errorf("register instance %s: %w", name, describe(err))
		}
		s.instance = name
		return nil
	})
}

// Instance is this instance's name, written as the origin of its log
// entries.
func (s *Store) Instance() string { return s.instance }

// Duty reports whether this instance holds the market's duty: it alone runs
// the timers. The kernel drops the lock when its holder exits or is
// killed, and the others try for it every dutyRetry in WaitEvents.
func (s *Store) Duty() bool { return s.duty.Load() }

// tryDuty takes the duty if no instance holds it. watchMu must be held.
func (s *Store) tryDuty() {
	s.dutyTried = time.Now()
	if ok, err := lockRange(s.lock, dutyByte); err == nil && ok {
		s.duty.Store(true)
	}
}

// Peers lists the other instances that have the market open now, oldest
// first. It reads on a read connection: the follower's goroutine asks,
// never a main thread.
func (s *Store) Peers() ([]market.Peer, error) {
	if s.isClosed() {
		return nil, errClosed
	}
	var peers []market.Peer
	err := each(s.ctx, s.readers, "SELECT name, slot, pid, command FROM instances WHERE slot >= 0 AND name <> ? ORDER BY started",
		func(r *sql.Rows) error {
			var p market.Peer
			var slot int64
			if err := r.Scan(&p.Name, &slot, &p.PID, &p.Command); err != nil {
				return err
			}
			if held, err := rangeHeld(s.lock, firstSlot+slot); err != nil || !held {
				return err
			}
			peers = append(peers, p)
			return nil
		}, s.instance)
	if err != nil {
		return nil, fmt.Errorf("read the instances: %w", err)
	}
	return peers, nil
}

// OthersOpen counts the other instances that have the market open now.
func (s *Store) OthersOpen() (int, error) {
	peers, err := s.Peers()
	return len(peers), err
}

// WaitEvents returns when another connection may have committed entries
// since the last call, after waitAtMost anyway, or when ctx ends. SQLite
// has no notifications: it asks PRAGMA data_version every watchEvery, a
// read of the shared index that changes whenever another connection of any
// process commits, and returns when the log then ends past what this
// instance wrote itself.
func (s *Store) WaitEvents(ctx context.Context) {
	s.watchMu.Lock()
	defer s.watchMu.Unlock()
	ctx, cancel := context.WithTimeout(ctx, waitAtMost)
	defer cancel()
	tick := time.NewTicker(watchEvery)
	defer tick.Stop()
	for {
		if s.isClosed() {
			<-ctx.Done()
			return
		}
		if !s.duty.Load() && time.Since(s.dutyTried) >= dutyRetry {
			s.tryDuty()
		}
		if s.othersWrote.Swap(false) {
			return
		}
		if changed, err := s.logMoved(ctx); err != nil || changed {
			return // an error: the caller's read says what it is
		}
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
	}
}

// logMoved reports whether the log ends past this instance's own newest
// entry, looking only when data_version says another connection
// committed. watchMu must be held.
func (s *Store) logMoved(ctx context.Context) (bool, error) {
	if s.watch == nil {
		c, err := s.readers.Conn(ctx)
		if err != nil {
			return false, err
		}
		s.watch = c
	}
	var v int64
	if err := s.watch.QueryRowContext(ctx, "PRAGMA data_version").Scan(&v); err != nil {
		s.watch.Close()
		s.watch = nil
		return false, err
	}
	if v == s.dataVersion {
		return false, nil
	}
	s.dataVersion = v
	var last sql.NullInt64
	if err := s.watch.QueryRowContext(ctx, "SELECT max(seq) FROM events").Scan(&last); err != nil {
		return false, err
	}
	return uint64(last.Int64) > s.ownSeq.Load(), nil
}

// ReadRows reads the rows q names in one read transaction, as
// market.SharedStore documents.
func (s *Store) ReadRows(q market.RowQuery, l market.Loader) error {
	if s.isClosed() {
		return errClosed
	}
	tx, err := s.readers.BeginTx(s.ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		return describe(err)
	}
	defer tx.Rollback()
	var m market.MetaRow
	if err := readMeta(s.ctx, tx, &m); err != nil {
		return err
	}
	if err := tx.QueryRowContext(s.ctx, "SELECT coalesce(max(seq), 0) FROM events").Scan(&m.LastSeq); err != nil {
		return describe(err)
	}
	if err := l.Meta(m); err != nil {
		return err
	}
	return readRows(s.ctx, tx, l, rowFilter{only: &q})
}

var (
	_ market.SharedStore = (*Store)(nil)
	_ market.PeerLister  = (*Store)(nil)
)

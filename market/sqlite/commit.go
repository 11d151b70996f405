package sqlite

import (
	"database/sql"
	"errors"
	"fmt"

	"github.com/rynek/rynek/market"
)

// statements write the ops. A conditional one matches its row or no row
// (apply turns that into market.ErrConflict); the player and counter
// updates return the row's new values.
var statements = map[market.OpKind]string{
	// The balance is booked as it is set: booked = balance.
	market.OpAddPlayer: `INSERT INTO players (id, name, perms, balance, booked, last_sell, inventory, extra)
		VALUES (?1, ?2, ?3, ?4, ?4, ?5, ?6, ?7)`,
	// ?1 delta, ?2 last sell, ?3 new inventory or NULL, ?4 id, ?5 the inventory it replaces,
	// ?6 new extra or NULL, ?7 the extra it replaces
	market.OpPlayerState: `UPDATE players SET balance = balance + ?1, booked = booked + ?1, last_sell = max(last_sell, ?2),
		inventory = coalesce(?3, inventory), extra = coalesce(?6, extra), version = version + 1
		WHERE id = ?4 AND (?1 >= 0 OR balance + ?1 >= 0) AND (?3 IS NULL OR inventory = ?5) AND (?6 IS NULL OR extra = ?7)
		RETURNING balance, version`,
	market.OpPutMail:      `INSERT INTO mail (id, player, item, reason, created, prev_price) VALUES (?, ?, ?, ?, ?, ?)`,
	market.OpDelMail:      `DELETE FROM mail WHERE id = ?`,
	market.OpAddListing:   `INSERT INTO listings (id, rec) VALUES (?, ?)`,
	market.OpListingState: `UPDATE listings SET rec = ? WHERE id = ? AND rec = ?`,
	market.OpDelListing:   `DELETE FROM listings WHERE id = ? AND rec = ?`,
	market.OpAddOrder:     `INSERT INTO orders (id, rec) VALUES (?, ?)`,
	market.OpOrderState:   `UPDATE orders SET rec = ? WHERE id = ? AND rec = ?`,
	market.OpPutTx:        `INSERT INTO transactions (id, state, rec) VALUES (?, ?, ?)`,
	market.OpTxState:      `UPDATE transactions SET state = ?1, rec = ?2 WHERE id = ?3 AND state = ?4 AND (?5 IS NULL OR rec = ?5)`,
	// A file from before the volume and sales counters lacks their rows:
	// they start from zero (the service then adds its whole totals).
	market.OpCounters: `INSERT INTO meta (k, v) VALUES ('fee_balance', ?1), ('market_volume', ?2), ('total_sales', ?3)
		ON CONFLICT (k) DO UPDATE SET v = v + excluded.v RETURNING k, v`,
	market.OpListingIDs: `UPDATE meta SET v = ?2 WHERE k = 'next_listing_id' AND v = ?1`,
	// A file from before the issuance account lacks its rows: it starts
	// from zero.
	market.OpIssuance: `INSERT INTO meta (k, v) VALUES ('issued_money_in', ?1), ('issued_money_out', ?2),
		('issued_items_in', ?3), ('issued_items_out', ?4)
		ON CONFLICT (k) DO UPDATE SET v = v + excluded.v RETURNING k, v`,
	market.OpPlayerProfile: `UPDATE players SET name = ?1, perms = ?2, version = version + 1
		WHERE id = ?3 AND version = ?4 RETURNING version`,
	// A file from before the opening account lacks its rows: a bulk load
	// adds nothing to it, the service records it whole (OpRecordOpening).
	market.OpLoaded: `UPDATE meta SET v = CASE k WHEN 'opening_money' THEN v + ?1 WHEN 'opening_items' THEN v + ?2 ELSE max(v, ?3) END
		WHERE k IN ('opening_money', 'opening_items', 'loaded_through')`,
	market.OpRecordOpening: `INSERT INTO meta (k, v) VALUES ('opening_money', ?1), ('opening_items', ?2), ('loaded_through', ?3),
		('log_trimmed', ?4), ('log_trimmed_at', ?5) ON CONFLICT (k) DO NOTHING`,
}

func (s *Store) prepare() error {
	var err error
	for _, p := range []struct {
		st **sql.Stmt
		q  string
	}{{&s.begin, "BEGIN IMMEDIATE"}, {&s.commit, "COMMIT"}, {&s.rollback, "ROLLBACK"},
		{&s.insertEvent, "INSERT INTO events (seq, kind, at, body, published, origin) VALUES (?, ?, ?, ?, ?, ?)"},
		{&s.setPublished, "UPDATE instances SET published = max(published, ?1) WHERE name = ?2"},
		{&s.selectLast, "SELECT coalesce(max(seq), 0) FROM events"}} {
		if *p.st, err = s.conn.PrepareContext(s.ctx, p.q); err != nil {
			return fmt.Errorf("prepare: %w", describe(err))
		}
	}
	for kind, q := range statements {
		st, err := s.conn.PrepareContext(s.ctx, q)
		if err != nil {
			return fmt.Errorf("prepare: %w", describe(err))
		}
		s.stmts[kind] = st
	}
	return nil
}

// Commit writes b's ops and log entries in one SQLite transaction. The
// entries' seqs follow the log's newest, read inside the transaction:
// BEGIN IMMEDIATE holds the file's write lock, so no other instance
// appends meanwhile, and seq order is commit order.
func (s *Store) Commit(b *market.Batch) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.writerFree(); err != nil {
		return err
	}
	var last int64
	err := s.inTx(func() error {
		if err := s.selectLast.QueryRow().Scan(&last); err != nil {
			return fmt.Errorf("read the log's end: %w", describe(err))
		}
		if b.Published > uint64(last) {
			return fmt.Errorf("cannot mark event %d as delivered: the newest event is %d", b.Published, last)
		}
		for i := range b.Ops {
			if err := s.apply(&b.Ops[i]); err != nil {
				return err
			}
		}
		published := max(s.published, b.Published)
		for i, e := range b.Events {
			if _, err := s.insertEvent.Exec(last+int64(i)+1, string(e.Kind), e.At, nonNil(e.Body), int64(published), s.instance); err != nil {
				return fmt.Errorf("append to the event log: %w", describe(err))
			}
		}
		if len(b.Events) == 0 && b.Published > s.published {
			if _, err := s.setPublished.Exec(int64(b.Published), s.instance); err != nil {
				return fmt.Errorf("record the delivered events: %w", describe(err))
			}
		}
		return nil
	})
	if err != nil {
		return err
	}
	if uint64(last) > s.lastSeq {
		s.othersWrote.Store(true) // entries of others under these: WaitEvents says so
	}
	s.lastSeq = uint64(last)
	for i := range b.Events {
		s.lastSeq++
		b.Events[i].Seq = s.lastSeq
	}
	s.ownSeq.Store(s.lastSeq)
	s.published = max(s.published, b.Published)
	return nil
}

// inTx runs fn in one SQLite transaction on the writer, with mu held:
// committed if fn succeeds, rolled back otherwise.
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

func (s *Store) apply(op *market.Op) error {
	var res sql.Result
	var err error
	st := s.stmts[op.Kind]
	switch op.Kind {
	case market.OpAddPlayer:
		p := op.Player
		res, err = st.Exec(p.ID[:], p.Name, p.Perms, int64(p.Balance), p.LastSell, nonNil(p.Inventory), nonNil(p.Extra))
	case market.OpPlayerState:
		p := op.Player
		var inv any // NULL: the inventory stays
		if p.Inventory != nil {
			inv = p.Inventory
		}
		var extra any // NULL: the extra blob stays
		if p.Extra != nil {
			extra = p.Extra
		}
		var balance int64
		err = st.QueryRow(int64(op.Delta), p.LastSell, inv, p.ID[:], nonNil(op.Expect), extra, nonNil(op.ExpectExtra)).Scan(&balance, &p.Version)
		if errors.Is(err, sql.ErrNoRows) {
			return fmt.Errorf("player %s: %w", p.ID, errPlayerMoved)
		}
		p.Balance = market.Money(balance)
	case market.OpPutMail:
		m := op.Mail
		_, err = st.Exec(m.ID[:], m.Player[:], m.Item, m.Reason, m.Created, int64(m.PrevPrice))
	case market.OpDelMail:
		res, err = st.Exec(op.Mail.ID[:])
	case market.OpAddListing:
		_, err = st.Exec(op.Listing.ID, nonNil(op.Listing.Rec))
	case market.OpListingState:
		res, err = st.Exec(nonNil(op.Listing.Rec), op.Listing.ID, nonNil(op.Expect))
	case market.OpDelListing:
		res, err = st.Exec(op.Int, nonNil(op.Expect))
	case market.OpAddOrder:
		_, err = st.Exec(op.Order.ID, nonNil(op.Order.Rec))
	case market.OpOrderState:
		res, err = st.Exec(nonNil(op.Order.Rec), op.Order.ID, nonNil(op.Expect))
	case market.OpPutTx:
		t := op.Tx
		_, err = st.Exec(t.ID[:], string(t.State), nonNil(t.Rec))
	case market.OpTxState:
		t := op.Tx
		var rec any // NULL: any record
		if op.Expect != nil {
			rec = op.Expect
		}
		res, err = st.Exec(string(t.State), nonNil(t.Rec), t.ID[:], string(op.ExpectState), rec)
	case market.OpCounters:
		m := &op.Meta
		err = addToMeta(st, m, int64(m.FeeBalance), int64(m.Volume), m.Sales)
	case market.OpListingIDs:
		_, err = st.Exec(op.Int, op.Meta.NextListingID)
	case market.OpIssuance:
		m := &op.Meta
		i := &m.Issuance
		err = addToMeta(st, m, int64(i.MoneyIn), int64(i.MoneyOut), i.ItemsIn, i.ItemsOut)
	case market.OpLoaded:
		o := op.Meta.Opening
		_, err = st.Exec(int64(o.Money), o.Items, o.LoadedThrough)
	case market.OpRecordOpening:
		o := op.Meta.Opening
		_, err = st.Exec(int64(o.Money), o.Items, o.LoadedThrough, int64(op.Meta.Trimmed), op.Meta.TrimmedAt)
	case market.OpPlayerProfile:
		p := op.Player
		err = st.QueryRow(p.Name, p.Perms, p.ID[:], op.Int).Scan(&p.Version)
		if errors.Is(err, sql.ErrNoRows) {
			return fmt.Errorf("player %s at version %d: %w", p.ID, op.Int, market.ErrConflict)
		}
	default:
		return fmt.Errorf("unknown op kind %d", op.Kind)
	}
	if err != nil {
		return fmt.Errorf("op %d: %w", op.Kind, describe(err))
	}
	if res != nil {
		n, err := res.RowsAffected()
		if err != nil {
			return err
		}
		if n != 1 {
			if op.Kind == market.OpTxState {
				return market.ErrConflict
			}
			return fmt.Errorf("op %d matched %d rows, want 1: %w", op.Kind, n, market.ErrConflict)
		}
	}
	return nil
}

// errPlayerMoved is a player update that matched no row: the player is
// unknown, the balance would go below zero, or another instance changed
// the inventory first.
var errPlayerMoved = fmt.Errorf("no such player, too little money, or the inventory or the player's market data changed meanwhile: %w", market.ErrConflict)

// addToMeta runs an insert-or-add statement of meta rows with args and
// writes the rows' new totals into m.
func addToMeta(st *sql.Stmt, m *market.MetaRow, args ...any) error {
	rows, err := st.Query(args...)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var k string
		var v int64
		if err := rows.Scan(&k, &v); err != nil {
			return err
		}
		setMeta(m, k, v)
	}
	return rows.Err()
}

// setMeta sets the field of m that meta row k holds, and reports whether
// k is one.
func setMeta(m *market.MetaRow, k string, v int64) bool {
	switch k {
	case "next_listing_id":
		m.NextListingID = v
	case "fee_balance":
		m.FeeBalance = market.Money(v)
	case "market_volume":
		m.Volume = market.Money(v)
	case "total_sales":
		m.Sales = v
	case "issued_money_in":
		m.Issuance.MoneyIn = market.Money(v)
	case "issued_money_out":
		m.Issuance.MoneyOut = market.Money(v)
	case "issued_items_in":
		m.Issuance.ItemsIn = v
	case "issued_items_out":
		m.Issuance.ItemsOut = v
	case "opening_money":
		m.Opening.Money = market.Money(v)
	case "opening_items":
		m.Opening.Items = v
	case "loaded_through":
		m.Opening.LoadedThrough = v
	case "log_trimmed":
		m.Trimmed = uint64(v)
	case "log_trimmed_at":
		m.TrimmedAt = v
	default:
		return false
	}
	return true
}

// nonNil keeps an empty blob from becoming NULL.
func nonNil(b []byte) []byte {
	if b == nil {
		return []byte{}
	}
	return b
}

// ReserveListingIDs moves the next listing id n ahead and returns where it
// was: the block is the caller's alone.
func (s *Store) ReserveListingIDs(n int) (int64, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.writerFree(); err != nil {
		return 0, err
	}
	var first int64
	err := s.conn.QueryRowContext(s.ctx, "UPDATE meta SET v = v + ?1 WHERE k = 'next_listing_id' RETURNING v - ?1", n).Scan(&first)
	if err != nil {
		return 0, fmt.Errorf("reserve listing ids: %w", describe(err))
	}
	return first, nil
}

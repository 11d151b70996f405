package postgres

import (
	"context"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/rynek/rynek/market"
)

// The server's error codes for a refused batch (raised by rynek_expect).
const (
	codeConflict  = "RYN01" // a conditional op matched no row
	codeDelivered = "RYN02" // the delivery mark is past the newest entry
)

// statements write the ops; a conditional one fails through rynek_expect.
// The player and counter updates return the rows' new values.
var statements = map[market.OpKind]string{
	// The balance is booked as it is set: booked = balance.
	market.OpAddPlayer: `INSERT INTO players (id, name, perms, balance, booked, last_sell, inventory, extra)
		VALUES ($1, $2, $3, $4, $4, $5, $6, $7)`,
	// $1 delta, $2 last sell, $3 new inventory or NULL, $4 id, $5 the inventory it replaces,
	// $6 new extra or NULL, $7 the extra it replaces
	market.OpPlayerState: `WITH c AS (UPDATE players SET balance = balance + $1, booked = booked + $1, last_sell = greatest(last_sell, $2),
			inventory = coalesce($3, inventory), extra = coalesce($6, extra), version = version + 1
		WHERE id = $4 AND ($1 >= 0 OR balance + $1 >= 0) AND ($3::bytea IS NULL OR inventory = $5)
			AND ($6::bytea IS NULL OR extra = $7) RETURNING balance, version)
		SELECT rynek_expect((SELECT count(*) FROM c), '` + codeConflict + `',
			'player ' || $4::text || ' (unknown, too little money, or its inventory or market data changed meanwhile)'),
			(SELECT balance FROM c), (SELECT version FROM c)`,
	market.OpPutMail: `INSERT INTO mail (id, player, item, reason, created, prev_price) VALUES ($1, $2, $3, $4, $5, $6)`,
	market.OpDelMail: `WITH c AS (DELETE FROM mail WHERE id = $1 RETURNING 1)
		SELECT rynek_expect((SELECT count(*) FROM c), '` + codeConflict + `', 'mail ' || $1::text)`,
	market.OpAddListing: `INSERT INTO listings (id, rec) VALUES ($1, $2)`,
	market.OpListingState: `WITH c AS (UPDATE listings SET rec = $1 WHERE id = $2 AND rec = $3 RETURNING 1)
		SELECT rynek_expect((SELECT count(*) FROM c), '` + codeConflict + `', 'listing ' || $2::text || ' as this instance knew it')`,
	market.OpDelListing: `WITH c AS (DELETE FROM listings WHERE id = $1 AND rec = $2 RETURNING 1)
		SELECT rynek_expect((SELECT count(*) FROM c), '` + codeConflict + `', 'listing ' || $1::text || ' as this instance knew it')`,
	market.OpAddOrder: `INSERT INTO orders (id, rec) VALUES ($1, $2)`,
	market.OpOrderState: `WITH c AS (UPDATE orders SET rec = $1 WHERE id = $2 AND rec = $3 RETURNING 1)
		SELECT rynek_expect((SELECT count(*) FROM c), '` + codeConflict + `', 'order ' || $2::text || ' as this instance knew it')`,
	market.OpPutTx: `INSERT INTO transactions (id, state, rec) VALUES ($1, $2, $3)`,
	market.OpTxState: `WITH c AS (UPDATE transactions SET state = $1, rec = $2 WHERE id = $3 AND state = $4
			AND ($5::bytea IS NULL OR rec = $5) RETURNING 1)
		SELECT rynek_expect((SELECT count(*) FROM c), '` + codeConflict + `', 'transaction ' || $3::text || ' in state ' || $4)`,
	market.OpCounters: `WITH f AS (UPDATE meta SET v = v + $1 WHERE k = 'fee_balance' RETURNING v),
			m AS (UPDATE meta SET v = v + $2 WHERE k = 'market_volume' RETURNING v),
			s AS (UPDATE meta SET v = v + $3 WHERE k = 'total_sales' RETURNING v)
		SELECT (SELECT v FROM f), (SELECT v FROM m), (SELECT v FROM s)`,
	market.OpListingIDs: `UPDATE meta SET v = $2 WHERE k = 'next_listing_id' AND v = $1`,
	market.OpIssuance: `WITH a AS (UPDATE meta SET v = v + $1 WHERE k = 'issued_money_in' RETURNING v),
			b AS (UPDATE meta SET v = v + $2 WHERE k = 'issued_money_out' RETURNING v),
			c AS (UPDATE meta SET v = v + $3 WHERE k = 'issued_items_in' RETURNING v),
			d AS (UPDATE meta SET v = v + $4 WHERE k = 'issued_items_out' RETURNING v)
		SELECT (SELECT v FROM a), (SELECT v FROM b), (SELECT v FROM c), (SELECT v FROM d)`,
	market.OpPlayerProfile: `WITH c AS (UPDATE players SET name = $1, perms = $2, version = version + 1
			WHERE id = $3 AND version = $4 RETURNING version)
		SELECT rynek_expect((SELECT count(*) FROM c), '` + codeConflict + `',
			'player ' || $3::text || ' at version ' || $4::text), (SELECT version FROM c)`,
	market.OpLoaded: `UPDATE meta SET v = CASE k WHEN 'opening_money' THEN v + $1 WHEN 'opening_items' THEN v + $2 ELSE greatest(v, $3) END
		WHERE k IN ('opening_money', 'opening_items', 'loaded_through')`,
	market.OpRecordOpening: `INSERT INTO meta (k, v) VALUES ('opening_money', $1), ('opening_items', $2), ('loaded_through', $3),
		('log_trimmed', $4), ('log_trimmed_at', $5) ON CONFLICT (k) DO NOTHING`,
}

// Commit sends b's ops and log entries as one pipeline, which the server
// runs as one transaction: every statement, or none.
func (s *Store) Commit(b *market.Batch) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.writerFree(); err != nil {
		return err
	}
	if err := s.ready(); err != nil {
		return err
	}
	// The counter first: a mark past the newest entry is refused before
	// any op is looked at, as the other stores do. A batch is built anew
	// for each sending: pgx rewrites a sent one for its connection.
	newest := int64(s.lastSeq)
	adds := counterAdds(b.Ops)
	build := func() *pgx.Batch {
		var pb pgx.Batch
		if len(b.Events) > 0 || b.Published > 0 {
			pb.Queue(appendLog, len(b.Events), int64(b.Published), s.instance).QueryRow(func(r pgx.Row) error {
				var one int64
				return r.Scan(&one, &newest)
			})
		}
		queueOps(&pb, b.Ops, adds)
		if n := len(b.Events); n > 0 {
			kinds, ats, bodies := make([]string, n), make([]int64, n), make([][]byte, n)
			for i, e := range b.Events {
				kinds[i], ats[i], bodies[i] = string(e.Kind), e.At, nonNil(e.Body)
			}
			pb.Queue(insertEvents, n, kinds, ats, bodies, s.instance)
			pb.Queue("SELECT pg_notify('" + notifyChannel + "', '')")
		}
		return &pb
	}
	err := s.send(build())
	if err != nil && s.conn.IsClosed() && (len(b.Ops) > 0 || len(b.Events) > 0) {
		// The connection broke (a restarted server, a cut link). Learn
		// whether the commit happened; if it certainly did not, send it
		// once more on a new connection. A batch of only the delivery mark
		// is left to the next commit, which carries it again.
		committed := false
		if pgconn.SafeToRetry(err) { // never sent
			if cerr := s.connect(); cerr != nil {
				return unreachable(cerr)
			}
		} else if committed, err = s.learnOutcome(len(b.Events), err); err != nil {
			return err
		}
		if committed {
			newest = int64(s.inFlight)
			if err = s.readBack(b.Ops); err != nil {
				// Saved, but what it reports cannot be read: the service
				// learns of it as of a commit in doubt that landed.
				return s.inDoubt(len(b.Events), err)
			}
		} else if err = s.send(build()); err != nil && s.conn.IsClosed() {
			return s.inDoubt(len(b.Events), err)
		}
	}
	if err != nil && s.conn.IsClosed() {
		err = unreachable(err)
	}
	if err != nil {
		return err
	}
	s.lastSeq = uint64(newest)
	for i := range b.Events {
		b.Events[i].Seq = uint64(newest) - uint64(len(b.Events)) + uint64(i) + 1
	}
	return nil
}

// learnOutcome tries once, briefly (reconnectTimeout), to reconnect after
// the connection broke during a commit of n log entries (with err), and
// looks for entries of this instance's own past the newest one it knew:
// only the commit in flight can have written them (reach.go). It leaves the
// newest of them in s.inFlight. When the server does not answer at once,
// the commit is in doubt: the error says so, and Reach learns the outcome
// later, off the main thread.
func (s *Store) learnOutcome(n int, err error) (bool, error) {
	if cerr := s.connect(); cerr != nil {
		return false, s.inDoubt(n, err)
	}
	ctx, cancel := context.WithTimeout(s.ctx, commitTimeout)
	defer cancel()
	landed, lerr := s.outcome(ctx, s.conn, &doubt{entries: n, after: s.lastSeq})
	switch {
	case errors.Is(lerr, errLost):
		s.lost = lerr
		return false, lerr
	case lerr != nil:
		return false, s.inDoubt(n, lerr)
	case landed.Entries == 0:
		return false, nil
	}
	s.inFlight = landed.After + uint64(landed.Entries)
	return true, nil
}

// readBack fills in what Commit reports into ops (players' balances and
// versions, the counters' totals) after a commit whose results were lost
// with its connection: the rows as they are now, which is at least as new.
// When even that fails the outcome is known but memory cannot be made to
// agree: the store refuses further commits.
func (s *Store) readBack(ops []market.Op) error {
	ctx, cancel := context.WithTimeout(s.ctx, commitTimeout)
	defer cancel()
	for i := range ops {
		op := &ops[i]
		var err error
		switch op.Kind {
		case market.OpPlayerState:
			p := op.Player
			err = s.conn.QueryRow(ctx, "SELECT balance, version FROM players WHERE id = $1", p.ID).Scan((*int64)(&p.Balance), &p.Version)
		case market.OpCounters:
			m := &op.Meta
			err = s.conn.QueryRow(ctx, `SELECT (SELECT v FROM meta WHERE k = 'fee_balance'),
				(SELECT v FROM meta WHERE k = 'market_volume'), (SELECT v FROM meta WHERE k = 'total_sales')`).
				Scan((*int64)(&m.FeeBalance), (*int64)(&m.Volume), &m.Sales)
		case market.OpIssuance:
			err = s.conn.QueryRow(ctx, "SELECT "+issuanceColumns).Scan(issuanceFields(&op.Meta.Issuance)...)
		case market.OpPlayerProfile:
			err = s.conn.QueryRow(ctx, "SELECT version FROM players WHERE id = $1", op.Player.ID).Scan(&op.Player.Version)
		}
		if err != nil {
			return fmt.Errorf("read back the rows of a commit that was saved: %w", err)
		}
	}
	return nil
}

// counterAdds keeps what each OpCounters and OpIssuance adds, by the op's index: the
// op's Meta receives the totals as results arrive, and a batch sent again
// after a broken connection must add the amounts, not the totals of the
// attempt that failed.
func counterAdds(ops []market.Op) map[int]market.MetaRow {
	adds := map[int]market.MetaRow{}
	for i := range ops {
		if k := ops[i].Kind; k == market.OpCounters || k == market.OpIssuance {
			adds[i] = ops[i].Meta
		}
	}
	return adds
}

// queueOps adds the statements of ops to pb; adds are the counters' amounts
// (counterAdds).
func queueOps(pb *pgx.Batch, ops []market.Op, adds map[int]market.MetaRow) {
	for i := range ops {
		op := &ops[i]
		q := statements[op.Kind]
		switch op.Kind {
		case market.OpAddPlayer:
			p := op.Player
			pb.Queue(q, p.ID, p.Name, p.Perms, int64(p.Balance), p.LastSell, nonNil(p.Inventory), nonNil(p.Extra))
		case market.OpPlayerState:
			p := op.Player
			pb.Queue(q, int64(op.Delta), p.LastSell, p.Inventory, p.ID, nonNil(op.Expect), p.Extra, nonNil(op.ExpectExtra)).QueryRow(func(r pgx.Row) error {
				var one int64
				return r.Scan(&one, (*int64)(&p.Balance), &p.Version)
			})
		case market.OpPutMail:
			m := op.Mail
			pb.Queue(q, m.ID, m.Player, nonNil(m.Item), m.Reason, m.Created, int64(m.PrevPrice))
		case market.OpDelMail:
			pb.Queue(q, op.Mail.ID)
		case market.OpAddListing:
			pb.Queue(q, op.Listing.ID, nonNil(op.Listing.Rec))
		case market.OpListingState:
			pb.Queue(q, nonNil(op.Listing.Rec), op.Listing.ID, nonNil(op.Expect))
		case market.OpDelListing:
			pb.Queue(q, op.Int, nonNil(op.Expect))
		case market.OpAddOrder:
			pb.Queue(q, op.Order.ID, nonNil(op.Order.Rec))
		case market.OpOrderState:
			pb.Queue(q, nonNil(op.Order.Rec), op.Order.ID, nonNil(op.Expect))
		case market.OpPutTx:
			t := op.Tx
			pb.Queue(q, t.ID, string(t.State), nonNil(t.Rec))
		case market.OpTxState:
			t := op.Tx
			pb.Queue(q, string(t.State), nonNil(t.Rec), t.ID, string(op.ExpectState), op.Expect)
		case market.OpCounters:
			m, add := &op.Meta, adds[i]
			pb.Queue(q, int64(add.FeeBalance), int64(add.Volume), add.Sales).QueryRow(func(r pgx.Row) error {
				return r.Scan((*int64)(&m.FeeBalance), (*int64)(&m.Volume), &m.Sales)
			})
		case market.OpListingIDs:
			pb.Queue(q, op.Int, op.Meta.NextListingID)
		case market.OpIssuance:
			m, add := &op.Meta, adds[i].Issuance
			pb.Queue(q, int64(add.MoneyIn), int64(add.MoneyOut), add.ItemsIn, add.ItemsOut).QueryRow(func(r pgx.Row) error {
				return r.Scan(issuanceFields(&m.Issuance)...)
			})
		case market.OpLoaded:
			o := op.Meta.Opening
			pb.Queue(q, int64(o.Money), o.Items, o.LoadedThrough)
		case market.OpRecordOpening:
			o := op.Meta.Opening
			pb.Queue(q, int64(o.Money), o.Items, o.LoadedThrough, int64(op.Meta.Trimmed), op.Meta.TrimmedAt)
		case market.OpPlayerProfile:
			p := op.Player
			pb.Queue(q, p.Name, p.Perms, p.ID, op.Int).QueryRow(func(r pgx.Row) error {
				var one int64
				return r.Scan(&one, &p.Version)
			})
		default:
			pb.Queue("SELECT rynek_expect(0, 'RYN03', $1)", fmt.Sprintf("unknown op kind %d", op.Kind))
		}
	}
}

// send runs pb in one implicit transaction (a pipeline ends in one Sync)
// and translates the server's refusals.
// It waits at most commitTimeout for the answer: past that the link is
// taken for dead and the connection closed.
func (s *Store) send(pb *pgx.Batch) error {
	ctx, cancel := context.WithTimeout(s.ctx, commitTimeout)
	defer cancel()
	err := s.conn.SendBatch(ctx, pb).Close()
	if err != nil && ctx.Err() != nil {
		drop(s.conn)
	}
	return refusal(err)
}

// refusal translates the server's refusal of a batch into the store's
// errors.
func refusal(err error) error {
	var pgErr *pgconn.PgError
	switch {
	case err == nil:
		return nil
	case errors.As(err, &pgErr) && pgErr.Code == codeConflict:
		return fmt.Errorf("%s: %w", pgErr.Message, market.ErrConflict)
	case errors.As(err, &pgErr) && pgErr.Code == codeDelivered:
		return fmt.Errorf("cannot mark events as delivered: %s", pgErr.Message)
	}
	return err
}

// nonNil keeps an empty blob from becoming NULL.
func nonNil(b []byte) []byte {
	if b == nil {
		return []byte{}
	}
	return b
}

// ReserveListingIDs moves the next listing id n ahead and returns where it
// was: the block is the caller's alone, whichever instance asks.
func (s *Store) ReserveListingIDs(n int) (int64, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.writerFree(); err != nil {
		return 0, err
	}
	if err := s.ready(); err != nil {
		return 0, err
	}
	// Bounded as a commit is; one that breaks loses at most a block of
	// ids, which no listing then takes.
	ctx, cancel := context.WithTimeout(s.ctx, commitTimeout)
	defer cancel()
	var first int64
	err := s.conn.QueryRow(ctx, "UPDATE meta SET v = v + $1 WHERE k = 'next_listing_id' RETURNING v - $1", int64(n)).Scan(&first)
	if err != nil {
		if ctx.Err() != nil {
			drop(s.conn)
		}
		return 0, fmt.Errorf("reserve listing ids: %w", linkError(err))
	}
	return first, nil
}

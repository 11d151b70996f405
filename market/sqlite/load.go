package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"

	"github.com/google/uuid"
	"github.com/rynek/rynek/market"
)

// load streams the rows q sees to l, as Store.Load documents: the meta row
// (with the log's newest seq and publication mark from log), the players,
// the mail, the listings and the unfinished transactions.
func load(ctx context.Context, q queryer, l market.Loader, log market.MetaRow) error {
	var m market.MetaRow
	if err := readMeta(ctx, q, &m); err != nil {
		return err
	}
	var first sql.NullInt64
	if err := q.QueryRowContext(ctx, "SELECT min(seq) FROM events").Scan(&first); err != nil {
		return describe(err)
	}
	m.LastSeq, m.FirstSeq, m.PublishedSeq = log.LastSeq, uint64(first.Int64), log.PublishedSeq
	// Sizes for the service's tables. Transactions are counted only when all
	// of them load now: counting a million rows would cost more than the
	// few unfinished ones save.
	if err := q.QueryRowContext(ctx, "SELECT count(*) FROM listings").Scan(&m.Listings); err != nil {
		return describe(err)
	}
	if !m.HasCounters {
		if err := q.QueryRowContext(ctx, "SELECT count(*) FROM transactions").Scan(&m.Transactions); err != nil {
			return describe(err)
		}
	}
	if err := l.Meta(m); err != nil {
		return err
	}
	open := ""
	if m.HasCounters {
		// History loads later (LoadHistory); the partial index finds the rest.
		open = "WHERE state NOT IN ('COMPLETED', 'FAILED', 'ROLLED_BACK')"
	}
	return readRows(ctx, q, l, rowFilter{transactions: open})
}

// readMeta reads the counters of the meta table into m.
func readMeta(ctx context.Context, q queryer, m *market.MetaRow) error {
	seen, counters, opening := 0, 0, 0
	err := each(ctx, q, "SELECT k, v FROM meta", func(r *sql.Rows) error {
		var k string
		var v int64
		if err := r.Scan(&k, &v); err != nil {
			return err
		}
		setMeta(m, k, v)
		switch k {
		case "next_listing_id", "fee_balance":
			seen++
		case "market_volume", "total_sales":
			counters++
		case "opening_money", "opening_items", "loaded_through", "log_trimmed", "log_trimmed_at":
			opening++
		}
		return nil
	})
	if err != nil {
		return err
	}
	if seen != 2 {
		return fmt.Errorf("the meta table lacks its rows (%d of 2); the database was edited or damaged", seen)
	}
	m.HasCounters = counters == 2
	m.HasOpening = opening == 5
	return nil
}

// rowFilter says which rows readRows reads: every row of a kind, those
// with the ids a market.RowQuery names (only), or the transactions a
// condition picks.
type rowFilter struct {
	only         *market.RowQuery
	transactions string // a WHERE clause, when only is nil
}

// readRows streams the players, the mail, the listings, the orders and the
// transactions f picks to l.
func readRows(ctx context.Context, q queryer, l market.Loader, f rowFilter) error {
	var players, mail, listings, orders, txs string
	var playerIDs, listingIDs, orderIDs, txIDs []any
	if f.only != nil {
		for _, id := range f.only.Players {
			playerIDs = append(playerIDs, id[:])
		}
		for _, id := range f.only.Listings {
			listingIDs = append(listingIDs, id)
		}
		for _, id := range f.only.Orders {
			orderIDs = append(orderIDs, id)
		}
		for _, id := range f.only.Transactions {
			txIDs = append(txIDs, id[:])
		}
		players, mail = "WHERE id IN "+marks(len(playerIDs)), "WHERE player IN "+marks(len(playerIDs))
		listings, orders, txs = "WHERE id IN "+marks(len(listingIDs)), "WHERE id IN "+marks(len(orderIDs)), "WHERE id IN "+marks(len(txIDs))
	} else {
		txs = f.transactions
	}
	if err := each(ctx, q, "SELECT id, name, perms, balance, booked, last_sell, inventory, version, extra FROM players "+players+" ORDER BY name, id", func(r *sql.Rows) error {
		var p market.PlayerRow
		var id []byte
		var bal, booked int64
		if err := r.Scan(&id, &p.Name, &p.Perms, &bal, &booked, &p.LastSell, (*sql.RawBytes)(&p.Inventory), &p.Version, (*sql.RawBytes)(&p.Extra)); err != nil {
			return err
		}
		p.ID, p.Balance, p.Booked = toUUID(id), market.Money(bal), market.Money(booked)
		return l.Player(p)
	}, playerIDs...); err != nil {
		return fmt.Errorf("players: %w", err)
	}
	if err := each(ctx, q, "SELECT id, player, item, reason, created, prev_price FROM mail "+mail+" ORDER BY created, id", func(r *sql.Rows) error {
		var mr market.MailRow
		var id, pid sql.RawBytes
		var prev int64
		if err := r.Scan(&id, &pid, (*sql.RawBytes)(&mr.Item), &mr.Reason, &mr.Created, &prev); err != nil {
			return err
		}
		mr.ID, mr.Player, mr.PrevPrice = toUUID(id), toUUID(pid), market.Money(prev)
		return l.Mail(mr)
	}, playerIDs...); err != nil {
		return fmt.Errorf("mail: %w", err)
	}
	if err := each(ctx, q, "SELECT id, rec FROM listings "+listings, func(r *sql.Rows) error {
		var lr market.ListingRow
		if err := r.Scan(&lr.ID, (*sql.RawBytes)(&lr.Rec)); err != nil {
			return err
		}
		return l.Listing(lr)
	}, listingIDs...); err != nil {
		return fmt.Errorf("listings: %w", err)
	}
	if err := each(ctx, q, "SELECT id, rec FROM orders "+orders, func(r *sql.Rows) error {
		var or market.OrderRow
		if err := r.Scan(&or.ID, (*sql.RawBytes)(&or.Rec)); err != nil {
			return err
		}
		return l.Order(or)
	}, orderIDs...); err != nil {
		return fmt.Errorf("orders: %w", err)
	}
	if err := each(ctx, q, "SELECT id, state, rec FROM transactions "+txs, scanTx(l.Transaction), txIDs...); err != nil {
		return fmt.Errorf("transactions: %w", err)
	}
	return nil
}

// marks is an IN list of n parameters; none matches no row.
func marks(n int) string {
	if n == 0 {
		return "(NULL)"
	}
	return "(" + strings.Repeat("?, ", n-1) + "?)"
}

// loadHistory streams what q sees of the history, as Store.LoadHistory
// documents.
func loadHistory(ctx context.Context, q queryer, after [16]byte, limit int, fn func(market.TxRow) error) (int, error) {
	n := 0
	err := each(ctx, q, `SELECT id, state, rec FROM transactions
		WHERE id > ? AND state IN ('COMPLETED', 'FAILED', 'ROLLED_BACK') ORDER BY id LIMIT ?`,
		scanTx(func(t market.TxRow) error { n++; return fn(t) }), after[:], limit)
	return n, err
}

// Empty reports whether the market has no players yet (a new database, to
// be seeded).
func (s *Store) Empty() (bool, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.writerFree(); err != nil {
		return false, err
	}
	var n int
	if err := s.conn.QueryRowContext(s.ctx, "SELECT count(*) FROM (SELECT 1 FROM players LIMIT 1)").Scan(&n); err != nil {
		return false, describe(err)
	}
	return n == 0, nil
}

var errStop = errors.New("stop")

// queryer is what the reads read with: the writer's connection, the
// readers, or a snapshot's transaction.
type queryer interface {
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
}

func each(ctx context.Context, q queryer, query string, fn func(*sql.Rows) error, args ...any) error {
	rows, err := q.QueryContext(ctx, query, args...)
	if err != nil {
		return describe(err)
	}
	for rows.Next() {
		if err := fn(rows); err != nil {
			rows.Close()
			if err == errStop {
				return err
			}
			return describe(err)
		}
	}
	return closeRows(rows)
}

func closeRows(r *sql.Rows) error {
	err := r.Err()
	if cerr := r.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return describe(err)
	}
	return nil
}

// Load streams every row to l. It must not run concurrently with Commit.
func (s *Store) Load(l market.Loader) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.writerFree(); err != nil {
		return err
	}
	return load(s.ctx, s.conn, l, market.MetaRow{LastSeq: s.lastSeq, PublishedSeq: s.published})
}

func scanTx(fn func(market.TxRow) error) func(*sql.Rows) error {
	return func(r *sql.Rows) error {
		var t market.TxRow
		var id sql.RawBytes
		var state string
		if err := r.Scan(&id, &state, (*sql.RawBytes)(&t.Rec)); err != nil {
			return err
		}
		t.ID, t.State = toUUID(id), market.State(state)
		return fn(t)
	}
}

// LoadHistory streams finished transactions with ids above after, on a
// read connection, so commits go on meanwhile.
func (s *Store) LoadHistory(after [16]byte, limit int, fn func(market.TxRow) error) (int, error) {
	if s.isClosed() {
		return 0, errClosed
	}
	return loadHistory(s.ctx, s.readers, after, limit, fn)
}

func toUUID(b []byte) uuid.UUID {
	var u uuid.UUID
	copy(u[:], b)
	return u
}

package postgres

import (
	"context"
	"fmt"
	"strings"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/rynek/rynek/market"
)

// querier is what the reads of the log and the history read with: the
// read connections, or a snapshot's transaction.
type querier interface {
	Query(ctx context.Context, sql string, args ...any) (pgx.Rows, error)
}

// loadHistory streams what q sees of the history, as Store.LoadHistory
// documents.
func loadHistory(ctx context.Context, q querier, after [16]byte, limit int, fn func(market.TxRow) error) (int, error) {
	rows, err := q.Query(ctx, `SELECT id, state, rec FROM transactions
		WHERE id > $1 AND state IN ('COMPLETED', 'FAILED', 'ROLLED_BACK') ORDER BY id LIMIT $2`, uuid.UUID(after), limit)
	if err != nil {
		return 0, err
	}
	defer rows.Close()
	n := 0
	scan := scanTx(func(t market.TxRow) error { n++; return fn(t) })
	for rows.Next() {
		if err := scan(rows); err != nil {
			return n, err
		}
	}
	return n, rows.Err()
}

// openingColumns reads the opening account and the log's horizon in a
// query's select list: whether the market keeps them, and their values.
const openingColumns = `(SELECT count(*) = 5 FROM meta WHERE k IN ('opening_money', 'opening_items', 'loaded_through', 'log_trimmed', 'log_trimmed_at')),
	coalesce((SELECT v FROM meta WHERE k = 'opening_money'), 0), coalesce((SELECT v FROM meta WHERE k = 'opening_items'), 0),
	coalesce((SELECT v FROM meta WHERE k = 'loaded_through'), 0), coalesce((SELECT v FROM meta WHERE k = 'log_trimmed'), 0),
	coalesce((SELECT v FROM meta WHERE k = 'log_trimmed_at'), 0)`

// openingFields are where a scan of openingColumns goes.
func openingFields(m *market.MetaRow) []any {
	return []any{&m.HasOpening, (*int64)(&m.Opening.Money), &m.Opening.Items, &m.Opening.LoadedThrough, &m.Trimmed, &m.TrimmedAt}
}

// issuanceColumns reads the issuance account in a query's select list.
const issuanceColumns = `(SELECT v FROM meta WHERE k = 'issued_money_in'), (SELECT v FROM meta WHERE k = 'issued_money_out'),
	(SELECT v FROM meta WHERE k = 'issued_items_in'), (SELECT v FROM meta WHERE k = 'issued_items_out')`

// issuanceFields are where a scan of issuanceColumns goes.
func issuanceFields(i *market.Issuance) []any {
	return []any{(*int64)(&i.MoneyIn), (*int64)(&i.MoneyOut), &i.ItemsIn, &i.ItemsOut}
}

// Empty reports whether the market has no players yet.
func (s *Store) Empty() (bool, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.writerFree(); err != nil {
		return false, err
	}
	var any bool
	err := s.conn.QueryRow(s.ctx, "SELECT EXISTS (SELECT 1 FROM players)").Scan(&any)
	return !any, err
}

// Load streams every row to l, from one snapshot: the rows are the market
// as of the newest entry it reports (other instances may be committing). It
// must not run concurrently with Commit.
func (s *Store) Load(l market.Loader) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.writerFree(); err != nil {
		return err
	}
	return snapshot(s.ctx, s.conn, func(tx pgx.Tx) error {
		var m market.MetaRow
		if err := readMeta(s.ctx, tx, &m); err != nil {
			return err
		}
		var published int64 // a tool has no mark: it delivers from now on
		if err := tx.QueryRow(s.ctx, `SELECT coalesce((SELECT published FROM rynek_instances WHERE name = $1), last_seq)
			FROM event_counter`, s.instance).Scan(&published); err != nil {
			return fmt.Errorf("read this instance's delivery mark: %w", err)
		}
		m.PublishedSeq = uint64(published)
		var first int64
		if err := tx.QueryRow(s.ctx, `SELECT coalesce(min(seq), 0), (SELECT count(*) FROM listings) FROM events`).Scan(&first, &m.Listings); err != nil {
			return fmt.Errorf("read the log's start and count the listings: %w", err)
		}
		m.FirstSeq = uint64(first)
		if err := l.Meta(m); err != nil {
			return err
		}
		// History loads later (LoadHistory); the partial index finds the rest.
		return readRows(s.ctx, tx, l, rowFilter{transactions: "WHERE state NOT IN ('COMPLETED', 'FAILED', 'ROLLED_BACK')"})
	})
}

// ReadRows reads the rows q names, from one snapshot on a read connection.
func (s *Store) ReadRows(q market.RowQuery, l market.Loader) error {
	if s.closed.Load() {
		return errClosed
	}
	ctx, cancel := context.WithTimeout(s.ctx, readTimeout)
	defer cancel()
	conn, err := s.readers.Acquire(ctx)
	if err != nil {
		return linkError(err)
	}
	defer conn.Release()
	return linkError(snapshot(ctx, conn.Conn(), func(tx pgx.Tx) error {
		var m market.MetaRow
		if err := readMeta(ctx, tx, &m); err != nil {
			return err
		}
		if err := l.Meta(m); err != nil {
			return err
		}
		return readRows(ctx, tx, l, rowFilter{players: "WHERE id = ANY($1)", mail: "WHERE player = ANY($1)",
			listings: "WHERE id = ANY($1)", transactions: "WHERE id = ANY($1)", orders: "WHERE id = ANY($1)",
			playerIDs: q.Players, listingIDs: q.Listings, transactionIDs: q.Transactions, orderIDs: q.Orders})
	}))
}

// snapshot runs fn in a read-only transaction that sees one instant of the
// market.
func snapshot(ctx context.Context, conn *pgx.Conn, fn func(pgx.Tx) error) error {
	return pgx.BeginTxFunc(ctx, conn, pgx.TxOptions{IsoLevel: pgx.RepeatableRead, AccessMode: pgx.ReadOnly}, fn)
}

// readMeta reads the counters and the newest seq.
func readMeta(ctx context.Context, tx pgx.Tx, m *market.MetaRow) error {
	var last int64
	fields := append([]any{&m.NextListingID, (*int64)(&m.FeeBalance), (*int64)(&m.Volume), &m.Sales, &last}, issuanceFields(&m.Issuance)...)
	err := tx.QueryRow(ctx, `SELECT
		(SELECT v FROM meta WHERE k = 'next_listing_id'), (SELECT v FROM meta WHERE k = 'fee_balance'),
		(SELECT v FROM meta WHERE k = 'market_volume'), (SELECT v FROM meta WHERE k = 'total_sales'), c.last_seq,
		`+issuanceColumns+`, `+openingColumns+`
		FROM event_counter c`).Scan(append(fields, openingFields(m)...)...)
	if err != nil {
		return fmt.Errorf("read the counters: %w", err)
	}
	m.HasCounters = true
	m.LastSeq = uint64(last)
	return nil
}

// rowFilter selects rows for readRows: a WHERE clause per table (empty:
// every row), whose $1 is the ids of that kind (the mail's are the
// players').
type rowFilter struct {
	players, mail, listings, transactions, orders string
	playerIDs                                     []uuid.UUID
	listingIDs, orderIDs                          []int64
	transactionIDs                                []uuid.UUID
}

// readRows streams the players, mail, listings, orders and transactions that f
// selects, in the order Loader wants them.
func readRows(ctx context.Context, tx pgx.Tx, l market.Loader, f rowFilter) error {
	each := func(query string, ids any, fn func(pgx.Rows) error) error {
		var args []any
		if strings.Contains(query, "$1") {
			args = []any{ids}
		}
		rows, err := tx.Query(ctx, query, args...)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			if err := fn(rows); err != nil {
				return err
			}
		}
		return rows.Err()
	}
	if err := each("SELECT id, name, perms, balance, booked, last_sell, inventory, version, extra FROM players "+f.players+" ORDER BY name, id", f.playerIDs, func(r pgx.Rows) error {
		var p market.PlayerRow
		if err := r.Scan(&p.ID, &p.Name, &p.Perms, (*int64)(&p.Balance), (*int64)(&p.Booked), &p.LastSell, &p.Inventory, &p.Version, &p.Extra); err != nil {
			return err
		}
		return l.Player(p)
	}); err != nil {
		return fmt.Errorf("players: %w", err)
	}
	if err := each("SELECT id, player, item, reason, created, prev_price FROM mail "+f.mail+" ORDER BY created, id", f.playerIDs, func(r pgx.Rows) error {
		var mr market.MailRow
		if err := r.Scan(&mr.ID, &mr.Player, &mr.Item, &mr.Reason, &mr.Created, (*int64)(&mr.PrevPrice)); err != nil {
			return err
		}
		return l.Mail(mr)
	}); err != nil {
		return fmt.Errorf("mail: %w", err)
	}
	if err := each("SELECT id, rec FROM listings "+f.listings, f.listingIDs, func(r pgx.Rows) error {
		var lr market.ListingRow
		if err := r.Scan(&lr.ID, &lr.Rec); err != nil {
			return err
		}
		return l.Listing(lr)
	}); err != nil {
		return fmt.Errorf("listings: %w", err)
	}
	if err := each("SELECT id, rec FROM orders "+f.orders, f.orderIDs, func(r pgx.Rows) error {
		var or market.OrderRow
		if err := r.Scan(&or.ID, &or.Rec); err != nil {
			return err
		}
		return l.Order(or)
	}); err != nil {
		return fmt.Errorf("orders: %w", err)
	}
	if err := each("SELECT id, state, rec FROM transactions "+f.transactions, f.transactionIDs, scanTx(l.Transaction)); err != nil {
		return fmt.Errorf("transactions: %w", err)
	}
	return nil
}

func scanTx(fn func(market.TxRow) error) func(pgx.Rows) error {
	return func(r pgx.Rows) error {
		var t market.TxRow
		var state string
		if err := r.Scan(&t.ID, &state, &t.Rec); err != nil {
			return err
		}
		t.State = market.State(state)
		return fn(t)
	}
}

// LoadHistory streams finished transactions with ids above after, on a
// read connection, so commits go on meanwhile.
func (s *Store) LoadHistory(after [16]byte, limit int, fn func(market.TxRow) error) (int, error) {
	if s.closed.Load() {
		return 0, errClosed
	}
	return loadHistory(s.ctx, s.readers, after, limit, fn)
}

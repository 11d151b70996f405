package sqlite

import (
	"context"
	"database/sql"
	"fmt"

	"github.com/rynek/rynek/market"
)

// load streams the rows q sees to l, as Store.Load documents: the meta row
// (with the log's newest seq and publication mark from log), the players,
// the mail, the listings and the unfinished transactions.
func load(ctx context.Context, q queryer, l market.Loader, log market.MetaRow) error {
	var m market.MetaRow
	seen, counters, opening := 0, 0, 0
	err := each(ctx, q, "SELECT k, v FROM meta", func(r *sql.Rows) error {
		var k string
		var v int64
		if err := r.Scan(&k, &v); err != nil {
			return err
		}
		setMeta(&m, k, v)
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
	if err := each(ctx, q, "SELECT id, name, perms, balance, last_sell, inventory, version, extra FROM players ORDER BY name, id", func(r *sql.Rows) error {
		var p market.PlayerRow
		var id []byte
		var bal int64
		if err := r.Scan(&id, &p.Name, &p.Perms, &bal, &p.LastSell, (*sql.RawBytes)(&p.Inventory), &p.Version, (*sql.RawBytes)(&p.Extra)); err != nil {
			return err
		}
		p.ID, p.Balance = toUUID(id), market.Money(bal)
		return l.Player(p)
	}); err != nil {
		return fmt.Errorf("players: %w", err)
	}
	if err := each(ctx, q, "SELECT id, player, item, reason, created, prev_price FROM mail ORDER BY created, id", func(r *sql.Rows) error {
		var mr market.MailRow
		var id, pid sql.RawBytes
		var prev int64
		if err := r.Scan(&id, &pid, (*sql.RawBytes)(&mr.Item), &mr.Reason, &mr.Created, &prev); err != nil {
			return err
		}
		mr.ID, mr.Player, mr.PrevPrice = toUUID(id), toUUID(pid), market.Money(prev)
		return l.Mail(mr)
	}); err != nil {
		return fmt.Errorf("mail: %w", err)
	}
	if err := each(ctx, q, "SELECT id, rec FROM listings", func(r *sql.Rows) error {
		var lr market.ListingRow
		if err := r.Scan(&lr.ID, (*sql.RawBytes)(&lr.Rec)); err != nil {
			return err
		}
		return l.Listing(lr)
	}); err != nil {
		return fmt.Errorf("listings: %w", err)
	}
	open := "SELECT id, state, rec FROM transactions"
	if m.HasCounters {
		// History loads later (LoadHistory); the partial index finds the rest.
		open += " WHERE state NOT IN ('COMPLETED', 'FAILED', 'ROLLED_BACK')"
	}
	if err := each(ctx, q, open, scanTx(l.Transaction)); err != nil {
		return fmt.Errorf("transactions: %w", err)
	}
	return nil
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

// readEvents streams what q sees of the log, as Store.ReadEvents documents.
func readEvents(ctx context.Context, q queryer, after uint64, limit int, fn func(market.EventRow) error) (int, error) {
	n := 0
	err := each(ctx, q, "SELECT seq, kind, at, body FROM events WHERE seq > ? ORDER BY seq LIMIT ?", func(r *sql.Rows) error {
		var e market.EventRow
		var seq int64
		var kind string
		if err := r.Scan(&seq, &kind, &e.At, (*sql.RawBytes)(&e.Body)); err != nil {
			return err
		}
		e.Seq, e.Kind = uint64(seq), market.EventKind(kind)
		n++
		return fn(e)
	}, int64(after), limit)
	return n, err
}

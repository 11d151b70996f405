package postgres

import (
	"context"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/rynek/rynek/market"
)

// querier is what the reads of the log and the history read with: the
// read connections, or a snapshot's transaction.
type querier interface {
	Query(ctx context.Context, sql string, args ...any) (pgx.Rows, error)
}

// readEvents streams what q sees of the log, as Store.ReadEvents documents.
func readEvents(ctx context.Context, q querier, after uint64, limit int, fn func(market.EventRow) error) (int, error) {
	rows, err := q.Query(ctx, "SELECT seq, kind, at, body, origin FROM events WHERE seq > $1 ORDER BY seq LIMIT $2", int64(after), limit)
	if err != nil {
		return 0, err
	}
	defer rows.Close()
	n := 0
	for rows.Next() {
		var e market.EventRow
		var seq int64
		var kind string
		if err := rows.Scan(&seq, &kind, &e.At, &e.Body, &e.Origin); err != nil {
			return n, err
		}
		e.Seq, e.Kind = uint64(seq), market.EventKind(kind)
		n++
		if err := fn(e); err != nil {
			return n, err
		}
	}
	return n, rows.Err()
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

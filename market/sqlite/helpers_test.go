package sqlite_test

import (
	"database/sql"
	"testing"

	"github.com/rynek/rynek/market"
)

// openRaw opens path with the plain driver, past the store.
func openRaw(t *testing.T, path string) *sql.DB {
	t.Helper()
	db, err := sql.Open("sqlite", "file:"+path)
	mustOK(t, err)
	return db
}

// mustOK fails the test at once on an error.
func mustOK(t testing.TB, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// recorder is a market.Loader that keeps the players and transactions a
// Load reports.
type recorder struct {
	players []market.PlayerRow
	txs     []market.TxRow
}

func (r *recorder) Meta(market.MetaRow) error { return nil }

func (r *recorder) Player(p market.PlayerRow) error { r.players = append(r.players, p); return nil }

func (r *recorder) Mail(market.MailRow) error { return nil }

func (r *recorder) Listing(market.ListingRow) error { return nil }

func (r *recorder) Transaction(t market.TxRow) error { r.txs = append(r.txs, t); return nil }
func (r *recorder) Order(market.OrderRow) error      { return nil }

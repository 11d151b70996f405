package postgres_test

import (
	"context"
	"os"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/rynek/rynek/internal/pgtest"
)

func TestMain(m *testing.M) { os.Exit(pgtest.Main(m)) }

func mustOK(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

func exec(t *testing.T, dsn, q string) {
	t.Helper()
	conn, err := pgx.Connect(context.Background(), dsn)
	mustOK(t, err)
	defer conn.Close(context.Background())
	_, err = conn.Exec(context.Background(), q)
	mustOK(t, err)
}

func count(t *testing.T, dsn, q string) int {
	t.Helper()
	conn, err := pgx.Connect(context.Background(), dsn)
	mustOK(t, err)
	defer conn.Close(context.Background())
	var n int
	mustOK(t, conn.QueryRow(context.Background(), q).Scan(&n))
	return n
}

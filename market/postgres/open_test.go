package postgres_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/rynek/rynek/internal/pgtest"
	"github.com/rynek/rynek/market/postgres"
)

// TestOpenRefuses: a database holding other tables, one with a newer schema
// and a market another instance has open are refused with a clear error,
// and left as they were.
func TestOpenRefuses(t *testing.T) {
	t.Run("foreign", func(t *testing.T) {
		dsn := pgtest.Database(t)
		exec(t, dsn, "CREATE TABLE customers (id int)")
		_, err := postgres.Open(dsn, postgres.Options{})
		if !errors.Is(err, postgres.ErrForeign) || !strings.Contains(err.Error(), "already holds 1 other tables") {
			t.Fatalf("got %v", err)
		}
		if n := count(t, dsn, "SELECT count(*) FROM information_schema.tables WHERE table_schema = current_schema()"); n != 1 {
			t.Fatalf("%d tables after the refusal", n)
		}
	})
	t.Run("newer", func(t *testing.T) {
		dsn := pgtest.Database(t)
		st, err := postgres.Open(dsn, postgres.Options{})
		mustOK(t, err)
		mustOK(t, st.Close())
		exec(t, dsn, "UPDATE rynek_schema SET version = 99")
		if _, err := postgres.Open(dsn, postgres.Options{}); err == nil || !strings.Contains(err.Error(), "schema version 99, newer than this program's 7") {
			t.Fatalf("got %v", err)
		}
	})
	t.Run("an instance's name twice", func(t *testing.T) {
		dsn := pgtest.Database(t)
		st, err := postgres.Open(dsn, postgres.Options{Instance: "lobby"})
		mustOK(t, err)
		defer st.Close()
		if _, err := postgres.Open(dsn, postgres.Options{Instance: "lobby"}); err == nil ||
			!strings.Contains(err.Error(), `another Rynek instance named "lobby" has this market open; close it, or give each instance its own name`) {
			t.Fatalf("got %v", err)
		}
		other, err := postgres.Open(dsn, postgres.Options{Instance: "survival"})
		mustOK(t, err) // another name shares the market
		other.Close()
		mustOK(t, st.Close())
		again, err := postgres.Open(dsn, postgres.Options{Instance: "lobby"})
		mustOK(t, err)
		again.Close()
	})
	t.Run("unreachable", func(t *testing.T) {
		_, err := postgres.Open("postgres://nobody:secret@127.0.0.1:1/market?connect_timeout=2", postgres.Options{})
		if err == nil || strings.Contains(err.Error(), "secret") || !strings.Contains(err.Error(), "nobody@127.0.0.1:1/market") {
			t.Fatalf("got %v (the password must not show)", err)
		}
	})
}

// TestConnectionsAreNamed: every connection of an instance carries the
// application name rynek:<instance>, so an admin (and the network tests
// waiting for a killed instance's last commit) can tell whose it is; a
// name in the connection string is kept.
func TestConnectionsAreNamed(t *testing.T) {
	dsn := pgtest.Database(t)
	count := func(name string) int {
		t.Helper()
		c, err := pgx.Connect(context.Background(), dsn)
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close(context.Background())
		var n int
		if err := c.QueryRow(context.Background(), `SELECT count(*) FROM pg_stat_activity WHERE application_name = $1`, name).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	st, err := postgres.Open(dsn, postgres.Options{Instance: "lobby-1"})
	if err != nil {
		t.Fatal(err)
	}
	if n := count("rynek:lobby-1"); n < 1 {
		t.Errorf("%d connections named rynek:lobby-1", n)
	}
	st.Close()
	named := dsn + " application_name=panel" // a keyword/value string
	if strings.HasPrefix(dsn, "postgres") {
		named = dsn + "?application_name=panel"
		if strings.Contains(dsn, "?") {
			named = dsn + "&application_name=panel"
		}
	}
	st, err = postgres.Open(named, postgres.Options{Instance: "lobby-2"})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if n := count("panel"); n < 1 {
		t.Errorf("the connection string's application_name was not kept")
	}
}

package postgres_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/rynek/rynek/internal/pgtest"
	"github.com/rynek/rynek/market"
	"github.com/rynek/rynek/market/postgres"
	"github.com/rynek/rynek/market/storetest"
)

// TestSnapshots runs the stores' suite of read-only snapshots.
func TestSnapshots(t *testing.T) { storetest.Snapshots(t, tables) }

// tablesDigest is a digest of every row of every table of the market.
func tablesDigest(t *testing.T, dsn string) string {
	t.Helper()
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, dsn)
	mustOK(t, err)
	defer conn.Close(ctx)
	var all []string
	for _, table := range []string{"rynek_schema", "meta", "players", "mail", "listings", "transactions", "events", "event_counter", "rynek_instances"} {
		var d string
		mustOK(t, conn.QueryRow(ctx, "SELECT coalesce(md5(string_agg(t::text, ',' ORDER BY t::text)), '') FROM "+table+" t").Scan(&d))
		all = append(all, table+" "+d)
	}
	return strings.Join(all, "\n")
}

// TestSnapshotChangesNothing: reading a market through a snapshot leaves
// every table as it was (no instance registered, no schema touched), and
// its connection says what it is in pg_stat_activity.
func TestSnapshotChangesNothing(t *testing.T) {
	dsn := pgtest.Database(t)
	st, err := postgres.Open(dsn, postgres.Options{Instance: "lobby"})
	mustOK(t, err)
	for i := 0; i < 3; i++ {
		mustOK(t, st.Commit(&market.Batch{Events: []market.EventRow{{Kind: market.KindPlayerData, At: int64(i), Body: []byte{byte(i)}}}}))
	}
	mustOK(t, st.Close())
	before := tablesDigest(t, dsn)
	snap, err := postgres.OpenSnapshot(dsn, "check")
	mustOK(t, err)
	if n := count(t, dsn, "SELECT count(*) FROM pg_stat_activity WHERE application_name = 'rynek:check'"); n != 1 {
		t.Fatalf("%d connections named rynek:check, want the snapshot's", n)
	}
	if d := storetest.DumpStore(t, snap); len(d.Events) != 3 {
		t.Fatalf("read %d entries, want 3", len(d.Events))
	}
	mustOK(t, snap.Close())
	if after := tablesDigest(t, dsn); after != before {
		t.Fatalf("the read changed the tables:\n%s\nwere\n%s", after, before)
	}
}

// TestSnapshotRefuses: a database that is not a Rynek market, an empty
// one and a market of an older schema are refused, and left as they were:
// a snapshot neither creates nor upgrades a schema.
func TestSnapshotRefuses(t *testing.T) {
	foreign := pgtest.Database(t)
	exec(t, foreign, "CREATE TABLE customers (id int)")
	empty := pgtest.Database(t)
	old := pgtest.Database(t)
	st, err := postgres.Open(old, postgres.Options{})
	mustOK(t, err)
	mustOK(t, st.Close())
	exec(t, old, "UPDATE rynek_schema SET version = 3")
	for _, c := range []struct{ name, dsn, msg string }{
		{"foreign", foreign, "not a Rynek market database: it has no rynek_schema table"},
		{"empty", empty, "not a Rynek market database: it has no rynek_schema table"},
		{"older", old, "schema version 3, older than this program's 7; open it once with this Rynek, which upgrades it"},
	} {
		before := count(t, c.dsn, "SELECT count(*) FROM information_schema.tables WHERE table_schema = current_schema()")
		_, err := postgres.OpenSnapshot(c.dsn, "check")
		if err == nil || !strings.Contains(err.Error(), c.msg) || c.name != "older" && !errors.Is(err, postgres.ErrForeign) {
			t.Errorf("%s: %v, want %q", c.name, err, c.msg)
		}
		if after := count(t, c.dsn, "SELECT count(*) FROM information_schema.tables WHERE table_schema = current_schema()"); after != before {
			t.Errorf("%s: %d tables after the refusal, %d before", c.name, after, before)
		}
	}
	if v := count(t, old, "SELECT version FROM rynek_schema"); v != 3 {
		t.Fatalf("the older schema became version %d", v)
	}
}

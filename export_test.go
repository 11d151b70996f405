package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rynek/rynek/internal/pgtest"
	"github.com/rynek/rynek/internal/readonly"
	"github.com/rynek/rynek/market/sqlite"
)

// TestExportReadsWithoutWriting: `rynek export` only reads, so it works
// where a writer could not: on read-only media (a mounted snapshot), and
// while another process has the market open; the market's file is left as
// it was.
func TestExportReadsWithoutWriting(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "market.db")
	var out, errb bytes.Buffer
	if code := run([]string{"import", "--from", pluginFixture("server"), "--db", db, "--expiry-days", "36500"}, &out, &errb); code != 0 {
		t.Fatalf("import: exit %d: %s", code, errb.String())
	}
	os.Remove(filepath.Join(dir, "rynek.yml"))
	media := readonly.Folder(t, dir)
	out.Reset()
	if code := run([]string{"export", "--db", filepath.Join(media, "market.db"), "--to", filepath.Join(t.TempDir(), "a")}, &out, &errb); code != 0 ||
		!strings.Contains(out.String(), "exported 5 listings, 5 mailbox entries and 4 transactions") {
		t.Fatalf("export from read-only media: exit %d: %s%s", code, out.String(), errb.String())
	}

	st, err := sqlite.Open(db, sqlite.Options{}) // another process's console, as far as the file knows
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	before, _ := os.ReadFile(db)
	out.Reset()
	errb.Reset()
	if code := run([]string{"export", "--db", db, "--to", filepath.Join(t.TempDir(), "b")}, &out, &errb); code != 0 ||
		!strings.Contains(out.String(), "exported 5 listings") {
		t.Fatalf("export of an open market: exit %d: %s%s", code, out.String(), errb.String())
	}
	if after, _ := os.ReadFile(db); !bytes.Equal(before, after) {
		t.Fatal("the export changed the market file")
	}
}

// TestExportPostgresReadsWithoutWriting: `rynek export` of a PostgreSQL
// market changes no table (it registers no instance, takes no name).
func TestExportPostgresReadsWithoutWriting(t *testing.T) {
	dsn := pgtest.Database(t)
	demoMarket(t, dsn, 30)
	before := pgDigest(t, dsn)
	var out, errb bytes.Buffer
	if code := run([]string{"export", "--db", dsn, "--to", t.TempDir(), "--without-orders"}, &out, &errb); code != 0 || !strings.HasPrefix(out.String(), "exported ") {
		t.Fatalf("exit %d: %s%s", code, out.String(), errb.String())
	}
	if pgDigest(t, dsn) != before {
		t.Fatal("the export changed the tables")
	}
}

// TestExportWithoutOrders: `rynek export` of the demo market, which has
// open buy orders, is refused until --without-orders, and then lists the
// money the orders keep holding in the market, by buyer.
func TestExportWithoutOrders(t *testing.T) {
	db := filepath.Join(t.TempDir(), "market.db")
	demoMarket(t, db, 200)
	var out, errb bytes.Buffer
	to := filepath.Join(t.TempDir(), "GrzybcioRynek")
	if code := run([]string{"export", "--db", db, "--to", to, "--without-auctions"}, &out, &errb); code != 1 ||
		!strings.HasPrefix(errb.String(), "rynek export: the market has ") ||
		!strings.Contains(errb.String(), " open buy orders, which the plugin cannot hold (it has no buy orders); --without-orders leaves them out") {
		t.Fatalf("exit %d: %s%s", code, out.String(), errb.String())
	}
	errb.Reset()
	if code := run([]string{"export", "--db", db, "--to", to, "--without-auctions", "--without-orders"}, &out, &errb); code != 0 ||
		!strings.Contains(out.String(), "their escrow holds, the buyers' money\n") || !strings.Contains(out.String(), "held for each buyer:\n    ") {
		t.Fatalf("exit %d: %s%s", code, out.String(), errb.String())
	}
	t.Log(out.String())
}

package main

import (
	"context"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/rynek/rynek/internal/pgtest"
	"github.com/rynek/rynek/internal/traffic"
	"github.com/rynek/rynek/market"
)

// The setup the commands' tests share: TestMain and the program as a child
// process, the plugin's fixtures, a demo market with traffic, a digest of a
// PostgreSQL market's tables.

// TestMain runs the tests, or, as a child the tests start with
// RYNEK_TEST_MAIN=1 (command), the program itself.
func TestMain(m *testing.M) {
	if os.Getenv("RYNEK_TEST_MAIN") == "1" {
		os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
	}
	os.Exit(pgtest.Main(m))
}

// command is the program run with args in a child process, as a user runs
// it: a process that can be killed, stopped or sent SIGTERM on its own.
func command(args ...string) *exec.Cmd {
	cmd := exec.Command(os.Args[0], args...)
	cmd.Env = append(os.Environ(), "RYNEK_TEST_MAIN=1")
	return cmd
}

// pluginFixture is the folder of one of internal/grzybcio's fixtures, the
// original plugin's data: "server" (listings, mailboxes, history and a
// config.yml), "legacy" (an older plugin's listings.yml alone), "foreign" (a
// listings.yml that is not the plugin's).
func pluginFixture(name string) string {
	return filepath.Join("internal", "grzybcio", "testdata", name)
}

// demoMarket seeds a demo market of n listings at location (a file or a
// PostgreSQL market), gives it some traffic (sells, purchases, removals:
// entries in its log) and closes it.
func demoMarket(t *testing.T, location string, n int) {
	t.Helper()
	s, err := open(marketFlags{db: location, seed: n, seedRand: 7, name: "Rynek"}, market.Config{}, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	svc := s.svc
	players, err := svc.Players()
	if err != nil {
		t.Fatal(err)
	}
	g := traffic.New(3)
	for i := 0; i < 300; i++ {
		g.One(svc, players) // a refusal (too little money, say) is traffic too
	}
	if svc.Version() == 0 {
		t.Fatal("the traffic logged nothing")
	}
	if err := svc.Close(); err != nil {
		t.Fatal(err)
	}
}

// pgDigest is a digest of every row of every table of a PostgreSQL market.
func pgDigest(t *testing.T, dsn string) string {
	t.Helper()
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	var all []string
	for _, table := range []string{"meta", "players", "mail", "listings", "transactions", "events", "event_counter", "rynek_instances", "rynek_schema"} {
		var d string
		if err := conn.QueryRow(ctx, "SELECT coalesce(md5(string_agg(t::text, ',' ORDER BY t::text)), '') FROM "+table+" t").Scan(&d); err != nil {
			t.Fatal(err)
		}
		all = append(all, table+" "+d)
	}
	return strings.Join(all, "\n")
}

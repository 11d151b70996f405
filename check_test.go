package main

import (
	"bufio"
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/rynek/rynek/internal/pgtest"
	"github.com/rynek/rynek/internal/readonly"
	"github.com/rynek/rynek/market"
	"github.com/rynek/rynek/market/sqlite"
	_ "modernc.org/sqlite"
)

// check runs `rynek check` with args and returns its exit code and output.
func check(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	code := run(append([]string{"check"}, args...), &out, &errb)
	return code, out.String(), errb.String()
}

// sqlExec runs one statement on a market file, as an admin with the
// sqlite3 prompt would.
func sqlExec(t *testing.T, path, query string, args ...any) {
	t.Helper()
	db, err := sql.Open("sqlite", "file:"+path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Exec(query, args...); err != nil {
		t.Fatalf("%s: %v", query, err)
	}
}

// sqlQuery reads one row of query on the market file at path into dest.
func sqlQuery(t *testing.T, path, query string, dest ...any) {
	t.Helper()
	db, err := sql.Open("sqlite", "file:"+path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if err := db.QueryRow(query).Scan(dest...); err != nil {
		t.Fatalf("%s: %v", query, err)
	}
}

// sqlitePlayer reads the name, id and balance of the player in row rowid of
// the market file at path.
func sqlitePlayer(t *testing.T, path string, rowid int) (string, uuid.UUID, market.Money) {
	t.Helper()
	var name string
	var id []byte
	var balance int64
	sqlQuery(t, path, fmt.Sprintf("SELECT name, id, balance FROM players WHERE rowid = %d", rowid), &name, &id, &balance)
	return name, uuid.UUID(id), market.Money(balance)
}

// soundSummary matches the report of a sound demo market of 200 listings.
var soundSummary = regexp.MustCompile(`(?s)^rynek check: .* \((SQLite|PostgreSQL)\), read at one instant
players +\d+
listings +\d+ \(0 reserved by a purchase\)
mailboxes +\d+ entries
stacks +\d+ holding \d+ items
transactions +\d+ completed, \d+ failed or rolled back, 0 in flight
money +\d+\.\d\d: balances \d+\.\d\d \(\d+\), fee account \d+\.\d\d \(1\), purchases in flight 0\.00 \(0\), bids held by auctions \d+\.\d\d \(\d+\), held by buy orders \d+\.\d\d \(\d+\)
  against +opening \d+\.\d\d \+ issued in 0\.00 - out 0\.00 = \d+\.\d\d
items +\d+ against opening \d+ \+ issued in 0 - out 0 = \d+
volume +\d+\.\d\d over \d+ sales
events +\d+ kept, 1 to \d+; none trimmed; delivered through \d+
recovery +nothing in flight
sound: no problems \(checked in (\d+ms|\d+(\.\d+)?s)\)
$`)

// TestCheckCommand: `rynek check` on a demo market file says it is sound
// (exit 0) and changes nothing; a balance raised and an event row deleted
// by hand each fail it (exit 1) with the problem named on its own line; a
// market that cannot be read is exit 2, and nothing is created.
func TestCheckCommand(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "market.db")
	demoMarket(t, path, 200)
	before, _ := os.ReadFile(path)
	fi, _ := os.Stat(path)
	code, out, errs := check(t, "--db", path)
	if code != 0 || !soundSummary.MatchString(out) || errs != "" {
		t.Fatalf("exit %d:\n%s%s", code, out, errs)
	}
	after, _ := os.ReadFile(path)
	fi2, _ := os.Stat(path)
	if !bytes.Equal(before, after) || !fi.ModTime().Equal(fi2.ModTime()) {
		t.Fatal("the check changed the market file")
	}
	if names, _ := os.ReadDir(dir); len(names) != 1 {
		t.Fatalf("the check left files beside the market: %v", names)
	}

	raised := filepath.Join(dir, "raised.db")
	os.WriteFile(raised, before, 0o600)
	name, id, balance := sqlitePlayer(t, raised, 3)
	sqlExec(t, raised, "UPDATE players SET balance = balance + 12345 WHERE rowid = 3")
	code, out, _ = check(t, "--db", raised)
	named := fmt.Sprintf("\nproblem balance-unbooked player=%s: %s's balance is %s, booked by Rynek %s: 123.45 more, changed outside Rynek\nproblem money-unbalanced: ",
		id, name, market.FormatMoney(balance+12345), market.FormatMoney(balance))
	if code != 1 || !strings.Contains(out, named) || !regexp.MustCompile(`(?m)^problem money-unbalanced: the accounts hold \d+\.\d\d, but the opening account \(\d+\.\d\d\) and the issuance account \(in 0\.00, out 0\.00\) allow \d+\.\d\d: 123\.45 more; a balance, the fee account, a purchase, an auction's bid or a buy order's escrow was changed outside Rynek$`).MatchString(out) ||
		!strings.HasSuffix(out, "\n2 problems found (checked in "+regexp.MustCompile(`checked in (\d+ms)`).FindStringSubmatch(out)[1]+")\n") {
		t.Fatalf("a raised balance: exit %d:\n%s\nwant the lines%s", code, out, named)
	}

	// Every balance raised: the first 20 players are named, the rest
	// counted on one line after them.
	everyone := filepath.Join(dir, "everyone.db")
	os.WriteFile(everyone, before, 0o600)
	var players int
	sqlQuery(t, everyone, "SELECT count(*) FROM players", &players)
	sqlExec(t, everyone, "UPDATE players SET balance = balance + 1")
	code, out, _ = check(t, "--db", everyone)
	listed := regexp.MustCompile(`(?m)^problem balance-unbooked player=\S+: .*'s balance is \d+\.\d\d, booked by Rynek \d+\.\d\d: 0\.01 more, changed outside Rynek\n`).FindAllStringIndex(out, -1)
	rest := fmt.Sprintf("problem balance-unbooked: and %d more players whose balance is not what Rynek booked\n", players-20)
	if code != 1 || players <= 20 || len(listed) != 20 || !strings.HasPrefix(out[listed[19][1]:], rest) {
		t.Fatalf("every balance raised (%d players): exit %d, %d named:\n%s\nwant 20 named, then %q", players, code, len(listed), out, rest)
	}

	deleted := filepath.Join(dir, "deleted.db")
	os.WriteFile(deleted, before, 0o600)
	sqlExec(t, deleted, "DELETE FROM events WHERE seq = 5")
	code, out, _ = check(t, "--db", deleted)
	if code != 1 || !strings.Contains(out, "\nproblem log-gap seq=5: the log goes from 4 to 6: entries in between were deleted (retention only deletes the oldest)\n") {
		t.Fatalf("a deleted event: exit %d:\n%s", code, out)
	}

	foreign := filepath.Join(dir, "notes.txt")
	os.WriteFile(foreign, []byte("not a database"), 0o600)
	for _, c := range []struct {
		args []string
		msg  string
	}{
		{[]string{"--db", filepath.Join(dir, "none.db")}, "rynek check: no market at " + filepath.Join(dir, "none.db") + ": file does not exist\n"},
		{[]string{"--db", foreign}, "not a Rynek market database: the file is not an SQLite database"},
		{[]string{"--db", dir}, "--db " + dir + " is a directory"},
		{[]string{"--db", ""}, "--db must not be empty"},
		{[]string{"now"}, `rynek check: unexpected argument "now" (see --help)`},
		{[]string{"--bogus"}, "flag provided but not defined: -bogus"},
		{[]string{"--db", "postgres://nobody:secret@127.0.0.1:1/m?connect_timeout=2"}, "rynek check: read the PostgreSQL market nobody@127.0.0.1:1/m"},
	} {
		code, out, errs := check(t, c.args...)
		if code != 2 || out != "" || !strings.Contains(errs, c.msg) || strings.Contains(errs, "secret") {
			t.Errorf("%v: exit %d, stdout %q, stderr %q; want 2 and %q", c.args, code, out, errs, c.msg)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "none.db")); !os.IsNotExist(err) {
		t.Fatalf("checking a missing market created it: %v", err)
	}
	// Without --db: the default market, whose folder a check never makes.
	xdg := t.TempDir()
	t.Setenv("XDG_DATA_HOME", xdg)
	want := "rynek check: no market at " + filepath.Join(xdg, "rynek", "market.db") + ": file does not exist\n"
	if code, out, errs := check(t); code != 2 || out != "" || errs != want {
		t.Errorf("no --db and no default market: exit %d, stdout %q, stderr %q; want 2 and %q", code, out, errs, want)
	}
	if _, err := os.Stat(filepath.Join(xdg, "rynek")); !os.IsNotExist(err) {
		t.Fatalf("checking the default market made its folder: %v", err)
	}
}

// TestCheckOnReadOnlyMedia: a market on media nothing may write is checked.
func TestCheckOnReadOnlyMedia(t *testing.T) {
	dir := t.TempDir()
	demoMarket(t, filepath.Join(dir, "market.db"), 50)
	media := readonly.Folder(t, dir)
	if code, out, errs := check(t, "--db", filepath.Join(media, "market.db")); code != 0 || !soundSummary.MatchString(out) {
		t.Fatalf("exit %d:\n%s%s", code, out, errs)
	}
}

// TestCheckCommandPostgres: `rynek check` on a demo market on PostgreSQL
// says it is sound and changes no table; a balance raised by hand fails it.
func TestCheckCommandPostgres(t *testing.T) {
	dsn := pgtest.Database(t)
	demoMarket(t, dsn, 200)
	before := pgDigest(t, dsn)
	if code, out, errs := check(t, "--db", dsn); code != 0 || !soundSummary.MatchString(out) {
		t.Fatalf("exit %d:\n%s%s", code, out, errs)
	}
	if pgDigest(t, dsn) != before {
		t.Fatal("the check changed the tables")
	}
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	var id uuid.UUID
	var name string
	var balance market.Money
	if err := conn.QueryRow(ctx, "SELECT id, name, balance FROM players ORDER BY id LIMIT 1").Scan(&id, &name, (*int64)(&balance)); err != nil {
		t.Fatal(err)
	}
	if _, err := conn.Exec(ctx, "UPDATE players SET balance = balance + 500 WHERE id = $1", id); err != nil {
		t.Fatal(err)
	}
	named := fmt.Sprintf("\nproblem balance-unbooked player=%s: %s's balance is %s, booked by Rynek %s: 5.00 more, changed outside Rynek\nproblem money-unbalanced: ",
		id, name, market.FormatMoney(balance+500), market.FormatMoney(balance))
	if code, out, _ := check(t, "--db", dsn); code != 1 || !strings.Contains(out, named) ||
		!strings.Contains(out, ": 5.00 more; a balance, the fee account, a purchase, an auction's bid or a buy order's escrow was changed outside Rynek\n2 problems found") {
		t.Fatalf("a raised balance: exit %d:\n%s\nwant the lines%s", code, out, named)
	}
}

// TestCheckWhileServeRuns: `rynek check` of a market that a real `rynek
// serve` process has open, with bots buying and selling, passes from one
// instant, again and again, and the server goes on committing throughout
// and stops cleanly; the market checks sound after.
func TestCheckWhileServeRuns(t *testing.T) {
	path := filepath.Join(t.TempDir(), "market.db")
	cmd := command("serve", "--db", path, "--seed", "2000", "--api", "127.0.0.1:0", "--bots", "500")
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()
	lines := bufio.NewScanner(stdout)
	if !lines.Scan() {
		t.Fatalf("serve said nothing: %s", stderr.String())
	}
	m := regexp.MustCompile(`on http://(127\.0\.0\.1:\d+)/`).FindStringSubmatch(lines.Text())
	if m == nil {
		t.Fatalf("first line %q", lines.Text())
	}
	version := func() uint64 {
		res, err := http.Get("http://" + m[1] + "/api/health")
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		var h struct{ Version uint64 }
		json.NewDecoder(res.Body).Decode(&h)
		return h.Version
	}
	for v := version(); version() < v+50; time.Sleep(20 * time.Millisecond) {
	}
	v, checks := version(), 0
	for start := time.Now(); time.Since(start) < 2*time.Second; checks++ {
		code, out, errs := check(t, "--db", path)
		if code != 0 || !strings.Contains(out, "\nsound: no problems") {
			t.Fatalf("check %d while serving: exit %d:\n%s%s", checks, code, out, errs)
		}
	}
	if version() <= v {
		t.Fatal("the server committed nothing while it was checked")
	}
	t.Logf("%d checks in 2 s while the server went from version %d to %d", checks, v, version())
	// A check's instant stays as it was while the server goes on: hold
	// one open while the server commits, then check it. The server's
	// version is what it has published, which follows its commits by up
	// to a tick (it commits behind the tick): the store may be a tick's
	// entries ahead of it when the snapshot opens, never hundreds.
	snap, err := sqlite.OpenSnapshot(path)
	if err != nil {
		t.Fatal(err)
	}
	v = version()
	for deadline := time.Now().Add(10 * time.Second); version() < v+1000; time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the server committed too little in 10 s while a snapshot was open")
		}
	}
	r, err := market.Check(snap, nil)
	snap.Close()
	if err != nil || !r.Sound() || r.Log.Last >= v+500 {
		t.Fatalf("the held snapshot: %v, newest entry %d (the server was at %d when it began, %d now), problems %v", err, r.Log.Last, v, version(), r.Problems)
	}
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	var last string
	for lines.Scan() {
		last = lines.Text()
	}
	if err := cmd.Wait(); err != nil {
		t.Fatalf("serve: %v: %s", err, stderr.String())
	}
	t.Log(last) // the server's ticks while it was checked
	if code, out, errs := check(t, "--db", path); code != 0 {
		t.Fatalf("after the server: exit %d:\n%s%s", code, out, errs)
	}
}

// TestCheckCountsTheSeededOrders: the demo's resting buy orders hold money
// that came in with the seed; rynek check counts it in their account and
// finds the market sound, and a market seeded without them has none.
func TestCheckCountsTheSeededOrders(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "market.db")
	s, err := open(marketFlags{db: path, seed: 200, seedRand: 7, name: "Rynek"}, market.Config{}, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	s.svc.Close()
	code, out, errs := check(t, "--db", path)
	held := regexp.MustCompile(`held by buy orders (\d+\.\d\d) \((\d+)\)`).FindStringSubmatch(out)
	if code != 0 || errs != "" || held == nil || held[2] != "12" || held[1] == "0.00" {
		t.Fatalf("exit %d, want 0 and 12 orders holding money:\n%s%s", code, out, errs)
	}
	bare := filepath.Join(dir, "bare.db")
	s, err = open(marketFlags{db: bare, seed: 200, seedRand: 7, name: "Rynek", seedWithoutOrders: true}, market.Config{}, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	s.svc.Close()
	if code, out, _ := check(t, "--db", bare); code != 0 || !strings.Contains(out, "held by buy orders 0.00 (0)") {
		t.Fatalf("--seed-without-orders: exit %d:\n%s", code, out)
	}
}

package sqlite_test

import (
	"bytes"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/rynek/rynek/market"
	"github.com/rynek/rynek/market/sqlite"
	_ "modernc.org/sqlite"
)

func TestNewFileIsPrivate(t *testing.T) {
	path := filepath.Join(t.TempDir(), "m.db")
	st, err := sqlite.Open(path, sqlite.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Perm() != 0o600 {
		t.Fatalf("mode %v, want 0600", fi.Mode().Perm())
	}
}

func TestRefusesForeignAndCorruptFiles(t *testing.T) {
	dir := t.TempDir()
	text := filepath.Join(dir, "notes.txt")
	os.WriteFile(text, []byte("hello, this is not a database at all"), 0o644)
	_, err := sqlite.Open(text, sqlite.Options{})
	if !errors.Is(err, sqlite.ErrForeign) || !strings.Contains(err.Error(), "not an SQLite database") {
		t.Fatalf("text file: %v", err)
	}
	if b, _ := os.ReadFile(text); string(b) != "hello, this is not a database at all" {
		t.Fatal("the foreign file was modified")
	}

	// Someone else's SQLite database.
	other := filepath.Join(dir, "other.db")
	db, _ := sql.Open("sqlite", other)
	if _, err := db.Exec("CREATE TABLE customers (id INTEGER)"); err != nil {
		t.Fatal(err)
	}
	db.Close()
	_, err = sqlite.Open(other, sqlite.Options{})
	if !errors.Is(err, sqlite.ErrForeign) {
		t.Fatalf("foreign sqlite: %v", err)
	}

	// A Rynek database whose pages were overwritten with garbage.
	bad := filepath.Join(dir, "bad.db")
	st, err := sqlite.Open(bad, sqlite.Options{})
	if err != nil {
		t.Fatal(err)
	}
	st.Close()
	b, _ := os.ReadFile(bad)
	for i := 100; i < len(b); i++ {
		b[i] = 0xA5
	}
	os.WriteFile(bad, b, 0o600)
	st, err = sqlite.Open(bad, sqlite.Options{})
	if err == nil {
		// Some corruption is only seen on first read.
		svc := market.New(st, market.Config{})
		svc.BindMainThread()
		err = svc.Enable()
		st.Close()
	}
	if err == nil {
		t.Fatal("a corrupt database opened without error")
	}
	if after, _ := os.ReadFile(bad); !bytes.Equal(after[:100], b[:100]) {
		t.Fatal("the corrupt file was rewritten")
	}
}

func TestRefusesNewerSchema(t *testing.T) {
	path := filepath.Join(t.TempDir(), "m.db")
	st, err := sqlite.Open(path, sqlite.Options{})
	if err != nil {
		t.Fatal(err)
	}
	st.Close()
	db, _ := sql.Open("sqlite", path)
	db.Exec("PRAGMA user_version = 99")
	db.Close()
	_, err = sqlite.Open(path, sqlite.Options{})
	if err == nil || !strings.Contains(err.Error(), "schema version 99, newer than this program's 8") {
		t.Fatalf("newer schema: %v", err)
	}
}

// TestSecondOpenerJoins: a second opener of a market file is another
// instance of it, named after its command and numbered while the first has
// the name; one of them holds the duty, and it passes on when its holder
// closes. A name given twice is refused.
func TestSecondOpenerJoins(t *testing.T) {
	path := filepath.Join(t.TempDir(), "m.db")
	first, err := sqlite.Open(path, sqlite.Options{Command: "serve"})
	mustOK(t, err)
	defer first.Close()
	second, err := sqlite.Open(path, sqlite.Options{Command: "serve"})
	mustOK(t, err)
	defer second.Close()
	if first.Instance() != "serve" || second.Instance() != "serve-2" {
		t.Fatalf("instances %q and %q, want serve and serve-2", first.Instance(), second.Instance())
	}
	if !first.Duty() || second.Duty() {
		t.Fatalf("duty: first %v, second %v; want the first's alone", first.Duty(), second.Duty())
	}
	peers, err := second.Peers()
	mustOK(t, err)
	if len(peers) != 1 || peers[0].Name != "serve" || peers[0].Command != "serve" || peers[0].PID != os.Getpid() {
		t.Fatalf("the second sees %+v, want the first (serve, pid %d)", peers, os.Getpid())
	}
	if _, err := sqlite.Open(path, sqlite.Options{Instance: "serve-2"}); err == nil ||
		!strings.Contains(err.Error(), `another process is instance "serve-2" of this market; give this one another --instance`) {
		t.Fatalf("a name given twice: %v", err)
	}

	mustOK(t, first.Close())
	deadline := time.Now().Add(2 * time.Second)
	for !second.Duty() && time.Now().Before(deadline) {
		ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
		second.WaitEvents(ctx)
		cancel()
	}
	if !second.Duty() {
		t.Fatal("the duty did not pass to the second instance when the first closed")
	}
	if peers, err := second.Peers(); err != nil || len(peers) != 0 {
		t.Fatalf("after the first closed the second sees %+v (%v)", peers, err)
	}
	// The name is free again, with its mark.
	again, err := sqlite.Open(path, sqlite.Options{Command: "serve"})
	mustOK(t, err)
	defer again.Close()
	if again.Instance() != "serve" {
		t.Fatalf("a restarted serve is %q, want serve", again.Instance())
	}
}

// TestUpgradeFromVersion7BooksTheBalances: a version 7 file has no booked
// balances; the upgrade takes each balance as booked (one raised by hand
// before it included), keeps the balances, and from then on every op books
// what it moves.
func TestUpgradeFromVersion7BooksTheBalances(t *testing.T) {
	path := filepath.Join(t.TempDir(), "m.db")
	st, err := sqlite.Open(path, sqlite.Options{})
	mustOK(t, err)
	ala, bartek := uuid.New(), uuid.New()
	mustOK(t, st.Commit(&market.Batch{Ops: []market.Op{
		{Kind: market.OpAddPlayer, Player: &market.PlayerRow{ID: ala, Name: "Ala", Balance: 100_00}},
		{Kind: market.OpAddPlayer, Player: &market.PlayerRow{ID: bartek, Name: "Bartek", Balance: 250_00}},
	}}))
	st.Close()
	db := openRaw(t, path)
	for _, q := range []string{"UPDATE players SET balance = balance + 500", "ALTER TABLE players DROP COLUMN booked", "PRAGMA user_version = 7"} {
		if _, err := db.Exec(q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	db.Close()

	st, err = sqlite.Open(path, sqlite.Options{})
	mustOK(t, err)
	defer st.Close()
	var r recorder
	mustOK(t, st.Load(&r))
	got := func() string {
		var b strings.Builder
		for _, p := range r.players {
			fmt.Fprintf(&b, "%s %d booked %d; ", p.Name, p.Balance, p.Booked)
		}
		return b.String()
	}
	if want := "Ala 10500 booked 10500; Bartek 25500 booked 25500; "; got() != want {
		t.Fatalf("after the upgrade: %s, want %s", got(), want)
	}
	mustOK(t, st.Commit(&market.Batch{Ops: []market.Op{{Kind: market.OpPlayerState, Delta: -1_50, Player: &market.PlayerRow{ID: ala}}}}))
	r = recorder{}
	mustOK(t, st.Load(&r))
	if want := "Ala 10350 booked 10350; Bartek 25500 booked 25500; "; got() != want {
		t.Fatalf("after a payment: %s, want %s", got(), want)
	}
	var ver int
	db = openRaw(t, path)
	defer db.Close()
	mustOK(t, db.QueryRow("PRAGMA user_version").Scan(&ver))
	if ver != 8 {
		t.Fatalf("schema version %d after the upgrade, want 8", ver)
	}
}

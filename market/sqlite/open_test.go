package sqlite_test

import (
	"bytes"
	"database/sql"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

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
	if err == nil || !strings.Contains(err.Error(), "schema version 99, newer than this program's 6") {
		t.Fatalf("newer schema: %v", err)
	}
}

func TestSecondOpenerIsRefused(t *testing.T) {
	path := filepath.Join(t.TempDir(), "m.db")
	st, err := sqlite.Open(path, sqlite.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	start := time.Now()
	st2, err := sqlite.Open(path, sqlite.Options{})
	if err == nil {
		st2.Close()
	}
	want := "open " + path + ": another process has this market open; close it first"
	if err == nil || err.Error() != want {
		t.Fatalf("second opener: %v, want %q", err, want)
	}
	if d := time.Since(start); d > time.Second {
		t.Fatalf("the second opener was refused after %v; it should be told at once", d)
	}
	// Once the first closes, the market opens again.
	mustOK(t, st.Close())
	st3, err := sqlite.Open(path, sqlite.Options{})
	mustOK(t, err)
	mustOK(t, st3.Close())
}

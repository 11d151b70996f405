package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestVersion(t *testing.T) {
	var out, errb bytes.Buffer
	if code := run([]string{"--version"}, &out, &errb); code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	want := "rynek 0.2.0\ncompatible with service 1.0.3, game server 26.2 and web front end 0.1.0 (web contract 1)\n"
	if out.String() != want {
		t.Fatalf("got %q", out.String())
	}
}

func TestHelpListsEveryFlag(t *testing.T) {
	var out, errb bytes.Buffer
	if code := run([]string{"--help"}, &out, &errb); code != 0 {
		t.Fatalf("exit %d", code)
	}
	for _, flag := range []string{"-db", "-seed", "-seed-rand", "-name", "-sync", "-version", "XDG_DATA_HOME", "2,724/s against 8,100/s",
		"-api", "-public-url", "-api-token", "-api-cors-origin", "-api-rate", "RYNEK_API_TOKEN", "rynek serve", "rynek import", "rynek export", "rynek check [--db PATH]"} {
		if !strings.Contains(errb.String(), flag) {
			t.Errorf("help lacks %s:\n%s", flag, errb.String())
		}
	}
}

// TestHelpAfterTheAPIAddress: --help after the console's --api ADDR (the
// address is an argument of its own, and the flags after it are parsed
// again) shows the help and exits 0, as --help anywhere else does; it
// exited 2, the code of a bad flag.
func TestHelpAfterTheAPIAddress(t *testing.T) {
	var out, errb bytes.Buffer
	if code := run([]string{"--api", "127.0.0.1:8080", "--help"}, &out, &errb); code != 0 || !strings.HasPrefix(errb.String(), "Usage: rynek [flags]\n") {
		t.Fatalf("exit %d, stderr %q", code, errb.String())
	}
}

func TestBadInputIsRefusedClearly(t *testing.T) {
	dir := t.TempDir()
	foreign := filepath.Join(dir, "notes.txt")
	os.WriteFile(foreign, []byte("not a database"), 0o644)
	cases := []struct {
		args []string
		code int
		msg  string
	}{
		{[]string{"--seed", "-1"}, 2, "--seed must be between 0 and 10000000, got -1"},
		{[]string{"--name", ""}, 2, "--name must not be empty"},
		{[]string{"extra"}, 2, `unexpected argument "extra"`},
		{[]string{"--bogus"}, 2, "flag provided but not defined: -bogus"},
		{[]string{"--db", foreign}, 1, "not a Rynek market database"},
		{[]string{"--db", filepath.Join(dir, "missing-dir", "m.db")}, 1, "no such file or directory"},
		{[]string{"--db", dir}, 2, "--db " + dir + " is a directory: give a file in it, e.g. --db " + filepath.Join(dir, "market.db") + "\n"},
		{[]string{"--db", ""}, 2, "--db must not be empty (leave it out for the default path)"},
		{[]string{"--api", "0.0.0.0:8080"}, 2, "--api 0.0.0.0:8080 is reachable from other machines: set --api-token or RYNEK_API_TOKEN"},
		{[]string{"--api", "127.0.0.1:8080", "extra"}, 2, `unexpected argument "extra"`},
		{[]string{"--api", "127.0.0.1:8080", "--seed", "-2"}, 2, "--seed must be between 0 and 10000000, got -2"},
		{[]string{"--api-rate", "-1"}, 2, "--api-rate must be 0 or more, got -1"},
		{[]string{"--api-cors-origin", "https://example.com/"}, 2, `--api-cors-origin "https://example.com/" is not an origin`},
		{[]string{"serve", "--api", ":8080"}, 2, "--api :8080 is reachable from other machines"},
		{[]string{"serve", "--bots", "-3"}, 2, "--bots must be between 0 and 100000, got -3"},
		{[]string{"serve", "now"}, 2, `unexpected argument "now"`},
		{[]string{"serve", "--api", "nonsense"}, 2, `--api "nonsense": address nonsense: missing port in address`},
		{[]string{"serve", "--db", "postgres://u@127.0.0.1:1/m", "--sync"}, 2, "--sync is for a market file"},
		{[]string{"backup", "--db", "postgres://u:secret@127.0.0.1:1/m", filepath.Join(dir, "b.db")}, 2, "a PostgreSQL market is backed up by the server: pg_dump"},
		{[]string{"--db", "postgres://nobody:secret@127.0.0.1:1/m?connect_timeout=2"}, 1, "open the PostgreSQL market nobody@127.0.0.1:1/m"},
	}
	for _, c := range cases {
		var out, errb bytes.Buffer
		code := run(c.args, &out, &errb)
		if code != c.code || !strings.Contains(errb.String(), c.msg) || strings.Count(errb.String(), "rynek:") > 1 ||
			strings.Contains(errb.String(), "secret") { // a password never shows
			t.Errorf("%v: exit %d, stderr %q; want exit %d containing %q", c.args, code, errb.String(), c.code, c.msg)
		}
	}
	if b, _ := os.ReadFile(foreign); string(b) != "not a database" {
		t.Fatal("the foreign file was modified")
	}
}

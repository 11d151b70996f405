package main

import (
	"bytes"
	"flag"
	"io"
	"os"
	"path/filepath"
	"regexp"
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

// TestHelpListsEveryFlag: rynek --help names every flag of every
// command's flag set, in that command's part of it. It left out flags the
// README uses (export --without-auctions --without-orders, serve
// --instance, --public-url).
func TestHelpListsEveryFlag(t *testing.T) {
	var out, errb bytes.Buffer
	if code := run([]string{"--help"}, &out, &errb); code != 0 {
		t.Fatalf("exit %d", code)
	}
	help := errb.String()
	for _, want := range []string{"XDG_DATA_HOME", "2,724/s against 8,100/s", "RYNEK_API_TOKEN", "rynek serve [flags]", "rynek import --from DIR [flags]",
		"rynek export --to DIR [flags]", "rynek check [--db PATH]", "rynek backup [--db PATH] DEST"} {
		if !strings.Contains(help, want) {
			t.Errorf("help lacks %s:\n%s", want, help)
		}
	}
	for _, c := range commands() {
		title := "\nThe console's flags:\n"
		if c.name != "" {
			title = "\nrynek " + c.name + "'s flags:\n"
		}
		_, part, ok := strings.Cut(help, title)
		if !ok {
			t.Fatalf("help has no %q:\n%s", title, help)
		}
		part, _, _ = strings.Cut(part, "\n\n")
		names := 0
		c.flagSet(io.Discard).VisitAll(func(f *flag.Flag) {
			names++
			if !regexp.MustCompile(`(^|\s)-` + regexp.QuoteMeta(f.Name) + `(\s|:|$)`).MatchString(part) {
				t.Errorf("rynek %s's part of the help lacks -%s:\n%s", c.name, f.Name, part)
			}
		})
		if names == 0 {
			t.Errorf("rynek %s has no flags", c.name)
		}
	}
}

// TestREADMEFlagsExist: every command line the README shows parses with
// its command's flag set, and every flag it names in its text is a flag of
// some command.
func TestREADMEFlagsExist(t *testing.T) {
	readme, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	byName := map[string]subcommand{}
	for _, c := range commands() {
		byName[c.name] = c
	}
	lines, flags := 0, 0
	for _, line := range strings.Split(string(readme), "\n") {
		line, _, _ = strings.Cut(line, " #")
		args := strings.Fields(strings.ReplaceAll(line, "'", ""))
		if len(args) == 0 || args[0] != "./rynek" {
			continue
		}
		lines++
		c, args := byName[""], args[1:]
		if len(args) > 0 && byName[args[0]].name != "" {
			c, args = byName[args[0]], args[1:]
		}
		var why bytes.Buffer
		fs := c.flagSet(&why)
		fs.Usage = func() {}
		if err := fs.Parse(args); err != nil {
			t.Errorf("README: %q: rynek %s: %v", line, c.name, err)
		}
	}
	// Flags in the text: `--name …`.
	for _, m := range regexp.MustCompile("`--([a-z-]+)").FindAllStringSubmatch(string(readme), -1) {
		flags++
		found := false
		for _, c := range commands() {
			found = found || c.flagSet(io.Discard).Lookup(m[1]) != nil
		}
		if !found {
			t.Errorf("README names --%s, which no command has", m[1])
		}
	}
	if lines < 10 || flags < 5 {
		t.Fatalf("found %d command lines and %d flags in the README: the test reads it wrong", lines, flags)
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

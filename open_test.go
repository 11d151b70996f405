package main

import (
	"bytes"
	"io"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/rynek/rynek/internal/tmpfs"
	"github.com/rynek/rynek/market"
)

// TestAFailedStartCreatesNothing starts the console and the server in ways
// that must fail (an address another program holds, a rules file that
// cannot be used, a bad flag, a directory that cannot be written, a seed
// that fills the disk) and checks that each says why and leaves nothing
// behind: no market file, no -wal or -shm, no directory that was not there.
func TestAFailedStartCreatesNothing(t *testing.T) {
	taken, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer taken.Close()
	busy := taken.Addr().String()
	readOnly := tmpfs.Mount(t, 1<<20, true)
	cases := []struct {
		name string
		// args are the command's; "HOME" in one is the case's own
		// directory, where XDG_DATA_HOME points too (HOME/xdg: the default
		// market is HOME/xdg/rynek/market.db).
		args []string
		// full mounts a 2 MB tmpfs as the case's directory: a seed of
		// 60,000 listings does not fit.
		full bool
		code int
		msg  string
	}{
		{"console on a taken port", []string{"--db", "HOME/m.db", "--seed", "50", "--api", busy}, false, 1,
			"rynek: --api " + busy + ": the address is in use (another program, or another Rynek, listens there); stop it or choose another with --api HOST:PORT\n"},
		{"server on a taken port", []string{"serve", "--seed", "50", "--api", busy}, false, 1,
			"rynek serve: --api " + busy + ": the address is in use"},
		{"console with a bad rules file", []string{"--config", "HOME/bad.yml"}, false, 1,
			"rynek: HOME/bad.yml:2:10: listings.limit"},
		{"server with a bad rules file", []string{"serve", "--config", "HOME/bad.yml", "--api", "127.0.0.1:0"}, false, 1,
			"rynek serve: HOME/bad.yml:2:10: listings.limit"},
		{"server with a bad flag", []string{"serve", "--bots", "-3"}, false, 2, "--bots must be between 0 and 100000, got -3"},
		{"console with a bad flag", []string{"--api-rate", "-1"}, false, 2, "--api-rate must be 0 or more, got -1"},
		{"console in a read-only directory", []string{"--db", readOnly + "/m.db", "--seed", "50"}, false, 1, "read-only file system"},
		{"server with a read-only data home", []string{"serve", "--api", "127.0.0.1:0"}, false, 1, "read-only file system"},
		{"server seeding a full disk", []string{"serve", "--seed", "60000", "--api", "127.0.0.1:0"}, true, 1,
			"rynek serve: seed: "},
		{"console seeding a full disk", []string{"--db", "HOME/m.db", "--seed", "60000"}, true, 1, "rynek: seed: "},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			home := t.TempDir()
			if c.full {
				home = tmpfs.Mount(t, 2<<20, false)
			}
			xdg := filepath.Join(home, "xdg")
			if strings.Contains(c.name, "read-only data home") {
				xdg = filepath.Join(readOnly, "xdg")
			}
			t.Setenv("XDG_DATA_HOME", xdg)
			if err := os.WriteFile(filepath.Join(home, "bad.yml"), []byte("listings:\n  limit: lots\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			before := tmpfs.Entries(t, home)
			args := slices.Clone(c.args)
			for i := range args {
				args[i] = strings.ReplaceAll(args[i], "HOME", home)
			}
			var errb bytes.Buffer
			code := run(args, io.Discard, &errb)
			msg := strings.ReplaceAll(c.msg, "HOME", home)
			if code != c.code || !strings.Contains(errb.String(), msg) {
				t.Errorf("exit %d, stderr %q; want exit %d saying %q", code, errb.String(), c.code, msg)
			}
			if after := tmpfs.Entries(t, home); !slices.Equal(before, after) {
				t.Errorf("the failed start left %q behind (there was %q)", after, before)
			}
			if after := tmpfs.Entries(t, readOnly); len(after) > 0 {
				t.Errorf("the read-only filesystem holds %q", after)
			}
		})
	}
}

func TestOpenSeedsOnceAndSaysSo(t *testing.T) {
	path := filepath.Join(t.TempDir(), "m.db")
	var errb bytes.Buffer
	s, err := open(marketFlags{db: path, seed: 50, seedRand: 3, name: "Bazar"}, market.Config{}, &errb)
	if err != nil {
		t.Fatal(err)
	}
	svc, clock := s.svc, s.clock
	if n, _ := svc.GetActiveListingsCount(); n != 50 || svc.Name() != "Bazar" || clock == nil {
		t.Fatalf("count %d, name %q", n, svc.Name())
	}
	// Not a terminal: each step's last line, no progress in place.
	for _, want := range []string{"rynek: seeded 300 players, 50 listings", "\nrynek: loaded 50 active listings"} {
		if !strings.Contains(errb.String(), want) || strings.Contains(errb.String(), "\r") {
			t.Errorf("the start's lines lack %q or hold a carriage return: %q", want, errb.String())
		}
	}
	svc.Close()
	errb.Reset()
	s, err = open(marketFlags{db: path, seed: 999, seedRand: 3, name: "Bazar", sync: true}, market.Config{}, &errb)
	if err != nil {
		t.Fatal(err)
	}
	svc = s.svc
	defer svc.Close()
	if n, _ := svc.GetActiveListingsCount(); n != 50 || strings.Contains(errb.String(), "seeded") {
		t.Fatalf("reseeded: count %d, %q", n, errb.String())
	}
	if fi, _ := os.Stat(path); fi.Mode().Perm() != 0o600 {
		t.Fatalf("mode %v", fi.Mode().Perm())
	}
}

// TestRulesFileAtStart: a rules file beside the market applies from the
// start; one that cannot be used stops the start, naming its key and line;
// --config of a missing file is refused.
func TestRulesFileAtStart(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "m.db")
	if err := os.WriteFile(filepath.Join(dir, "rynek.yml"), []byte("listings:\n  limit: 3\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	mf := marketFlags{}
	where, c, err := mf.marketRules(path)
	if err != nil || where != filepath.Join(dir, "rynek.yml") || c.MaxListingsPerPlayer != 3 {
		t.Fatalf("%q %+v %v", where, c, err)
	}
	s, err := open(marketFlags{db: path, seedRand: 1, name: "Rynek"}, c, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	svc := s.svc
	if got := svc.Config().MaxListingsPerPlayer; got != 3 {
		t.Fatalf("the market's limit is %d, want the file's 3", got)
	}
	svc.Close()
	if err := os.WriteFile(filepath.Join(dir, "rynek.yml"), []byte("listings:\n  limit: lots\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	var errb bytes.Buffer
	if code := run([]string{"serve", "--db", path, "--api", "127.0.0.1:0"}, io.Discard, &errb); code != 1 ||
		!strings.Contains(errb.String(), `rynek.yml:2:10: listings.limit: a whole number from 1 to 100000, not "lots"`) {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	errb.Reset()
	if code := run([]string{"serve", "--db", path, "--config", filepath.Join(dir, "none.yml")}, io.Discard, &errb); code != 1 ||
		!strings.Contains(errb.String(), "--config "+filepath.Join(dir, "none.yml")+": no such file") {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
}

// TestSeedObeysTheRulesFile: a new market is seeded under the rules file
// beside it, so no seeded seller is over the file's listing limit (the big
// ones have a tier of their own) and each has room to sell.
func TestSeedObeysTheRulesFile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "m.db")
	if err := os.WriteFile(filepath.Join(dir, "rynek.yml"), []byte("listings:\n  limit: 3\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	mf := marketFlags{}
	_, rules, err := mf.marketRules(path)
	if err != nil {
		t.Fatal(err)
	}
	s, err := open(marketFlags{db: path, seed: 900, seedRand: 1, name: "Rynek"}, rules, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	svc := s.svc
	defer svc.Close()
	players, err := svc.Players()
	if err != nil {
		t.Fatal(err)
	}
	tiers := 0
	for _, p := range players {
		room, err := svc.ListingRoom(p.ID)
		if err != nil {
			t.Fatal(err)
		}
		if room.Listings >= room.Limit {
			t.Errorf("%s has %d listings, limit %d", p.Name, room.Listings, room.Limit)
		}
		if room.Limit > 3 {
			tiers++
		}
	}
	if tiers == 0 {
		t.Fatal("900 listings among 300 players under a limit of 3, and nobody has a tier")
	}
}

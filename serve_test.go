package main

import (
	"bytes"
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/rynek/rynek/internal/httpapi"
	"github.com/rynek/rynek/internal/tmpfs"
)

// TestServeHelpSaysWhatTheBotsDo: --bots is the demo economy's turns a
// second (internal/traffic), as docs/http-api.md says, not the random
// sells and purchases the first bots made.
func TestServeHelpSaysWhatTheBotsDo(t *testing.T) {
	var out, errb bytes.Buffer
	if code := run([]string{"serve", "--help"}, &out, &errb); code != 0 {
		t.Fatalf("exit %d", code)
	}
	want := "  -bots float\n    \ttraffic bots: turns a second of the market's players selling, buying, taking back, relisting, auctioning and trading through buy orders in balance, as the console's R does (0: none)\n"
	if !strings.Contains(errb.String(), want) {
		t.Errorf("serve --help lacks %q:\n%s", want, errb.String())
	}
}

// TestServeRunsHeadlessAndStopsOnSIGTERM runs `rynek serve` with bots on
// a free port: the API answers, the bots' changes show in its version, the
// board is served, and SIGTERM stops it cleanly with a summary of its ticks.
func TestServeRunsHeadlessAndStopsOnSIGTERM(t *testing.T) {
	path := filepath.Join(t.TempDir(), "m.db")
	srv := startServe(t, "--db", path, "--seed", "200", "--api", "127.0.0.1:0", "--bots", "400")
	base, errb := srv.base, &srv.errb
	version := func() uint64 {
		res, err := http.Get(base + "/api/health")
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		var h struct{ Version uint64 }
		if res.StatusCode != 200 || json.NewDecoder(res.Body).Decode(&h) != nil {
			t.Fatalf("health: %d", res.StatusCode)
		}
		return h.Version
	}
	v0 := version()
	deadline := time.Now().Add(10 * time.Second)
	for version() == v0 {
		if time.Now().After(deadline) {
			t.Fatal("the bots changed nothing in 10 s")
		}
		time.Sleep(50 * time.Millisecond)
	}
	if res, err := http.Get(base + "/"); err != nil || res.StatusCode != 200 {
		t.Fatalf("board: %v %v", res, err)
	}
	// SIGHUP reloads the rules file beside the market: a bad one is said
	// and changes nothing, a good one applies.
	rulesFile := filepath.Join(filepath.Dir(path), "rynek.yml")
	waitFor := func(what string) {
		t.Helper()
		for deadline := time.Now().Add(10 * time.Second); !strings.Contains(errb.String(), what); time.Sleep(20 * time.Millisecond) {
			if time.Now().After(deadline) {
				t.Fatalf("stderr never said %q: %s", what, errb.String())
			}
		}
	}
	for _, c := range []struct{ file, said string }{
		{"fees:\n  sale-percnt: 3\n", "the rules were not reloaded: " + rulesFile + ":2:3: unknown key fees.sale-percnt (known: listing-percent, maximum, minimum, refund-listing-fee, sale-percent); the rules stay as they are"},
		{"fees:\n  sale-percent: 3\n", "rules reloaded from " + rulesFile},
	} {
		if err := os.WriteFile(rulesFile, []byte(c.file), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := syscall.Kill(os.Getpid(), syscall.SIGHUP); err != nil {
			t.Fatal(err)
		}
		waitFor(c.said)
	}
	srv.stop()
	last := ""
	for l := range srv.lines {
		last = l
	}
	if !regexp.MustCompile(`^rynek serve: stopped after \d+ ticks, tick work p50 .*; bots \d+ ok, \d+ refused( \(.+\))?$`).MatchString(last) {
		t.Fatalf("last line %q", last)
	}
	// Its log is a file or a pipe here: each step's last word on a line of
	// its own, no progress rewritten in place.
	log := errb.String()
	if strings.ContainsAny(log, "\r\x1b") || !strings.Contains(log, "rynek: seeded 300 players, 200 listings") ||
		!strings.Contains(log, "\nrynek: loaded ") {
		t.Errorf("the log has carriage returns or escapes, or lacks a step:\n%q", log)
	}
}

// TestServeOnAFullDisk runs `rynek serve` with bots on a real 20 MB tmpfs
// and fills it: the log says the store's error once, /api/health answers
// 503 with ready false and the error; when the disk has room again the log
// says it is over and health is ready again. No line repeats every tick.
func TestServeOnAFullDisk(t *testing.T) {
	dir := tmpfs.Mount(t, 20<<20, false)
	path := filepath.Join(dir, "m.db")
	srv := startServe(t, "--db", path, "--seed", "3000", "--api", "127.0.0.1:0", "--bots", "200")
	errb := &srv.errb
	health := func() (int, httpapi.Health) {
		res, err := http.Get(srv.base + "/api/health")
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		var h httpapi.Health
		if err := json.NewDecoder(res.Body).Decode(&h); err != nil {
			t.Fatal(err)
		}
		return res.StatusCode, h
	}
	waitHealth := func(what string, ok func(int, httpapi.Health) bool) httpapi.Health {
		t.Helper()
		for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(100 * time.Millisecond) {
			code, h := health()
			if ok(code, h) {
				return h
			}
			if time.Now().After(deadline) {
				t.Fatalf("health never said %s: %d %+v; stderr:\n%s", what, code, h, errb.String())
			}
		}
	}
	waitHealth("ready", func(code int, h httpapi.Health) bool { return code == 200 && h.Ready })

	filler := tmpfs.Fill(t, dir)
	h := waitHealth("the store fails", func(code int, h httpapi.Health) bool { return code == 503 && !h.Ready && !h.Store.OK })
	// The first write refused may be a commit or a reservation of listing
	// ids ("reserve listing ids: database or disk is full (13)").
	if f := h.Store.Failure; f == nil || !strings.HasSuffix(f.Error, "database or disk is full (13)") || f.Failures < 1 {
		t.Fatalf("health while the disk is full: %+v", h.Store.Failure)
	}
	time.Sleep(time.Second) // the bots keep trying, and failing
	if err := os.Remove(filler); err != nil {
		t.Fatal(err)
	}
	h = waitHealth("the store works again", func(code int, h httpapi.Health) bool { return code == 200 && h.Ready && h.Store.OK })
	if f := h.Store.Failure; f == nil || f.Over.IsZero() || f.Failures < 1 {
		t.Fatalf("health after the disk has room again: %+v", f)
	}

	srv.stop()
	log := errb.String()
	t.Logf("stderr after the seed:\n%s", log[strings.LastIndex(log, "loaded"):])
	said := regexp.MustCompile(`rynek serve: store failure: [a-z ]*:? ?database or disk is full \(13\); every change is refused until the store saves again\n`)
	if !said.MatchString(log) {
		t.Errorf("the log never said the store's error")
	}
	if n := strings.Count(log, "rynek serve: store failure over: the store has saved changes since "); n < 1 {
		t.Errorf("the log never said the failure was over")
	}
	if n := strings.Count(log, "\n"); n > 20 {
		t.Errorf("%d lines of log for one full disk", n)
	}
	if strings.Contains(log, "recovered the purchases") {
		t.Errorf("the log repeats recovery lines")
	}
}

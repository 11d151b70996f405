package main

import (
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/rynek/rynek/internal/httpapi"
	"github.com/rynek/rynek/internal/tmpfs"
)

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

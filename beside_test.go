package main

import (
	"bufio"
	"encoding/json"
	"net/http"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestServeBesideServe: two `rynek serve` on one market file, the second a
// process of its own, are two instances of one market. The second answers
// with what the first's bots do within a second; killing it leaves the
// first running; the market is sound after both.
func TestServeBesideServe(t *testing.T) {
	path := filepath.Join(t.TempDir(), "m.db")
	first := startServe(t, "--db", path, "--seed", "200", "--api", "127.0.0.1:0", "--bots", "50")
	second := command("serve", "--db", path, "--api", "127.0.0.1:0")
	out, err := second.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var errb lockedBuffer
	second.Stderr = &errb
	if err := second.Start(); err != nil {
		t.Fatal(err)
	}
	killed := false
	t.Cleanup(func() {
		if !killed {
			second.Process.Kill()
			second.Wait()
		}
	})
	lines := bufio.NewScanner(out)
	if !lines.Scan() {
		t.Fatalf("the second serve said nothing: %s", errb.String())
	}
	m := regexp.MustCompile(`on http://(127\.0\.0\.1:\d+)/`).FindStringSubmatch(lines.Text())
	if m == nil {
		t.Fatalf("the second serve's first line %q; stderr %s", lines.Text(), errb.String())
	}
	secondBase := "http://" + m[1]
	go func() {
		for lines.Scan() { // drained, so that it never blocks on a full pipe
		}
	}()

	version := func(base string) uint64 {
		t.Helper()
		res, err := http.Get(base + "/api/health")
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		var h struct{ Version uint64 }
		if err := json.NewDecoder(res.Body).Decode(&h); err != nil {
			t.Fatalf("health of %s: %d %v", base, res.StatusCode, err)
		}
		return h.Version
	}
	// The first's bots change the market; the second, which runs none,
	// reaches each version the first had, within a second.
	for range 5 {
		want := version(first.base)
		deadline := time.Now().Add(time.Second)
		for version(secondBase) < want {
			if time.Now().After(deadline) {
				t.Fatalf("the second instance is at version %d a second after the first was at %d", version(secondBase), want)
			}
			time.Sleep(10 * time.Millisecond)
		}
		time.Sleep(200 * time.Millisecond)
	}

	// Killed, the second leaves the first running.
	if err := second.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	second.Wait()
	killed = true
	v := version(first.base)
	for deadline := time.Now().Add(5 * time.Second); version(first.base) == v; time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the first serve's bots stopped when the second was killed")
		}
	}
	first.stop()
	check := command("check", "--db", path)
	report, err := check.CombinedOutput()
	if err != nil || !strings.Contains(string(report), "sound: no problems") {
		t.Fatalf("rynek check after both: %v\n%s", err, report)
	}
}

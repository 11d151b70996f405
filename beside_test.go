package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"net/http"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"
)

// instance is `rynek serve` in a child process of its own, an instance of
// a market file that others have open too: a process the test can kill.
type instance struct {
	t    *testing.T
	cmd  *exec.Cmd
	base string // "http://127.0.0.1:PORT"
	errb *lockedBuffer
}

// startInstance runs `rynek serve --api 127.0.0.1:0` with args and returns
// once it says where it serves. It is killed when the test ends.
func startInstance(t *testing.T, args ...string) *instance {
	t.Helper()
	in := &instance{t: t, cmd: command(append([]string{"serve", "--api", "127.0.0.1:0"}, args...)...), errb: &lockedBuffer{}}
	out, err := in.cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	in.cmd.Stderr = in.errb
	if err := in.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(in.kill)
	lines := bufio.NewScanner(out)
	if !lines.Scan() {
		t.Fatalf("rynek serve %v said nothing: %s", args, in.errb.String())
	}
	m := regexp.MustCompile(`on http://(127\.0\.0\.1:\d+)/`).FindStringSubmatch(lines.Text())
	if m == nil {
		t.Fatalf("rynek serve's first line %q; stderr %s", lines.Text(), in.errb.String())
	}
	in.base = "http://" + m[1]
	go func() {
		for lines.Scan() { // drained, so that it never blocks on a full pipe
		}
	}()
	return in
}

// kill sends SIGKILL and waits for the process, once.
func (in *instance) kill() {
	if in.cmd.ProcessState == nil {
		in.cmd.Process.Signal(syscall.SIGKILL)
		in.cmd.Wait()
	}
}

// version is the market's version as the instance's API says it.
func version(t *testing.T, base string) uint64 {
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

// mustBeSound runs `rynek check` as a process of its own: the market must be
// sound at the instant it reads.
func mustBeSound(t *testing.T, path, when string) {
	t.Helper()
	report, err := command("check", "--db", path).CombinedOutput()
	if err != nil || !strings.Contains(string(report), "sound: no problems") {
		t.Fatalf("rynek check %s: %v\n%s", when, err, report)
	}
}

// TestServeBesideServe: two `rynek serve` on one market file, the second a
// process of its own, are two instances of one market. The second answers
// with what the first's bots do within a second; killing it leaves the
// first running; the market is sound after both.
func TestServeBesideServe(t *testing.T) {
	path := filepath.Join(t.TempDir(), "m.db")
	first := startServe(t, "--db", path, "--seed", "200", "--api", "127.0.0.1:0", "--bots", "50")
	second := startInstance(t, "--db", path)
	// The first's bots change the market; the second, which runs none,
	// reaches each version the first had, within a second.
	for range 5 {
		want := version(t, first.base)
		deadline := time.Now().Add(time.Second)
		for version(t, second.base) < want {
			if time.Now().After(deadline) {
				t.Fatalf("the second instance is at version %d a second after the first was at %d", version(t, second.base), want)
			}
			time.Sleep(10 * time.Millisecond)
		}
		time.Sleep(200 * time.Millisecond)
	}

	// Killed, the second leaves the first running.
	second.kill()
	v := version(t, first.base)
	for deadline := time.Now().Add(5 * time.Second); version(t, first.base) == v; time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the first serve's bots stopped when the second was killed")
		}
	}
	first.stop()
	mustBeSound(t, path, "after both")
}

// TestKillingEitherInstanceLosesNothing: two instances on one market file,
// each with its bots at 100 turns a second, and one of them, at random,
// SIGKILLed at a random moment and started again, 50 times (10 with
// -short). After every kill the market checks sound from a third process
// while the survivor goes on: no money, item or event lost or doubled.
func TestKillingEitherInstanceLosesNothing(t *testing.T) {
	path := filepath.Join(t.TempDir(), "m.db")
	kills := 50
	if testing.Short() {
		kills = 10
	}
	args := []string{"--db", path, "--seed", "300", "--bots", "100"}
	both := []*instance{startInstance(t, args...), startInstance(t, args...)}
	rng := rand.New(rand.NewPCG(uint64(time.Now().UnixNano()), 41))
	for i := range kills {
		victim := rng.IntN(2)
		survivor := both[1-victim]
		time.Sleep(time.Duration(100+rng.IntN(500)) * time.Millisecond)
		both[victim].kill()
		when := fmt.Sprintf("after kill %d of %d (instance %d)", i+1, kills, victim)
		mustBeSound(t, path, when)
		v := version(t, survivor.base)
		for deadline := time.Now().Add(5 * time.Second); version(t, survivor.base) == v; time.Sleep(20 * time.Millisecond) {
			if time.Now().After(deadline) {
				t.Fatalf("the survivor's bots stopped %s", when)
			}
		}
		both[victim] = startInstance(t, args...)
	}
	for _, in := range both {
		in.kill()
	}
	mustBeSound(t, path, "after the last kill")
}

// TestAStoppedInstanceCatchesUp: an instance stopped as ctrl+z stops a
// console (SIGSTOP) holds the other back in nothing: its bots go on all the
// while. Resumed, it reaches the other's version within a second, and the
// market is sound.
func TestAStoppedInstanceCatchesUp(t *testing.T) {
	path := filepath.Join(t.TempDir(), "m.db")
	server := startInstance(t, "--db", path, "--seed", "200", "--bots", "100")
	stopped := startInstance(t, "--db", path)
	if err := stopped.cmd.Process.Signal(syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
	from := version(t, server.base)
	for range 10 { // five seconds in which the server must keep committing
		v := version(t, server.base)
		time.Sleep(500 * time.Millisecond)
		if version(t, server.base) == v {
			t.Fatalf("the server committed nothing for half a second beside a stopped instance (at version %d)", v)
		}
	}
	if err := stopped.cmd.Process.Signal(syscall.SIGCONT); err != nil {
		t.Fatal(err)
	}
	want := version(t, server.base)
	deadline := time.Now().Add(time.Second)
	for version(t, stopped.base) < want {
		if time.Now().After(deadline) {
			t.Fatalf("resumed, the instance is at version %d a second after the server was at %d (it stopped at about %d)",
				version(t, stopped.base), want, from)
		}
		time.Sleep(10 * time.Millisecond)
	}
	mustBeSound(t, path, "after the stopped instance caught up")
}

package pgtest

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

func TestMain(m *testing.M) { os.Exit(Main(m)) }

// childEnv, set in a child test binary, says how its test ends.
const childEnv = "RYNEK_PGTEST_CHILD_ENDS"

// TestAClusterGoesWhateverTheTestsDo: a test binary whose test starts the
// cluster and restarts it, then passes, fails, panics, ends as its
// -timeout would (a panic on another goroutine) or is SIGKILLed, leaves no server running and no rynek-pg-*
// directory in its temporary directory once it has ended.
func TestAClusterGoesWhateverTheTestsDo(t *testing.T) {
	if ending := os.Getenv(childEnv); ending != "" {
		child(t, ending)
		return
	}
	for _, ending := range []string{"pass", "fail", "panic", "timeout", "kill"} {
		t.Run(ending, func(t *testing.T) {
			// The cluster's directory belongs to the postgres user when
			// the tests run as root: the temporary directory must let it in.
			tmp, err := os.MkdirTemp("", "rynek-pgtest-")
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { os.RemoveAll(tmp) })
			if err := os.Chmod(tmp, 0o755); err != nil {
				t.Fatal(err)
			}
			cmd := exec.Command(os.Args[0], "-test.run", "^TestAClusterGoesWhateverTheTestsDo$", "-test.v")
			cmd.Env = append(os.Environ(), childEnv+"="+ending, "TMPDIR="+tmp, "RYNEK_TEST_PG=")
			out, err := cmd.StdoutPipe()
			if err != nil {
				t.Fatal(err)
			}
			var stderr strings.Builder
			cmd.Stderr = &stderr
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			// The child says its cluster's directory, server and watchdog
			// once the server is back from its restart.
			var dir string
			var server, watchdog int
			var lines []string
			sc := bufio.NewScanner(out)
			for sc.Scan() {
				lines = append(lines, sc.Text())
				if _, err := fmt.Sscanf(sc.Text(), "cluster %s server %d watchdog %d", &dir, &server, &watchdog); err == nil {
					break
				}
			}
			if dir == "" {
				cmd.Process.Kill()
				cmd.Wait()
				if strings.Contains(strings.Join(lines, "\n"), "SKIPPED: no PostgreSQL") {
					available(t) // skips here too, or fails with RYNEK_REQUIRE_PG=1
				}
				t.Fatalf("the child never said its cluster:\n%s\n%s", strings.Join(lines, "\n"), stderr.String())
			}
			if filepath.Dir(dir) != tmp || !strings.HasPrefix(filepath.Base(dir), "rynek-pg-") {
				t.Fatalf("the cluster is in %s, want a rynek-pg-* directory in %s", dir, tmp)
			}
			if !alive(server) || !alive(watchdog) {
				t.Fatalf("the child's server (%d, alive %v) or watchdog (%d, alive %v) is not running", server, alive(server), watchdog, alive(watchdog))
			}
			if ending == "kill" {
				cmd.Process.Signal(syscall.SIGKILL)
			}
			for sc.Scan() { // the rest, until the child's end closes it
				lines = append(lines, sc.Text())
			}
			err = cmd.Wait()
			var exit *exec.ExitError
			if ending == "pass" && err != nil || ending != "pass" && !errors.As(err, &exit) {
				t.Fatalf("the child ending with %s: %v\n%s\n%s", ending, err, strings.Join(lines, "\n"), stderr.String())
			}
			// The watchdog, the child's child, works on after the child's
			// end: wait for it to be gone, then for what it leaves.
			for alive(watchdog) {
				time.Sleep(10 * time.Millisecond)
			}
			if alive(server) {
				t.Errorf("the server (pid %d) still runs after the child ended with %s", server, ending)
			}
			if _, err := os.Stat(dir); !errors.Is(err, os.ErrNotExist) {
				t.Errorf("the cluster's directory %s is still there after the child ended with %s (%v)", dir, ending, err)
			}
			if left, _ := filepath.Glob(filepath.Join(tmp, "rynek-pg-*")); len(left) > 0 {
				t.Errorf("left in the temporary directory: %v", left)
			}
		})
	}
}

// child is the child binary's test: a database on the cluster, a restart,
// a line for the parent, then the ending asked for.
func child(t *testing.T, ending string) {
	Database(t)
	Restart(t, 0)
	pidFile, err := os.ReadFile(filepath.Join(cluster.dir, "data", "postmaster.pid"))
	if err != nil {
		t.Fatal(err)
	}
	server, err := strconv.Atoi(strings.SplitN(string(pidFile), "\n", 2)[0])
	if err != nil {
		t.Fatalf("postmaster.pid: %q: %v", pidFile, err)
	}
	fmt.Printf("cluster %s server %d watchdog %d\n", cluster.dir, server, cluster.watchdog)
	switch ending {
	case "fail":
		t.Fatal("the child fails, as asked")
	case "panic":
		panic("the child panics, as asked")
	case "timeout":
		// What -timeout does: a panic on a goroutine of its own, which
		// nothing recovers, ends the binary where it stands.
		go panic("test timed out after 0s (the child's, as asked)")
		time.Sleep(time.Hour)
	case "kill":
		time.Sleep(time.Hour) // until the parent's SIGKILL
	}
}

// alive says whether pid is a process that has not ended (a zombie has).
func alive(pid int) bool {
	stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return false
	}
	// The state follows the command's closing parenthesis.
	s := string(stat)
	i := strings.LastIndexByte(s, ')')
	return i < 0 || i+2 >= len(s) || s[i+2] != 'Z' && s[i+2] != 'X'
}

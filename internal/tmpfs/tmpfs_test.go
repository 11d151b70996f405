package tmpfs

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"
)

// childEnv, set in a child test binary, says how its test ends.
const childEnv = "RYNEK_TMPFS_CHILD_ENDS"

// TestAMountGoesWhateverTheTestsDo: a test binary whose test mounts a
// tmpfs, then passes, panics or is SIGKILLed, leaves nothing mounted once
// it has ended.
func TestAMountGoesWhateverTheTestsDo(t *testing.T) {
	if ending := os.Getenv(childEnv); ending != "" {
		dir := Mount(t, 1<<20, false)
		watchdogsMu.Lock()
		fmt.Printf("mounted %s watchdog %d\n", dir, watchdogs[dir])
		watchdogsMu.Unlock()
		// The parent looks at the mount, then says go (or kills).
		bufio.NewReader(os.Stdin).ReadString('\n')
		if ending == "panic" {
			panic("the child panics, as asked")
		}
		return
	}
	for _, ending := range []string{"pass", "panic", "kill"} {
		t.Run(ending, func(t *testing.T) {
			cmd := exec.Command(os.Args[0], "-test.run", "^TestAMountGoesWhateverTheTestsDo$", "-test.v")
			cmd.Env = append(os.Environ(), childEnv+"="+ending)
			out, err := cmd.StdoutPipe()
			if err != nil {
				t.Fatal(err)
			}
			in, err := cmd.StdinPipe()
			if err != nil {
				t.Fatal(err)
			}
			var stderr strings.Builder
			cmd.Stderr = &stderr
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			var dir string
			var watchdog int
			var lines []string
			sc := bufio.NewScanner(out)
			for sc.Scan() {
				lines = append(lines, sc.Text())
				if _, err := fmt.Sscanf(sc.Text(), "mounted %s watchdog %d", &dir, &watchdog); err == nil {
					break
				}
			}
			if dir == "" {
				cmd.Process.Kill()
				cmd.Wait()
				if strings.Contains(strings.Join(lines, "\n"), "SKIPPED: this test needs a real small filesystem") {
					Mount(t, 1<<20, false) // skips here too, or fails with RYNEK_REQUIRE_MOUNT=1
				}
				t.Fatalf("the child never said its mount:\n%s\n%s", strings.Join(lines, "\n"), stderr.String())
			}
			if !mounted(t, dir) {
				t.Fatalf("the child's %s is not mounted while it runs", dir)
			}
			if ending == "kill" {
				cmd.Process.Signal(syscall.SIGKILL)
			} else {
				fmt.Fprintln(in, "go")
			}
			for sc.Scan() {
				lines = append(lines, sc.Text())
			}
			err = cmd.Wait()
			var exit *exec.ExitError
			if ending == "pass" && err != nil || ending != "pass" && !errors.As(err, &exit) {
				t.Fatalf("the child ending with %s: %v\n%s\n%s", ending, err, strings.Join(lines, "\n"), stderr.String())
			}
			// The watchdog works on after the child's end.
			for alive(watchdog) {
				time.Sleep(10 * time.Millisecond)
			}
			if mounted(t, dir) {
				t.Errorf("%s is still mounted after the child ended with %s", dir, ending)
				syscall.Unmount(dir, syscall.MNT_DETACH)
			}
		})
	}
}

// mounted says whether dir is a mount point of this mount namespace.
func mounted(t *testing.T, dir string) bool {
	t.Helper()
	info, err := os.ReadFile("/proc/self/mountinfo")
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(string(info), "\n") {
		if f := strings.Fields(line); len(f) > 4 && f[4] == dir {
			return true
		}
	}
	return false
}

// alive says whether pid is a process that has not ended (a zombie has).
func alive(pid int) bool {
	stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return false
	}
	s := string(stat)
	i := strings.LastIndexByte(s, ')')
	return i < 0 || i+2 >= len(s) || s[i+2] != 'Z' && s[i+2] != 'X'
}

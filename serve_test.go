package main

import (
	"bufio"
	"io"
	"os"
	"regexp"
	"syscall"
	"testing"
	"time"
)

// served is `rynek serve` running in the test's process, as the tests of
// the command drive it.
type served struct {
	t     *testing.T
	base  string      // "http://127.0.0.1:PORT"
	lines chan string // stdout, a line at a time; closed when it ends
	errb  lockedBuffer
	done  chan int // the exit code
}

// startServe runs `rynek serve` with args (which give --api 127.0.0.1:0)
// and returns once it says where it serves.
func startServe(t *testing.T, args ...string) *served {
	t.Helper()
	s := &served{t: t, lines: make(chan string, 16), done: make(chan int, 1)}
	pr, pw := io.Pipe()
	go func() {
		s.done <- run(append([]string{"serve"}, args...), pw, &s.errb)
		pw.Close()
	}()
	go func() {
		sc := bufio.NewScanner(pr)
		for sc.Scan() {
			s.lines <- sc.Text()
		}
		close(s.lines)
	}()
	first := <-s.lines
	m := regexp.MustCompile(`on http://(127\.0\.0\.1:\d+)/`).FindStringSubmatch(first)
	if m == nil {
		t.Fatalf("first line %q; stderr %s", first, s.errb.String())
	}
	s.base = "http://" + m[1]
	return s
}

// stop sends SIGTERM and waits for serve to exit 0.
func (s *served) stop() {
	s.t.Helper()
	if err := syscall.Kill(os.Getpid(), syscall.SIGTERM); err != nil {
		s.t.Fatal(err)
	}
	select {
	case code := <-s.done:
		if code != 0 {
			s.t.Fatalf("exit %d: %s", code, s.errb.String())
		}
	case <-time.After(20 * time.Second):
		s.t.Fatal("serve did not stop on SIGTERM")
	}
}

package main

import (
	"bufio"
	"bytes"
	"context"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/rynek/rynek/internal/pgtest"
	"github.com/rynek/rynek/internal/traffic"
	"github.com/rynek/rynek/market"
)

// The setup the commands' tests share: TestMain and the program as a child
// process, the plugin's fixtures, a demo market with traffic, a digest of a
// PostgreSQL market's tables, and rynek serve run in the test's process.

// TestMain runs the tests, or, as a child the tests start with
// RYNEK_TEST_MAIN=1 (command), the program itself.
func TestMain(m *testing.M) {
	if os.Getenv("RYNEK_TEST_MAIN") == "1" {
		os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
	}
	os.Exit(pgtest.Main(m))
}

// command is the program run with args in a child process, as a user runs
// it: a process that can be killed, stopped or sent SIGTERM on its own.
func command(args ...string) *exec.Cmd {
	cmd := exec.Command(os.Args[0], args...)
	cmd.Env = append(os.Environ(), "RYNEK_TEST_MAIN=1")
	return cmd
}

// pluginFixture is the folder of one of internal/grzybcio's fixtures, the
// original plugin's data: "server" (listings, mailboxes, history and a
// config.yml), "legacy" (an older plugin's listings.yml alone), "foreign" (a
// listings.yml that is not the plugin's).
func pluginFixture(name string) string {
	return filepath.Join("internal", "grzybcio", "testdata", name)
}

// demoMarket seeds a demo market of n listings at location (a file or a
// PostgreSQL market), gives it some traffic (sells, purchases, removals:
// entries in its log) and closes it.
func demoMarket(t *testing.T, location string, n int) {
	t.Helper()
	s, err := open(marketFlags{db: location, seed: n, seedRand: 7, name: "Rynek"}, market.Config{}, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	svc := s.svc
	players, err := svc.Players()
	if err != nil {
		t.Fatal(err)
	}
	g := traffic.New(3)
	for i := 0; i < 300; i++ {
		g.One(svc, players) // a refusal (too little money, say) is traffic too
	}
	svc.Flush() // the console's market commits behind the tick
	if svc.Version() == 0 {
		t.Fatal("the traffic logged nothing")
	}
	if err := svc.Close(); err != nil {
		t.Fatal(err)
	}
}

// pgDigest is a digest of every row of every table of a PostgreSQL market.
func pgDigest(t *testing.T, dsn string) string {
	t.Helper()
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	var all []string
	for _, table := range []string{"meta", "players", "mail", "listings", "transactions", "events", "event_counter", "rynek_instances", "rynek_schema"} {
		var d string
		if err := conn.QueryRow(ctx, "SELECT coalesce(md5(string_agg(t::text, ',' ORDER BY t::text)), '') FROM "+table+" t").Scan(&d); err != nil {
			t.Fatal(err)
		}
		all = append(all, table+" "+d)
	}
	return strings.Join(all, "\n")
}

// served is `rynek serve` running in the test's process, as the tests of
// the command drive it.
type served struct {
	t     *testing.T
	base  string      // "http://127.0.0.1:PORT"
	first string      // its first line, which says where it serves
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
	s.base, s.first = "http://"+m[1], first
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

// lockedBuffer is a bytes.Buffer safe for the server's goroutine and the
// test's.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// Package pgtest gives tests a real PostgreSQL server: a throwaway cluster
// started from the binaries installed on the machine, in a temporary
// directory, stopped when the tests end. Each test gets a database of its
// own on it.
//
// With RYNEK_TEST_PG set to a connection string, tests use that server
// instead (its user must be allowed to create databases). Where neither is
// available the tests skip with a message saying why; with RYNEK_REQUIRE_PG=1
// (CI sets it) they fail instead, so that a machine without PostgreSQL can
// never pass them silently.
//
// A package whose tests use it runs them through Main:
//
//	func TestMain(m *testing.M) { os.Exit(pgtest.Main(m)) }
package pgtest

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/url"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"sort"
	"strconv"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// cluster is the server of this test binary, started on first use.
var cluster struct {
	once     sync.Once
	admin    string // connection string to its postgres database
	err      error  // why there is no server
	stop     func()
	down, up func() error // stop the server (as a crash would) and start it again
	mu       sync.Mutex
	created  int
	// templates are Template's databases by name, kept until Main ends.
	templates map[string]string
	// dir is the directory of a cluster pgtest started, watchdog the pid
	// of the process that removes it (startCluster).
	dir      string
	watchdog int
}

// Main runs the tests and then stops the cluster, if one was started.
func Main(m *testing.M) int {
	code := m.Run()
	dropTemplates()
	if cluster.stop != nil {
		cluster.stop()
	}
	return code
}

// Database creates an empty database on the test server and returns its
// connection string. It skips (or, with RYNEK_REQUIRE_PG=1, fails) t when
// no server can be had.
func Database(t testing.TB) string {
	t.Helper()
	available(t)
	dsn := create(t, "")
	t.Cleanup(func() { drop(dsn) })
	return dsn
}

// Store names one new empty market of the store RYNEK_TEST_STORE selects
// (sqlite, the default, or postgres), in a form a child process can open
// too: "sqlite:PATH" in t's temporary directory, or a database of the test
// server (Database). Suites that run on both stores take their markets
// from it.
func Store(t testing.TB) string {
	t.Helper()
	switch kind := os.Getenv("RYNEK_TEST_STORE"); kind {
	case "", "sqlite":
		return "sqlite:" + filepath.Join(t.TempDir(), "market.db")
	case "postgres":
		return Database(t)
	default:
		t.Fatalf("RYNEK_TEST_STORE=%q: want sqlite or postgres", kind)
		return ""
	}
}

// Template returns a database of the test server that fill filled, once
// per test binary for each name: a benchmark's large market, seeded once
// and copied (Clone) for each run. It stays until the tests end. A fill
// that fails fails t, and the next caller fills a new database.
func Template(t testing.TB, name string, fill func(dsn string) error) string {
	t.Helper()
	available(t)
	cluster.mu.Lock()
	dsn, ok := cluster.templates[name]
	cluster.mu.Unlock()
	if ok {
		return dsn
	}
	dsn = create(t, "")
	if err := fill(dsn); err != nil {
		drop(dsn)
		t.Fatalf("fill the template %s: %v", name, err)
	}
	if err := settle(dsn); err != nil {
		drop(dsn)
		t.Fatalf("settle the template %s: %v", name, err)
	}
	cluster.mu.Lock()
	if cluster.templates == nil {
		cluster.templates = map[string]string{}
	}
	cluster.templates[name] = dsn
	cluster.mu.Unlock()
	return dsn
}

// Clone creates a database on the test server as a copy of dsn's (one of
// Template's or Database's, which nothing may have open meanwhile) and
// returns its connection string: a benchmark seeds a large market once and
// runs on copies of it, as it would on copies of a file. The copy is
// dropped when t ends.
func Clone(t testing.TB, dsn string) string {
	t.Helper()
	available(t)
	cfg, err := pgx.ParseConfig(dsn)
	if err != nil {
		t.Fatalf("clone %s: %v", dsn, err)
	}
	clone := create(t, cfg.Database)
	t.Cleanup(func() { drop(clone) })
	return clone
}

// available skips (or, with RYNEK_REQUIRE_PG=1, fails) t when no server
// can be had.
func available(t testing.TB) {
	t.Helper()
	cluster.once.Do(start)
	if cluster.err != nil {
		if os.Getenv("RYNEK_REQUIRE_PG") == "1" {
			t.Fatalf("PostgreSQL is required (RYNEK_REQUIRE_PG=1) but unavailable: %v", cluster.err)
		}
		t.Skipf("SKIPPED: no PostgreSQL for this test: %v (install postgresql-15, or set RYNEK_TEST_PG)", cluster.err)
	}
}

// create makes a new database, empty or a copy of the database template,
// and returns its connection string.
func create(t testing.TB, template string) string {
	t.Helper()
	cluster.mu.Lock()
	cluster.created++
	name := fmt.Sprintf("rynek_test_%d_%d", os.Getpid(), cluster.created)
	cluster.mu.Unlock()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute) // a copy of a large market takes a while
	defer cancel()
	conn, err := pgx.Connect(ctx, cluster.admin)
	if err != nil {
		t.Fatalf("connect to the test server: %v", err)
	}
	defer conn.Close(ctx)
	sql := "CREATE DATABASE " + name
	if template != "" {
		// FILE_COPY copies the files after a checkpoint, inside this
		// statement. The default since PostgreSQL 15, WAL_LOG, writes
		// the whole copy to the WAL instead, and the checkpoints that
		// then flush it fall in the benchmark that runs on the copy.
		sql += " TEMPLATE " + pgx.Identifier{template}.Sanitize()
		var version int
		if err := conn.QueryRow(ctx, "SELECT current_setting('server_version_num')::int").Scan(&version); err != nil {
			t.Fatalf("ask the test server's version: %v", err)
		}
		if version >= 150000 {
			sql += " STRATEGY FILE_COPY"
		}
	}
	if _, err := conn.Exec(ctx, sql); err != nil {
		t.Fatalf("create the test database: %v", err)
	}
	return withDatabase(cluster.admin, name)
}

// settle does, once in a template, the work a freshly filled database
// leaves for its first readers: the hint bits of every row (which a first
// read sets, writing the page again), the visibility map and the
// planner's statistics, then a checkpoint. Each copy starts with all of
// it done; otherwise the first run on a copy pays for it, and differently
// from the next ones.
func settle(dsn string) error {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		return fmt.Errorf("connect: %w", err)
	}
	defer conn.Close(ctx)
	for _, sql := range []string{"VACUUM (FREEZE, ANALYZE)", "CHECKPOINT"} {
		if _, err := conn.Exec(ctx, sql); err != nil {
			return fmt.Errorf("%s: %w", sql, err)
		}
	}
	return nil
}

// drop drops dsn's database, with whatever still has it open.
func drop(dsn string) {
	cfg, err := pgx.ParseConfig(dsn)
	if err != nil {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if conn, err := pgx.Connect(ctx, cluster.admin); err == nil {
		conn.Exec(ctx, "DROP DATABASE IF EXISTS "+pgx.Identifier{cfg.Database}.Sanitize()+" WITH (FORCE)")
		conn.Close(ctx)
	}
}

// dropTemplates drops Template's databases.
func dropTemplates() {
	cluster.mu.Lock()
	defer cluster.mu.Unlock()
	for name, dsn := range cluster.templates {
		drop(dsn)
		delete(cluster.templates, name)
	}
}

// withDatabase returns dsn with its database replaced by name, for a URL
// (postgres://…) or a keyword/value string (a later dbname wins).
func withDatabase(dsn, name string) string {
	u, err := url.Parse(dsn)
	if err != nil || (u.Scheme != "postgres" && u.Scheme != "postgresql") {
		return dsn + " dbname=" + name
	}
	u.Path = "/" + name
	return u.String()
}

func start() {
	if dsn := os.Getenv("RYNEK_TEST_PG"); dsn != "" {
		cluster.admin = dsn
		return
	}
	bin, err := binaries()
	if err != nil {
		cluster.err = err
		return
	}
	cluster.admin, cluster.stop, cluster.down, cluster.up, cluster.err = startCluster(bin)
}

// Restart stops the test cluster at once (as a crash would: no shutdown
// checkpoint) and starts it again, for tests of what a client does when its
// server goes away; it stays away for away. Every database of the test
// binary goes away with it. It skips t when the server is not one pgtest
// started. It must be called from t's own goroutine.
func Restart(t testing.TB, away time.Duration) {
	t.Helper()
	start := Stop(t)
	time.Sleep(away)
	start()
}

// Stop stops the test cluster at once, as Restart does, and returns the
// function that starts it again: a test holds the server away for as long
// as what it checks takes, not for a guessed time. If t ends first, the
// server is started again then, for the tests after it. Both must be
// called from t's own goroutine. It skips t when the server is not one
// pgtest started.
func Stop(t testing.TB) (start func()) {
	t.Helper()
	available(t)
	if cluster.down == nil {
		t.Skip("SKIPPED: the PostgreSQL server was not started by the tests (RYNEK_TEST_PG), so they cannot restart it")
	}
	if err := cluster.down(); err != nil {
		t.Fatalf("stop the test cluster: %v", err)
	}
	var once sync.Once
	var err error
	up := func() {
		once.Do(func() { err = cluster.up() })
	}
	t.Cleanup(up)
	return func() {
		t.Helper()
		if up(); err != nil {
			t.Fatalf("start the test cluster again: %v", err)
		}
	}
}

// binaries finds the newest installed PostgreSQL's bin directory.
func binaries() (string, error) {
	if p, err := exec.LookPath("initdb"); err == nil {
		return filepath.Dir(p), nil
	}
	dirs, _ := filepath.Glob("/usr/lib/postgresql/*/bin")
	sort.Slice(dirs, func(i, j int) bool { return version(dirs[i]) < version(dirs[j]) })
	for i := len(dirs) - 1; i >= 0; i-- {
		if _, err := os.Stat(filepath.Join(dirs[i], "initdb")); err == nil {
			return dirs[i], nil
		}
	}
	return "", errors.New("no PostgreSQL binaries (initdb) on PATH or under /usr/lib/postgresql/*/bin")
}

func version(binDir string) int {
	n, _ := strconv.Atoi(filepath.Base(filepath.Dir(binDir)))
	return n
}

// startCluster runs initdb and pg_ctl start in a new temporary directory
// (rynek-pg-* in $TMPDIR). initdb refuses to run as root, so as root the
// cluster belongs to the postgres user, whose commands run through runuser.
//
// A watchdog process (watch) owns the cluster from before initdb: it stops
// the server and removes the directory when this process ends, however it
// ends (Main's stop, a panic, a test binary's -timeout, SIGKILL), since
// the server, started by pg_ctl, would outlive it otherwise.
func startCluster(bin string) (admin string, stop func(), down, up func() error, err error) {
	dir, err := os.MkdirTemp("", "rynek-pg-")
	if err != nil {
		return "", nil, nil, nil, err
	}
	command := func(name string, args ...string) []string {
		return append([]string{filepath.Join(bin, name)}, args...)
	}
	if os.Geteuid() == 0 {
		u, err := user.Lookup("postgres")
		if err != nil {
			os.RemoveAll(dir)
			return "", nil, nil, nil, fmt.Errorf("running as root, and there is no postgres user to run the cluster as: %w", err)
		}
		uid, _ := strconv.Atoi(u.Uid)
		gid, _ := strconv.Atoi(u.Gid)
		if err := os.Chown(dir, uid, gid); err != nil {
			os.RemoveAll(dir)
			return "", nil, nil, nil, err
		}
		command = func(name string, args ...string) []string {
			return append([]string{"runuser", "-u", "postgres", "--", filepath.Join(bin, name)}, args...)
		}
	}
	run := func(name string, args ...string) *exec.Cmd {
		c := command(name, args...)
		return exec.Command(c[0], c[1:]...)
	}
	data := filepath.Join(dir, "data")
	stopArgs := []string{"-D", data, "-m", "immediate", "-w", "stop"}
	w, err := watch(dir, command("pg_ctl", stopArgs...))
	if err != nil {
		os.RemoveAll(dir)
		return "", nil, nil, nil, err
	}
	port, err := freePort()
	if err != nil {
		w.end()
		return "", nil, nil, nil, err
	}
	if out, err := run("initdb", "-D", data, "-A", "trust", "-U", "postgres", "--no-sync", "-E", "UTF8", "--locale=C.UTF-8").CombinedOutput(); err != nil {
		w.end()
		return "", nil, nil, nil, fmt.Errorf("initdb: %v: %s", err, out)
	}
	// fsync off: a test cluster's data need not survive the machine, and a
	// crash of the server process itself loses nothing the OS has.
	opts := fmt.Sprintf("-k %s -p %d -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=200", dir, port)
	logFile := filepath.Join(dir, "log")
	startServer := func() error {
		if out, err := run("pg_ctl", "-D", data, "-l", logFile, "-w", "-o", opts, "start").CombinedOutput(); err != nil {
			log, _ := os.ReadFile(logFile)
			return fmt.Errorf("pg_ctl start: %v: %s %s", err, out, log)
		}
		return nil
	}
	if err := startServer(); err != nil {
		w.end()
		return "", nil, nil, nil, err
	}
	stopServer := func() error {
		if out, err := run("pg_ctl", stopArgs...).CombinedOutput(); err != nil {
			return fmt.Errorf("pg_ctl stop: %v: %s", err, out)
		}
		return nil
	}
	cluster.dir, cluster.watchdog = dir, w.cmd.Process.Pid
	// life orders the restarts and the end: a restart still under way
	// when the tests end (a test that failed meanwhile) finishes before
	// the cluster is stopped, and none starts it again after.
	var life sync.Mutex
	ended := false
	stop = func() {
		life.Lock()
		defer life.Unlock()
		ended = true
		w.end()
	}
	down = func() error {
		life.Lock()
		defer life.Unlock()
		if ended {
			return errors.New("the test cluster has been stopped: the tests are over")
		}
		return stopServer()
	}
	up = func() error {
		life.Lock()
		defer life.Unlock()
		if ended {
			return errors.New("the test cluster has been stopped: the tests are over")
		}
		return startServer()
	}
	return fmt.Sprintf("postgres://postgres@127.0.0.1:%d/postgres", port), stop, down, up, nil
}

// watchdog is the process that stops a cluster and removes its directory
// once its standard input, a pipe only this process holds open, ends.
type watchdog struct {
	cmd  *exec.Cmd
	pipe *os.File // the write end; closing it (or dying) ends the watch
}

// watchScript waits for the end of its input, then stops the server if it
// runs (the rest of its arguments: pg_ctl stop), kills it if that failed,
// and removes the directory ($1).
const watchScript = `cat >/dev/null
dir=$1; shift
pid=$(head -n 1 "$dir/data/postmaster.pid" 2>/dev/null)
if [ -n "$pid" ] && ! "$@" >/dev/null 2>&1; then
  kill -KILL "$pid" 2>/dev/null
fi
rm -rf "$dir"
`

// watch starts the watchdog of dir, whose server stopCmd stops. It runs
// in a process group of its own, so that an interrupt typed at the
// terminal, which ends the tests, does not end it too.
func watch(dir string, stopCmd []string) (*watchdog, error) {
	r, pw, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	cmd := exec.Command("sh", append([]string{"-c", watchScript, "rynek-pg-watchdog", dir}, stopCmd...)...)
	cmd.Stdin = r
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		r.Close()
		pw.Close()
		return nil, fmt.Errorf("start the test cluster's watchdog: %w", err)
	}
	r.Close()
	return &watchdog{cmd: cmd, pipe: pw}, nil
}

// end has the watchdog stop the server and remove the directory now, and
// waits until it has.
func (w *watchdog) end() {
	w.pipe.Close()
	w.cmd.Wait()
}

func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

// Command rynek is the marketplace console: it opens (and on first run seeds)
// a persistent market, runs the market service in-process and shows it in a
// full-screen terminal UI whose update loop is the service's main thread.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/rynek/rynek/internal/grzybcio"
	"github.com/rynek/rynek/internal/headless"
	"github.com/rynek/rynek/internal/httpapi"
	"github.com/rynek/rynek/internal/rules"
	"github.com/rynek/rynek/market"
	"github.com/rynek/rynek/market/postgres"
	"github.com/rynek/rynek/market/sqlite"
	"github.com/rynek/rynek/tui"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

func run(args []string, stdout, stderr io.Writer) int {
	if len(args) > 0 {
		switch args[0] {
		case "backup":
			return runBackup(args[1:], stdout, stderr)
		case "import":
			return runImport(args[1:], stdout, stderr)
		case "export":
			return runExport(args[1:], stdout, stderr)
		case "serve":
			return runServe(args[1:], stdout, stderr)
		case "check":
			return runCheck(args[1:], stdout, stderr)
		}
	}
	return runConsole(args, stdout, stderr)
}

// marketFlags are the flags that open a market, shared by the console and
// serve.
type marketFlags struct {
	db       *string
	seedN    *int
	seedRand *int64
	name     *string
	sync     *bool
	instance *string
	config   *string
}

// dbUsage is the --db flag's help, the same for every command.
const dbUsage = "the market: a database file (default $XDG_DATA_HOME/rynek/market.db, i.e. ~/.local/share/rynek/market.db), " +
	"or a PostgreSQL market shared by a network of servers, postgres://USER:PASSWORD@HOST/DATABASE"

func addMarketFlags(fs *flag.FlagSet) marketFlags {
	return marketFlags{
		db:       fs.String("db", "", dbUsage),
		instance: fs.String("instance", "", "this server's name in a network on one PostgreSQL market, unique in it, shown as its events' origin (default: the host name)"),
		seedN:    fs.Int("seed", 3000, "listings to generate when the database is new (0: start empty)"),
		seedRand: fs.Int64("seed-rand", 1, "seed of the demo data generator (same seed, same market)"),
		name:     fs.String("name", "Rynek", `service name, as in the not-ready error "<name> API nie jest gotowe"`),
		sync:     fs.Bool("sync", false, "fsync every commit: survive power loss, not only crashes (sells about 3x slower: 2,724/s against 8,100/s measured at 1M listings)"),
		config:   fs.String("config", "", "the market's rules file (default: "+rules.FileName+" beside the market file, when there is one); ctrl+r in the console and SIGHUP to rynek serve reload it"),
	}
}

// marketRules finds and reads the rules file: --config, or rules.FileName
// beside a market file. No file (when none was asked for) is the defaults;
// a file that cannot be used is an error naming its key and line. It
// returns the path ("" for none) and the rules.
func (f marketFlags) marketRules(dbPath string) (string, market.Config, error) {
	path, asked := *f.config, *f.config != ""
	if !asked {
		if isPostgres(dbPath) {
			return "", market.Config{}, nil
		}
		path = filepath.Join(filepath.Dir(dbPath), rules.FileName)
	}
	c, err := rules.Load(path)
	switch {
	case err == nil:
		return path, c, nil
	case errors.Is(err, os.ErrNotExist) && !asked:
		return path, market.Config{}, nil // none yet; ctrl+r / SIGHUP reads it once it is there
	case errors.Is(err, os.ErrNotExist):
		return "", market.Config{}, fmt.Errorf("--config %s: no such file", path)
	}
	return "", market.Config{}, err
}

// reloader reads the rules file again and gives it to svc (main thread).
func reloader(svc *market.Service, path string) func() (string, error) {
	return func() (string, error) {
		if path == "" {
			return "", errors.New("this market has no rules file: start it with --config PATH")
		}
		c, err := rules.Load(path)
		if errors.Is(err, os.ErrNotExist) {
			return "", fmt.Errorf("%s does not exist: the rules stay as they are (docs/rules.md lists its keys)", path)
		}
		if err != nil {
			return "", fmt.Errorf("%v; the rules stay as they are", err)
		}
		if err := svc.SetRules(c); err != nil {
			return "", err
		}
		return "rules reloaded from " + path, nil
	}
}

// check validates the market flags: a usage error is exit code 2.
func (f marketFlags) check(stderr io.Writer) int {
	if *f.seedN < 0 || *f.seedN > 10_000_000 {
		fmt.Fprintf(stderr, "rynek: --seed must be between 0 and 10000000, got %d\n", *f.seedN)
		return 2
	}
	if *f.name == "" {
		fmt.Fprintln(stderr, "rynek: --name must not be empty")
		return 2
	}
	if *f.instance != "" && !isPostgres(*f.db) {
		fmt.Fprintln(stderr, "rynek: --instance names a server in a network; it needs --db postgres://…")
		return 2
	}
	if *f.sync && isPostgres(*f.db) {
		fmt.Fprintln(stderr, "rynek: --sync is for a market file; a PostgreSQL market's durability is the server's (synchronous_commit)")
		return 2
	}
	return 0
}

// isPostgres reports whether --db names a PostgreSQL market.
func isPostgres(location string) bool {
	return strings.HasPrefix(location, "postgres://") || strings.HasPrefix(location, "postgresql://")
}

// openedMarket is the store a command works on.
type openedMarket struct {
	// store is the store itself, as it is: the service tells a shared
	// store by its type, which a wrapper would hide.
	store market.Store
	// name is what messages call it: the file's path, or the server and
	// database without the password.
	name string
	// file is the SQLite store, nil for PostgreSQL.
	file *sqlite.Store
	// created is what opening it made (open.go): a command that fails
	// removes it again.
	created created
}

// empty reports whether the market has no players yet.
func (m openedMarket) empty() (bool, error) {
	if m.file != nil {
		return m.file.Empty()
	}
	return m.store.(*postgres.Store).Empty()
}

// backup is the console's backup: SQLite copies itself; a PostgreSQL
// market is the server's to back up.
func (m openedMarket) backup(dest string) error {
	if m.file == nil {
		return errPostgresBackup
	}
	return m.file.Backup(dest)
}

var errPostgresBackup = errors.New("a PostgreSQL market is backed up by the server: pg_dump -Fc -d 'postgres://…' -f market.dump")

// openMarket opens --db's market: a SQLite file, or a PostgreSQL market as
// the instance named instance (a tool's when tool is set: see
// postgres.Options).
func openMarket(location string, opts sqlite.Options, instance string, tool bool) (openedMarket, error) {
	if isPostgres(location) {
		st, err := postgres.Open(location, postgres.Options{Instance: instance, Tool: tool})
		if err != nil {
			return openedMarket{}, err
		}
		return openedMarket{store: st, name: st.Name()}, nil
	}
	made, err := newMarketFile(location)
	if err != nil {
		return openedMarket{}, err
	}
	st, err := sqlite.Open(location, opts)
	if err != nil {
		made.undo()
		return openedMarket{}, err
	}
	return openedMarket{store: st, name: location, file: st, created: made}, nil
}

// apiFlags are the HTTP API's flags.
type apiFlags struct {
	token   *string
	origins *listFlag
	rate    *float64
}

// listFlag is a flag that may be given several times.
type listFlag []string

func (l *listFlag) String() string     { return strings.Join(*l, ",") }
func (l *listFlag) Set(v string) error { *l = append(*l, v); return nil }

func addAPIFlags(fs *flag.FlagSet) apiFlags {
	f := apiFlags{origins: &listFlag{}}
	f.token = fs.String("api-token", "", "require Authorization: Bearer TOKEN of every API request (or set "+httpapi.TokenEnv+"); needed to listen beyond loopback")
	fs.Var(f.origins, "api-cors-origin", "an origin allowed to read the API from a browser, e.g. https://example.com (repeatable)")
	f.rate = fs.Float64("api-rate", httpapi.DefaultRate, "requests a second allowed per client IP, with bursts of twice that (0: no limit)")
	return f
}

// options turns the flags into the API's options; the environment
// variable supplies the token when the flag does not.
func (f apiFlags) options(stderr io.Writer) (httpapi.Options, int) {
	token := *f.token
	if token == "" {
		token = os.Getenv(httpapi.TokenEnv)
	}
	if *f.rate < 0 {
		fmt.Fprintf(stderr, "rynek: --api-rate must be 0 or more, got %g\n", *f.rate)
		return httpapi.Options{}, 2
	}
	for _, o := range *f.origins {
		if !strings.HasPrefix(o, "http://") && !strings.HasPrefix(o, "https://") || strings.HasSuffix(o, "/") {
			fmt.Fprintf(stderr, "rynek: --api-cors-origin %q is not an origin (scheme://host[:port], no path)\n", o)
			return httpapi.Options{}, 2
		}
	}
	return httpapi.Options{Token: token, CORSOrigins: *f.origins, RatePerSecond: *f.rate}, 0
}

// apiAddrFlag is the console's --api [ADDR]: alone it means the default
// address.
type apiAddrFlag struct{ addr string }

func (f *apiAddrFlag) String() string   { return f.addr }
func (f *apiAddrFlag) IsBoolFlag() bool { return true }
func (f *apiAddrFlag) Set(v string) error {
	switch v {
	case "true":
		f.addr = httpapi.DefaultAddr
	case "false":
		f.addr = ""
	default:
		f.addr = v
	}
	return nil
}

// runServe is `rynek serve`: the market without a terminal, serving the
// HTTP API, until Ctrl+C or SIGTERM.
func runServe(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("rynek serve", flag.ContinueOnError)
	fs.SetOutput(stderr)
	mf := addMarketFlags(fs)
	addr := fs.String("api", httpapi.DefaultAddr, "address of the HTTP API")
	af := addAPIFlags(fs)
	bots := fs.Float64("bots", 0, "traffic bots: turns a second of the market's players selling, buying, taking back and relisting in balance, as the console's R does (0: none)")
	fs.Usage = func() {
		fmt.Fprintf(stderr, "Usage: rynek serve [--db PATH] [--api ADDR] [--bots RATE] [flags]\n\nRuns the market without a terminal and serves its HTTP API and live board\n(http://ADDR/). Its main loop runs %d ticks a second. Ctrl+C or SIGTERM stops it.\n\nFlags:\n", headless.TicksPerSecond)
		fs.PrintDefaults()
	}
	if code, ok := parseFlags(fs, args); !ok {
		return code
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "rynek serve: unexpected argument %q (see --help)\n", fs.Arg(0))
		return 2
	}
	if code := mf.check(stderr); code != 0 {
		return code
	}
	if *bots < 0 || *bots > 100_000 {
		fmt.Fprintf(stderr, "rynek serve: --bots must be between 0 and 100000, got %g\n", *bots)
		return 2
	}
	opts, code := af.options(stderr)
	if code != 0 {
		return code
	}
	if err := httpapi.CheckExposure(*addr, opts.Token); err != nil {
		fmt.Fprintf(stderr, "rynek serve: %v\n", err)
		return 2
	}
	path, code := databasePath(fs, *mf.db, stderr)
	if code != 0 {
		return code
	}
	rulesPath, rulesNow, err := mf.marketRules(path)
	if err != nil {
		fmt.Fprintf(stderr, "rynek serve: %v\n", err)
		return 1
	}
	ln, err := httpapi.Listen(*addr, opts.Token) // first: a taken address creates nothing
	if err != nil {
		fmt.Fprintf(stderr, "rynek serve: %v\n", err)
		return 1
	}
	svc, st, _, err := open(path, sqlite.Options{Sync: *mf.sync}, *mf.instance, *mf.seedN, *mf.seedRand, *mf.name, rulesNow, stderr)
	if err != nil {
		ln.Close()
		fmt.Fprintf(stderr, "rynek serve: %v\n", err)
		return 1
	}
	api := httpapi.Start(svc, ln, opts, stderr)
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	fmt.Fprintf(stdout, "rynek serve: serving %s on http://%s/ (API under /api/, board at /); Ctrl+C stops\n", st.name, api.Addr)
	hup := make(chan os.Signal, 1)
	signal.Notify(hup, syscall.SIGHUP)
	defer signal.Stop(hup)
	sum, runErr := headless.Run(ctx, svc, headless.Options{BotsRate: *bots, Seed: uint64(time.Now().UnixNano()),
		Report: func(s string) { fmt.Fprintln(stderr, "rynek serve: "+s) }, Reload: hup, ReloadRules: reloader(svc, rulesPath)})
	stop()
	shutdown, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := api.Shutdown(shutdown); err != nil && runErr == nil {
		runErr = err
	}
	if err := svc.Close(); err != nil && runErr == nil {
		runErr = err
	}
	fmt.Fprintf(stdout, "rynek serve: stopped after %s\n", sum)
	if runErr != nil {
		fmt.Fprintf(stderr, "rynek serve: %v\n", runErr)
		return 1
	}
	return 0
}

// databasePath is --db's value, or the default market's path when --db was
// not given. An empty --db or a directory is a usage error (exit code 2),
// said in one line; a missing data directory is exit code 1.
func databasePath(fs *flag.FlagSet, flagValue string, stderr io.Writer) (string, int) {
	switch {
	case flagGiven(fs, "db") && flagValue == "":
		fmt.Fprintln(stderr, "rynek: --db must not be empty (leave it out for the default path)")
		return "", 2
	case isPostgres(flagValue):
		return flagValue, 0
	case flagValue != "":
		if fi, err := os.Stat(flagValue); err == nil && fi.IsDir() {
			fmt.Fprintf(stderr, "rynek: --db %s is a directory: give a file in it, e.g. --db %s\n", flagValue, filepath.Join(flagValue, "market.db"))
			return "", 2
		}
		return flagValue, 0
	}
	p, err := sqlite.DefaultFile()
	if err != nil {
		fmt.Fprintf(stderr, "rynek: cannot find a data directory: %v (use --db)\n", err)
		return "", 1
	}
	return p, 0
}

// flagGiven reports whether the command line set the flag name.
func flagGiven(fs *flag.FlagSet, name string) bool {
	given := false
	fs.Visit(func(f *flag.Flag) { given = given || f.Name == name })
	return given
}

// runBackup is `rynek backup [--db PATH] DEST`: a consistent copy of the
// market, taken through SQLite whether or not a console or server has the
// market open.
func runBackup(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("rynek backup", flag.ContinueOnError)
	fs.SetOutput(stderr)
	dbPath := fs.String("db", "", dbUsage)
	fs.Usage = func() {
		fmt.Fprintf(stderr, "Usage: rynek backup [--db PATH] DEST\n\nWrites a consistent copy of the market to the new file DEST, also while a console\nor server has it open. DEST must not exist.\n\nFlags:\n")
		fs.PrintDefaults()
	}
	if code, ok := parseFlags(fs, args); !ok {
		return code
	}
	if fs.NArg() != 1 {
		fmt.Fprintln(stderr, "rynek backup: give one destination file (see --help)")
		return 2
	}
	path, code := databasePath(fs, *dbPath, stderr)
	if code != 0 {
		return code
	}
	if isPostgres(path) {
		fmt.Fprintf(stderr, "rynek backup: %v\n", errPostgresBackup)
		return 2
	}
	dest := fs.Arg(0)
	start := time.Now()
	if err := sqlite.BackupFile(path, dest); err != nil {
		fmt.Fprintf(stderr, "rynek backup: %v\n", err)
		return 1
	}
	fi, err := os.Stat(dest)
	if err != nil {
		fmt.Fprintf(stderr, "rynek backup: %v\n", err)
		return 1
	}
	fmt.Fprintf(stdout, "backed up %s to %s (%.1f MB) in %s; open it with: rynek --db %s\n",
		path, dest, float64(fi.Size())/1e6, time.Since(start).Round(time.Millisecond), dest)
	return 0
}

// runExport is `rynek export --to DIR`: the market written as the original
// plugin's two files, so that a server can go back to it.
func runExport(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("rynek export", flag.ContinueOnError)
	fs.SetOutput(stderr)
	to := fs.String("to", "", "the folder to write listings.yml and market-data.yml into (required)")
	dbPath := fs.String("db", "", dbUsage)
	fs.Usage = func() {
		fmt.Fprintf(stderr, "Usage: rynek export --to DIR [--db PATH]\n\nWrites the market as GrzybcioRynek's listings.yml and market-data.yml. Existing\nfiles are never overwritten.\n\nFlags:\n")
		fs.PrintDefaults()
	}
	if code, ok := parseFlags(fs, args); !ok {
		return code
	}
	switch {
	case fs.NArg() > 0:
		fmt.Fprintf(stderr, "rynek export: unexpected argument %q (see --help)\n", fs.Arg(0))
		return 2
	case *to == "":
		fmt.Fprintln(stderr, "rynek export: give the folder to write into with --to DIR (see --help)")
		return 2
	}
	path, code := databasePath(fs, *dbPath, stderr)
	if code != 0 {
		return code
	}
	snap, err := openSnapshot(path, "export")
	if err != nil {
		fmt.Fprintf(stderr, "rynek export: %v\n", err)
		return 1
	}
	defer snap.Close()
	sum, err := grzybcio.Export(snap, *to)
	if err != nil {
		fmt.Fprintf(stderr, "rynek export: %v\n", err)
		return 1
	}
	sum.WriteSummary(stdout)
	return 0
}

// runConsole runs the console: the default command.
func runConsole(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("rynek", flag.ContinueOnError)
	fs.SetOutput(stderr)
	mf := addMarketFlags(fs)
	apiAddr := &apiAddrFlag{}
	fs.Var(apiAddr, "api", "serve the HTTP API and live board beside the console: --api alone listens on "+httpapi.DefaultAddr+", --api ADDR on ADDR")
	af := addAPIFlags(fs)
	showVersion := fs.Bool("version", false, "print the version and exit")
	fs.Usage = func() {
		fmt.Fprintf(stderr, "Usage: rynek [flags]\n       rynek serve [--db PATH] [--api ADDR] [--bots RATE]\n       rynek backup [--db PATH] DEST\n       rynek import --from DIR [--db PATH] [--dry-run] [--merge] [--partial] [--config FILE] [--expiry-days N]\n       rynek export --to DIR [--db PATH]\n       rynek check [--db PATH]\n\nThe Rynek marketplace console. Press ? inside for every key.\n\nFlags:\n")
		fs.PrintDefaults()
	}
	if code, ok := parseFlags(fs, args); !ok {
		return code
	}
	// --api is a boolean-style flag so that it may stand alone; an address
	// after it arrives as the first argument, and the flags after that are
	// parsed again.
	if apiAddr.addr == httpapi.DefaultAddr && fs.NArg() > 0 && strings.Contains(fs.Arg(0), ":") {
		apiAddr.addr = fs.Arg(0)
		if err := fs.Parse(fs.Args()[1:]); err != nil {
			return 2
		}
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "rynek: unexpected argument %q (see --help)\n", fs.Arg(0))
		return 2
	}
	if *showVersion {
		fmt.Fprintf(stdout, "rynek %s\ncompatible with service 1.0.3, game server 26.2 and web front end 0.1.0 (web contract %d)\n",
			market.ReleaseVersion, market.WebAPIContract)
		return 0
	}
	if code := mf.check(stderr); code != 0 {
		return code
	}
	opts, code := af.options(stderr)
	if code != 0 {
		return code
	}
	if apiAddr.addr != "" {
		if err := httpapi.CheckExposure(apiAddr.addr, opts.Token); err != nil {
			fmt.Fprintf(stderr, "rynek: %v\n", err)
			return 2
		}
	}
	path, code := databasePath(fs, *mf.db, stderr)
	if code != 0 {
		return code
	}
	rulesPath, rulesNow, err := mf.marketRules(path)
	if err != nil {
		fmt.Fprintf(stderr, "rynek: %v\n", err)
		return 1
	}
	var ln net.Listener
	if apiAddr.addr != "" {
		// First: a taken address creates nothing.
		if ln, err = httpapi.Listen(apiAddr.addr, opts.Token); err != nil {
			fmt.Fprintf(stderr, "rynek: %v\n", err)
			return 1
		}
	}
	svc, st, clock, err := open(path, sqlite.Options{Sync: *mf.sync}, *mf.instance, *mf.seedN, *mf.seedRand, *mf.name, rulesNow, stderr)
	if err != nil {
		if ln != nil {
			ln.Close()
		}
		fmt.Fprintf(stderr, "rynek: %v\n", err)
		return 1
	}
	var api *httpapi.Running
	if ln != nil {
		// The API's own errors would tear the console's screen: dropped.
		api = httpapi.Start(svc, ln, opts, io.Discard)
	}
	exportDir := filepath.Dir(path)
	if st.file == nil {
		exportDir = "." // a PostgreSQL market has no folder of its own
	}
	to := tui.Options{Svc: svc, Clock: clock, ExportDir: exportDir, Backup: st.backup, DatabasePath: st.name,
		ReloadRules: reloader(svc, rulesPath)}
	if api != nil {
		to.APIAddr = api.Addr
	}
	m := tui.New(to)
	// The console sets the window title; Bubble Tea empties it on exit.
	// Push the user's title first and pop it after (XTWINOPS 22/23), so the
	// terminal gets its own title back.
	fmt.Fprint(stdout, pushTitle)
	_, runErr := tea.NewProgram(m).Run()
	fmt.Fprint(stdout, popTitle)
	if api != nil {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		if err := api.Shutdown(ctx); err != nil && runErr == nil {
			runErr = fmt.Errorf("stop the API: %w", err)
		}
		cancel()
	}
	m.Close()
	if err := svc.Close(); err != nil && runErr == nil {
		runErr = err
	}
	if runErr != nil {
		fmt.Fprintf(stderr, "rynek: %v\n", runErr)
		return 1
	}
	return 0
}

// parseFlags parses a command's flags. When it returns false the command
// ends with the code: 0 after --help, 2 after a bad flag (the flag package
// has printed why).
func parseFlags(fs *flag.FlagSet, args []string) (code int, ok bool) {
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0, false
		}
		return 2, false
	}
	return 0, true
}

// pushTitle and popTitle save and restore the terminal's window title.
const (
	pushTitle = "\x1b[22;0t"
	popTitle  = "\x1b[23;0t"
)

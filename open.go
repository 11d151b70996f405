package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/rynek/rynek/internal/httpapi"
	"github.com/rynek/rynek/internal/rules"
	"github.com/rynek/rynek/internal/webhook"
	"github.com/rynek/rynek/market"
	"github.com/rynek/rynek/market/postgres"
	"github.com/rynek/rynek/market/sqlite"
	"github.com/rynek/rynek/seed"
)

// Opening a market. Every command names its market with --db
// (databasePath). The console and serve, which run the market's service,
// start through one path (marketFlags.start, then open); import opens the
// store alone (openMarket), as a tool; check and export read a snapshot
// (openSnapshot); backup copies the file.
//
// A command that fails to start leaves nothing behind. It binds the API's
// address before it opens the market (httpapi.Listen), and what opening a
// market file creates (the file, its -wal and -shm, the default market's
// directory) is removed again when the start fails after it: a seed that
// fills the disk, a market that cannot be loaded.

// marketFlags are the flags that open a market, shared by the console and
// serve: addMarketFlags fills them as the command line is parsed.
type marketFlags struct {
	db       string // --db as given; start resolves it (databasePath)
	seed     int
	seedRand int64
	// seedWithoutOrders leaves the demo data's resting buy orders out.
	seedWithoutOrders bool
	name              string
	sync              bool
	instance          string
	config            string
	// publicURL is the board's address as players reach it: Discord
	// webhook messages link to its pages.
	publicURL string
	// realtime runs the main loop's thread at real-time priority.
	realtime bool
	// command is what this process runs, as other instances of the
	// market show it: "console" or "serve" (start sets it).
	command string
}

// dbUsage is the --db flag's help, the same for every command.
const dbUsage = "the market: a database file (default $XDG_DATA_HOME/rynek/market.db, i.e. ~/.local/share/rynek/market.db), " +
	"or a PostgreSQL market shared by a network of servers, postgres://USER:PASSWORD@HOST/DATABASE"

func addMarketFlags(fs *flag.FlagSet) *marketFlags {
	f := &marketFlags{}
	fs.StringVar(&f.db, "db", "", dbUsage)
	fs.StringVar(&f.instance, "instance", "", "this instance's name among those sharing the market, unique among them, shown as its events' origin (default: on a market file the command's, serve or console, numbered while another has it; on PostgreSQL the host name)")
	fs.IntVar(&f.seed, "seed", 3000, "listings to generate when the database is new (0: start empty)")
	fs.Int64Var(&f.seedRand, "seed-rand", 1, "seed of the demo data generator (same seed, same market)")
	fs.BoolVar(&f.seedWithoutOrders, "seed-without-orders", false, "generate the demo data without resting buy orders (by default one for every 50 listings)")
	fs.StringVar(&f.name, "name", "Rynek", `service name, as in the not-ready error "<name> API nie jest gotowe"`)
	fs.BoolVar(&f.sync, "sync", false, "fsync every commit: survive power loss, not only crashes (sells about 3x slower: 2,724/s against 8,100/s measured at 1M listings)")
	fs.StringVar(&f.config, "config", "", "the market's rules file (default: "+rules.FileName+" beside the market file, when there is one); ctrl+r in the console and SIGHUP to rynek serve reload it")
	fs.BoolVar(&f.realtime, "realtime", true, "run the main loop's thread at real-time priority where the system allows it (Linux: root, CAP_SYS_NICE or LimitRTPRIO=1), so that no other thread makes a tick wait; --realtime=false leaves it normal")
	fs.StringVar(&f.publicURL, "public-url", "", "the board's address as players reach it, e.g. https://rynek.example.pl: the Discord webhooks' messages link to its pages")
	return f
}

// check validates the market flags: a usage error is exit code 2.
func (f *marketFlags) check(stderr io.Writer) int {
	if f.seed < 0 || f.seed > 10_000_000 {
		fmt.Fprintf(stderr, "rynek: --seed must be between 0 and 10000000, got %d\n", f.seed)
		return 2
	}
	if f.name == "" {
		fmt.Fprintln(stderr, "rynek: --name must not be empty")
		return 2
	}
	if f.sync && isPostgres(f.db) {
		fmt.Fprintln(stderr, "rynek: --sync is for a market file; a PostgreSQL market's durability is the server's (synchronous_commit)")
		return 2
	}
	if f.publicURL != "" {
		// The Discord encoder is what reads it: it says what is wrong.
		if _, err := webhook.NewDiscord(webhook.DiscordOptions{Board: f.publicURL}); err != nil {
			fmt.Fprintf(stderr, "rynek: --public-url: %v\n", err)
			return 2
		}
	}
	return 0
}

// marketRules finds and reads the rules file: --config, or rules.FileName
// beside a market file. No file (when none was asked for) is the defaults;
// a file that cannot be used is an error naming its key and line. It
// returns the path ("" for none) and the rules.
func (f *marketFlags) marketRules(dbPath string) (string, market.Config, error) {
	path, file, err := f.marketFile(dbPath)
	return path, file.Rules, err
}

// marketFile is marketRules with the file's webhooks.
func (f *marketFlags) marketFile(dbPath string) (string, rules.File, error) {
	path, asked := f.config, f.config != ""
	if !asked {
		if isPostgres(dbPath) {
			return "", rules.File{}, nil
		}
		path = filepath.Join(filepath.Dir(dbPath), rules.FileName)
	}
	file, err := rules.LoadFile(path)
	switch {
	case err == nil:
		return path, file, nil
	case errors.Is(err, os.ErrNotExist) && !asked:
		return path, rules.File{}, nil // none yet; ctrl+r / SIGHUP reads it once it is there
	case errors.Is(err, os.ErrNotExist):
		return "", rules.File{}, fmt.Errorf("--config %s: no such file", path)
	}
	return "", rules.File{}, err
}

// A session is the market's service running on this goroutine, its main
// thread: what the console and serve work on.
type session struct {
	svc   *market.Service
	store openedMarket
	// clock is the service's clock; the console's QA controls move it.
	clock *market.ManualClock
	// rulesPath is the rules file reloadRules reads, "" for none.
	rulesPath string
	// webhooks are the rules file's endpoints, which startWebhooks starts
	// delivering to; hooks delivers them (nil before).
	webhooks []webhook.Endpoint
	hooks    *webhook.Outbox
	// publicURL is --public-url: the board's address in Discord messages.
	publicURL string
	// listener is the API's address, bound before the market was opened;
	// nil when the command serves no API.
	listener net.Listener
	// api is the options of the API served on listener.
	api httpapi.Options
}

// start is how the console and serve start, once their own flags are
// checked: it checks the API's flags (af) for an API at addr ("" for none),
// finds the market (databasePath) and its rules file, binds the API's
// address when there is one (first: a taken address creates nothing), then
// opens the market (open). When it fails it has said why on stderr, after
// cmd, and returns the exit code.
func (f *marketFlags) start(cmd string, fs *flag.FlagSet, addr string, af *apiFlags, stderr io.Writer) (*session, int) {
	api, code := af.options(cmd, addr, stderr)
	if code != 0 {
		return nil, code
	}
	path, code := databasePath(fs, f.db, stderr)
	if code != 0 {
		return nil, code
	}
	rulesPath, file, err := f.marketFile(path)
	if err != nil {
		fmt.Fprintf(stderr, "%s: %v\n", cmd, err)
		return nil, 1
	}
	var ln net.Listener
	if addr != "" {
		if ln, err = httpapi.Listen(addr, api.Token); err != nil {
			fmt.Fprintf(stderr, "%s: %v\n", cmd, err)
			return nil, 1
		}
	}
	resolved := *f
	resolved.db, resolved.command = path, strings.TrimPrefix(cmd, "rynek ")
	if resolved.command == "rynek" {
		resolved.command = "console"
	}
	s, err := open(resolved, file.Rules, stderr)
	if err != nil {
		if ln != nil {
			ln.Close()
		}
		fmt.Fprintf(stderr, "%s: %v\n", cmd, err)
		return nil, 1
	}
	s.rulesPath, s.listener, s.api, s.webhooks, s.publicURL = rulesPath, ln, api, file.Webhooks, f.publicURL
	return s, 0
}

// open opens the market f.db names under the rules, seeds it when new,
// and enables the service on this goroutine, which then runs the console
// or serve's loop: the service's main thread. When it fails, the market
// file it created is gone again.
func open(f marketFlags, rules market.Config, stderr io.Writer) (*session, error) {
	line := progressLine{w: stderr, terminal: isTerminal(stderr)}
	st, err := openMarket(f.db, sqlite.Options{Sync: f.sync, Command: f.command}, f.instance, false)
	if err != nil {
		return nil, err
	}
	fail := func(err error) (*session, error) {
		st.store.Close()
		st.created.undo()
		if st.created.file != "" {
			err = fmt.Errorf("%w; the new market %s was removed", err, st.created.file)
		}
		return nil, err
	}
	empty, err := st.empty()
	if err != nil {
		return fail(err)
	}
	if empty && f.seed > 0 {
		start := time.Now()
		opts := seed.Options{Listings: f.seed, Rand: f.seedRand, Rules: rules, Progress: func(done, total int) {
			line.progress("rynek: seeding a demo market into %s: %3d%%", st.name, done*100/max(total, 1))
		}}
		if f.seedWithoutOrders {
			opts.Orders = -1
		}
		res, err := seed.Load(st.store, opts)
		if err != nil {
			line.end()
			if !strings.HasPrefix(err.Error(), "seed:") {
				err = fmt.Errorf("seed: %w", err)
			}
			return fail(err)
		}
		line.final("rynek: seeded %d players, %d listings, %d buy orders, %d transactions in %s",
			res.Players, res.Listings, res.Orders, res.Transactions, time.Since(start).Round(time.Millisecond))
	}
	clock := market.NewOffsetClock()
	start := time.Now()
	cfg := rules
	// The console's and serve's loop is a game tick: it never waits for a
	// commit (docs/commit-path.md).
	cfg.Name, cfg.Clock, cfg.CommitBehind = f.name, clock, true
	cfg.LoadProgress = func(done, total int) {
		line.progress("rynek: loading %s: %3d%%", st.name, done*100/max(total, 1))
	}
	svc := market.New(st.store, cfg)
	if err := svc.BindMainThread(); err != nil {
		return fail(err)
	}
	if err := svc.Enable(); err != nil {
		return fail(err)
	}
	n, _ := svc.GetActiveListingsCount()
	line.final("rynek: loaded %d active listings in %s", n, time.Since(start).Round(time.Millisecond))
	return &session{svc: svc, store: st, clock: clock}, nil
}

// reloadRules reads the rules file again and gives it to the service
// (main thread): the console's ctrl+r, serve's SIGHUP.
func (s *session) reloadRules() (string, error) {
	path := s.rulesPath
	if path == "" {
		return "", errors.New("this market has no rules file: start it with --config PATH")
	}
	file, err := rules.LoadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return "", fmt.Errorf("%s does not exist: the rules stay as they are (docs/rules.md lists its keys)", path)
	}
	if err != nil {
		return "", fmt.Errorf("%v; the rules stay as they are", err)
	}
	if err := s.svc.SetRules(file.Rules); err != nil {
		return "", err
	}
	s.webhooks = file.Webhooks
	if s.hooks != nil {
		s.hooks.Update(file.Webhooks)
	}
	return "rules reloaded from " + path + webhookCount(len(file.Webhooks)), nil
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
	// created is what opening it made (newMarketFile): a command that fails
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
	opts.Instance, opts.Tool = instance, tool
	st, err := sqlite.Open(location, opts)
	if err != nil {
		made.undo()
		return openedMarket{}, err
	}
	return openedMarket{store: st, name: location, file: st, created: made}, nil
}

// created is what opening a market file made that was not there before.
type created struct {
	file string   // the market file, "" when it was there
	dirs []string // directories made for it, the deepest first
}

// newMarketFile looks at the market file path before it is opened: when it
// is new, the market will be created there. The default market's directory
// is made (0700) on first use; another market's directory must exist.
func newMarketFile(path string) (created, error) {
	if _, err := os.Lstat(path); !errors.Is(err, os.ErrNotExist) {
		return created{}, nil // there, or not to be looked at: Open says why
	}
	made := created{file: path}
	if def, err := sqlite.DefaultFile(); err != nil || def != path {
		return made, nil
	}
	for dir := filepath.Dir(path); ; {
		if _, err := os.Lstat(dir); !errors.Is(err, os.ErrNotExist) {
			break
		}
		made.dirs = append(made.dirs, dir)
		parent := filepath.Dir(dir)
		if parent == dir {
			break
		}
		dir = parent
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		made.undo()
		return created{}, fmt.Errorf("create the market's directory: %w", err)
	}
	return made, nil
}

// undo removes what was created, after the store is closed: the file and
// SQLite's files beside it, then the directories, each only while empty.
func (c created) undo() {
	if c.file != "" {
		for _, suffix := range []string{"", "-wal", "-shm", "-journal"} {
			os.Remove(c.file + suffix)
		}
	}
	for _, dir := range c.dirs {
		os.Remove(dir)
	}
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

// openSnapshot opens the market at location (a file or a PostgreSQL
// market) to be read at one instant and never written: what the commands
// that only read (check, export) open.
func openSnapshot(location, purpose string) (market.Snapshot, error) {
	if isPostgres(location) {
		return postgres.OpenSnapshot(location, purpose)
	}
	return sqlite.OpenSnapshot(location)
}

package main

import (
	"flag"
	"fmt"
	"io"
	"path/filepath"
	"strings"

	tea "charm.land/bubbletea/v2"
	"github.com/rynek/rynek/internal/httpapi"
	"github.com/rynek/rynek/internal/priority"
	"github.com/rynek/rynek/market"
	"github.com/rynek/rynek/tui"
)

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

// consoleFlags are the console's flags, as its flag set fills them.
type consoleFlags struct {
	market  *marketFlags
	addr    *apiAddrFlag
	api     *apiFlags
	version *bool
}

// consoleFlagSet is the console's flag set: what runConsole parses and
// rynek --help lists first.
func consoleFlagSet(stderr io.Writer) (*flag.FlagSet, consoleFlags) {
	fs := newFlagSet("rynek", "", stderr)
	fs.Usage = func() { writeHelp(stderr) }
	f := consoleFlags{market: addMarketFlags(fs), addr: &apiAddrFlag{}}
	fs.Var(f.addr, "api", "serve the HTTP API and website beside the console: --api alone listens on "+httpapi.DefaultAddr+", --api ADDR on ADDR")
	f.api = addAPIFlags(fs)
	f.version = fs.Bool("version", false, "print the version and exit")
	return fs, f
}

// runConsole runs the console: the default command.
func runConsole(args []string, stdout, stderr io.Writer) int {
	fs, f := consoleFlagSet(stderr)
	mf, apiAddr, af, showVersion := f.market, f.addr, f.api, f.version
	if code, ok := parseFlags(fs, args); !ok {
		return code
	}
	// --api is a boolean-style flag so that it may stand alone; an address
	// after it arrives as the first argument, and the flags after that are
	// parsed again.
	if apiAddr.addr == httpapi.DefaultAddr && fs.NArg() > 0 && strings.Contains(fs.Arg(0), ":") {
		apiAddr.addr = fs.Arg(0)
		if code, ok := parseFlags(fs, fs.Args()[1:]); !ok {
			return code
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
	s, code := mf.start("rynek", fs, apiAddr.addr, af, stderr)
	if code != 0 {
		return code
	}
	// The Webhooks pane shows each endpoint's trouble: report lines would
	// tear the screen.
	s.startWebhooks(func(string) {})
	s.api.Webhooks = s.hooks // their lag in /metrics
	var api *httpapi.Running
	if s.listener != nil {
		// The API's own errors would tear the console's screen: dropped.
		api = httpapi.Start(s.svc, s.listener, s.api, io.Discard)
	}
	exportDir := filepath.Dir(s.store.name)
	if s.store.file == nil {
		exportDir = "." // a PostgreSQL market has no folder of its own
	}
	to := tui.Options{Svc: s.svc, Clock: s.clock, ExportDir: exportDir, Backup: s.store.backup, DatabasePath: s.store.name,
		ReloadRules: s.reloadRules, Webhooks: s.hooks}
	if api != nil {
		to.APIAddr = api.Addr
	}
	m := tui.New(to)
	// The event loop runs on this goroutine, the market's main thread
	// (bound when the market opened): see headless.Options.Realtime. The
	// console says nothing when the system refuses: the header's tick
	// work shows what it costs.
	if mf.realtime && priority.Raise() == nil {
		defer priority.Lower()
	}
	// The console sets the window title; Bubble Tea empties it on exit.
	// Push the user's title first and pop it after (XTWINOPS 22/23), so the
	// terminal gets its own title back.
	fmt.Fprint(stdout, pushTitle)
	_, runErr := tea.NewProgram(m).Run()
	fmt.Fprint(stdout, popTitle)
	if api != nil {
		if err := stopAPI(api); err != nil && runErr == nil {
			runErr = fmt.Errorf("stop the API: %w", err)
		}
	}
	m.Close()
	s.stopWebhooks()
	if err := s.svc.Close(); err != nil && runErr == nil {
		runErr = err
	}
	if runErr != nil {
		fmt.Fprintf(stderr, "rynek: %v\n", runErr)
		return 1
	}
	return 0
}

// pushTitle and popTitle save and restore the terminal's window title.
const (
	pushTitle = "\x1b[22;0t"
	popTitle  = "\x1b[23;0t"
)

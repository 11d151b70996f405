package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/rynek/rynek/internal/headless"
	"github.com/rynek/rynek/internal/httpapi"
)

// serveUsage is the help of rynek serve, before its flags.
var serveUsage = fmt.Sprintf(`Usage: rynek serve [--db PATH] [--api ADDR] [--bots RATE] [flags]

Runs the market without a terminal and serves its HTTP API and website
(http://ADDR/). Its main loop runs %d ticks a second. Ctrl+C or SIGTERM stops it.

Flags:
`, headless.TicksPerSecond)

// serveFlags are rynek serve's flags, as its flag set fills them.
type serveFlags struct {
	market *marketFlags
	addr   *string
	api    *apiFlags
	bots   *float64
}

// serveFlagSet is rynek serve's flag set: what runServe parses and rynek
// --help lists.
func serveFlagSet(stderr io.Writer) (*flag.FlagSet, serveFlags) {
	fs := newFlagSet("rynek serve", serveUsage, stderr)
	return fs, serveFlags{
		market: addMarketFlags(fs),
		addr:   fs.String("api", httpapi.DefaultAddr, "address of the HTTP API"),
		api:    addAPIFlags(fs),
		bots:   fs.Float64("bots", 0, "traffic bots: turns a second of the market's players selling, buying, taking back, relisting, auctioning and trading through buy orders in balance, as the console's R does (0: none)"),
	}
}

// runServe is `rynek serve`: the market without a terminal, serving the
// HTTP API, until Ctrl+C or SIGTERM.
func runServe(args []string, stdout, stderr io.Writer) int {
	fs, f := serveFlagSet(stderr)
	mf, addr, af, bots := f.market, f.addr, f.api, f.bots
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
	s, code := mf.start("rynek serve", fs, *addr, af, stderr)
	if code != 0 {
		return code
	}
	report := func(line string) { fmt.Fprintln(stderr, "rynek serve: "+line) }
	s.startWebhooks(report)
	s.api.Webhooks = s.hooks // their lag in /metrics
	api := httpapi.Start(s.svc, s.listener, s.api, stderr)
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	// SIGHUP is caught before serve says it serves: one sent as soon as
	// it does reloads the rules rather than ending the process.
	hup := make(chan os.Signal, 1)
	signal.Notify(hup, syscall.SIGHUP)
	defer signal.Stop(hup)
	fmt.Fprintf(stdout, "rynek serve: serving %s on http://%s/ (API under /api/, Prometheus metrics at /metrics, the website at /); Ctrl+C stops\n", s.store.name, api.Addr)
	sum, runErr := headless.Run(ctx, s.svc, headless.Options{BotsRate: *bots, Seed: uint64(time.Now().UnixNano()),
		Report: report, Reload: hup, ReloadRules: s.reloadRules, Webhooks: s.hooks, Realtime: mf.realtime})
	stop()
	if err := stopAPI(api); err != nil && runErr == nil {
		runErr = err
	}
	s.stopWebhooks()
	if err := s.svc.Close(); err != nil && runErr == nil {
		runErr = err
	}
	fmt.Fprintf(stdout, "rynek serve: stopped after %s\n", sum)
	if runErr != nil {
		fmt.Fprintf(stderr, "rynek serve: %v\n", runErr)
		return 1
	}
	return 0
}

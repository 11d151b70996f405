// Command rynek is the marketplace console: it opens (and on first run seeds)
// a persistent market, runs the market service in-process and shows it in a
// full-screen terminal UI whose update loop is the service's main thread.
// Its other commands run the market without a terminal (serve), copy it
// (backup), move a market from and to the original plugin (import, export)
// and check its integrity (check).
//
// It is the top floor of the module: it imports what it runs (tui,
// internal/httpapi, internal/headless, internal/grzybcio, seed, the stores)
// and nothing imports it, so that no library learns of flags, exit codes or
// stderr. Each command is a file holding its flags, its help and its run
// function; main.go only dispatches, and every command opens its market
// through open.go.
package main

import (
	"errors"
	"flag"
	"io"
	"os"
)

// usage is the program's help (rynek --help): every command, then the
// console's flags.
const usage = `Usage: rynek [flags]
       rynek serve [--db PATH] [--api ADDR] [--bots RATE]
       rynek backup [--db PATH] DEST
       rynek import --from DIR [--db PATH] [--dry-run] [--merge] [--partial] [--config FILE] [--expiry-days N]
       rynek export --to DIR [--db PATH]
       rynek check [--db PATH]

The Rynek marketplace console. Press ? inside for every key.

Flags:
`

func main() {
	stop := startCPUProfile(os.Stderr)
	code := run(os.Args[1:], os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

// run runs the command args name (the console when they name none) and
// returns its exit code.
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

// flagGiven reports whether the command line set the flag name.
func flagGiven(fs *flag.FlagSet, name string) bool {
	given := false
	fs.Visit(func(f *flag.Flag) { given = given || f.Name == name })
	return given
}

// newFlagSet returns a command's flag set: its errors and its help go to
// stderr, the help being usage followed by the flags.
func newFlagSet(name, usage string, stderr io.Writer) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		io.WriteString(stderr, usage)
		fs.PrintDefaults()
	}
	return fs
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

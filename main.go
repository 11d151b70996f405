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
	"fmt"
	"io"
	"os"
	"strings"
)

// A subcommand is one of rynek's commands: the console (name "") or one
// named after rynek on the command line.
type subcommand struct {
	name string
	// synopsis is how it is called, after "rynek".
	synopsis string
	// flagSet is its flag set as run parses it, for the help to list.
	flagSet func(stderr io.Writer) *flag.FlagSet
	run     func(args []string, stdout, stderr io.Writer) int
}

// commands are rynek's commands, the console first, in the help's order (a
// function: the console's help lists them).
func commands() []subcommand {
	return []subcommand{
		{"", "[flags]", func(w io.Writer) *flag.FlagSet { fs, _ := consoleFlagSet(w); return fs }, runConsole},
		{"serve", "[flags]", func(w io.Writer) *flag.FlagSet { fs, _ := serveFlagSet(w); return fs }, runServe},
		{"backup", "[--db PATH] DEST", func(w io.Writer) *flag.FlagSet { fs, _ := backupFlagSet(w); return fs }, runBackup},
		{"import", "--from DIR [flags]", func(w io.Writer) *flag.FlagSet { fs, _ := importFlagSet(w); return fs }, runImport},
		{"export", "--to DIR [flags]", func(w io.Writer) *flag.FlagSet { fs, _ := exportFlagSet(w); return fs }, runExport},
		{"check", "[--db PATH]", func(w io.Writer) *flag.FlagSet { fs, _ := checkFlagSet(w); return fs }, runCheck},
	}
}

// writeHelp writes the program's help (rynek --help): every command, then
// every command's flags, from the flag sets the commands parse, so that no
// flag is left out. A flag a command shares with one listed before it (the
// same name, meaning and default) is named, not described again.
func writeHelp(w io.Writer) {
	for i, c := range commands() {
		lead := "Usage: "
		if i > 0 {
			lead = "       "
		}
		fmt.Fprintf(w, "%srynek %s\n", lead, strings.TrimPrefix(c.name+" "+c.synopsis, " "))
	}
	io.WriteString(w, `
The Rynek marketplace console; its other commands run the market without a
terminal (serve), copy it (backup), move it from and to GrzybcioRynek's files
(import, export) and check it (check). Press ? in the console for every key;
rynek COMMAND --help says more of a command.
`)
	described := map[string]string{} // flag name -> its usage and default, as described
	for _, c := range commands() {
		fs := c.flagSet(io.Discard)
		own := flag.NewFlagSet(fs.Name(), flag.ContinueOnError)
		own.SetOutput(w)
		var shared []string
		fs.VisitAll(func(f *flag.Flag) {
			said := f.Usage + "\x00" + f.DefValue
			if described[f.Name] == said {
				shared = append(shared, "-"+f.Name)
				return
			}
			described[f.Name] = said
			own.Var(f.Value, f.Name, f.Usage)
		})
		title := "The console's flags"
		if c.name != "" {
			title = "rynek " + c.name + "'s flags"
		}
		fmt.Fprintf(w, "\n%s:\n", title)
		if len(shared) > 0 {
			line := " "
			for _, name := range shared {
				if len(line)+len(name) > 76 {
					fmt.Fprintln(w, line)
					line = " "
				}
				line += " " + name
			}
			fmt.Fprintln(w, line+": as above")
		}
		own.PrintDefaults()
	}
}

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
		for _, c := range commands()[1:] {
			if args[0] == c.name {
				return c.run(args[1:], stdout, stderr)
			}
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

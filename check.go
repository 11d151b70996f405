package main

import (
	"flag"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/rynek/rynek/market"
	"github.com/rynek/rynek/market/playertext"
)

// The exit codes of rynek check.
const (
	checkSound    = 0 // no problem
	checkProblems = 1 // problems found
	checkFailed   = 2 // could not check: a usage error, a market that cannot be read
)

// checkUsage is the help of rynek check, before its flags.
const checkUsage = `Usage: rynek check [--db PATH]

Checks the market's integrity, as git fsck or pg_amcheck do, and changes
nothing: it reads one instant of the market, also while a console or server
has it open and commits, and a market file on read-only media. It counts
every account and stack, follows every reference, holds the tables against
the event log, and says what recovery would do with a purchase left in
flight. Each problem is one line: "problem CODE IDS: TEXT".

Exit status: 0 the market is sound, 1 problems were found, 2 it could not
be checked.

Flags:
`

// checkFlagSet is rynek check's flag set, with its --db: what runCheck
// parses and rynek --help lists.
func checkFlagSet(stderr io.Writer) (*flag.FlagSet, *string) {
	fs := newFlagSet("rynek check", checkUsage, stderr)
	return fs, fs.String("db", "", dbUsage)
}

// runCheck is `rynek check [--db PATH]`: the market's integrity check, which
// reads one instant of the market and changes nothing (market.Check).
func runCheck(args []string, stdout, stderr io.Writer) int {
	fs, dbPath := checkFlagSet(stderr)
	if code, ok := parseFlags(fs, args); !ok {
		if code != 0 {
			return checkFailed
		}
		return code
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "rynek check: unexpected argument %q (see --help)\n", fs.Arg(0))
		return checkFailed
	}
	path, code := databasePath(fs, *dbPath, stderr)
	if code != 0 {
		return checkFailed
	}
	start := time.Now()
	snap, err := openSnapshot(path, "check")
	if err != nil {
		fmt.Fprintf(stderr, "rynek check: %v\n", err)
		return checkFailed
	}
	defer snap.Close()
	r, err := market.Check(snap, nil)
	if err != nil {
		fmt.Fprintf(stderr, "rynek check: %s: %v\n", snap.Describe(), err)
		return checkFailed
	}
	snap.Close() // before printing: a server's checkpoints wait for the snapshot
	writeCheckReport(stdout, r, time.Since(start))
	if !r.Sound() {
		return checkProblems
	}
	return checkSound
}

// writeCheckReport prints the summary, what recovery would do, the notes
// and every problem, each on its own line. A line can hold what players
// wrote (names) or what a damaged market holds: it is made safe for a
// terminal first.
func writeCheckReport(out io.Writer, r *market.CheckReport, took time.Duration) {
	w := safeLines{out}
	fmt.Fprintf(w, "rynek check: %s, read at one instant\n", r.Store)
	line := func(key, format string, args ...any) { fmt.Fprintf(w, "%-13s %s\n", key, fmt.Sprintf(format, args...)) }
	line("players", "%d", r.Players)
	line("listings", "%d (%d reserved by a purchase)", r.Listings, r.Reserved)
	line("mailboxes", "%d entries", r.Mail)
	line("stacks", "%d holding %d items", r.Stacks, r.Items)
	line("transactions", "%d completed, %d failed or rolled back, %d in flight", r.Completed, r.Ended, r.InFlight)
	var parts []string
	for _, a := range r.Accounts {
		parts = append(parts, fmt.Sprintf("%s %s (%d)", a.Name, market.FormatMoney(a.Money), a.Rows))
	}
	line("money", "%s: %s", market.FormatMoney(r.Money), strings.Join(parts, ", "))
	i := r.Issued
	if r.HasOpening {
		o := r.Opening
		line("  against", "opening %s + issued in %s - out %s = %s", market.FormatMoney(o.Money), market.FormatMoney(i.MoneyIn),
			market.FormatMoney(i.MoneyOut), market.FormatMoney(o.Money+i.MoneyIn-i.MoneyOut))
		line("items", "%d against opening %d + issued in %d - out %d = %d", r.Items, o.Items, i.ItemsIn, i.ItemsOut, o.Items+i.ItemsIn-i.ItemsOut)
	} else {
		line("  against", "no opening account yet; issued in %s - out %s", market.FormatMoney(i.MoneyIn), market.FormatMoney(i.MoneyOut))
	}
	line("volume", "%s over %d sales", market.FormatMoney(r.Volume), r.Sales)
	l := r.Log
	horizon := "none trimmed"
	if l.Trimmed > 0 {
		horizon = fmt.Sprintf("trimmed through %d (%s)", l.Trimmed, time.UnixMilli(l.TrimmedAt).UTC().Format("2006-01-02 15:04:05 UTC"))
	}
	if l.Entries == 0 {
		line("events", "none kept; %s; delivered through %d", horizon, l.Published)
	} else {
		line("events", "%d kept, %d to %d; %s; delivered through %d", l.Entries, l.First, l.Last, horizon, l.Published)
	}
	if len(r.Recovery) == 0 {
		line("recovery", "nothing in flight")
	}
	for _, s := range r.Recovery {
		fmt.Fprintln(w, "recovery "+s)
	}
	for _, n := range r.Notes {
		fmt.Fprintln(w, "note: "+n)
	}
	for _, p := range r.Problems {
		fmt.Fprintln(w, p.String())
	}
	took = took.Round(time.Millisecond)
	switch n := len(r.Problems); n {
	case 0:
		fmt.Fprintf(w, "sound: no problems (checked in %s)\n", took)
	case 1:
		fmt.Fprintf(w, "1 problem found (checked in %s)\n", took)
	default:
		fmt.Fprintf(w, "%d problems found (checked in %s)\n", n, took)
	}
}

// safeLines writes each line it is given (one per Write, as fmt.Fprint*
// calls give them) through playertext.Sanitize.
type safeLines struct{ w io.Writer }

func (s safeLines) Write(p []byte) (int, error) {
	_, err := io.WriteString(s.w, playertext.Sanitize(strings.TrimSuffix(string(p), "\n"))+"\n")
	return len(p), err
}

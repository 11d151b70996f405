package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/rynek/rynek/internal/grzybcio"
	"github.com/rynek/rynek/internal/rules"
	"github.com/rynek/rynek/market"
	"github.com/rynek/rynek/market/sqlite"
)

// importUsage is the help of rynek import, before its flags.
const importUsage = `Usage: rynek import --from DIR [--db PATH] [--dry-run] [--merge] [--partial] [--config FILE] [--expiry-days N]

Loads a GrzybcioRynek market (listings, players, mailboxes, history) into Rynek,
all in one transaction. Run it with --dry-run first: the report lists every
skipped entry, rounding and expired listing. A listing the market's rules refuse
(price, blacklist) is not listed: its item goes back to its seller's mailbox.
Files cut short (a crash while the plugin wrote them) are refused with the place
of the cut, unless --partial.

Flags:
`

// importFlags are rynek import's flags, as its flag set fills them.
type importFlags struct {
	from, db, config       *string
	dryRun, merge, partial *bool
	expiryDays             *int
}

// importFlagSet is rynek import's flag set: what runImport parses and
// rynek --help lists.
func importFlagSet(stderr io.Writer) (*flag.FlagSet, importFlags) {
	fs := newFlagSet("rynek import", importUsage, stderr)
	return fs, importFlags{
		from:       fs.String("from", "", "the plugin's data folder, with listings.yml and market-data.yml (required)"),
		db:         fs.String("db", "", dbUsage),
		dryRun:     fs.Bool("dry-run", false, "read, check and report everything; write nothing"),
		merge:      fs.Bool("merge", false, "add to a market that has data (nothing in it is overwritten; the same files again add nothing)"),
		partial:    fs.Bool("partial", false, "import files that were cut short (the plugin was writing them when the server crashed or the disk filled): what is whole is imported, and what was cut is listed; without it such files are refused with the place of the cut"),
		config:     fs.String("config", "", "the rules every imported listing obeys (default: "+rules.FileName+" beside the market; without one, the plugin's config.yml, which the import carries over into it; else the defaults)"),
		expiryDays: fs.Int("expiry-days", grzybcio.DefaultExpiryDays, "the plugin's listing-expiry-days: a listing expires this long after it was created (default: the plugin's config.yml's, else 7)"),
	}
}

// runImport is `rynek import --from DIR`: the original plugin's files
// (GrzybcioRynek's listings.yml and market-data.yml) loaded into the market
// in one transaction, or with --dry-run only checked and reported.
func runImport(args []string, stdout, stderr io.Writer) int {
	fs, f := importFlagSet(stderr)
	from, dbPath, dryRun, merge, partial, config, expiryDays := f.from, f.db, f.dryRun, f.merge, f.partial, f.config, f.expiryDays
	if code, ok := parseFlags(fs, args); !ok {
		return code
	}
	switch {
	case fs.NArg() > 0:
		fmt.Fprintf(stderr, "rynek import: unexpected argument %q (see --help)\n", fs.Arg(0))
		return 2
	case *from == "":
		fmt.Fprintln(stderr, "rynek import: give the plugin's data folder with --from DIR (see --help)")
		return 2
	case *expiryDays < 1 || *expiryDays > 36500:
		fmt.Fprintf(stderr, "rynek import: --expiry-days must be between 1 and 36500, got %d\n", *expiryDays)
		return 2
	}
	path, code := databasePath(fs, *dbPath, stderr)
	if code != 0 {
		return code
	}
	// The plugin's config.yml, read once: its expiry days, the rules
	// imported listings obey when the market has none, and what the import
	// carries over into the market's rules file.
	plugin, pluginErr := grzybcio.ReadRules(*from)
	expiryFrom := "--expiry-days"
	if !flagGiven(fs, "expiry-days") {
		// The plugin computed each listing's expiry from its own setting.
		expiryFrom = "the plugin's default"
		if pluginErr == nil && plugin.ExpiryDays > 0 {
			*expiryDays, expiryFrom = plugin.ExpiryDays, "listing-expiry-days in its "+grzybcio.ConfigFile
		}
	}
	listingRules, rulesFrom, err := importedListingRules(*config, *from, path, plugin, pluginErr)
	if err != nil {
		fmt.Fprintf(stderr, "rynek import: %v\n", err)
		return 1
	}
	line := progressLine{w: stderr, terminal: isTerminal(stderr)}
	opts := grzybcio.ImportOptions{Dir: *from, ExpiryDays: *expiryDays, Now: time.Now(), DryRun: *dryRun, Merge: *merge, Partial: *partial,
		Rules: listingRules, RulesFrom: rulesFrom, ExpiryFrom: expiryFrom,
		Progress: func(done, total int) {
			if total >= 10_000 {
				line.progress("rynek import: loading %3d%%", done*100/max(total, 1))
			}
		}}
	var leftOut []grzybcio.Note
	if !*dryRun {
		// A dry run lists every entry; an import lists what it left out
		// and counts the rest: a large one need not keep a note a listing
		// in memory.
		opts.Note = func(n grzybcio.Note) {
			if n.Kind == grzybcio.NoteSkipped || n.Kind == grzybcio.NoteRefused || n.Kind == grzybcio.NoteCut {
				leftOut = append(leftOut, n)
			}
		}
	}
	start := time.Now()
	existed := true
	if !isPostgres(path) {
		_, statErr := os.Stat(path)
		existed = statErr == nil
	}
	var store market.Store // nil: a dry run of a market that does not exist
	var st openedMarket
	if existed || !*dryRun {
		// A dry run does not create a market file that does not exist.
		var err error
		if st, err = openMarket(path, sqlite.Options{}, "rynek-import", true); err != nil {
			fmt.Fprintf(stderr, "rynek import: %v\n", err)
			return 1
		}
		defer st.store.Close()
		if shared, ok := st.store.(interface{ OthersOpen() (int, error) }); ok {
			// An import writes no log entries: running instances would
			// never learn of it.
			n, err := shared.OthersOpen()
			switch {
			case err != nil:
				fmt.Fprintf(stderr, "rynek import: cannot tell whether other Rynek instances have this market open: %v\n", err)
				return 1
			case n > 0:
				fmt.Fprintf(stderr, "rynek import: %s this market open; stop them first: they would not see what an import adds\n",
					map[bool]string{true: "1 other Rynek instance has", false: fmt.Sprintf("%d other Rynek instances have", n)}[n == 1])
				return 1
			}
		}
		store = st.store
	}
	// writtenNothing removes the empty market this import created, if it
	// did: an import that writes nothing leaves nothing behind.
	writtenNothing := func() {
		if store != nil {
			st.store.Close()
			st.created.undo() // the file and the folder it made, if it made them
		}
	}
	line.progress("rynek import: reading %s", *from)
	report, err := grzybcio.Import(store, opts)
	if err != nil {
		line.final("rynek import: %v", err)
		writtenNothing()
		fmt.Fprintln(stderr, "rynek import: nothing was written")
		return 1
	}
	line.clear()
	report.WriteSummary(stdout)
	nothing := report.Added() == 0
	if !nothing {
		importRules(plugin, pluginErr, path, *dryRun, stdout)
	}
	switch {
	case *dryRun && len(report.Notes) == 0:
		if !nothing {
			fmt.Fprintln(stdout, "\nEvery entry loads as it is: nothing to note.")
		}
	case *dryRun:
		fmt.Fprintln(stdout, "\nEvery entry:")
		report.WriteNotes(stdout)
	case len(leftOut) > 0:
		fmt.Fprintln(stdout, "\nWhat was left out, refused or cut, and why:")
		(&grzybcio.Report{Notes: leftOut}).WriteNotes(stdout)
	}
	switch {
	case nothing && report.AlreadyThere > 0:
		// Merging the same files again: done already, and nothing to do.
		fmt.Fprintln(stdout, "nothing was written")
		return 0
	case nothing:
		skipped := ""
		if n := report.Count(grzybcio.NoteSkipped); n > 0 {
			skipped = fmt.Sprintf(" (%d skipped, listed above)", n)
		}
		fmt.Fprintf(stderr, "rynek import: nothing to import: %s holds no listing, mailbox entry or transaction that Rynek can load%s; nothing was written\n",
			*from, skipped)
		writtenNothing()
		return 1
	case *dryRun:
		return 0
	}
	if err := st.store.Close(); err != nil {
		fmt.Fprintf(stderr, "rynek import: %v\n", err)
		return 1
	}
	fmt.Fprintf(stdout, "into %s in %s; run with --dry-run to list every entry above\n", st.name, time.Since(start).Round(time.Millisecond))
	return 0
}

// importRules carries the plugin's config.yml (r, or why it could not be
// read) over into the rules file beside the market (never over one that is
// there; a PostgreSQL market's instances take theirs from --config, so it
// is only printed), and says so in the summary's style.
func importRules(r grzybcio.Rules, err error, dbPath string, dryRun bool, stdout io.Writer) {
	switch {
	case errors.Is(err, os.ErrNotExist):
		return
	case err != nil:
		fmt.Fprintf(stdout, "  rules          not carried over: %v\n", err)
		return
	}
	unmapped := ""
	if len(r.Unmapped) > 0 {
		unmapped = "; not carried (Rynek has no such switch, or does it otherwise): " + strings.Join(r.Unmapped, ", ")
	}
	switch {
	case dryRun || isPostgres(dbPath):
		fmt.Fprintf(stdout, "  rules          %d settings of %s would be, as %s:\n%s%s\n", r.Mapped, grzybcio.ConfigFile, rules.FileName,
			indent(string(r.YAML)), unmapped)
	default:
		where, err := grzybcio.WriteRules(r, dbPath)
		if err != nil {
			fmt.Fprintf(stdout, "  rules          %v\n", err)
			return
		}
		fmt.Fprintf(stdout, "  rules          %d settings of %s into %s%s\n", r.Mapped, grzybcio.ConfigFile, where, unmapped)
	}
}

// indent puts four spaces before every line of text.
func indent(text string) string {
	return "    " + strings.ReplaceAll(strings.TrimRight(text, "\n"), "\n", "\n    ") + "\n"
}

// importedListingRules finds the rules imported listings obey, the rules
// the market will have: --config; else the rules file beside the market;
// else the plugin's config.yml (plugin, or why it could not be read), which
// the import carries over into it (importRules); else the defaults. It says
// where they come from.
func importedListingRules(config, from, dbPath string, plugin grzybcio.Rules, pluginErr error) (market.Config, string, error) {
	if config != "" {
		c, err := rules.Load(config)
		if errors.Is(err, os.ErrNotExist) {
			return c, "", fmt.Errorf("--config %s: no such file", config)
		}
		return c, config, err
	}
	if !isPostgres(dbPath) {
		path := filepath.Join(filepath.Dir(dbPath), rules.FileName)
		c, err := rules.Load(path)
		if err == nil {
			return c, path, nil
		}
		if !errors.Is(err, os.ErrNotExist) {
			return c, "", err
		}
	}
	if pluginErr != nil {
		return market.Config{}, "the defaults", nil // importRules says why config.yml is not carried over
	}
	c, err := rules.Parse(plugin.YAML, filepath.Join(from, grzybcio.ConfigFile))
	if err != nil {
		return market.Config{}, "", err
	}
	return c, "the plugin's " + grzybcio.ConfigFile, nil
}

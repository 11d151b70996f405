package main

import (
	"flag"
	"fmt"
	"io"

	"github.com/rynek/rynek/internal/grzybcio"
)

// exportUsage is the help of rynek export, before its flags.
const exportUsage = `Usage: rynek export --to DIR [--db PATH]

Writes the market as GrzybcioRynek's listings.yml and market-data.yml. Existing
files are never overwritten.

Flags:
`

// exportFlags are rynek export's flags, as its flag set fills them.
type exportFlags struct {
	to, db                         *string
	withoutAuctions, withoutOrders *bool
}

// exportFlagSet is rynek export's flag set: what runExport parses and
// rynek --help lists.
func exportFlagSet(stderr io.Writer) (*flag.FlagSet, exportFlags) {
	fs := newFlagSet("rynek export", exportUsage, stderr)
	return fs, exportFlags{
		to:              fs.String("to", "", "the folder to write listings.yml and market-data.yml into (required)"),
		db:              fs.String("db", "", dbUsage),
		withoutAuctions: fs.Bool("without-auctions", false, "leave the market's auctions out (the plugin sells at fixed prices only); without it a market with auctions is refused"),
		withoutOrders:   fs.Bool("without-orders", false, "leave the market's open buy orders out (the plugin has none); they stay in the market with their escrow, which the summary lists by buyer; without it a market with open orders is refused"),
	}
}

// runExport is `rynek export --to DIR`: the market written as the original
// plugin's two files, so that a server can go back to it.
func runExport(args []string, stdout, stderr io.Writer) int {
	fs, f := exportFlagSet(stderr)
	to, dbPath, withoutAuctions, withoutOrders := f.to, f.db, f.withoutAuctions, f.withoutOrders
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
	sum, err := grzybcio.Export(snap, *to, grzybcio.ExportOptions{WithoutAuctions: *withoutAuctions, WithoutOrders: *withoutOrders})
	if err != nil {
		fmt.Fprintf(stderr, "rynek export: %v\n", err)
		return 1
	}
	sum.WriteSummary(stdout)
	return 0
}

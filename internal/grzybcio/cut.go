package grzybcio

import (
	"fmt"
	"path/filepath"
)

// A file the plugin was writing when the server crashed or the disk filled
// is cut short, and YAML has no end marker to show it: a file cut between
// two entries, or in one at the end of a line, still parses. The plugin's
// own layout shows it instead. SnakeYAML ends every file with a line
// break. The plugin writes listings.yml's next-id right after the listings
// at every save, and market-data.yml's ratings and transactions, last, at
// every save, even when they are empty. And the ids it gives grow from
// next-id: no sale or favourite in market-data.yml names an id at or
// above it (see the transactions and favourites readers). A listing of
// listings.yml at or above it is no cut: the plugin loads such a file with
// max(next-id, highest id + 1), and so does the import. A cut found before the import starts
// refuses it, unless ImportOptions.Partial: then what is whole is imported
// and what was cut is reported.
//
// One cut shows nowhere: market-data.yml cut at the end of a line between
// two transactions. The plugin writes that file to a temporary one and
// renames it, and writes it in place only when that fails.

// cut is where a file was cut short, and how it shows.
type cut struct {
	o       *outline
	in      *section // the section the file ends in; nil for none
	midLine bool     // it ends in the middle of a line
	missing string   // what the plugin writes after what is there, and that is not there
	// emptyBeside is set for an empty listings.yml beside a
	// market-data.yml that names listings: cut to nothing.
	emptyBeside string
	// lastLeftOut and lastWhat are what became of the entry the file ends
	// in, for the report: left out when it may not be whole.
	lastLeftOut bool
	lastWhat    string
}

// findCut tells how o, one of the plugin's files, was cut short; nil when
// it shows no cut. missing is the section the plugin writes after the
// others (next-id, transactions); an empty file was never written, and
// is not cut.
func findCut(o *outline, missing string) *cut {
	if o == nil || len(o.sections) == 0 && !o.cutKey {
		return nil
	}
	c := &cut{o: o, in: o.lastSection(), midLine: !o.lineEnd}
	if o.cutKey {
		c.in = nil // every section is whole; the next one's key is cut
	}
	if o.get(missing) == nil {
		c.missing = missing
	}
	if !c.midLine && c.missing == "" {
		return nil
	}
	return c
}

// emptyListings is the cut of an empty listings.yml beside a
// market-data.yml with sales or favourites: the plugin saves listings.yml
// at every listing it makes, so it was emptied (opened for writing) and
// never written again.
func emptyListings(lo, mo *outline) *cut {
	if len(lo.sections) > 0 || mo == nil {
		return nil
	}
	var named []string
	for _, key := range []string{"transactions", "favorites"} {
		if s := mo.get(key); s != nil && s.entries > 0 {
			named = append(named, fmt.Sprintf("%s (%d entries)", key, s.entries))
		}
	}
	if len(named) == 0 {
		return nil
	}
	c := &cut{o: lo, missing: "listings"}
	c.emptyBeside = fmt.Sprintf("%s holds %s", filepath.Base(mo.path), named[0])
	if len(named) > 1 {
		c.emptyBeside += " and " + named[1]
	}
	return c
}

// where is the cut's place and what the file ends in.
func (c *cut) where() string {
	if c.emptyBeside != "" {
		return fmt.Sprintf("the file is empty, but %s", c.emptyBeside)
	}
	s, sep := "the file ends", " "
	if c.midLine {
		s, sep = s+" in the middle of a line", ", "
	}
	switch {
	case c.o.cutKey:
		s += sep + "in a key"
	case c.in == nil:
	case c.in.block && c.in.entries > 0:
		s += fmt.Sprintf("%sin entry %d of %s (from line %d)", sep, c.in.entries, c.in.key, c.in.last)
	default:
		s += sep + "in " + c.in.key
	}
	switch c.missing {
	case "":
	case "next-id":
		s += ", with no next-id (the plugin writes it after the listings)"
	case "transactions":
		s += ", with no transactions (the plugin writes them last, a list even when empty)"
	}
	return s
}

// refusal is the error of a cut import.
func (c *cut) refusal() error {
	how := "The plugin rewrites this file in place"
	if filepath.Base(c.o.path) == MarketDataFile {
		how = "The plugin writes this file in place when it cannot write a temporary one and rename it"
	}
	return &Error{File: c.o.path, Line: c.o.lines, Reason: fmt.Sprintf(
		"cut short: %s. %s, and a crash or a full disk while it does leaves it so; its backup %s.bak may be whole. --partial imports what is whole and reports what was cut",
		c.where(), how, filepath.Base(c.o.path))}
}

// note is what the report says of a cut that --partial went past.
func (c *cut) note() string {
	s := c.where()
	switch {
	case c.lastWhat == "":
	case c.lastLeftOut:
		s += "; " + c.lastWhat + " is left out: the cut may have gone through it"
	default:
		s += "; " + c.lastWhat + " is whole and imported"
	}
	return s + "; whatever followed is lost"
}

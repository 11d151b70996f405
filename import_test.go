package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rynek/rynek/market/sqlite"
)

func TestImportAndExportCommands(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "market.db")
	from := pluginFixture("server")
	var out, errb bytes.Buffer
	// A century of expiry: the fixture's listings stay active whatever the date.
	if code := run([]string{"import", "--from", from, "--db", db, "--dry-run", "--expiry-days", "36500"}, &out, &errb); code != 0 {
		t.Fatalf("dry run: exit %d: %s", code, errb.String())
	}
	if _, err := os.Stat(db); !os.IsNotExist(err) {
		t.Fatalf("a dry run created the market: %v", err)
	}
	for _, want := range []string{"Dry run, nothing written", "listings       5, with their ids", "listings.yml:53:9: skipped: listing #4 skipped: its item is air",
		"  rules          13 settings of config.yml would be, as rynek.yml:\n    # Rynek's rules", "    limit: 15\n"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("dry run output lacks %q:\n%s", want, out.String())
		}
	}
	out.Reset()
	if code := run([]string{"import", "--from", from, "--db", db, "--expiry-days", "36500"}, &out, &errb); code != 0 {
		t.Fatalf("import: exit %d: %s", code, errb.String())
	}
	if want := "  rules          13 settings of config.yml into " + filepath.Join(dir, "rynek.yml") + "; not carried"; !strings.Contains(out.String(), want) {
		t.Fatalf("import output lacks %q:\n%s", want, out.String())
	}
	if _, c, err := (&marketFlags{}).marketRules(db); err != nil || c.MaxListingsPerPlayer != 15 {
		t.Fatalf("the market's rules after the import: %+v, %v", c, err)
	}
	errb.Reset()
	if code := run([]string{"import", "--from", from, "--db", db}, &out, &errb); code != 1 || !strings.Contains(errb.String(), "add --merge") {
		t.Fatalf("a second import: exit %d: %s", code, errb.String())
	}
	to := filepath.Join(dir, "back")
	out.Reset()
	if code := run([]string{"export", "--to", to, "--db", db}, &out, &errb); code != 0 ||
		!strings.Contains(out.String(), "exported 5 listings, 5 mailbox entries and 4 transactions") {
		t.Fatalf("export: exit %d: %s%s", code, out.String(), errb.String())
	}
	// The players' own data travels too, and the summary says so.
	if want := "\n  with the players' 2 favourites, 1 price alert and 1 rating\n"; !strings.Contains(out.String(), want) || strings.Contains(out.String(), "empty") {
		t.Errorf("export summary lacks %q:\n%s", want, out.String())
	}
	cases := []struct {
		args []string
		code int
		msg  string
	}{
		{[]string{"import"}, 2, "rynek import: give the plugin's data folder with --from DIR"},
		{[]string{"import", "--from", from, "--expiry-days", "0"}, 2, "--expiry-days must be between 1 and 36500, got 0"},
		{[]string{"export", "--db", db}, 2, "rynek export: give the folder to write into with --to DIR"},
		{[]string{"import", "--from", pluginFixture("foreign"), "--db", filepath.Join(dir, "new.db")}, 1,
			"listings.yml:2:1: this is not GrzybcioRynek's listings.yml"},
		{[]string{"export", "--to", to, "--db", filepath.Join(dir, "none.db")}, 1, "rynek export: no market at " + filepath.Join(dir, "none.db") + ": file does not exist\n"},
		{[]string{"backup", "--db", filepath.Join(dir, "none.db"), filepath.Join(dir, "copy.db")}, 1, "rynek backup: no market at " + filepath.Join(dir, "none.db") + ": file does not exist\n"},
		{[]string{"export", "--to", to, "--db", db}, 1, "listings.yml exists: an export never overwrites"},
	}
	for _, c := range cases {
		errb.Reset()
		if code := run(c.args, &out, &errb); code != c.code || !strings.Contains(errb.String(), c.msg) {
			t.Errorf("%v: exit %d, stderr %q; want %d and %q", c.args, code, errb.String(), c.code, c.msg)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "new.db")); !os.IsNotExist(err) {
		t.Errorf("a failed import left the market it created: %v", err)
	}
	st, err := sqlite.Open(db, sqlite.Options{})
	if err != nil {
		t.Fatalf("the market does not open after import and export: %v", err)
	}
	st.Close()
}

// A listings.yml cut short is refused with the place of the cut and leaves
// no market behind; --partial imports what is whole and lists what was cut.
func TestImportRefusesACutFileUnlessPartial(t *testing.T) {
	dir := t.TempDir()
	from := filepath.Join(dir, "GrzybcioRynek")
	os.Mkdir(from, 0o755)
	data, err := os.ReadFile(filepath.Join(pluginFixture("server"), "listings.yml"))
	if err != nil {
		t.Fatal(err)
	}
	cut := bytes.Index(data, []byte("nexoId: ruby_sword")) + 5 // in listing #7, the 7th entry, from line 77
	os.WriteFile(filepath.Join(from, "listings.yml"), data[:cut], 0o644)
	db := filepath.Join(dir, "market.db")
	where := filepath.Join(from, "listings.yml") + ":81: cut short: the file ends in the middle of a line, in entry 7 of listings (from line 77), with no next-id (the plugin writes it after the listings)."
	for _, args := range [][]string{{"import", "--from", from, "--db", db}, {"import", "--from", from, "--db", db, "--dry-run"}} {
		var out, errb bytes.Buffer
		if code := run(args, &out, &errb); code != 1 || !strings.Contains(errb.String(), where) ||
			!strings.Contains(errb.String(), "--partial imports what is whole and reports what was cut\nrynek import: nothing was written\n") {
			t.Errorf("%v: exit %d, stderr %q; want 1 and %q", args, code, errb.String(), where)
		}
		if _, err := os.Stat(db); !os.IsNotExist(err) {
			t.Fatalf("%v: a refused import left a market: %v", args, err)
		}
	}
	var out, errb bytes.Buffer
	if code := run([]string{"import", "--from", from, "--db", db, "--partial", "--expiry-days", "36500"}, &out, &errb); code != 0 {
		t.Fatalf("--partial: exit %d: %s", code, errb.String())
	}
	for _, want := range []string{"  listings       3, with their ids",
		"  cut short      1 place where the files were cut short or disagree: what is whole is imported (--partial); each is listed below\n",
		"\nWhat was left out, refused or cut, and why:\n",
		filepath.Join(from, "listings.yml") + ":53:9: skipped: listing #4 skipped: its item is air\n",
		filepath.Join(from, "listings.yml") + ":81: cut: the file ends in the middle of a line, in entry 7 of listings (from line 77), with no next-id (the plugin writes it after the listings); entry 7 of listings (from line 77) is left out: the cut may have gone through it; whatever followed is lost\n"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("--partial output lacks %q:\n%s", want, out.String())
		}
	}
	errb.Reset()
	run([]string{"import", "--help"}, &out, &errb)
	if !strings.Contains(errb.String(), "-partial") || !strings.Contains(errb.String(), "[--partial]") {
		t.Errorf("import --help lacks --partial:\n%s", errb.String())
	}
}

// An imported listing obeys the rules the market will have (here the
// plugin's config.yml, which the import carries over, or --config): one
// priced at 99,999,999,999.99 is not listed, and its item is back in its
// seller's mailbox, said in the summary and in the list of what was left
// out.
func TestImportAppliesTheMarketsRules(t *testing.T) {
	dir := t.TempDir()
	from := filepath.Join(dir, "GrzybcioRynek")
	os.Mkdir(from, 0o755)
	server := pluginFixture("server")
	for _, name := range []string{"listings.yml", "market-data.yml", "config.yml"} {
		data, err := os.ReadFile(filepath.Join(server, name))
		if err != nil {
			t.Fatal(err)
		}
		data = bytes.Replace(data, []byte("price: 1500.005"), []byte("price: 99999999999.99"), 1)
		os.WriteFile(filepath.Join(from, name), data, 0o644)
	}
	db := filepath.Join(dir, "market.db")
	var out, errb bytes.Buffer
	if code := run([]string{"import", "--from", from, "--db", db, "--expiry-days", "36500"}, &out, &errb); code != 0 {
		t.Fatalf("import: exit %d: %s", code, errb.String())
	}
	for _, want := range []string{
		"  listings       4, with their ids",
		"                 each obeys the market's rules: prices 0.50..250000.00, at most 10000000.00 a transaction, 15 materials blacklisted (the plugin's config.yml)\n",
		"  refused        2 listings those rules refuse: not listed; each item is back in its seller's mailbox\n",
		"\nWhat was left out, refused or cut, and why:\n",
		filepath.Join(from, "listings.yml") + ":2:3: refused: listing #1 not listed: price 99999999999.99 is outside 0.50..250000.00; its item (1xDIAMOND_SWORD) is in its seller's mailbox\n",
	} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("import output lacks %q:\n%s", want, out.String())
		}
	}
	// The rules file beside the market, or --config, is what a market
	// opens with; an import checks against it.
	rulesFile := filepath.Join(dir, "strict.yml")
	os.WriteFile(rulesFile, []byte("prices:\n  max: 100.00\n"), 0o644)
	out.Reset()
	if code := run([]string{"import", "--from", from, "--db", filepath.Join(dir, "dry.db"), "--dry-run", "--config", rulesFile, "--expiry-days", "36500"}, &out, &errb); code != 0 {
		t.Fatalf("--config: exit %d: %s", code, errb.String())
	}
	if want := "each obeys the market's rules: prices 1.00..100.00, 15 materials blacklisted (" + rulesFile + ")"; !strings.Contains(out.String(), want) ||
		!strings.Contains(out.String(), "  refused        4 listings those rules refuse") {
		t.Errorf("--config: output lacks %q and 4 refused:\n%s", want, out.String())
	}
	errb.Reset()
	if code := run([]string{"import", "--from", from, "--db", db, "--config", filepath.Join(dir, "none.yml")}, &out, &errb); code != 1 ||
		!strings.Contains(errb.String(), "rynek import: --config "+filepath.Join(dir, "none.yml")+": no such file") {
		t.Errorf("a missing --config: exit %d, %q", code, errb.String())
	}
}

// An import that adds nothing says so: files with nothing Rynek can load
// are an error (exit 1) that leaves no market and no rules file behind;
// merging the same files again is not (exit 0).
func TestAnImportThatAddsNothingSaysSo(t *testing.T) {
	dir := t.TempDir()
	from := filepath.Join(dir, "GrzybcioRynek")
	os.Mkdir(from, 0o755)
	server := pluginFixture("server")
	listings, _ := os.ReadFile(filepath.Join(server, "listings.yml"))
	start := bytes.Index(listings, []byte("- ==: com.example.marketplace.model.MarketListing\n  id: 4\n"))
	end := bytes.Index(listings, []byte("- ==: com.example.marketplace.model.MarketListing\n  id: 5\n"))
	os.WriteFile(filepath.Join(from, "listings.yml"), append(append([]byte("listings:\n"), listings[start:end]...), "next-id: 42\n"...), 0o644)
	config, _ := os.ReadFile(filepath.Join(server, "config.yml"))
	os.WriteFile(filepath.Join(from, "config.yml"), config, 0o644)
	db := filepath.Join(dir, "market.db")
	for _, dry := range []bool{false, true} {
		args := []string{"import", "--from", from, "--db", db}
		if dry {
			args = append(args, "--dry-run")
		}
		var out, errb bytes.Buffer
		code := run(args, &out, &errb)
		want := "rynek import: nothing to import: " + from + " holds no listing, mailbox entry or transaction that Rynek can load (1 skipped, listed above); nothing was written\n"
		if code != 1 || !strings.HasSuffix(errb.String(), want) || !strings.HasPrefix(out.String(), "Nothing to import from "+from+":\n") ||
			!strings.Contains(out.String(), "listings.yml:8:9: skipped: listing #4 skipped: its item is air\n") {
			t.Errorf("dry run %v: exit %d, stdout\n%s\nstderr %q; want 1 and %q", dry, code, out.String(), errb.String(), want)
		}
		for _, left := range []string{db, filepath.Join(dir, "rynek.yml")} {
			if _, err := os.Stat(left); !os.IsNotExist(err) {
				t.Errorf("dry run %v: an import that added nothing left %s", dry, left)
			}
		}
	}
	var out, errb bytes.Buffer
	if code := run([]string{"import", "--from", server, "--db", db}, &out, &errb); code != 0 {
		t.Fatalf("import: exit %d: %s", code, errb.String())
	}
	out.Reset()
	if code := run([]string{"import", "--from", server, "--db", db, "--merge"}, &out, &errb); code != 0 ||
		!strings.HasPrefix(out.String(), "Nothing new from "+server+": the market has all of it from an earlier import\n") ||
		!strings.HasSuffix(out.String(), "\nnothing was written\n") {
		t.Errorf("the same files merged again: exit %d:\n%s", code, out.String())
	}
}

// The plugin computed each listing's expiry from its config.yml's
// listing-expiry-days; an import does too, unless --expiry-days says
// otherwise, and without one takes the plugin's default of 7.
func TestImportTakesTheExpiryFromThePluginsConfig(t *testing.T) {
	dir := t.TempDir()
	server := pluginFixture("server")
	legacy := pluginFixture("legacy")
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--from", server}, "each expires 5 days after it was created, as the plugin computed it (listing-expiry-days in its config.yml)\n"},
		{[]string{"--from", server, "--expiry-days", "9"}, "each expires 9 days after it was created, as the plugin computed it (--expiry-days)\n"},
		{[]string{"--from", legacy}, "each expires 7 days after it was created, as the plugin computed it (the plugin's default)\n"},
	} {
		var out, errb bytes.Buffer
		args := append([]string{"import", "--db", filepath.Join(dir, "market.db"), "--dry-run"}, c.args...)
		if code := run(args, &out, &errb); code != 0 || !strings.Contains(out.String(), c.want) {
			t.Errorf("%v: exit %d, output lacks %q:\n%s%s", c.args, code, c.want, out.String(), errb.String())
		}
	}
}

// TestADryRunWithNothingToNoteSaysSo: the dry run of a demo market's
// export (every entry loads as it is) ends by saying there is nothing to
// note, not on an empty "Every entry:" heading.
func TestADryRunWithNothingToNoteSaysSo(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "market.db")
	demoMarket(t, db, 30)
	to := filepath.Join(dir, "plugin")
	var out, errb bytes.Buffer
	if code := run([]string{"export", "--db", db, "--to", to, "--without-orders"}, &out, &errb); code != 0 {
		t.Fatalf("export: exit %d: %s", code, errb.String())
	}
	out.Reset()
	if code := run([]string{"import", "--from", to, "--db", filepath.Join(dir, "again.db"), "--dry-run"}, &out, &errb); code != 0 ||
		!strings.HasSuffix(out.String(), "\nEvery entry loads as it is: nothing to note.\n") {
		t.Errorf("dry run: exit %d:\n%s%s", code, out.String(), errb.String())
	}
}

package grzybcio

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// cutFiles writes dir's files with listings.yml cut to its first n bytes
// (market-data.yml, if given, whole).
func cutFiles(t *testing.T, listings []byte, n int, marketData []byte) string {
	t.Helper()
	dir := t.TempDir()
	must(t, os.WriteFile(filepath.Join(dir, ListingsFile), listings[:n], 0o644))
	if marketData != nil {
		must(t, os.WriteFile(filepath.Join(dir, MarketDataFile), marketData, 0o644))
	}
	return dir
}

// generated is a listings.yml of n generated listings (writeGenerated).
func generated(t *testing.T, n int) []byte {
	t.Helper()
	dir := t.TempDir()
	writeGenerated(t, dir, n)
	data, err := os.ReadFile(filepath.Join(dir, ListingsFile))
	must(t, err)
	return data
}

// lineOf is the number of the line at byte offset off of data.
func lineOf(data []byte, off int) int { return bytes.Count(data[:off], []byte("\n")) + 1 }

// A listings.yml cut short, between two entries or in one, at the end of a
// line or in the middle of one, is refused with the place of the cut and
// changes nothing (it once imported 599 of 1,070 listings and said
// nothing); with Partial it imports the whole entries before the cut and
// reports what was cut.
func TestACutListingsFileIsRefusedUnlessPartial(t *testing.T) {
	data := generated(t, 1070)
	entry600 := bytes.Index(data, []byte("- ==: com.example.marketplace.model.MarketListing\n  id: 600\n"))
	inSeller := bytes.Index(data[entry600:], []byte("  seller: ")) + entry600 + 20
	inItem := bytes.Index(data[entry600:], []byte("    DataVersion: 4903\n")) + entry600 + len("    DataVersion: 4903\n")
	start599 := bytes.LastIndex(data[:entry600-1], []byte("\n- ")) + 1
	e599 := fmt.Sprintf("entry 599 of listings (from line %d)", lineOf(data, start599))
	e600 := fmt.Sprintf("entry 600 of listings (from line %d)", lineOf(data, entry600))
	cases := []struct {
		name  string
		n     int
		where string // what the refusal says of the end
		last  string // what the partial import says of the entry the file ends in
	}{
		{"between two entries", entry600, "in " + e599, e599 + " is whole and imported"},
		{"in an entry, in the middle of a line", inSeller, "in the middle of a line, in " + e600, e600 + " is left out: the cut may have gone through it"},
		{"in an entry, at the end of a line", inItem, "in " + e600, e600 + " is left out: the cut may have gone through it"},
	}
	for _, c := range cases {
		dir := cutFiles(t, data, c.n, nil)
		path := filepath.Join(dir, ListingsFile)
		lines := bytes.Count(data[:c.n], []byte("\n"))
		if data[c.n-1] != '\n' {
			lines++
		}
		st := newStore(t)
		_, err := Import(st, ImportOptions{Dir: dir, Now: now})
		want := fmt.Sprintf("%s:%d: cut short: the file ends %s, with no next-id (the plugin writes it after the listings). "+
			"The plugin rewrites this file in place, and a crash or a full disk while it does leaves it so; its backup listings.yml.bak may be whole. "+
			"--partial imports what is whole and reports what was cut", path, lines, c.where)
		if err == nil || err.Error() != want {
			t.Errorf("%s: %v\nwant %s", c.name, err, want)
		}
		if got := contents(t, st); len(got.Players)+len(got.Listings) != 0 {
			t.Errorf("%s: a refused import wrote %d players and %d listings", c.name, len(got.Players), len(got.Listings))
		}

		r := importDir(t, st, dir, ImportOptions{Partial: true})
		if r.Listings != 599 {
			t.Errorf("%s: %d listings imported, want the 599 whole ones", c.name, r.Listings)
		}
		var cuts []string
		for _, n := range r.Notes {
			if n.Kind == NoteCut {
				cuts = append(cuts, n.Where+": "+n.Text)
			}
		}
		wantCut := fmt.Sprintf("%s:%d: the file ends %s, with no next-id (the plugin writes it after the listings); %s; whatever followed is lost",
			path, lines, c.where, c.last)
		if len(cuts) != 1 || cuts[0] != wantCut {
			t.Errorf("%s: cut notes %q\nwant %q", c.name, cuts, wantCut)
		}
		if next := contents(t, st).NextListingID; next != 600 {
			t.Errorf("%s: the next listing id is %d, want 600 (after the highest id met)", c.name, next)
		}
		var out strings.Builder
		r.WriteSummary(&out)
		if s := "  cut short      1 place where the files were cut short or disagree: what is whole is imported (--partial); each is listed below\n"; !strings.Contains(out.String(), s) {
			t.Errorf("%s: the summary lacks %q:\n%s", c.name, s, out.String())
		}
	}
}

// Every cut of listings.yml before its next-id is refused, whether the file
// ends at a line's end or in the middle of one; after next-id (the small
// sections the plugin writes there), a cut in the middle of a line is. The
// legacy file is cut at every byte, the server's at every fifth.
func TestEveryCutOfListingsIsRefused(t *testing.T) {
	for _, fixture := range []struct {
		dir  string
		step int
	}{{"testdata/legacy", 1}, {"testdata/server", 5}} {
		data, err := os.ReadFile(filepath.Join(fixture.dir, ListingsFile))
		must(t, err)
		afterNextID := bytes.Index(data, []byte("\nnext-id: ")) + 1
		afterNextID += bytes.IndexByte(data[afterNextID:], '\n') + 1
		dir := t.TempDir()
		for n := 1; n < len(data); n += fixture.step {
			if n >= afterNextID && data[n-1] == '\n' {
				continue
			}
			must(t, os.WriteFile(filepath.Join(dir, ListingsFile), data[:n], 0o644))
			_, err := Import(nil, ImportOptions{Dir: dir, Now: now, DryRun: true})
			if err == nil || !strings.Contains(err.Error(), ": cut short: ") {
				t.Fatalf("%s cut to %d bytes (%q at the end): %v", fixture.dir, n, data[max(0, n-20):n], err)
			}
		}
	}
}

// market-data.yml, which the plugin writes in full at every save with its
// transactions last, is refused when it ends in the middle of a line or
// before its transactions.
func TestACutMarketDataFileIsRefusedUnlessPartial(t *testing.T) {
	listings, err := os.ReadFile("testdata/server/listings.yml")
	must(t, err)
	data, err := os.ReadFile("testdata/server/market-data.yml")
	must(t, err)
	third := bytes.Index(data, []byte("- id: 5c4d3e2f"))
	inThird := third + 30
	beforeTransactions := bytes.Index(data, []byte("\ntransactions:")) + 1
	rating3 := bytes.LastIndex(data[:beforeTransactions], []byte("\n- ")) + 1
	for _, c := range []struct {
		n           int
		where, last string
		txs         int
	}{
		{inThird, fmt.Sprintf("the file ends in the middle of a line, in entry 3 of transactions (from line %d)", lineOf(data, third)),
			fmt.Sprintf("entry 3 of transactions (from line %d) is left out: the cut may have gone through it", lineOf(data, third)), 2},
		{beforeTransactions, fmt.Sprintf("the file ends in entry 3 of ratings (from line %d), with no transactions (the plugin writes them last, a list even when empty)", lineOf(data, rating3)),
			fmt.Sprintf("entry 3 of ratings (from line %d) is left out: the cut may have gone through it", lineOf(data, rating3)), 0},
	} {
		dir := t.TempDir()
		must(t, os.WriteFile(filepath.Join(dir, ListingsFile), listings, 0o644))
		must(t, os.WriteFile(filepath.Join(dir, MarketDataFile), data[:c.n], 0o644))
		path := filepath.Join(dir, MarketDataFile)
		lines := lineOf(data, c.n-1)
		_, err := Import(nil, ImportOptions{Dir: dir, Now: now, DryRun: true})
		want := fmt.Sprintf("%s:%d: cut short: %s. The plugin writes this file in place when it cannot write a temporary one and rename it, "+
			"and a crash or a full disk while it does leaves it so; its backup market-data.yml.bak may be whole. --partial imports what is whole and reports what was cut",
			path, lines, c.where)
		if err == nil || err.Error() != want {
			t.Errorf("cut at %d: %v\nwant %s", c.n, err, want)
		}
		r := importDir(t, newStore(t), dir, ImportOptions{Partial: true})
		wantCut := path + ":" + fmt.Sprint(lines) + ": " + c.where
		if c.last != "" {
			wantCut += "; " + c.last
		}
		wantCut += "; whatever followed is lost"
		var cuts []string
		for _, n := range r.Notes {
			if n.Kind == NoteCut {
				cuts = append(cuts, n.Where+": "+n.Text)
			}
		}
		if r.Transactions != c.txs || len(cuts) != 1 || cuts[0] != wantCut {
			t.Errorf("cut at %d, partial: %d transactions, cut notes %q\nwant %d and %q", c.n, r.Transactions, cuts, c.txs, wantCut)
		}
	}
}

// The ids the plugin gives grow from next-id: a sale or favourite of a
// listing at or above it means listings.yml was not written whole, or is
// older than market-data.yml. Each is refused with its place; with Partial
// each is reported and the import goes on. (A listing of listings.yml at
// or above it is loaded as the plugin loads it: TestImportRaisesNextID.)
func TestIDsAboveNextIDAreRefusedUnlessPartial(t *testing.T) {
	listings, err := os.ReadFile("testdata/server/listings.yml")
	must(t, err)
	data, err := os.ReadFile("testdata/server/market-data.yml")
	must(t, err)
	write := func(l, m []byte) string {
		dir := t.TempDir()
		must(t, os.WriteFile(filepath.Join(dir, ListingsFile), l, 0o644))
		must(t, os.WriteFile(filepath.Join(dir, MarketDataFile), m, 0o644))
		return dir
	}
	for _, c := range []struct {
		name      string
		listings  []byte
		data      []byte
		want, cut string
	}{
		{"a sale", bytes.Replace(listings, []byte("next-id: 42"), []byte("next-id: 32"), 1), data,
			"market-data.yml:104:3: transaction 5c4d3e2f-6a7b-4c8d-9e9f-0a1b2c3d4e56 sold listing #32, at or above listings.yml's next-id, 32: no such listing was ever made in it, so listings.yml is cut short or older than market-data.yml (its backup listings.yml.bak may be newer); --partial imports anyway",
			"market-data.yml:104:3: transaction 5c4d3e2f-6a7b-4c8d-9e9f-0a1b2c3d4e56 sold listing #32, at or above listings.yml's next-id, 32: kept as history"},
		{"a favourite", listings, bytes.Replace(data, []byte("  - 7\n"), []byte("  - 7\n  - 50\n"), 1),
			"market-data.yml:5:5: a favourite of 6f1d2c3b-4a59-4e8f-9a1b-0c2d3e4f5a61 is listing #50, at or above listings.yml's next-id, 42: no such listing was ever made in it, so listings.yml is cut short or older than market-data.yml (its backup listings.yml.bak may be newer); --partial imports anyway",
			"market-data.yml:5:5: a favourite of 6f1d2c3b-4a59-4e8f-9a1b-0c2d3e4f5a61 is listing #50, at or above listings.yml's next-id, 42: left out"},
	} {
		dir := write(c.listings, c.data)
		st := newStore(t)
		_, err := Import(st, ImportOptions{Dir: dir, Now: now})
		if err == nil || err.Error() != filepath.Join(dir, c.want) {
			t.Errorf("%s: %v\nwant %s", c.name, err, filepath.Join(dir, c.want))
		}
		if got := contents(t, st); len(got.Players) != 0 {
			t.Errorf("%s: a refused import wrote %d players", c.name, len(got.Players))
		}
		r := importDir(t, st, dir, ImportOptions{Partial: true})
		var cuts []string
		for _, n := range r.Notes {
			if n.Kind == NoteCut {
				cuts = append(cuts, strings.TrimPrefix(n.Where, dir+"/")+": "+n.Text)
			}
		}
		if len(cuts) == 0 || cuts[0] != c.cut {
			t.Errorf("%s, partial: cut notes %q\nwant first %q", c.name, cuts, c.cut)
		}
	}
}

// An empty listings.yml beside a market-data.yml with sales was emptied
// and never written again: the plugin saves it at every listing.
func TestAnEmptyListingsFileBesideSalesIsRefused(t *testing.T) {
	data, err := os.ReadFile("testdata/server/market-data.yml")
	must(t, err)
	dir := cutFiles(t, []byte{}, 0, data)
	_, err = Import(nil, ImportOptions{Dir: dir, Now: now, DryRun: true})
	want := filepath.Join(dir, ListingsFile) + ": cut short: the file is empty, but market-data.yml holds transactions (5 entries) and favorites (1 entries). " +
		"The plugin rewrites this file in place, and a crash or a full disk while it does leaves it so; its backup listings.yml.bak may be whole. --partial imports what is whole and reports what was cut"
	if err == nil || err.Error() != want {
		t.Fatalf("%v\nwant %s", err, want)
	}
	// A market that never had a listing has an empty listings.yml and no
	// sales: nothing to refuse.
	empty := cutFiles(t, []byte{}, 0, []byte("ratings: []\ntransactions: []\n"))
	if _, err := Import(nil, ImportOptions{Dir: empty, Now: now, DryRun: true}); err != nil {
		t.Fatal(err)
	}
}

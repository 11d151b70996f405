package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// pluginCopy copies the plugin's folder fixture name into a temporary
// folder, each file through edit (nil: as it is), and returns the folder
// and a market path in the same temporary folder.
func pluginCopy(t *testing.T, name string, edit func(file string, data []byte) []byte) (from, db string) {
	t.Helper()
	dir := t.TempDir()
	from = filepath.Join(dir, "GrzybcioRynek")
	if err := os.Mkdir(from, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"listings.yml", "market-data.yml", "config.yml"} {
		data, err := os.ReadFile(filepath.Join(pluginFixture(name), f))
		if os.IsNotExist(err) {
			continue
		} else if err != nil {
			t.Fatal(err)
		}
		if edit != nil {
			data = edit(f, data)
		}
		if err := os.WriteFile(filepath.Join(from, f), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return from, filepath.Join(dir, "market.db")
}

// indentListings indents listings.yml's list of listings by two spaces, as
// a file whose entries are indented under their section has them.
func indentListings(data []byte) []byte {
	end := bytes.Index(data, []byte("\nnext-id:"))
	body := bytes.ReplaceAll(data[len("listings:\n"):end+1], []byte("\n"), []byte("\n  "))
	return append(append([]byte("listings:\n  "), body[:len(body)-2]...), data[end+1:]...)
}

// A tab in listings.yml's indentation (an editor that inserts tabs) made
// the line a section of its own and every listing after it part of
// nothing: 0 listings imported, exit 0. It is refused with its place, and
// nothing is written, whether the list is at the margin or indented.
func TestImportRefusesATabInTheIndentation(t *testing.T) {
	for _, indented := range []bool{false, true} {
		from, db := pluginCopy(t, "server", func(f string, data []byte) []byte {
			if f != "listings.yml" {
				return data
			}
			if indented {
				data = indentListings(data)
			}
			// Listing #2's price, fixed in an editor that indents with a tab.
			i := bytes.Index(data, []byte("id: 2\n"))
			j := i + bytes.Index(data[i:], []byte("\n")) + 1
			j += bytes.Index(data[j:], []byte("\n ")) + 1 // a line of listing #2
			j += bytes.Index(data[j:], []byte("price: ")) // its price, the line's indentation before it
			k := bytes.LastIndexByte(data[:j], '\n') + 1
			return append(append(append([]byte{}, data[:k]...), []byte("\tprice: 2.5")...), data[j+bytes.IndexByte(data[j:], '\n'):]...)
		})
		data, _ := os.ReadFile(filepath.Join(from, "listings.yml"))
		line := bytes.Count(data[:bytes.IndexByte(data, '\t')], []byte("\n")) + 1
		want := filepath.Join(from, "listings.yml") + ":" + strconv.Itoa(line) + ":1" +
			": not valid YAML: a tab in the line's indentation (YAML indents with spaces only; an editor may have put it there): replace it with spaces\n" +
			"rynek import: nothing was written\n"
		for _, args := range [][]string{{"import", "--from", from, "--db", db}, {"import", "--from", from, "--db", db, "--dry-run"}, {"import", "--from", from, "--db", db, "--partial"}} {
			var out, errb bytes.Buffer
			if code := run(args, &out, &errb); code != 1 || errb.String() != "rynek import: "+want || out.Len() != 0 {
				t.Errorf("indented %v, %v: exit %d, stdout %q, stderr %q; want 1 and %q", indented, args[5:], code, out.String(), errb.String(), want)
			}
			if _, err := os.Stat(db); !os.IsNotExist(err) {
				t.Fatalf("%v: a refused import left a market: %v", args, err)
			}
		}
	}
	// Without the tab, the indented list imports as the one at the margin.
	from, db := pluginCopy(t, "server", func(f string, data []byte) []byte {
		if f == "listings.yml" {
			return indentListings(data)
		}
		return data
	})
	var out, errb bytes.Buffer
	if code := run([]string{"import", "--from", from, "--db", db, "--expiry-days", "36500"}, &out, &errb); code != 0 ||
		!strings.Contains(out.String(), "  listings       5, with their ids") {
		t.Errorf("the indented listings: exit %d\n%s%s", code, out.String(), errb.String())
	}
}

// A listings.yml whose next-id is not above its own ids (edited, or put
// together from pieces) was refused. The plugin loads it with
// max(next-id, highest id + 1): the import does too, says so, and the
// market's next id is past every id kept (an export writes it back).
func TestImportRaisesNextID(t *testing.T) {
	from, db := pluginCopy(t, "server", func(f string, data []byte) []byte {
		if f == "listings.yml" {
			return bytes.Replace(data, []byte("\n  id: 8\n"), []byte("\n  id: 45\n"), 1) // next-id is 42
		}
		return data
	})
	var out, errb bytes.Buffer
	if code := run([]string{"import", "--from", from, "--db", db, "--expiry-days", "36500"}, &out, &errb); code != 0 {
		t.Fatalf("exit %d: %s%s", code, out.String(), errb.String())
	}
	want := "  next-id        42 in listings.yml, but listing #45 is there (" + filepath.Join(from, "listings.yml") +
		":94:3): the next id is 46, as the plugin loads such a file (the highest id + 1)\n"
	if !strings.Contains(out.String(), want) || strings.Contains(out.String(), "cut short") {
		t.Errorf("the summary lacks %q:\n%s", want, out.String())
	}
	to := filepath.Join(t.TempDir(), "back")
	if code := run([]string{"export", "--to", to, "--db", db}, &out, &errb); code != 0 {
		t.Fatalf("export: exit %d: %s", code, errb.String())
	}
	back, err := os.ReadFile(filepath.Join(to, "listings.yml"))
	if err != nil || !bytes.Contains(back, []byte("\nnext-id: 46\n")) {
		t.Errorf("the exported listings.yml lacks next-id: 46 (%v)", err)
	}
}

// A material that is not a resource location (../../../etc/passwd) was
// imported without a word and served as it was: the entry is skipped with
// its place and why. One that is a resource location but not the game's
// (minecraft:unobtainium, another plugin's nexo:ruby_sword) is imported as
// it is, and the summary names it.
func TestImportRefusesAMaterialThatIsNoResourceLocation(t *testing.T) {
	from, db := pluginCopy(t, "server", func(f string, data []byte) []byte {
		if f == "listings.yml" {
			data = bytes.Replace(data, []byte("id: minecraft:oak_log\n"), []byte("id: ../../../etc/passwd\n"), 1)
			data = bytes.Replace(data, []byte("id: minecraft:diamond_sword\n"), []byte("id: minecraft:unobtainium\n"), 1)
		}
		return data
	})
	var out, errb bytes.Buffer
	if code := run([]string{"import", "--from", from, "--db", db, "--expiry-days", "36500"}, &out, &errb); code != 0 {
		t.Fatalf("exit %d: %s%s", code, out.String(), errb.String())
	}
	listings := filepath.Join(from, "listings.yml")
	for _, want := range []string{
		"  listings       4, with their ids",
		"  materials      2 materials the game's catalogue lacks, imported as they are (another plugin's items, or a typo):\n" +
			"                 UNOBTAINIUM in 1 entry, the first at " + listings + ":2:3\n" +
			"                 nexo:ruby_sword in 1 entry, the first at " + listings + ":77:3\n",
		"  skipped        8 entries, each listed below with the reason\n",
		listings + `:29:9: skipped: listing #2 skipped: its item's material "../../../etc/passwd" is not a resource location (namespace:path, the path's parts between '/' neither empty, '.' nor '..')` + "\n",
	} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("the output lacks %q:\n%s", want, out.String())
		}
	}
	if strings.Contains(out.String(), "etc/passwd\"\n") || strings.Contains(out.String(), "minecraft:../") {
		t.Errorf("the path's material got in:\n%s", out.String())
	}
}

// A line of an entry that lost its indentation (price: at the margin)
// made a section of its own and the rest of the list part of it: every
// listing after it was lost without a word. It is refused at the first
// line left under it, and nothing is written.
func TestImportRefusesALineThatLostItsIndentation(t *testing.T) {
	from, db := pluginCopy(t, "server", func(f string, data []byte) []byte {
		if f == "listings.yml" {
			data = bytes.Replace(indentListings(data), []byte("\n    price: 12.5\n"), []byte("\nprice: 12.5\n"), 1)
		}
		return data
	})
	data, _ := os.ReadFile(filepath.Join(from, "listings.yml"))
	line := bytes.Count(data[:bytes.Index(data, []byte("\nprice: 12.5\n"))+1], []byte("\n")) + 1
	want := "rynek import: " + filepath.Join(from, "listings.yml") + ":" + strconv.Itoa(line+1) + ":5: not valid YAML: this line is indented under \"price\" (line " +
		strconv.Itoa(line) + "), whose value ends on its own line; a line above it may have lost its indentation\nrynek import: nothing was written\n"
	for _, args := range [][]string{{"import", "--from", from, "--db", db}, {"import", "--from", from, "--db", db, "--partial"}} {
		var out, errb bytes.Buffer
		if code := run(args, &out, &errb); code != 1 || errb.String() != want || out.Len() != 0 {
			t.Errorf("%v: exit %d, stdout %q, stderr %q; want 1 and %q", args[5:], code, out.String(), errb.String(), want)
		}
		if _, err := os.Stat(db); !os.IsNotExist(err) {
			t.Fatalf("%v: a refused import left a market: %v", args, err)
		}
	}
}

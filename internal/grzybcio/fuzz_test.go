package grzybcio

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
	"unicode/utf8"

	"go.yaml.in/yaml/v3"
)

// FuzzWalker feeds any bytes to the walker as both files: it must never
// panic, and every item it accepts must have an original that re-encodes to
// itself and exports to an item that reads back the same.
func FuzzWalker(f *testing.F) {
	for _, p := range []string{"testdata/server/listings.yml", "testdata/server/market-data.yml",
		"testdata/legacy/listings.yml", "testdata/malformed/listings.yml", "testdata/foreign/listings.yml"} {
		data, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	f.Add([]byte("listings:\n- &a {==: org.bukkit.inventory.ItemStack, id: 'minecraft:stone', count: 2}\n- *a\n"))
	f.Add([]byte("listings:\n- id: 1\n  seller: 6f1d2c3b-4a59-4e8f-9a1b-0c2d3e4f5a61\n  price: 1\n  timestamp: 1\n  item: {type: STONE, meta: {display-name: '[{\"text\":\"a\",\"extra\":[[[\"b\"]]]}]'}}\n"))
	f.Add([]byte("transactions:\n- {id: 7e6f5a4b-8c9d-4e0f-9a1b-2c3d4e5f6a78, state: sold, price: .nan}\n"))
	// The refusals: a tab in the indentation, materials that are no
	// resource location or not the game's, a next-id below the ids.
	f.Add([]byte("listings:\n  - id: 1\n\tprice: 2\n    seller: 6f1d2c3b-4a59-4e8f-9a1b-0c2d3e4f5a61\nnext-id: 2\n"))
	f.Add([]byte("listings:\n  - id: 1\nprice: 2\n    seller: 6f1d2c3b-4a59-4e8f-9a1b-0c2d3e4f5a61\nx: |\n  two\n  lines\ny: [a,\n  b]\n"))
	f.Add([]byte("listings:\n- id: 5\n  seller: 6f1d2c3b-4a59-4e8f-9a1b-0c2d3e4f5a61\n  price: 1\n  timestamp: 1\n  item: {id: ../../../etc/passwd, count: 1}\n" +
		"- id: 6\n  seller: 6f1d2c3b-4a59-4e8f-9a1b-0c2d3e4f5a61\n  price: 1\n  timestamp: 1\n  item: {id: 'minecraft:unobtainium', count: 1}\n  x: 1\nnext-id: 2\n"))
	f.Add([]byte("listings:\n- id: 2\n  seller: 6f1d2c3b-4a59-4e8f-9a1b-0c2d3e4f5a61\n  price: 1.0\n  timestamp: 1\n  item:\n" +
		"    id: minecraft:stone\n    x: !!binary R0lGODlh\n    y: !custom {a: ~}\n    z: |\n      two\n      lines\n    base: &b {k: 1}\n" +
		"    m: {<<: *b, t: 2001-12-14, q: 'yes', e: '', s: \"#x: y\", u: \"\\u00a0\"}\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		dir := t.TempDir()
		for _, name := range []string{ListingsFile, MarketDataFile} {
			if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
				t.Fatal(err)
			}
			o, err := readOutline(filepath.Join(dir, name))
			if err != nil {
				continue
			}
			fh, err := os.Open(o.path)
			if err != nil {
				t.Fatal(err)
			}
			f := &file{path: o.path}
			for i := range o.sections {
				s := &o.sections[i]
				if !s.block {
					continue
				}
				o.eachEntry(fh, s, func(text []byte, line int) error {
					root, err := parseText(o.path, text, line)
					if err != nil || root == nil || len(root.Content) == 0 {
						return nil
					}
					var ns notes
					v := deref(root.Content[len(root.Content)-1])
					if l, ok := readListing(f, v, &ns); ok {
						checkOriginal(t, l.item.Original.Data)
					}
					if tx, ok := readTransaction(f, v, &ns); ok {
						checkOriginal(t, tx.item.Original.Data)
					}
					if root.Kind == yaml.MappingNode {
						for _, m := range readMailbox(f, deref(root.Content[0]), v, &ns) {
							checkOriginal(t, m.item.Original.Data)
						}
					}
					return nil
				})
			}
			fh.Close()
		}
		// The whole import takes the same bytes as both files, whole or
		// cut short.
		Import(nil, ImportOptions{Dir: dir, DryRun: true})
		Import(nil, ImportOptions{Dir: dir, DryRun: true, Partial: true})
	})
}

// checkOriginal checks that a kept original is in canonical form and that
// what an export writes from it reads back as the same item.
func checkOriginal(t *testing.T, data string) {
	if data == "" {
		return
	}
	var doc yaml.Node
	if err := yaml.Unmarshal([]byte(data), &doc); err != nil {
		t.Fatalf("a kept original is not YAML: %v\n%s", err, data)
	}
	again, err := canonical(doc.Content[0])
	if err != nil || !bytes.Equal(again, []byte(data)) {
		t.Fatalf("a kept original is not canonical (%v):\n%s\nre-encodes to\n%s", err, data, again)
	}
}

// FuzzSNBT: the SNBT and text component readers take any component text.
func FuzzSNBT(f *testing.F) {
	for _, s := range []string{`{color:"gold",italic:0b,text:"Legendarny"}`, `{"minecraft:sharpness":5}`,
		`{levels:{"minecraft:sharpness":5},show_in_tooltip:false}`, `[I;1,2,3]`, `'it\'s'`, `"\u0105"`, `[{text:"a",extra:["b"]}]`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		v, err := parseSNBT(s)
		if err == nil {
			legacyText(v)
		}
		legacyText(parseJSONText(s))
		if !utf8.ValidString(s) {
			return
		}
		if back, err := parseSNBT(snbtString(s)); err != nil || back != s {
			t.Fatalf("snbtString(%q) reads back as %q, %v", s, back, err)
		}
	})
}

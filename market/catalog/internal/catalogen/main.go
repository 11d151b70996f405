// Command catalogen writes market/catalog/data.go, the item catalogue, from
// the game's own data as the npm package minecraft-data ships it (MIT,
// PrismarineJS). It runs through `go generate ./market/catalog`; its output is
// committed, so building Rynek needs neither npm nor the network.
//
// The package version and its integrity hash are pinned below: the same
// pinned tarball and prices.tsv give the same file, byte for byte. To move to
// a newer game version, change the pins, run go generate, give every new
// item a price in prices.tsv (the generator lists the missing ones) and read
// the diff.
//
// Usage:
//
//	go run ./internal/catalogen [-tarball minecraft-data-X.tgz] [-out data.go]
//
// Without -tarball it downloads the pinned package from the npm registry
// (no npm needed) and checks it against the pinned integrity hash.
package main

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"crypto/sha512"
	_ "embed"
	"encoding/base64"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"go/format"
	"io"
	"net/http"
	"os"
	"path"
	"slices"
	"strconv"
	"strings"
	"time"
)

// The pinned data set. The integrity string is npm's dist.integrity of the
// tarball; gameVersion is the key of dataPaths.json's "pc" map.
const (
	packageName      = "minecraft-data"
	packageVersion   = "3.117.0"
	packageIntegrity = "sha512-glKv0EEmVwKvJwdNAKAal2P7gi/nijU9rEMp8gJmqYYRVswS6hA0q9566lcGHH07Ocmpqw5bMRbARC25pR13gA=="
	gameVersion      = "26.1"
)

// prices.tsv holds a price for every item: minecraft-data has none, and the
// demo data and the console's price suggestions need plausible ones.
//
//go:embed prices.tsv
var pricesTSV string

// operatorItems are the items of the game's "Operator Utilities" creative tab
// (CreativeModeTabs.OP_BLOCKS in the 26.x game code, shown only to players
// with operator permissions; its painting variants are PAINTING items and are
// left out). Players cannot obtain them in survival, so the market refuses
// them by default.
var operatorItems = []string{
	"command_block", "chain_command_block", "repeating_command_block", "command_block_minecart",
	"jigsaw", "structure_block", "structure_void", "barrier", "debug_stick",
	"test_instance_block", "test_block", "light",
}

// potionItems carry PotionMeta in Bukkit, which the original plugin's POTIONS
// category rule tests; minecraft-data does not say it.
var potionItems = []string{"potion", "splash_potion", "lingering_potion", "tipped_arrow"}

// notEdible are items that minecraft-data lists in foods.json but that the
// game does not let a player eat (Bukkit's isEdible is false): the fish
// buckets hold a live fish.
var notEdible = []string{"cod_bucket", "salmon_bucket", "pufferfish_bucket", "tropical_fish_bucket"}

func main() {
	tarball := flag.String("tarball", "", "a downloaded "+packageName+"-"+packageVersion+".tgz (default: download it from the npm registry)")
	out := flag.String("out", "data.go", "the Go file to write")
	flag.Parse()
	if err := run(*tarball, *out); err != nil {
		fmt.Fprintln(os.Stderr, "catalogen:", err)
		os.Exit(1)
	}
}

func run(tarball, out string) error {
	var raw []byte
	var err error
	if tarball == "" {
		tarball = tarballURL
		raw, err = download(tarballURL)
	} else {
		raw, err = os.ReadFile(tarball)
	}
	if err != nil {
		return err
	}
	if err := checkIntegrity(raw); err != nil {
		return fmt.Errorf("%s: %w", tarball, err)
	}
	files, err := readPackage(raw)
	if err != nil {
		return fmt.Errorf("%s: %w", tarball, err)
	}
	data, err := loadGameData(files)
	if err != nil {
		return err
	}
	prices, err := parsePrices(pricesTSV)
	if err != nil {
		return fmt.Errorf("prices.tsv: %w", err)
	}
	cat, err := buildCatalog(data, prices)
	if err != nil {
		return err
	}
	src, err := cat.source()
	if err != nil {
		return err
	}
	return os.WriteFile(out, src, 0o644)
}

// tarballURL is where the npm registry serves the pinned package; fetching it
// directly needs neither npm nor node (the integrity check below is what npm
// itself would check).
const tarballURL = "https://registry.npmjs.org/" + packageName + "/-/" + packageName + "-" + packageVersion + ".tgz"

// download fetches url whole, with a timeout that a 24 MB tarball on a slow
// line still meets.
func download(url string) ([]byte, error) {
	client := &http.Client{Timeout: 5 * time.Minute}
	resp, err := client.Get(url)
	if err != nil {
		return nil, fmt.Errorf("download the game data: %w", err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("download the game data: %s: %s", url, resp.Status)
	}
	raw, err := io.ReadAll(io.LimitReader(resp.Body, 256<<20))
	if err != nil {
		return nil, fmt.Errorf("download the game data: %s: %w", url, err)
	}
	return raw, nil
}

// checkIntegrity compares raw with the pinned npm integrity hash, so that the
// generator never writes a catalogue from data other than the pinned set.
func checkIntegrity(raw []byte) error {
	sum := sha512.Sum512(raw)
	got := "sha512-" + base64.StdEncoding.EncodeToString(sum[:])
	if got != packageIntegrity {
		return fmt.Errorf("integrity %s, want the pinned %s", got, packageIntegrity)
	}
	return nil
}

// readPackage returns the JSON files of the package's data folder, by path
// relative to it ("pc/26.1/items.json").
func readPackage(raw []byte) (map[string][]byte, error) {
	gz, err := gzip.NewReader(bytes.NewReader(raw))
	if err != nil {
		return nil, err
	}
	const prefix = "package/minecraft-data/data/"
	files := map[string][]byte{}
	tr := tar.NewReader(gz)
	for {
		h, err := tr.Next()
		if errors.Is(err, io.EOF) {
			return files, nil
		}
		if err != nil {
			return nil, err
		}
		rel, ok := strings.CutPrefix(h.Name, prefix)
		if !ok || h.Typeflag != tar.TypeReg || !strings.HasSuffix(rel, ".json") {
			continue
		}
		if files[rel], err = io.ReadAll(tr); err != nil {
			return nil, err
		}
	}
}

type itemJSON struct {
	Name              string   `json:"name"`
	DisplayName       string   `json:"displayName"`
	StackSize         int      `json:"stackSize"`
	EnchantCategories []string `json:"enchantCategories"`
}

type nameJSON struct {
	Name string `json:"name"`
}

type enchantmentJSON struct {
	Name        string `json:"name"`
	DisplayName string `json:"displayName"`
	MaxLevel    int    `json:"maxLevel"`
	Category    string `json:"category"`
}

// gameData is what the generator reads from minecraft-data.
type gameData struct {
	items        []itemJSON
	blocks       map[string]bool
	foods        map[string]bool
	enchantments []enchantmentJSON
	language     map[string]string
}

func loadGameData(files map[string][]byte) (*gameData, error) {
	var paths struct {
		PC map[string]map[string]string `json:"pc"`
	}
	if err := decode(files, "dataPaths.json", &paths); err != nil {
		return nil, err
	}
	dirs, ok := paths.PC[gameVersion]
	if !ok {
		return nil, fmt.Errorf("dataPaths.json has no pc version %s", gameVersion)
	}
	file := func(kind string) string { return path.Join(dirs[kind], kind+".json") }
	d := &gameData{}
	var blocks, foods []nameJSON
	for _, f := range []struct {
		kind string
		into any
	}{
		{"items", &d.items}, {"blocks", &blocks}, {"foods", &foods},
		{"enchantments", &d.enchantments}, {"language", &d.language},
	} {
		if dirs[f.kind] == "" {
			return nil, fmt.Errorf("dataPaths.json names no %s for pc %s", f.kind, gameVersion)
		}
		if err := decode(files, file(f.kind), f.into); err != nil {
			return nil, err
		}
	}
	d.blocks, d.foods = nameSet(blocks), nameSet(foods)
	return d, nil
}

func decode(files map[string][]byte, name string, into any) error {
	b, ok := files[name]
	if !ok {
		return fmt.Errorf("the package has no data/%s", name)
	}
	if err := json.Unmarshal(b, into); err != nil {
		return fmt.Errorf("data/%s: %w", name, err)
	}
	return nil
}

func nameSet(list []nameJSON) map[string]bool {
	m := make(map[string]bool, len(list))
	for _, x := range list {
		m[x.Name] = true
	}
	return m
}

// parsePrices reads "KEY<TAB>cents" lines; '#' starts a comment line.
func parsePrices(text string) (map[string]int64, error) {
	prices := map[string]int64{}
	for i, line := range strings.Split(text, "\n") {
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		key, cents, ok := strings.Cut(line, "\t")
		v, err := strconv.ParseInt(cents, 10, 64)
		if !ok || err != nil || v <= 0 {
			return nil, fmt.Errorf("line %d: want KEY<TAB>positive cents, got %q", i+1, line)
		}
		if _, dup := prices[key]; dup {
			return nil, fmt.Errorf("line %d: %s priced twice", i+1, key)
		}
		prices[key] = v
	}
	return prices, nil
}

// material and enchantment are the catalogue rows as they are written out.
type material struct {
	key, name     string
	stack         int
	block, edible bool
	potion        bool
	price         int64
}

type enchantment struct {
	key, name, category string
	maxLevel            int
}

type catalog struct {
	materials    []material
	enchantments []enchantment
	targets      map[string][]string // enchantment category -> material keys
	operator     []string
}

// buildCatalog turns the game data into catalogue rows, in the game's item
// and enchantment order, and checks what the market relies on: every item
// priced and named once, every special item present.
func buildCatalog(d *gameData, prices map[string]int64) (*catalog, error) {
	c := &catalog{targets: map[string][]string{}}
	known := map[string]bool{}
	names := map[string]string{}
	var unpriced []string
	for _, it := range d.items {
		if it.Name == "air" {
			continue // an empty slot, not an item
		}
		key := strings.ToUpper(it.Name)
		price, ok := prices[key]
		if !ok {
			unpriced = append(unpriced, key)
		}
		m := material{
			key:    key,
			name:   itemName(it, d.language),
			stack:  it.StackSize,
			block:  d.blocks[it.Name],
			edible: d.foods[it.Name] && !slices.Contains(notEdible, it.Name),
			potion: slices.Contains(potionItems, it.Name),
			price:  price,
		}
		if m.stack < 1 || m.stack > 64 {
			return nil, fmt.Errorf("%s stacks to %d", key, m.stack)
		}
		if other, dup := names[m.name]; dup {
			return nil, fmt.Errorf("%s and %s are both named %q", other, key, m.name)
		}
		names[m.name] = key
		known[key] = true
		c.materials = append(c.materials, m)
		for _, cat := range it.EnchantCategories {
			c.targets[cat] = append(c.targets[cat], key)
		}
	}
	if len(unpriced) > 0 {
		return nil, fmt.Errorf("prices.tsv has no price for %d items: %s", len(unpriced), strings.Join(unpriced, " "))
	}
	for key := range prices {
		if !known[key] {
			return nil, fmt.Errorf("prices.tsv prices %s, which game version %s does not have", key, gameVersion)
		}
	}
	for _, name := range slices.Concat(operatorItems, potionItems, notEdible) {
		if !known[strings.ToUpper(name)] {
			return nil, fmt.Errorf("game version %s has no item %s", gameVersion, name)
		}
	}
	for _, name := range operatorItems {
		c.operator = append(c.operator, strings.ToUpper(name))
	}
	for _, e := range d.enchantments {
		if len(c.targets[e.Category]) == 0 {
			return nil, fmt.Errorf("enchantment %s: no item is in its category %q", e.Name, e.Category)
		}
		c.enchantments = append(c.enchantments, enchantment{key: e.Name, name: e.DisplayName,
			category: e.Category, maxLevel: e.MaxLevel})
	}
	for _, list := range c.targets {
		slices.Sort(list)
	}
	return c, nil
}

// itemName is the item's English name as the game shows it. Where the game
// gives several items one name, the line of the tooltip that tells them apart
// follows in parentheses: "Music Disc (C418 - cat)", "Smithing Template (Sentry
// Armor Trim)" (minecraft-data's displayName of a template is that line).
func itemName(it itemJSON, language map[string]string) string {
	switch {
	case strings.HasPrefix(it.Name, "music_disc_"):
		if desc := language["item.minecraft."+it.Name+".desc"]; desc != "" {
			return it.DisplayName + " (" + desc + ")"
		}
	case strings.HasSuffix(it.Name, "_smithing_template"):
		return language["item.minecraft.smithing_template"] + " (" + it.DisplayName + ")"
	}
	return it.DisplayName
}

// source renders the catalogue as gofmt-ed Go.
func (c *catalog) source() ([]byte, error) {
	var b bytes.Buffer
	p := func(format string, args ...any) { fmt.Fprintf(&b, format, args...) }
	p("// Code generated by catalogen from %s %s (game version %s); DO NOT EDIT.\n\n", packageName, packageVersion, gameVersion)
	p("package catalog\n\n")
	p("// catalogSource names the data set the catalogue was generated from.\n")
	p("const catalogSource = %q\n\n", fmt.Sprintf("%s %s, game version %s", packageName, packageVersion, gameVersion))
	p("// catalogMaterialCount is the number of materials in catalogMaterialRows.\n")
	p("const catalogMaterialCount = %d\n\n", len(c.materials))
	p("// catalogMaterialRows are the game's items, in the game's registry order.\n")
	p("var catalogMaterialRows = [catalogMaterialCount]catalogMaterialRow{\n")
	for _, m := range c.materials {
		var flags []string
		for _, f := range []struct {
			on   bool
			name string
		}{{m.block, "matBlock"}, {m.edible, "matEdible"}, {m.potion, "matPotion"}} {
			if f.on {
				flags = append(flags, f.name)
			}
		}
		if len(flags) == 0 {
			flags = []string{"0"}
		}
		p("\t{%q, %q, %d, %s, %d},\n", m.key, m.name, m.stack, strings.Join(flags, " | "), m.price)
	}
	p("}\n\n")
	p("// catalogEnchantmentCount is the number of enchantments in catalogEnchantmentRows.\n")
	p("const catalogEnchantmentCount = %d\n\n", len(c.enchantments))
	p("// catalogEnchantmentRows are the game's enchantments, in the game's order.\n")
	p("var catalogEnchantmentRows = [catalogEnchantmentCount]catalogEnchantmentRow{\n")
	for _, e := range c.enchantments {
		p("\t{%q, %q, %d, %q},\n", e.key, e.name, e.maxLevel, e.category)
	}
	p("}\n\n")
	p("// catalogEnchantTargets lists, per enchantment category of the game, the\n")
	p("// materials that an enchantment of that category can be on, sorted.\n")
	p("var catalogEnchantTargets = map[string][]string{\n")
	cats := make([]string, 0, len(c.targets))
	for cat := range c.targets {
		cats = append(cats, cat)
	}
	slices.Sort(cats)
	for _, cat := range cats {
		p("\t%q: {\n%s\t},\n", cat, quotedLines(c.targets[cat]))
	}
	p("}\n\n")
	p("// operatorItems are the items of the game's Operator Utilities creative tab\n")
	p("// (CreativeModeTabs.OP_BLOCKS): only operators can have them, so\n")
	p("// DefaultConfig blacklists them.\n")
	p("var operatorItems = []string{\n%s}\n", quotedLines(c.operator))
	return format.Source(b.Bytes())
}

// quotedLines renders keys as quoted Go strings, four to a line, each line
// ending in a comma, so that long lists stay readable in a diff.
func quotedLines(keys []string) string {
	var b strings.Builder
	for i, k := range keys {
		if i%4 == 0 {
			b.WriteString("\t")
		} else {
			b.WriteString(" ")
		}
		b.WriteString(strconv.Quote(k) + ",")
		if i%4 == 3 || i == len(keys)-1 {
			b.WriteString("\n")
		}
	}
	return b.String()
}

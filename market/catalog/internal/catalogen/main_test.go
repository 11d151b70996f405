package main

import (
	"bytes"
	"strings"
	"testing"
)

// fixture is a small data set in minecraft-data's shapes, with the cases the
// generator treats specially.
func fixture() *gameData {
	items := []itemJSON{
		{Name: "air", DisplayName: "Air", StackSize: 64},
		{Name: "diamond_block", DisplayName: "Block of Diamond", StackSize: 64},
		{Name: "cod", DisplayName: "Raw Cod", StackSize: 64},
		{Name: "cod_bucket", DisplayName: "Bucket of Cod", StackSize: 1},
		{Name: "diamond_sword", DisplayName: "Diamond Sword", StackSize: 1, EnchantCategories: []string{"sharp_weapon"}},
		{Name: "diamond_axe", DisplayName: "Diamond Axe", StackSize: 1, EnchantCategories: []string{"sharp_weapon"}},
		{Name: "music_disc_cat", DisplayName: "Music Disc", StackSize: 1},
		{Name: "music_disc_13", DisplayName: "Music Disc", StackSize: 1},
		{Name: "rib_armor_trim_smithing_template", DisplayName: "Rib Armor Trim", StackSize: 64},
		{Name: "tipped_arrow", DisplayName: "Tipped Arrow", StackSize: 64},
	}
	for _, extra := range [][]string{operatorItems, potionItems, notEdible} {
		for _, name := range extra {
			if !slicesHasItem(items, name) {
				items = append(items, itemJSON{Name: name, DisplayName: strings.ToUpper(name[:1]) + name[1:], StackSize: 64})
			}
		}
	}
	return &gameData{
		items:        items,
		blocks:       map[string]bool{"diamond_block": true, "air": true},
		foods:        map[string]bool{"cod": true, "cod_bucket": true},
		enchantments: []enchantmentJSON{{Name: "sharpness", DisplayName: "Sharpness", MaxLevel: 5, Category: "sharp_weapon"}},
		language: map[string]string{
			"item.minecraft.music_disc_cat.desc": "C418 - cat",
			"item.minecraft.music_disc_13.desc":  "C418 - 13",
			"item.minecraft.smithing_template":   "Smithing Template",
		},
	}
}

func slicesHasItem(items []itemJSON, name string) bool {
	for _, it := range items {
		if it.Name == name {
			return true
		}
	}
	return false
}

func fixturePrices(d *gameData) map[string]int64 {
	prices := map[string]int64{}
	for _, it := range d.items {
		if it.Name != "air" {
			prices[strings.ToUpper(it.Name)] = 100
		}
	}
	return prices
}

func TestBuildCatalog(t *testing.T) {
	d := fixture()
	c, err := buildCatalog(d, fixturePrices(d))
	if err != nil {
		t.Fatal(err)
	}
	byKey := map[string]material{}
	for _, m := range c.materials {
		byKey[m.key] = m
	}
	if _, ok := byKey["AIR"]; ok {
		t.Error("AIR is in the catalogue")
	}
	checks := []struct {
		key, name             string
		block, edible, potion bool
	}{
		{"DIAMOND_BLOCK", "Block of Diamond", true, false, false},
		{"COD", "Raw Cod", false, true, false},
		{"COD_BUCKET", "Bucket of Cod", false, false, false}, // in foods.json, but not edible
		{"MUSIC_DISC_CAT", "Music Disc (C418 - cat)", false, false, false},
		{"RIB_ARMOR_TRIM_SMITHING_TEMPLATE", "Smithing Template (Rib Armor Trim)", false, false, false},
		{"TIPPED_ARROW", "Tipped Arrow", false, false, true},
	}
	for _, want := range checks {
		got := byKey[want.key]
		if got.name != want.name || got.block != want.block || got.edible != want.edible || got.potion != want.potion {
			t.Errorf("%s = %+v, want name %q block %v edible %v potion %v", want.key, got, want.name, want.block, want.edible, want.potion)
		}
	}
	if got := strings.Join(c.targets["sharp_weapon"], " "); got != "DIAMOND_AXE DIAMOND_SWORD" {
		t.Errorf("sharp_weapon targets %q", got)
	}
	if len(c.operator) != len(operatorItems) || c.operator[0] != "COMMAND_BLOCK" {
		t.Errorf("operator items %v", c.operator)
	}

	// The same input gives the same file.
	a, err := c.source()
	if err != nil {
		t.Fatal(err)
	}
	c2, _ := buildCatalog(fixture(), fixturePrices(d))
	b, _ := c2.source()
	if !bytes.Equal(a, b) {
		t.Error("two runs gave different files")
	}
	for _, want := range []string{"const catalogMaterialCount = ", `{"COD_BUCKET", "Bucket of Cod", 1, 0, 100},`,
		`{"DIAMOND_BLOCK", "Block of Diamond", 64, matBlock, 100},`, `{"sharpness", "Sharpness", 5, "sharp_weapon"},`} {
		if !bytes.Contains(a, []byte(want)) {
			t.Errorf("the file lacks %s", want)
		}
	}
}

func TestBuildCatalogRefuses(t *testing.T) {
	tests := []struct {
		name   string
		change func(d *gameData, prices map[string]int64)
		want   string
	}{
		{"unpriced", func(d *gameData, p map[string]int64) { delete(p, "COD") }, "no price for 1 items: COD"},
		{"stale price", func(d *gameData, p map[string]int64) { p["GONE"] = 5 }, "prices GONE"},
		{"same name", func(d *gameData, p map[string]int64) {
			d.language["item.minecraft.music_disc_13.desc"] = "C418 - cat"
		}, `both named "Music Disc (C418 - cat)"`},
		{"a special item missing", func(d *gameData, p map[string]int64) {
			last := d.items[len(d.items)-1]
			d.items = d.items[:len(d.items)-1]
			delete(p, strings.ToUpper(last.Name))
		}, "has no item tropical_fish_bucket"},
		{"enchantment without items", func(d *gameData, p map[string]int64) {
			d.enchantments[0].Category = "nothing"
		}, `no item is in its category "nothing"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := fixture()
			p := fixturePrices(d)
			tt.change(d, p)
			_, err := buildCatalog(d, p)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("error %v, want one containing %q", err, tt.want)
			}
		})
	}
}

func TestParsePrices(t *testing.T) {
	p, err := parsePrices("# comment\nSTONE\t8\n\nDIAMOND\t5000\n")
	if err != nil || p["STONE"] != 8 || p["DIAMOND"] != 5000 || len(p) != 2 {
		t.Fatalf("parsePrices = %v, %v", p, err)
	}
	for _, bad := range []string{"STONE 8\n", "STONE\t0\n", "STONE\t-1\n", "STONE\tx\n", "STONE\t8\nSTONE\t9\n"} {
		if _, err := parsePrices(bad); err == nil {
			t.Errorf("parsePrices(%q) accepted it", bad)
		}
	}
}

func TestCheckIntegrity(t *testing.T) {
	if err := checkIntegrity([]byte("not the package")); err == nil || !strings.Contains(err.Error(), "want the pinned") {
		t.Fatalf("checkIntegrity of other bytes: %v", err)
	}
}

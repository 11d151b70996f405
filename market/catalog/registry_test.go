package catalog

import (
	"errors"
	"testing"
)

func TestCanonicalMaterialKey(t *testing.T) {
	good := map[string]string{
		"DIAMOND_SWORD":              "DIAMOND_SWORD",
		"diamond_sword":              "DIAMOND_SWORD",
		"minecraft:diamond_sword":    "DIAMOND_SWORD",
		"MINECRAFT:DIAMOND_SWORD":    "DIAMOND_SWORD",
		"minecraft:some_future_item": "SOME_FUTURE_ITEM",
		"nexo:ruby_sword":            "nexo:ruby_sword",
		"NEXO:Ruby_Sword":            "nexo:ruby_sword",
		"itemsadder:weapons/ruby.v2": "itemsadder:weapons/ruby.v2",
		"minecraft:odd/path":         "minecraft:odd/path",
		"odd/path":                   "minecraft:odd/path",
		"my-pack.v1:x":               "my-pack.v1:x",
	}
	for in, want := range good {
		if got, err := CanonicalMaterialKey(in); err != nil || got != want {
			t.Errorf("CanonicalMaterialKey(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	long := string(make([]byte, MaxKeyBytes+1))
	bad := map[string]string{
		"":                   "material key is empty",
		long:                 "material key is 129 bytes long; at most 128 allowed",
		"diamond sword":      `material key "diamond sword" has ' ', which keys may not hold (allowed: a-z 0-9 _ . - and, in the path, /)`,
		"nexo:ruby:sword":    `material key "nexo:ruby:sword" has ':', which keys may not hold (allowed: a-z 0-9 _ . - and, in the path, /)`,
		"ne/xo:ruby":         `material key "ne/xo:ruby" has '/', which keys may not hold (allowed: a-z 0-9 _ . - and, in the path, /)`,
		"łódź":               `material key "łódź" has 'ł', which keys may not hold (allowed: a-z 0-9 _ . - and, in the path, /)`,
		"DIAMOND\x00":        `material key "DIAMOND\x00" has '\x00', which keys may not hold (allowed: a-z 0-9 _ . - and, in the path, /)`,
		":ruby":              `material key ":ruby" needs both a namespace and a path around its ':'`,
		"nexo:":              `material key "nexo:" needs both a namespace and a path around its ':'`,
		"AIR":                "material AIR is empty space, not an item",
		"minecraft:cave_air": "material CAVE_AIR is empty space, not an item",
	}
	for in, want := range bad {
		_, err := CanonicalMaterialKey(in)
		if !errors.Is(err, ErrInvalidKey) || err.Error() != want {
			t.Errorf("CanonicalMaterialKey(%q) error %v, want %q", in, err, want)
		}
	}
}

func TestCanonicalEnchantmentKey(t *testing.T) {
	for in, want := range map[string]string{
		"sharpness": "sharpness", "SHARPNESS": "sharpness", "minecraft:sharpness": "sharpness",
		"nexo:lifesteal": "nexo:lifesteal", "Nexo:LifeSteal": "nexo:lifesteal",
	} {
		if got, err := CanonicalEnchantmentKey(in); err != nil || got != want {
			t.Errorf("CanonicalEnchantmentKey(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	if _, err := CanonicalEnchantmentKey("sharp ness"); err == nil || err.Error() != `enchantment key "sharp ness" has ' ', which keys may not hold (allowed: a-z 0-9 _ . - and, in the path, /)` {
		t.Errorf("a space: %v", err)
	}
}

func TestNameFromKey(t *testing.T) {
	for key, want := range map[string]string{
		"nexo:ruby_sword":              "Ruby Sword",
		"SOME_FUTURE_ITEM":             "Some Future Item",
		"itemsadder:weapons/ruby.v2":   "Ruby V2",
		"LILY_OF_THE_VALLEY":           "Lily of the Valley",
		"nexo:lifesteal":               "Lifesteal",
		"pack:a/b/-crystal-of-the-sea": "Crystal of the Sea",
		"nexo:___":                     "nexo:___",
		"nexo:gems/":                   "Gems",
	} {
		if got := nameFromKey(key); got != want {
			t.Errorf("nameFromKey(%q) = %q, want %q", key, got, want)
		}
	}
}

func TestKeyTableBound(t *testing.T) {
	table := make([]string, 4)
	kt := newKeyTable([]string{"a"}, func(s string) string { return s }, len(table))
	fill := func(key string) func(int) { return func(id int) { table[id] = key } }
	for i, key := range []string{"b", "c", "b"} {
		id, ok := kt.add(key, fill(key))
		if want := 2 + i%2; !ok || id != want {
			t.Fatalf("add(%q) = %d, %v; want %d", key, id, ok, want)
		}
	}
	if _, ok := kt.add("d", fill("d")); ok {
		t.Fatal("a full table took another key")
	}
	_, err := kt.addOrRefuse("material", "d", fill("d"))
	if !errors.Is(err, ErrInvalidKey) ||
		err.Error() != "material d is not in the catalogue, and the market already holds the 2 others it can keep" {
		t.Fatalf("full table: %v", err)
	}
	if id, ok := kt.lookup("a"); !ok || id != 1 || table[2] != "b" || table[3] != "c" {
		t.Fatalf("lookup a = %d, %v; table %q", id, ok, table)
	}
}

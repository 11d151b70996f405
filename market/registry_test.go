package market

import (
	"errors"
	"fmt"
	"sync"
	"testing"

	"github.com/google/uuid"
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
		var e *Error
		if !errors.As(err, &e) || e.Code != CodeInvalidItem || err.Error() != want {
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

// TestUnknownMaterialKept is the point of the runtime table: an item of a
// newer game version or another namespace is accepted, filed under OTHER,
// named from its key, and stacks as the item says.
func TestUnknownMaterialKept(t *testing.T) {
	it, err := toItem(ItemStack{ID: uuid.New(), Material: "Nexo:Ruby_Sword_Test", Amount: 1, MaxStack: 1,
		Enchantments: []Enchantment{{Key: "nexo:lifesteal_test", Level: 3}, {Key: "sharpness", Level: 5}}})
	if err != nil {
		t.Fatal(err)
	}
	info := materials[it.mat]
	if int(it.mat) <= catalogMaterialCount || info.Key != "nexo:ruby_sword_test" || info.Name != "Ruby Sword Test" ||
		info.MaxStack != 64 || info.BasePrice != 0 || it.maxStack() != 1 {
		t.Fatalf("material %d %+v, item max stack %d", it.mat, info, it.maxStack())
	}
	if got := it.categories(); got != catTestSet(CategoryAll) {
		// sharpness is combat, which takes OTHER away, as for any material
		t.Errorf("with sharpness: %v", got.List())
	}
	if got := categoriesOf(it.mat, nil); got != catTestSet(CategoryAll, CategoryOther) {
		t.Errorf("plain: %v", got.List())
	}
	s := it.stack()
	if s.Material != "nexo:ruby_sword_test" || s.MaxStack != 1 || s.Enchantments[0].Key != "nexo:lifesteal_test" || s.Enchantments[1].Key != "sharpness" {
		t.Errorf("stack %+v", s)
	}
	if e, ok := LookupEnchantment("NEXO:LIFESTEAL_TEST"); !ok || e.Name != "Lifesteal Test" || e.Combat || e.MaxLevel != MaxEnchantLevel {
		t.Errorf("LookupEnchantment = %+v, %v", e, ok)
	}
	if m, ok := LookupMaterial(" nexo:ruby_sword_test "); !ok || m.Key != "nexo:ruby_sword_test" {
		t.Errorf("LookupMaterial = %+v, %v", m, ok)
	}
	for _, m := range Materials() {
		if m.Key == "nexo:ruby_sword_test" {
			t.Error("Materials lists a runtime material")
		}
	}
	// The same key in another form is the same material; a future vanilla
	// item gets its upper-case name.
	again, err := toItem(ItemStack{Material: "nexo:ruby_sword_test", Amount: 1})
	if err != nil || again.mat != it.mat {
		t.Errorf("second item: %d, %v; want %d", again.mat, err, it.mat)
	}
	future, err := toItem(ItemStack{Material: "minecraft:some_future_item_test", Amount: 64})
	if err != nil || materials[future.mat].Key != "SOME_FUTURE_ITEM_TEST" {
		t.Errorf("future item %+v, %v", materials[future.mat], err)
	}
	sword, _ := toItem(ItemStack{Material: "minecraft:diamond_sword", Amount: 1})
	if id, _ := materialID("DIAMOND_SWORD"); sword.mat != id {
		t.Errorf("minecraft:diamond_sword is material %d, DIAMOND_SWORD %d", sword.mat, id)
	}
	// A refused item teaches the market nothing.
	if _, err := toItem(ItemStack{Material: "nexo:never_kept", Amount: 1, DisplayName: "\xff"}); err == nil {
		t.Fatal("bad display name accepted")
	}
	if _, ok := materialID("nexo:never_kept"); ok {
		t.Error("a refused item's material was kept")
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
	var e *Error
	if !errors.As(err, &e) || e.Code != CodeInvalidItem ||
		err.Error() != "material d is not in the catalogue, and the market already holds the 2 others it can keep" {
		t.Fatalf("full table: %v", err)
	}
	if id, ok := kt.lookup("a"); !ok || id != 1 || table[2] != "b" || table[3] != "c" {
		t.Fatalf("lookup a = %d, %v; table %q", id, ok, table)
	}
}

// TestRuntimeTablesRace adds materials and enchantments from several
// goroutines while others read the tables the way listings' readers do. Run
// with -race: readers take no lock.
func TestRuntimeTablesRace(t *testing.T) {
	const writers, readers, keys = 4, 4, 200
	ids := make([][keys]uint16, writers)
	var wg sync.WaitGroup
	stop := make(chan struct{})
	for w := range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for k := range keys {
				// Every writer adds the same keys, in a different order.
				n := (k + w*keys/writers) % keys
				it, err := toItem(ItemStack{Material: fmt.Sprintf("race:item_%d", n), Amount: 1,
					Enchantments: []Enchantment{{Key: fmt.Sprintf("race:ench_%d", n%50), Level: 1}}})
				if err != nil {
					t.Error(err)
					return
				}
				blob := encodeItem(nil, it)
				back, err := decodeItem(blob)
				if err != nil || back.mat != it.mat {
					t.Errorf("decode: %v", err)
					return
				}
				ids[w][n] = it.mat
			}
		}()
	}
	var readerWG sync.WaitGroup
	for range readers {
		readerWG.Add(1)
		go func() {
			defer readerWG.Done()
			for {
				select {
				case <-stop:
					return
				default:
				}
				for n := 0; n < keys; n += 7 {
					if m, ok := LookupMaterial(fmt.Sprintf("race:item_%d", n)); ok && m.Name == "" {
						t.Error("a published material has no name")
					}
					if id, ok := materialID(fmt.Sprintf("race:item_%d", n)); ok {
						_ = categoriesOf(id, nil)
						if materials[id].MaxStack != runtimeMaterialStack {
							t.Error("a published material is half written")
						}
					}
				}
			}
		}()
	}
	wg.Wait()
	close(stop)
	readerWG.Wait()
	for w := 1; w < writers; w++ {
		if ids[w] != ids[0] {
			t.Fatalf("writers %d and 0 got different ids", w)
		}
	}
}

package market

import (
	"bytes"
	"errors"
	"fmt"
	"sync"
	"testing"
	"unsafe"

	"github.com/google/uuid"
	"github.com/rynek/rynek/market/catalog"
	"github.com/rynek/rynek/market/internal/item"
	"github.com/rynek/rynek/market/internal/record"
)

// Blobs written by the build before the generated catalogue (version 1):
// an axe carrying cleaving, an enchantment no released game has, and a
// decorated pot.
const (
	oldAxeBlob = "\x01\x01\x90\xa8\xe0\x00\x00p\x00\x80\x00\x00\x00\x00\x00\x00\x01\rNETHERITE_AXE\x01\t§6Topór\x01\x05stary\x02\bcleaving\x03\nefficiency\x05"
	oldPotBlob = "\x01\x01\x90\xa8\xe0\x00\x00p\x00\x80\x00\x00\x00\x00\x00\x00\x02\rDECORATED_POT\x01\x00\x00\x00"
)

func TestOldBlobsStillDecode(t *testing.T) {
	for _, blob := range []string{oldAxeBlob, oldPotBlob} {
		it, err := item.Decode([]byte(blob))
		if err != nil {
			t.Fatalf("%q: %v", blob, err)
		}
		if got := item.Encode(nil, it); string(got) != blob {
			t.Errorf("re-encoded as %q, want the same bytes %q", got, blob)
		}
	}
	axe, _ := item.Decode([]byte(oldAxeBlob))
	s := stackOf(axe)
	if s.Material != "NETHERITE_AXE" || s.DisplayName != "§6Topór" || len(s.Enchantments) != 2 ||
		s.Enchantments[0] != (Enchantment{Key: "cleaving", Level: 3}) {
		t.Errorf("axe %+v", s)
	}
	if e, _ := catalog.LookupEnchantment("cleaving"); e.Name != "Cleaving" || e.Combat {
		t.Errorf("cleaving, kept from an old blob: %+v", e)
	}
}

// blobV1 and blobV2 are the item blob's versions (internal/item/codec.go).
const blobV1, blobV2 = 1, 2

func TestItemBlobVersions(t *testing.T) {
	id := uuid.MustParse("0190a8e0-0000-7000-8000-000000000003")
	tests := []struct {
		name    string
		it      func() item.Item
		version byte
	}{
		{"catalogue item", func() item.Item { return mustItem(t, ItemStack{ID: id, Material: "DIAMOND", Amount: 64}) }, blobV1},
		{"namespaced, default stack", func() item.Item { return mustItem(t, ItemStack{ID: id, Material: "nexo:blob_gem", Amount: 64}) }, blobV1},
		{"own max stack", func() item.Item {
			return mustItem(t, ItemStack{ID: id, Material: "DIAMOND_SWORD", Amount: 99, MaxStack: 99})
		}, blobV2},
		{"own max stack equal to the material's", func() item.Item {
			return mustItem(t, ItemStack{ID: id, Material: "DIAMOND", Amount: 64, MaxStack: 64})
		}, blobV1},
		{"long key", func() item.Item {
			return mustItem(t, ItemStack{ID: id, Material: "pack:" + string(bytes.Repeat([]byte("k"), 70)), Amount: 1})
		}, blobV2},
		{"original form", func() item.Item {
			it := mustItem(t, ItemStack{ID: id, Material: "DIAMOND", Amount: 1})
			it.X = &item.Extra{Original: item.Original{Format: item.OriginalBukkitYAML, Data: "==: org.bukkit.inventory.ItemStack\nid: minecraft:diamond\ncount: 1\n"}}
			return it
		}, blobV2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			it := tt.it()
			blob := item.Encode(nil, it)
			if blob[0] != tt.version {
				t.Fatalf("version %d, want %d", blob[0], tt.version)
			}
			back, err := item.Decode(blob)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(item.Encode(nil, back), blob) || back.Mat != it.Mat || back.StackMax != it.StackMax ||
				(back.X == nil) != (it.X == nil) || back.X != nil && back.X.Original != it.X.Original {
				t.Fatalf("round trip %+v -> %+v", it, back)
			}
		})
	}
	// The original form is provenance: the same item with and without it is
	// one kind (a listing of an imported item can be sold from its stack).
	plain := mustItem(t, ItemStack{ID: id, Material: "DIAMOND", Amount: 1, DisplayName: "x"})
	withOriginal := plain
	withOriginal.X = &item.Extra{Name: "x", Original: item.Original{Format: item.OriginalBukkitYAML, Data: "id: minecraft:diamond\n"}}
	if !plain.SameKind(withOriginal) {
		t.Error("the original form changed the kind")
	}
	if other := mustItem(t, ItemStack{ID: id, Material: "DIAMOND", Amount: 1, DisplayName: "x", MaxStack: 16}); plain.SameKind(other) {
		t.Error("a different max stack size is the same kind")
	}
}

func mustItem(t *testing.T, s ItemStack) item.Item {
	t.Helper()
	it, err := toItem(s)
	if err != nil {
		t.Fatal(err)
	}
	return it
}

// TestDecodersRefuseNonCanonical: every decoder accepts exactly what its
// encoder writes, so a blob has one meaning and one form.
func TestDecodersRefuseNonCanonical(t *testing.T) {
	v2 := func(tail string) string {
		return "\x02" + string(make([]byte, 16)) + "\x07DIAMOND\x01" + tail
	}
	items := map[string]string{
		"padded amount (the fuzz finding)":  "\x010000000000000000\rDIAMOND_SWORD\x01\x010\x80\x00\x00",
		"padded amount":                     "\x01" + string(make([]byte, 16)) + "\x07DIAMOND\x81\x00\x00\x00\x00",
		"key not in its stored form":        "\x01" + string(make([]byte, 16)) + "\x07diamond\x01\x00\x00\x00",
		"namespaced vanilla key":            "\x01" + string(make([]byte, 16)) + "\x11minecraft:diamond\x01\x00\x00\x00",
		"enchantments out of order":         "\x01" + string(make([]byte, 16)) + "\x07DIAMOND\x01\x00\x00\x02\x0aunbreaking\x01\x09sharpness\x01",
		"enchantment key not stored form":   "\x01" + string(make([]byte, 16)) + "\x07DIAMOND\x01\x00\x00\x01\x09SHARPNESS\x01",
		"version 2 that version 1 holds":    v2("\x00\x00\x00\x00\x00"),
		"own max stack above 99":            v2("\x64\x00\x00\x00\x00"),
		"amount above own max stack":        "\x02" + string(make([]byte, 16)) + "\x07DIAMOND\x11\x10\x00\x00\x00\x00",
		"unknown original format":           v2("\x10\x00\x00\x00\x02\x01x"),
		"empty original":                    v2("\x10\x00\x00\x00\x01\x00"),
		"trailing byte":                     "\x01" + string(make([]byte, 16)) + "\x07DIAMOND\x01\x00\x00\x00\x00",
		"version 3":                         "\x03" + string(make([]byte, 16)) + "\x07DIAMOND\x01\x00\x00\x00",
		"air":                               "\x01" + string(make([]byte, 16)) + "\x03AIR\x01\x00\x00\x00",
		"version 1 key of 65 bytes":         "\x01" + string(make([]byte, 16)) + "\x41" + string(bytes.Repeat([]byte("K"), 65)) + "\x01\x00\x00\x00",
		"padded original format in version": v2("\x10\x00\x00\x00\x80\x00"),
	}
	for name, blob := range items {
		if it, err := item.Decode([]byte(blob)); err == nil {
			t.Errorf("%s: decoded %+v", name, it)
		}
	}
	// A valid v2 blob for contrast, so that the cases above fail for their
	// own reason.
	if _, err := item.Decode([]byte(v2("\x10\x00\x00\x00\x01\x01x"))); err != nil {
		t.Fatalf("valid version 2 blob: %v", err)
	}

	diamond := item.Encode(nil, mustItem(t, ItemStack{ID: uuid.New(), Material: "DIAMOND", Amount: 1}))
	entry := func(slot byte) []byte {
		return append(append([]byte{slot}, byte(len(diamond))), diamond...)
	}
	inventories := map[string][]byte{
		"slots out of order": append(entry(3), entry(1)...),
		"slot twice":         append(entry(1), entry(1)...),
		"slot 36":            entry(36),
		"padded length":      append([]byte{1, byte(len(diamond)) | 0x80, 0}, diamond...),
	}
	for name, blob := range inventories {
		if _, err := item.DecodeInventory(blob); err == nil {
			t.Errorf("inventory, %s: decoded", name)
		}
	}
	if inv, err := item.DecodeInventory(append(entry(1), entry(3)...)); err != nil || inv[1].Mat == 0 || inv[3].Mat == 0 {
		t.Fatalf("valid inventory: %v", err)
	}
}

// TestItemStaysSmall guards the memory budget of a million listings: the
// per-item max stack size must live in the padding of the hot part.
func TestItemStaysSmall(t *testing.T) {
	if size := unsafe.Sizeof(item.Item{}); size != 32 {
		t.Fatalf("item is %d bytes, want 32", size)
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
	info := catalog.Material(it.Mat)
	if int(it.Mat) <= len(catalog.Materials()) || info.Key != "nexo:ruby_sword_test" || info.Name != "Ruby Sword Test" ||
		info.MaxStack != 64 || info.BasePrice != 0 || it.MaxStack() != 1 {
		t.Fatalf("material %d %+v, item max stack %d", it.Mat, info, it.MaxStack())
	}
	if got := it.Categories(); got != catalog.CategorySet(1)<<catalog.CategoryAll {
		// sharpness is combat, which takes OTHER away, as for any material
		t.Errorf("with sharpness: %v", got.List())
	}
	if got := catalog.Categories(it.Mat, nil); got != catalog.CategorySet(1)<<catalog.CategoryAll|1<<catalog.CategoryOther {
		t.Errorf("plain: %v", got.List())
	}
	s := stackOf(it)
	if s.Material != "nexo:ruby_sword_test" || s.MaxStack != 1 || s.Enchantments[0].Key != "nexo:lifesteal_test" || s.Enchantments[1].Key != "sharpness" {
		t.Errorf("stack %+v", s)
	}
	if e, ok := catalog.LookupEnchantment("NEXO:LIFESTEAL_TEST"); !ok || e.Name != "Lifesteal Test" || e.Combat || e.MaxLevel != catalog.MaxEnchantLevel {
		t.Errorf("LookupEnchantment = %+v, %v", e, ok)
	}
	if m, ok := catalog.LookupMaterial(" nexo:ruby_sword_test "); !ok || m.Key != "nexo:ruby_sword_test" {
		t.Errorf("LookupMaterial = %+v, %v", m, ok)
	}
	for _, m := range catalog.Materials() {
		if m.Key == "nexo:ruby_sword_test" {
			t.Error("Materials lists a runtime material")
		}
	}
	// The same key in another form is the same material; a future vanilla
	// item gets its upper-case name.
	again, err := toItem(ItemStack{Material: "nexo:ruby_sword_test", Amount: 1})
	if err != nil || again.Mat != it.Mat {
		t.Errorf("second item: %d, %v; want %d", again.Mat, err, it.Mat)
	}
	future, err := toItem(ItemStack{Material: "minecraft:some_future_item_test", Amount: 64})
	if err != nil || catalog.Material(future.Mat).Key != "SOME_FUTURE_ITEM_TEST" {
		t.Errorf("future item %+v, %v", catalog.Material(future.Mat), err)
	}
	sword, _ := toItem(ItemStack{Material: "minecraft:diamond_sword", Amount: 1})
	if id, _ := catalog.MaterialID("DIAMOND_SWORD"); sword.Mat != id {
		t.Errorf("minecraft:diamond_sword is material %d, DIAMOND_SWORD %d", sword.Mat, id)
	}
	// A refused item teaches the market nothing.
	if _, err := toItem(ItemStack{Material: "nexo:never_kept", Amount: 1, DisplayName: "\xff"}); err == nil {
		t.Fatal("bad display name accepted")
	}
	if _, ok := catalog.MaterialID("nexo:never_kept"); ok {
		t.Error("a refused item's material was kept")
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
				blob := item.Encode(nil, it)
				back, err := item.Decode(blob)
				if err != nil || back.Mat != it.Mat {
					t.Errorf("decode: %v", err)
					return
				}
				ids[w][n] = it.Mat
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
					if m, ok := catalog.LookupMaterial(fmt.Sprintf("race:item_%d", n)); ok && m.Name == "" {
						t.Error("a published material has no name")
					}
					if id, ok := catalog.MaterialID(fmt.Sprintf("race:item_%d", n)); ok {
						_ = catalog.Categories(id, nil)
						if catalog.Material(id).MaxStack != catalog.RuntimeMaterialStack {
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

// TestStoredStatesAreTheStates: the record format stores a state as its
// index in States() and refuses one past record.StateCount, so the two
// must agree or a new state would be unreadable once stored.
func TestStoredStatesAreTheStates(t *testing.T) {
	if n := len(States()); n != record.StateCount {
		t.Fatalf("States() has %d states, record.StateCount is %d", n, record.StateCount)
	}
}

// TestMaterialNamed: a material is named by its key, its name, or the
// words search finds it by, in English or Polish, when they name it whole
// or find it alone; words that find several are refused with the first
// few, and words that find none are refused.
func TestMaterialNamed(t *testing.T) {
	for _, c := range []struct{ text, key, err string }{
		{text: "OAK_LOG", key: "OAK_LOG"},
		{text: "minecraft:oak_log", key: "OAK_LOG"},
		{text: " Oak Log ", key: "OAK_LOG"},
		{text: "diament", key: "DIAMOND"},
		{text: "Diament", key: "DIAMOND"},
		{text: "diament miecz", key: "DIAMOND_SWORD"},
		{text: "kilof diamentowy", key: "DIAMOND_PICKAXE"},
		{text: "złote jabłko", key: "GOLDEN_APPLE"},
		{text: "dąb kłoda", key: "OAK_LOG"},
		{text: "Block of Diamond", key: "DIAMOND_BLOCK"},
		{text: "stek", key: "COOKED_BEEF"}, // Steak: found alone
		{text: "miecz", err: `"miecz" is more than one material (Wooden Sword, Copper Sword, Stone Sword, Golden Sword, Iron Sword and 2 more): type more of its name`},
		{text: "dia", err: `"dia" is more than one material (Obsidian, Diamond): type more of its name`},
		{text: "diamant", err: `no material is called "diamant"`},
		{text: "#5", err: `no material is called "#5"`},
		{text: "", err: `no material is called ""`},
	} {
		key, err := MaterialNamed(c.text)
		if c.err != "" {
			var me *Error
			if !errors.As(err, &me) || me.Msg != c.err || me.Code != CodeInvalidQuery || key != "" {
				t.Errorf("%q: %q, %v; want the refusal %q", c.text, key, err, c.err)
			}
			continue
		}
		if err != nil || key != c.key {
			t.Errorf("%q: %q, %v; want %s", c.text, key, err, c.key)
		}
	}
}

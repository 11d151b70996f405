package catalog

import (
	"slices"
	"strings"
	"testing"
)

// catTestSet builds a CategorySet from a list of categories.
func catTestSet(cs ...Category) CategorySet {
	var s CategorySet
	for _, c := range cs {
		s |= 1 << c
	}
	return s
}

func catTestMat(t *testing.T, key string) uint16 {
	t.Helper()
	id, ok := MaterialID(key)
	if !ok {
		t.Fatalf("MaterialID(%q) not found", key)
	}
	return id
}

func catTestEnchs(t *testing.T, keys ...string) []uint8 {
	t.Helper()
	var out []uint8
	for _, k := range keys {
		id, ok := EnchantmentID(k)
		if !ok {
			t.Fatalf("EnchantmentID(%q) not found", k)
		}
		out = append(out, id)
	}
	return out
}

func TestCategoriesOfExamples(t *testing.T) {
	tests := []struct {
		mat   string
		enchs []string
		in    []Category
		notIn []Category
		exact bool // in is the complete set
	}{
		// The examples of reference §1.3.
		{mat: "MELON_SLICE", in: []Category{CategoryAll, CategoryFood, CategoryFarming}, exact: true},
		{mat: "HOPPER", in: []Category{CategoryAll, CategoryBlocks, CategoryRedstone}, exact: true},
		{mat: "CARVED_PUMPKIN", in: []Category{CategoryAll, CategoryArmor, CategoryBlocks}, exact: true},
		{mat: "TIPPED_ARROW", in: []Category{CategoryAll, CategoryWeapons, CategoryPotions}, exact: true},
		// Axes are weapons, never tools.
		{mat: "DIAMOND_AXE", in: []Category{CategoryAll, CategoryWeapons}, exact: true},
		{mat: "WOODEN_AXE", in: []Category{CategoryWeapons}, notIn: []Category{CategoryTools}},
		{mat: "DIAMOND_PICKAXE", in: []Category{CategoryAll, CategoryTools}, exact: true},
		{mat: "NETHERITE_SHOVEL", in: []Category{CategoryTools}, notIn: []Category{CategoryWeapons}},
		{mat: "IRON_HOE", in: []Category{CategoryTools}},
		{mat: "FISHING_ROD", in: []Category{CategoryTools}},
		{mat: "DIAMOND_SPEAR", in: []Category{CategoryAll, CategoryWeapons}, exact: true},
		{mat: "MACE", in: []Category{CategoryAll, CategoryWeapons}, exact: true},
		{mat: "ENDER_PEARL", in: []Category{CategoryWeapons}, notIn: []Category{CategoryOther}},
		{mat: "ELYTRA", in: []Category{CategoryAll, CategoryArmor}, exact: true},
		{mat: "DIAMOND_HORSE_ARMOR", in: []Category{CategoryArmor}},
		{mat: "TOTEM_OF_UNDYING", in: []Category{CategoryArmor}},
		// Wolf armour does not end with _HORSE_ARMOR and is in no list.
		{mat: "WOLF_ARMOR", in: []Category{CategoryAll, CategoryOther}, exact: true},
		// Books.
		{mat: "BOOK", enchs: []string{"sharpness"}, in: []Category{CategoryAll, CategoryEnchantedBooks}, exact: true},
		{mat: "BOOK", enchs: []string{"unbreaking"}, in: []Category{CategoryAll, CategoryOther}, exact: true},
		{mat: "BOOK", enchs: []string{"unbreaking", "protection"}, in: []Category{CategoryAll, CategoryEnchantedBooks}, exact: true},
		{mat: "BOOK", in: []Category{CategoryAll, CategoryOther}, exact: true},
		{mat: "ENCHANTED_BOOK", in: []Category{CategoryAll, CategoryEnchantedBooks}, exact: true},
		{mat: "ENCHANTED_BOOK", enchs: []string{"mending"}, in: []Category{CategoryAll, CategoryEnchantedBooks}, exact: true},
		// sweeping_edge is not in the combat set (the reference names the dead key "sweeping").
		{mat: "BOOK", enchs: []string{"sweeping_edge"}, in: []Category{CategoryAll, CategoryOther}, exact: true},
		{mat: "BOOK", enchs: []string{"lunge"}, in: []Category{CategoryAll, CategoryEnchantedBooks}, exact: true},
		// OTHER and the combat-enchantment exception.
		{mat: "DIAMOND", in: []Category{CategoryAll, CategoryOther}, exact: true},
		{mat: "DIAMOND", enchs: []string{"sharpness"}, in: []Category{CategoryAll}, exact: true},
		{mat: "DIAMOND", enchs: []string{"efficiency"}, in: []Category{CategoryAll, CategoryOther}, exact: true},
		{mat: "DIAMOND_SWORD", enchs: []string{"sharpness", "unbreaking"}, in: []Category{CategoryAll, CategoryWeapons}, exact: true},
		{mat: "NAME_TAG", in: []Category{CategoryAll, CategoryOther}, exact: true},
		{mat: "MUSIC_DISC_PIGSTEP", in: []Category{CategoryAll, CategoryOther}, exact: true},
		// Food.
		{mat: "CAKE", in: []Category{CategoryAll, CategoryFood, CategoryBlocks}, exact: true},
		{mat: "MILK_BUCKET", in: []Category{CategoryAll, CategoryFood}, exact: true},
		{mat: "ENCHANTED_GOLDEN_APPLE", in: []Category{CategoryAll, CategoryFood}, exact: true},
		{mat: "CARROT", in: []Category{CategoryAll, CategoryFood, CategoryFarming}, exact: true},
		// Farming.
		{mat: "WHEAT_SEEDS", in: []Category{CategoryAll, CategoryFarming}, exact: true},
		{mat: "OAK_SAPLING", in: []Category{CategoryAll, CategoryFarming, CategoryBlocks}, exact: true},
		{mat: "COCOA_BEANS", in: []Category{CategoryAll, CategoryFarming}, exact: true},
		{mat: "COMPOSTER", in: []Category{CategoryAll, CategoryFarming, CategoryBlocks}, exact: true},
		{mat: "BONE_MEAL", in: []Category{CategoryAll, CategoryFarming}, exact: true},
		// Redstone.
		{mat: "REDSTONE", in: []Category{CategoryAll, CategoryRedstone}, exact: true},
		{mat: "REDSTONE_ORE", in: []Category{CategoryAll, CategoryRedstone, CategoryBlocks}, exact: true},
		{mat: "OAK_BUTTON", in: []Category{CategoryRedstone, CategoryBlocks}},
		{mat: "HEAVY_WEIGHTED_PRESSURE_PLATE", in: []Category{CategoryRedstone, CategoryBlocks}},
		// Decorations are not BLOCKS even when they are blocks, but they are not OTHER either.
		{mat: "RED_BANNER", in: []Category{CategoryAll, CategoryDecorations}, exact: true},
		{mat: "WHITE_CARPET", in: []Category{CategoryAll, CategoryDecorations}, exact: true},
		{mat: "CANDLE", in: []Category{CategoryAll, CategoryDecorations}, exact: true},
		{mat: "FLOWER_POT", in: []Category{CategoryAll, CategoryDecorations}, exact: true},
		{mat: "SUNFLOWER", in: []Category{CategoryAll, CategoryDecorations}, exact: true},
		{mat: "DRAGON_HEAD", in: []Category{CategoryAll, CategoryDecorations}, exact: true},
		{mat: "WITHER_SKELETON_SKULL", in: []Category{CategoryAll, CategoryDecorations}, exact: true},
		{mat: "PAINTING", in: []Category{CategoryAll, CategoryDecorations}, exact: true},
		{mat: "TORCHFLOWER_SEEDS", in: []Category{CategoryAll, CategoryFarming, CategoryDecorations}, exact: true},
		{mat: "POPPY", in: []Category{CategoryAll, CategoryBlocks}, exact: true},
		// Potions.
		{mat: "POTION", in: []Category{CategoryAll, CategoryPotions}, exact: true},
		{mat: "EXPERIENCE_BOTTLE", in: []Category{CategoryAll, CategoryPotions}, exact: true},
		{mat: "GLASS_BOTTLE", in: []Category{CategoryAll, CategoryPotions}, exact: true},
		// Blocks.
		{mat: "COBBLESTONE", in: []Category{CategoryAll, CategoryBlocks}, exact: true},
		{mat: "DIAMOND_BLOCK", in: []Category{CategoryAll, CategoryBlocks}, exact: true},
		{mat: "BEDROCK", in: []Category{CategoryAll, CategoryBlocks}, exact: true},
		{mat: "COBBLESTONE", enchs: []string{"sharpness"}, in: []Category{CategoryAll, CategoryBlocks}, exact: true},
	}
	for _, tt := range tests {
		name := tt.mat
		if len(tt.enchs) > 0 {
			name += "+" + strings.Join(tt.enchs, "+")
		}
		t.Run(name, func(t *testing.T) {
			got := Categories(catTestMat(t, tt.mat), catTestEnchs(t, tt.enchs...))
			if tt.exact {
				if want := catTestSet(tt.in...); got != want {
					t.Fatalf("categories = %v, want %v", got.List(), want.List())
				}
			}
			for _, c := range tt.in {
				if !got.Has(c) {
					t.Errorf("categories %v lack %v", got.List(), c)
				}
			}
			for _, c := range tt.notIn {
				if got.Has(c) {
					t.Errorf("categories %v contain %v", got.List(), c)
				}
			}
		})
	}
}

// TestCategoriesOfMatchesRules checks every material, with and without a
// combat enchantment, against a direct transcription of reference §1.3.
func TestCategoriesOfMatchesRules(t *testing.T) {
	sharp := catTestEnchs(t, "sharpness")
	unbr := catTestEnchs(t, "unbreaking")
	for id := 1; id <= catalogMaterialCount; id++ {
		m := materials[id]
		for _, enchs := range [][]uint8{nil, unbr, sharp} {
			got := Categories(uint16(id), enchs)
			combat := len(enchs) > 0 && enchantments[enchs[0]].Combat
			if !got.Has(CategoryAll) {
				t.Errorf("%s: not in ALL", m.Key)
			}
			if got.Has(CategoryBlocks) != (m.Block && !got.Has(CategoryTools) && !got.Has(CategoryDecorations)) {
				t.Errorf("%s: BLOCKS = %v, Block flag %v", m.Key, got.Has(CategoryBlocks), m.Block)
			}
			if got.Has(CategoryFood) != (m.Edible || m.Key == "CAKE" || m.Key == "MILK_BUCKET") {
				t.Errorf("%s: FOOD = %v", m.Key, got.Has(CategoryFood))
			}
			if m.Potion && !got.Has(CategoryPotions) {
				t.Errorf("%s: carries PotionMeta but is not in POTIONS", m.Key)
			}
			wantEB := m.Key == "ENCHANTED_BOOK" || (m.Key == "BOOK" && combat)
			if got.Has(CategoryEnchantedBooks) != wantEB {
				t.Errorf("%s %v: ENCHANTED_BOOKS = %v", m.Key, enchs, got.Has(CategoryEnchantedBooks))
			}
			matched := got.Has(CategoryTools) || got.Has(CategoryWeapons) || got.Has(CategoryArmor) ||
				m.Block || got.Has(CategoryFood) || got.Has(CategoryFarming) || got.Has(CategoryRedstone) ||
				got.Has(CategoryDecorations) || got.Has(CategoryPotions)
			wantOther := !matched && m.Key != "ENCHANTED_BOOK" && !combat
			if got.Has(CategoryOther) != wantOther {
				t.Errorf("%s %v: OTHER = %v, want %v", m.Key, enchs, got.Has(CategoryOther), wantOther)
			}
			if strings.HasSuffix(m.Key, "_AXE") && (got.Has(CategoryTools) || !got.Has(CategoryWeapons)) {
				t.Errorf("%s: an axe must be a weapon and not a tool", m.Key)
			}
		}
	}
}

func TestCategoriesOfEdgeIDs(t *testing.T) {
	want := catTestSet(CategoryAll, CategoryOther)
	for _, id := range []uint16{0, catalogMaterialCount + 1, uint16(len(materials)), 65535} {
		if got := Categories(id, nil); got != want {
			t.Errorf("Categories(%d) = %v, want %v", id, got.List(), want.List())
		}
	}
	// Unknown enchantment ids (0 and beyond the table) are not combat.
	if got := Categories(catTestMat(t, "DIAMOND"), []uint8{0, 255}); got != want {
		t.Errorf("DIAMOND with unknown enchantment ids = %v, want %v", got.List(), want.List())
	}
}

func TestCategoriesOfDoesNotAllocate(t *testing.T) {
	book := catTestMat(t, "BOOK")
	enchs := catTestEnchs(t, "unbreaking", "sharpness")
	var sink CategorySet
	allocs := testing.AllocsPerRun(100, func() {
		sink |= Categories(book, enchs)
	})
	if allocs != 0 {
		t.Fatalf("categoriesOf allocates %v times per call", allocs)
	}
	_ = sink
}

func TestEveryCategoryHasMaterials(t *testing.T) {
	count := make([]int, NumCategories)
	for id := 1; id <= catalogMaterialCount; id++ {
		for _, c := range Categories(uint16(id), nil).List() {
			count[c]++
		}
	}
	if count[CategoryAll] != catalogMaterialCount {
		t.Errorf("ALL has %d materials, want %d", count[CategoryAll], catalogMaterialCount)
	}
	for _, c := range AllCategories() {
		if c == CategoryAll {
			continue
		}
		if c == CategoryEnchantedBooks {
			// By the rules only ENCHANTED_BOOK (and a BOOK with a combat
			// enchantment) can be here, so one material is all there is.
			if count[c] != 1 {
				t.Errorf("%v has %d materials, want exactly 1 (ENCHANTED_BOOK)", c, count[c])
			}
			continue
		}
		if count[c] < 5 {
			t.Errorf("%v has only %d materials", c, count[c])
		}
	}
}

func TestCategoryNames(t *testing.T) {
	want := []string{"ALL", "TOOLS", "WEAPONS", "ARMOR", "BLOCKS", "FOOD", "FARMING",
		"REDSTONE", "DECORATIONS", "POTIONS", "ENCHANTED_BOOKS", "OTHER"}
	all := AllCategories()
	if len(all) != len(want) {
		t.Fatalf("allCategories has %d entries, want %d", len(all), len(want))
	}
	for i, c := range all {
		if c != Category(i) {
			t.Errorf("AllCategories()[%d] = %d", i, c)
		}
		if c.String() != want[i] {
			t.Errorf("Category(%d).String() = %q, want %q", i, c.String(), want[i])
		}
		if c.DisplayName() == "" {
			t.Errorf("%v has no display name", c)
		}
		if _, ok := MaterialID(c.Icon()); !ok {
			t.Errorf("%v icon %q is not a material", c, c.Icon())
		}
	}
	if CategoryOther.DisplayName() != "Inne" || CategoryEnchantedBooks.DisplayName() != "Zaklęte księgi" {
		t.Errorf("unexpected display names %q, %q", CategoryOther.DisplayName(), CategoryEnchantedBooks.DisplayName())
	}
	icons := map[Category]string{CategoryAll: "NETHER_STAR", CategoryTools: "DIAMOND_PICKAXE", CategoryOther: "CHEST"}
	for c, icon := range icons {
		if c.Icon() != icon {
			t.Errorf("%v.Icon() = %q, want %q", c, c.Icon(), icon)
		}
	}
	bad := Category(12)
	if bad.String() != "Category(12)" || bad.Icon() != "CHEST" || bad.DisplayName() != "Category(12)" {
		t.Errorf("invalid category: %q %q %q", bad.String(), bad.Icon(), bad.DisplayName())
	}
}

func TestParseCategory(t *testing.T) {
	for _, c := range AllCategories() {
		name := c.String()
		for _, s := range []string{name, strings.ToLower(name), name[:1] + strings.ToLower(name[1:])} {
			got, ok := ParseCategory(s)
			if !ok || got != c {
				t.Errorf("ParseCategory(%q) = %v, %v; want %v", s, got, ok, c)
			}
		}
	}
	for _, s := range []string{"", "ALL ", "tool", "TOOLSS", "toolſ", "enchanted-books", "Wszystko"} {
		if _, ok := ParseCategory(s); ok {
			t.Errorf("ParseCategory(%q) succeeded", s)
		}
	}
}

func TestCategorySet(t *testing.T) {
	s := catTestSet(CategoryOther, CategoryAll, CategoryFood)
	if got, want := s.List(), []Category{CategoryAll, CategoryFood, CategoryOther}; !slices.Equal(got, want) {
		t.Errorf("List() = %v, want %v", got, want)
	}
	if !s.Has(CategoryFood) || s.Has(CategoryTools) || s.Has(Category(15)) || s.Has(Category(200)) {
		t.Errorf("Has is wrong for %v", s.List())
	}
	if got := CategorySet(0xFFFF).List(); len(got) != NumCategories {
		t.Errorf("List of a full set has %d entries, want %d", len(got), NumCategories)
	}
	if got := CategorySet(0).List(); len(got) != 0 {
		t.Errorf("List of the empty set = %v", got)
	}
}

func TestMaterialTable(t *testing.T) {
	// minecraft-data's items.json for 26.1 has 1,506 entries, one of them AIR,
	// which is an empty slot and not a material.
	if catalogMaterialCount != 1505 || len(Materials()) != 1505 {
		t.Errorf("%d materials (%d from Materials), want 1505", catalogMaterialCount, len(Materials()))
	}
	if catalogSource != "minecraft-data 3.117.0, game version 26.1" {
		t.Errorf("catalogSource = %q", catalogSource)
	}
	if materials[0] != (MaterialInfo{}) {
		t.Errorf("materials[0] = %+v, want the reserved empty entry", materials[0])
	}
	seenKey, seenName := map[string]bool{}, map[string]bool{}
	for id := 1; id <= catalogMaterialCount; id++ {
		m := materials[id]
		if m.Key == "" || strings.Trim(m.Key, "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_") != "" {
			t.Errorf("material %d has a bad key %q", id, m.Key)
		}
		if canon, err := CanonicalMaterialKey(m.Key); err != nil || canon != m.Key {
			t.Errorf("%s: canonical form %q, %v", m.Key, canon, err)
		}
		if seenKey[m.Key] || seenName[m.Name] {
			t.Errorf("%s: key or name %q given twice", m.Key, m.Name)
		}
		seenKey[m.Key], seenName[m.Name] = true, true
		if m.MaxStack != 1 && m.MaxStack != 16 && m.MaxStack != 64 {
			t.Errorf("%s: MaxStack %d", m.Key, m.MaxStack)
		}
		if m.BasePrice <= 0 {
			t.Errorf("%s: BasePrice %d", m.Key, m.BasePrice)
		}
		if m.Name == "" || strings.Contains(m.Name, "_") {
			t.Errorf("%s: bad name %q", m.Key, m.Name)
		}
		if got, ok := MaterialID(m.Key); !ok || int(got) != id {
			t.Errorf("MaterialID(%q) = %d, %v; want %d", m.Key, got, ok, id)
		}
	}
	if materials[catalogMaterialCount+1] != (MaterialInfo{}) {
		t.Errorf("the first runtime slot is filled at start: %+v", materials[catalogMaterialCount+1])
	}
	diamond := catTestMat(t, "DIAMOND")
	for _, key := range []string{"diamond", "Diamond", "minecraft:diamond", "MINECRAFT:DIAMOND", "Minecraft:Diamond"} {
		if id, ok := MaterialID(key); !ok || id != diamond {
			t.Errorf("MaterialID(%q) = %d, %v; want DIAMOND's %d", key, id, ok, diamond)
		}
	}
	for _, key := range []string{"", "DIAMOND ", " DIAMOND", "minecraft:", ":diamond", "NEVER_REGISTERED_BY_A_TEST",
		"AIR", "minecraft:air", "SWEEPING", "DIAMOND:SWORD:X", "DIAMOND\x00"} {
		if id, ok := MaterialID(key); ok {
			t.Errorf("MaterialID(%q) = %d, want not found", key, id)
		}
	}
}

// TestCatalogSpotValues pins values of the generated catalogue that the
// hand-made list had wrong or lacked, and the facts the category rules use.
func TestCatalogSpotValues(t *testing.T) {
	names := map[string]string{
		"DIAMOND_BLOCK": "Block of Diamond", "COD_BUCKET": "Bucket of Cod",
		"TROPICAL_FISH_BUCKET": "Bucket of Tropical Fish", "LEATHER_HELMET": "Leather Cap",
		"LEATHER_CHESTPLATE": "Leather Tunic", "LEATHER_LEGGINGS": "Leather Pants",
		"TURTLE_HELMET": "Turtle Shell", "MOJANG_BANNER_PATTERN": "Thing Banner Pattern",
		"PIGLIN_BANNER_PATTERN": "Snout Banner Pattern", "FLINT_AND_STEEL": "Flint and Steel",
		"HAY_BLOCK": "Hay Bale", "SPAWNER": "Monster Spawner", "REPEATER": "Redstone Repeater",
		"RABBIT_FOOT": "Rabbit's Foot", "LAPIS_BLOCK": "Block of Lapis Lazuli",
		"WAXED_COPPER_BLOCK": "Waxed Block of Copper", "JIGSAW": "Jigsaw Block", "VINE": "Vines",
		"DIAMOND_SWORD": "Diamond Sword", "LILY_OF_THE_VALLEY": "Lily of the Valley",
		"EXPERIENCE_BOTTLE": "Bottle o' Enchanting", "OAK_CHEST_BOAT": "Oak Boat with Chest",
		"MUSIC_DISC_CAT": "Music Disc (C418 - cat)", "MUSIC_DISC_5": "Music Disc (Samuel Åberg - 5)",
		"SENTRY_ARMOR_TRIM_SMITHING_TEMPLATE": "Smithing Template (Sentry Armor Trim)",
		"NETHERITE_UPGRADE_SMITHING_TEMPLATE": "Smithing Template (Netherite Upgrade)",
		"CHIPPED_ANVIL":                       "Chipped Anvil",
		"WAXED_OXIDIZED_CUT_COPPER_STAIRS":    "Waxed Oxidized Cut Copper Stairs",
		"BORDURE_INDENTED_BANNER_PATTERN":     "Bordure Indented Banner Pattern",
		"ZOMBIE_NAUTILUS_SPAWN_EGG":           "Zombie Nautilus Spawn Egg",
		"DEAD_HORN_CORAL_FAN":                 "Dead Horn Coral Fan",
		"STRIPPED_PALE_OAK_WOOD":              "Stripped Pale Oak Wood",
		"LIGHT_BLUE_HARNESS":                  "Light Blue Harness",
		"SNORT_POTTERY_SHERD":                 "Snort Pottery Sherd",
		"NETHERITE_HORSE_ARMOR":               "Netherite Horse Armor",
		"MUSIC_DISC_LAVA_CHICKEN":             "Music Disc (Hyper Potions - Lava Chicken)",
		"WAXED_WEATHERED_COPPER_GOLEM_STATUE": "Waxed Weathered Copper Golem Statue",
	}
	for key, name := range names {
		if got := materials[catTestMat(t, key)].Name; got != name {
			t.Errorf("name of %s = %q, want %q", key, got, name)
		}
	}
	facts := []struct {
		key                   string
		stack                 int
		block, edible, potion bool
		cats                  []Category // besides ALL
	}{
		{"DECORATED_POT", 64, true, false, false, []Category{CategoryBlocks}},
		{"RESIN_CLUMP", 64, true, false, false, []Category{CategoryBlocks}},
		{"HEAVY_CORE", 64, true, false, false, []Category{CategoryBlocks}},
		{"COD_BUCKET", 1, false, false, false, []Category{CategoryOther}},
		{"PUFFERFISH_BUCKET", 1, false, false, false, []Category{CategoryOther}},
		{"PUFFERFISH", 64, false, true, false, []Category{CategoryFood}},
		{"DRIED_KELP", 64, false, true, false, []Category{CategoryFood}},
		{"CHIPPED_ANVIL", 64, true, false, false, []Category{CategoryBlocks}},
		{"WHITE_BUNDLE", 1, false, false, false, []Category{CategoryOther}},
		{"RED_HARNESS", 1, false, false, false, []Category{CategoryOther}},
		{"COPPER_HORSE_ARMOR", 1, false, false, false, []Category{CategoryArmor}},
		{"DIAMOND_NAUTILUS_ARMOR", 1, false, false, false, []Category{CategoryOther}},
		{"ARMS_UP_POTTERY_SHERD", 64, false, false, false, []Category{CategoryOther}},
		{"COW_SPAWN_EGG", 64, false, false, false, []Category{CategoryOther}},
		{"BLUE_EGG", 16, false, false, false, []Category{CategoryOther}},
		{"TUBE_CORAL_FAN", 64, true, false, false, []Category{CategoryBlocks}},
		{"CACTUS_FLOWER", 64, true, false, false, []Category{CategoryDecorations}},
		{"OXIDIZED_COPPER_BULB", 64, true, false, false, []Category{CategoryBlocks}},
		{"POLISHED_TUFF_WALL", 64, true, false, false, []Category{CategoryBlocks}},
		{"TIPPED_ARROW", 64, false, false, true, []Category{CategoryWeapons, CategoryPotions}},
		{"LINGERING_POTION", 1, false, false, true, []Category{CategoryPotions}},
		{"OMINOUS_BOTTLE", 64, false, false, false, []Category{CategoryOther}}, // drunk, but no food: not isEdible
		{"MUSIC_DISC_TEARS", 1, false, false, false, []Category{CategoryOther}},
		{"WARPED_SHELF", 64, true, false, false, []Category{CategoryBlocks}},
		{"COPPER_GOLEM_STATUE", 64, true, false, false, []Category{CategoryBlocks}},
	}
	for _, f := range facts {
		id := catTestMat(t, f.key)
		m := materials[id]
		if m.MaxStack != f.stack || m.Block != f.block || m.Edible != f.edible || m.Potion != f.potion {
			t.Errorf("%s = stack %d block %v edible %v potion %v; want %d %v %v %v",
				f.key, m.MaxStack, m.Block, m.Edible, m.Potion, f.stack, f.block, f.edible, f.potion)
		}
		if got, want := Categories(id, nil), catTestSet(append(f.cats, CategoryAll)...); got != want {
			t.Errorf("%s: categories %v, want %v", f.key, got.List(), want.List())
		}
	}
}

func TestMaterialFacts(t *testing.T) {
	tests := []struct {
		key    string
		stack  int
		block  bool
		edible bool
		potion bool
	}{
		{"DIAMOND_SWORD", 1, false, false, false},
		{"DIAMOND", 64, false, false, false},
		{"ENDER_PEARL", 16, false, false, false},
		{"EGG", 16, false, false, false},
		{"SNOWBALL", 16, false, false, false},
		{"OAK_SIGN", 16, true, false, false},
		{"WHITE_BANNER", 16, true, false, false},
		{"HONEY_BOTTLE", 16, false, true, false},
		{"BUCKET", 16, false, false, false},
		{"WATER_BUCKET", 1, false, false, false},
		{"MILK_BUCKET", 1, false, false, false},
		{"CAKE", 1, true, false, false},
		{"ENCHANTED_BOOK", 1, false, false, false},
		{"TOTEM_OF_UNDYING", 1, false, false, false},
		{"ELYTRA", 1, false, false, false},
		{"SADDLE", 1, false, false, false},
		{"MUSIC_DISC_CAT", 1, false, false, false},
		{"POTION", 1, false, false, true},
		{"TIPPED_ARROW", 64, false, false, true},
		{"WHEAT_SEEDS", 64, false, false, false},
		{"WHEAT", 64, true, false, false},
		{"SUGAR_CANE", 64, true, false, false},
		{"BAMBOO", 64, true, false, false},
		{"CACTUS", 64, true, false, false},
		{"COCOA_BEANS", 64, false, false, false},
		{"CARROT", 64, false, true, false},
		{"POTATO", 64, false, true, false},
		{"BEETROOT", 64, false, true, false},
		{"MELON", 64, true, false, false},
		{"MELON_SLICE", 64, false, true, false},
		{"CARVED_PUMPKIN", 64, true, false, false},
		{"HOPPER", 64, true, false, false},
		{"REDSTONE", 64, false, false, false},
		{"ITEM_FRAME", 64, false, false, false},
		{"ARMOR_STAND", 16, false, false, false},
		{"PLAYER_HEAD", 64, true, false, false},
		{"RED_BED", 1, true, false, false},
		{"SHULKER_BOX", 1, true, false, false},
		{"GOLDEN_APPLE", 64, false, true, false},
		{"MUSHROOM_STEW", 1, false, true, false},
	}
	for _, tt := range tests {
		m := materials[catTestMat(t, tt.key)]
		if m.MaxStack != tt.stack || m.Block != tt.block || m.Edible != tt.edible || m.Potion != tt.potion {
			t.Errorf("%s = stack %d block %v edible %v potion %v; want %d %v %v %v",
				tt.key, m.MaxStack, m.Block, m.Edible, m.Potion, tt.stack, tt.block, tt.edible, tt.potion)
		}
	}
	// The default blacklist: the operator items and three more, all in the catalogue.
	want := []string{"BEDROCK", "SPAWNER", "KNOWLEDGE_BOOK", "COMMAND_BLOCK", "CHAIN_COMMAND_BLOCK",
		"REPEATING_COMMAND_BLOCK", "COMMAND_BLOCK_MINECART", "JIGSAW", "STRUCTURE_BLOCK", "STRUCTURE_VOID",
		"BARRIER", "DEBUG_STICK", "TEST_INSTANCE_BLOCK", "TEST_BLOCK", "LIGHT"}
	if got := DefaultBlacklist(); !slices.Equal(got, want) {
		t.Errorf("default blacklist %v, want %v", got, want)
	}
	for _, key := range want {
		catTestMat(t, key)
	}
	// Prices are ordered plausibly.
	price := func(k string) int64 { return materials[catTestMat(t, k)].BasePrice }
	if !(price("COBBLESTONE") < price("OAK_LOG") && price("OAK_LOG") < price("IRON_INGOT") &&
		price("IRON_INGOT") < price("DIAMOND") && price("DIAMOND") < price("DIAMOND_SWORD") &&
		price("DIAMOND_SWORD") < price("NETHERITE_INGOT") && price("NETHERITE_INGOT") < price("ELYTRA")) {
		t.Error("base prices are not ordered plausibly")
	}
}

func TestEnchantmentTable(t *testing.T) {
	if enchantments[0].Key != "" {
		t.Errorf("enchantments[0] = %+v, want the reserved empty entry", enchantments[0])
	}
	if catalogEnchantmentCount != 43 || len(Enchantments()) != 43 {
		t.Errorf("%d enchantments (%d from Enchantments), want 43", catalogEnchantmentCount, len(Enchantments()))
	}
	seen := map[string]bool{}
	for id := 1; id <= catalogEnchantmentCount; id++ {
		e := enchantments[id]
		if e.Key == "" || strings.Trim(e.Key, "abcdefghijklmnopqrstuvwxyz_") != "" {
			t.Errorf("enchantment %d has a bad key %q", id, e.Key)
		}
		if seen[e.Key] {
			t.Errorf("duplicate enchantment key %q", e.Key)
		}
		seen[e.Key] = true
		if e.Name == "" || e.MaxLevel < 1 || e.MaxLevel > 5 || len(e.Targets) == 0 {
			t.Errorf("bad enchantment %+v", e)
		}
		if got, ok := EnchantmentID(e.Key); !ok || int(got) != id {
			t.Errorf("EnchantmentID(%q) = %d, %v; want %d", e.Key, got, ok, id)
		}
		if !slices.IsSorted(e.Targets) {
			t.Errorf("%s: targets are not sorted", e.Key)
		}
		for _, tgt := range e.Targets {
			if _, ok := MaterialID(tgt); !ok {
				t.Errorf("%s: target %q is not a material", e.Key, tgt)
			}
		}
	}
	sharpness, _ := EnchantmentID("sharpness")
	for _, key := range []string{"Sharpness", "SHARPNESS", "minecraft:sharpness"} {
		if id, ok := EnchantmentID(key); !ok || id != sharpness {
			t.Errorf("EnchantmentID(%q) = %d, %v; want sharpness's %d", key, id, ok, sharpness)
		}
	}
	// cleaving is in no released game version; sweeping is a dead key.
	for _, key := range []string{"", "sweeping", "cleaving", "nope", "sharpness "} {
		if id, ok := EnchantmentID(key); ok {
			t.Errorf("EnchantmentID(%q) = %d, want not found", key, id)
		}
	}

	// The combat set of reference §1.3, minus "sweeping", which does not resolve.
	combat := []string{"sharpness", "smite", "bane_of_arthropods", "knockback", "fire_aspect", "looting",
		"impaling", "loyalty", "riptide", "channeling", "density", "breach", "wind_burst", "lunge",
		"power", "punch", "flame", "infinity", "quick_charge", "multishot", "piercing", "protection",
		"fire_protection", "blast_protection", "projectile_protection", "thorns", "binding_curse", "respiration",
		"aqua_affinity", "depth_strider", "frost_walker", "feather_falling", "soul_speed", "swift_sneak"}
	var gotCombat []string
	for _, e := range Enchantments() {
		if e.Combat {
			gotCombat = append(gotCombat, e.Key)
		}
	}
	slices.Sort(combat)
	slices.Sort(gotCombat)
	if !slices.Equal(gotCombat, combat) {
		t.Errorf("combat set = %v\nwant %v", gotCombat, combat)
	}

	levels := map[string]int{"sharpness": 5, "protection": 4, "efficiency": 5, "unbreaking": 3, "fortune": 3,
		"mending": 1, "silk_touch": 1, "sweeping_edge": 3, "frost_walker": 2, "breach": 4, "piercing": 4}
	for k, lvl := range levels {
		id, _ := EnchantmentID(k)
		if enchantments[id].MaxLevel != lvl {
			t.Errorf("%s MaxLevel = %d, want %d", k, enchantments[id].MaxLevel, lvl)
		}
	}
}

func TestEnchantmentAppliesTo(t *testing.T) {
	ench := func(k string) *EnchantmentInfo {
		id, ok := EnchantmentID(k)
		if !ok {
			t.Fatalf("no enchantment %q", k)
		}
		return &enchantments[id]
	}
	tests := []struct {
		ench, mat string
		want      bool
	}{
		{"sharpness", "DIAMOND_SWORD", true},
		{"sharpness", "IRON_AXE", true},
		{"sharpness", "DIAMOND_PICKAXE", false},
		{"power", "BOW", true},
		{"power", "CROSSBOW", false},
		{"multishot", "CROSSBOW", true},
		{"protection", "NETHERITE_CHESTPLATE", true},
		{"protection", "BOOK", true},
		{"lure", "ENCHANTED_BOOK", true},
		{"efficiency", "DIAMOND", false},
		{"efficiency", "SHEARS", true},
		{"lunge", "COPPER_SPEAR", true},
		{"lunge", "IRON_SWORD", false},
		{"binding_curse", "CARVED_PUMPKIN", true},
		{"unbreaking", "ELYTRA", true},
	}
	for _, tt := range tests {
		if got := ench(tt.ench).appliesTo(tt.mat); got != tt.want {
			t.Errorf("%s.appliesTo(%s) = %v, want %v", tt.ench, tt.mat, got, tt.want)
		}
	}
}

func BenchmarkCategoriesOf(b *testing.B) {
	book, _ := MaterialID("BOOK")
	sharp, _ := EnchantmentID("sharpness")
	enchs := []uint8{sharp}
	var sink CategorySet
	for i := 0; b.Loop(); i++ {
		sink |= Categories(uint16(i%len(materials)), enchs)
		sink |= Categories(book, nil)
	}
	_ = sink
}

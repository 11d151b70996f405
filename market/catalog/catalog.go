// Package catalog is what Rynek knows of the game's items: materials and
// enchantments with their facts (names, stack sizes, which enchantment goes
// on what), the 12 market categories and the rules that file an item under
// them, the Polish words search finds items by, and the keys of items from
// newer game versions or other namespaces that the market meets while it
// runs.
//
// It is a package of its own because it is a vocabulary the market, its
// importers, its demo data and the console all speak, and it needs nothing
// of the market: it imports only market/playertext (how a name is split
// into words) and never market or anything above it. The market reports
// its key errors (ErrInvalidKey) as INVALID_ITEM.
package catalog

import (
	"math/bits"
	"slices"
	"strconv"
	"strings"
)

// This file is the item catalogue: what the market knows of materials and
// enchantments, and the 12 market categories with the exact classification
// rules of the original plugin (reference §1.3). Everything here is built once,
// when the package is initialised, and is read-only afterwards, so it needs no
// locking. The tables themselves, and the materials and enchantments the market
// learns while it runs, are in registry.go; their catalogue part is generated
// from the game's data into data.go by internal/catalogen.

//go:generate go run ./internal/catalogen -out data.go

// Category is one of the 12 market categories. It exists so that listings can
// be browsed by kind of item, as in the original plugin's category menu; a
// listing can be in several categories at once (see categoriesOf).
type Category uint8

// The 12 categories, in the order of the original plugin's MarketCategory enum.
// The order matters: CategorySet uses the value as the bit index, and the
// category menu shows them in this order.
const (
	CategoryAll Category = iota
	CategoryTools
	CategoryWeapons
	CategoryArmor
	CategoryBlocks
	CategoryFood
	CategoryFarming
	CategoryRedstone
	CategoryDecorations
	CategoryPotions
	CategoryEnchantedBooks
	CategoryOther
)

// NumCategories is the number of valid categories.
const NumCategories = 12

var categoryNames = [NumCategories]string{
	"ALL", "TOOLS", "WEAPONS", "ARMOR", "BLOCKS", "FOOD", "FARMING",
	"REDSTONE", "DECORATIONS", "POTIONS", "ENCHANTED_BOOKS", "OTHER",
}

var categoryDisplayNames = [NumCategories]string{
	"Wszystko", "Narzędzia", "Broń", "Zbroja", "Bloki", "Jedzenie", "Farma",
	"Redstone", "Dekoracje", "Mikstury", "Zaklęte księgi", "Inne",
}

// categoryIcons are the icon materials of the original gui.yml (reference §1.3).
var categoryIcons = [NumCategories]string{
	"NETHER_STAR", "DIAMOND_PICKAXE", "DIAMOND_SWORD", "DIAMOND_CHESTPLATE",
	"GRASS_BLOCK", "COOKED_BEEF", "WHEAT", "REDSTONE", "PAINTING", "POTION",
	"ENCHANTED_BOOK", "CHEST",
}

// String returns the category's enum name ("ALL", "TOOLS", ...). It exists
// because these names are the compatible identifiers of the original plugin:
// its config keys are their lower-case forms and its API returns them.
func (c Category) String() string {
	if c < NumCategories {
		return categoryNames[c]
	}
	return "Category(" + strconv.Itoa(int(c)) + ")"
}

// DisplayName returns the Polish name a player sees in the category menu,
// because the market is built for a Polish server. An invalid category
// returns its String form.
func (c Category) DisplayName() string {
	if c < NumCategories {
		return categoryDisplayNames[c]
	}
	return c.String()
}

// Icon returns the material key shown for the category in the menu, as in the
// original gui.yml, so that front ends can draw the same icons. An invalid
// category gets CHEST, the original getCategoryIcon fallback.
func (c Category) Icon() string {
	if c < NumCategories {
		return categoryIcons[c]
	}
	return "CHEST"
}

// ParseCategory turns a category name as written by users, configs or HTTP
// clients back into a Category. The match is ASCII case-insensitive on the
// String names, so both "TOOLS" and the config key "tools" are accepted.
func ParseCategory(s string) (Category, bool) {
	for i, name := range categoryNames {
		if catalogEqualFoldASCII(s, name) {
			return Category(i), true
		}
	}
	return 0, false
}

// catalogEqualFoldASCII reports whether a and b are equal ignoring ASCII case.
// It deliberately does not use Unicode folding (strings.EqualFold would accept
// "ſ" for "s" and the Kelvin sign for "K").
func catalogEqualFoldASCII(a, b string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := 0; i < len(a); i++ {
		x, y := a[i], b[i]
		if 'a' <= x && x <= 'z' {
			x -= 'a' - 'A'
		}
		if 'a' <= y && y <= 'z' {
			y -= 'a' - 'A'
		}
		if x != y {
			return false
		}
	}
	return true
}

// CategorySet is a set of categories, bit i standing for Category(i). It exists
// so that an item's categories can be stored and tested in one machine word:
// the store classifies about a million items at load time.
type CategorySet uint16

// Has reports whether c is in the set; category filters use it to test a
// listing in constant time.
func (s CategorySet) Has(c Category) bool {
	return c < NumCategories && s&(1<<c) != 0
}

// List returns the categories of the set in ascending order, for callers that
// need the categories as values (for example the public Listing type).
func (s CategorySet) List() []Category {
	s &= 1<<NumCategories - 1
	out := make([]Category, 0, bits.OnesCount16(uint16(s)))
	for s != 0 {
		c := bits.TrailingZeros16(uint16(s))
		out = append(out, Category(c))
		s &= s - 1
	}
	return out
}

// AllCategories returns the 12 categories in order, as a fresh slice.
func AllCategories() []Category {
	out := make([]Category, NumCategories)
	for i := range out {
		out[i] = Category(i)
	}
	return out
}

// MaterialInfo describes one item material of the game. The market needs it to
// validate listed items (amount within the stack size), to classify them into
// categories, to show readable names, and to generate plausible demo data.
type MaterialInfo struct {
	// Key is the stored form of the material's key: the upper-case Bukkit
	// name for the game's own items ("DIAMOND_SWORD"), "namespace:path" for
	// another namespace's ("nexo:ruby_sword"); see CanonicalMaterialKey.
	Key      string
	Name     string // English name as the game shows it, "Block of Diamond"
	MaxStack int    // the game's stack size, 1..64; 64 for a material not in the catalogue
	Block    bool   // Material.isBlock() in Bukkit: the item places a block of the same name
	Edible   bool   // Material.isEdible() in Bukkit
	Potion   bool   // the item carries PotionMeta (POTION, SPLASH_POTION, LINGERING_POTION, TIPPED_ARROW)
	// BasePrice is a plausible market price of ONE unit in cents, used by the
	// demo data generator and for suggested prices; 0 for a material that is
	// not in the catalogue.
	BasePrice int64
	// PolishWords are the Polish words search finds the material by, the
	// forms of its name's words ("diament miecz" for Diamond Sword; see
	// polishForms); "" when none of its words has one.
	PolishWords string
}

// EnchantmentInfo describes one enchantment. The market needs it to validate
// enchantment keys and levels, to decide the enchantment-dependent categories
// (the plugin's "combat" set), and to let the demo generator put plausible
// enchantments on items.
type EnchantmentInfo struct {
	// Key is the stored form: the lower-case key without the "minecraft:"
	// namespace for the game's own ("sharpness"), "namespace:path" otherwise.
	Key      string
	Name     string // English name, "Sharpness"
	MaxLevel int    // highest level the game gives; MaxEnchantLevel for one not in the catalogue
	// Combat reports membership in the original plugin's combat-enchantment set
	// (reference §1.3). That set names the dead key "sweeping", which does not
	// resolve on a modern server, so the real enchantment sweeping_edge is not
	// combat; nor is anything outside the catalogue.
	Combat bool
	// Targets are the material keys the game lets this enchantment be on,
	// sorted (from the game's enchantment categories). BOOK and
	// ENCHANTED_BOOK accept every enchantment besides. See appliesTo.
	Targets []string
}

// appliesTo reports whether the game lets e be on an item of material key.
func (e *EnchantmentInfo) appliesTo(key string) bool {
	if key == "BOOK" || key == "ENCHANTED_BOOK" {
		return true
	}
	_, found := slices.BinarySearch(e.Targets, key)
	return found
}

// Material flags used in catalogMaterialRows.
const (
	matBlock  uint8 = 1 << iota // Material.isBlock()
	matEdible                   // Material.isEdible()
	matPotion                   // carries PotionMeta
)

// catalogMaterialRow is one line of the generated material table
// (data.go).
type catalogMaterialRow struct {
	key   string
	name  string
	stack int
	flags uint8
	price int64 // cents per unit
}

// catalogEnchantmentRow is one line of the generated enchantment table.
type catalogEnchantmentRow struct {
	key      string
	name     string
	maxLevel int
	category string // the game's enchantment category, a key of catalogEnchantTargets
}

// combatEnchantmentKeys is the original plugin's combat set, verbatim
// (reference §1.3). Keys the catalogue lacks ("sweeping", "cleaving") are
// skipped, as the plugin's Enchantment.getByKey skipped them.
var combatEnchantmentKeys = []string{"sharpness", "smite", "bane_of_arthropods", "knockback",
	"fire_aspect", "looting", "sweeping", "impaling", "loyalty", "riptide", "channeling", "density",
	"breach", "wind_burst", "cleaving", "lunge", "power", "punch", "flame", "infinity", "quick_charge",
	"multishot", "piercing", "protection", "fire_protection", "blast_protection",
	"projectile_protection", "thorns", "binding_curse", "respiration", "aqua_affinity",
	"depth_strider", "frost_walker", "feather_falling", "soul_speed", "swift_sneak"}

// combatEnchantment[id] is enchantments[id].Combat, as an array indexed by the
// full uint8 range so that categoriesOf needs no bounds check. Enchantments
// added at run time are never combat, so it is fixed at initialisation.
var combatEnchantment = func() (t [1 << 8]bool) {
	for i := 1; i <= catalogEnchantmentCount; i++ {
		t[i] = enchantments[i].Combat
	}
	return t
}()

// materialCategories[id] is the part of a material's category set that does
// not depend on enchantments. CategoryOther is set when the material alone
// qualifies for OTHER; categoriesOf removes it again for items with a combat
// enchantment.
//
// Only the catalogue has entries: a material added at run time has ids past
// the end and is treated like id 0, a material with no properties, which is
// OTHER.
var materialCategories = func() []CategorySet {
	out := make([]CategorySet, 1+catalogMaterialCount)
	for i := range out {
		out[i] = catalogStaticCategories(&materials[i])
	}
	return out
}()

// bookMaterial is the id of BOOK, the one material whose categories gain
// ENCHANTED_BOOKS from a combat enchantment.
var bookMaterial, _ = MaterialID("BOOK")

// Categories returns the categories of an item of material mat carrying the
// given enchantment ids (stored enchants of books and normal enchants are the
// same list here). Always includes ALL. An unknown material id is treated like
// id 0, a material with no properties. It does not allocate.
func Categories(mat uint16, enchs []uint8) CategorySet {
	if int(mat) >= len(materialCategories) {
		mat = 0
	}
	s := materialCategories[mat]
	for _, e := range enchs {
		if combatEnchantment[e] {
			s &^= 1 << CategoryOther
			if mat == bookMaterial {
				s |= 1 << CategoryEnchantedBooks
			}
			break
		}
	}
	return s
}

// catalogStaticCategories applies the rules of reference §1.3 that depend on
// the material only.
func catalogStaticCategories(m *MaterialInfo) CategorySet {
	k := m.Key
	tools := catalogHasSuffix(k, "_PICKAXE", "_SHOVEL", "_HOE") ||
		catalogIsOneOf(k, "FISHING_ROD", "SHEARS", "FLINT_AND_STEEL", "BRUSH",
			"CARROT_ON_A_STICK", "WARPED_FUNGUS_ON_A_STICK")
	weapons := catalogHasSuffix(k, "_SWORD", "_SPEAR", "_AXE") ||
		catalogIsOneOf(k, "MACE", "TRIDENT", "BOW", "CROSSBOW", "ARROW",
			"SPECTRAL_ARROW", "TIPPED_ARROW", "SNOWBALL", "EGG", "ENDER_PEARL",
			"FIRE_CHARGE", "WIND_CHARGE")
	armor := catalogHasSuffix(k, "_HELMET", "_CHESTPLATE", "_LEGGINGS", "_BOOTS", "_HORSE_ARMOR") ||
		catalogIsOneOf(k, "SHIELD", "ELYTRA", "TURTLE_HELMET", "CARVED_PUMPKIN", "TOTEM_OF_UNDYING")
	food := m.Edible || k == "CAKE" || k == "MILK_BUCKET"
	farming := catalogHasSuffix(k, "_SEEDS", "_SAPLING") || strings.Contains(k, "CROPS") ||
		catalogIsOneOf(k, "WHEAT", "BEETROOT", "CARROT", "POTATO", "BAMBOO",
			"SUGAR_CANE", "CACTUS", "COCOA_BEANS", "MELON", "MELON_SLICE",
			"PUMPKIN", "BONE_MEAL", "COMPOSTER")
	redstone := strings.Contains(k, "REDSTONE") || catalogHasSuffix(k, "_BUTTON", "_PRESSURE_PLATE") ||
		catalogIsOneOf(k, "REPEATER", "COMPARATOR", "OBSERVER", "HOPPER", "DROPPER",
			"DISPENSER", "PISTON", "STICKY_PISTON", "SLIME_BLOCK", "HONEY_BLOCK",
			"TARGET", "DAYLIGHT_DETECTOR", "TRIPWIRE_HOOK", "LEVER", "SCULK_SENSOR",
			"CALIBRATED_SCULK_SENSOR")
	decorations := catalogContains(k, "BANNER", "CARPET", "CANDLE", "FLOWER", "POTTED") ||
		catalogHasSuffix(k, "_HEAD", "_SKULL") ||
		catalogIsOneOf(k, "PAINTING", "ITEM_FRAME", "GLOW_ITEM_FRAME", "ARMOR_STAND", "FLOWER_POT")
	potions := m.Potion || catalogIsOneOf(k, "POTION", "SPLASH_POTION", "LINGERING_POTION",
		"EXPERIENCE_BOTTLE", "DRAGON_BREATH", "GLASS_BOTTLE")
	blocks := m.Block && !tools && !decorations
	enchantedBook := k == "ENCHANTED_BOOK"
	// OTHER looks at the raw isBlock flag, not at the BLOCKS category.
	other := !(tools || weapons || armor || m.Block || food || farming || redstone ||
		decorations || potions || enchantedBook)

	s := CategorySet(1) << CategoryAll
	for _, f := range [...]struct {
		c  Category
		in bool
	}{
		{CategoryTools, tools}, {CategoryWeapons, weapons}, {CategoryArmor, armor},
		{CategoryBlocks, blocks}, {CategoryFood, food}, {CategoryFarming, farming},
		{CategoryRedstone, redstone}, {CategoryDecorations, decorations},
		{CategoryPotions, potions}, {CategoryEnchantedBooks, enchantedBook},
		{CategoryOther, other},
	} {
		if f.in {
			s |= 1 << f.c
		}
	}
	return s
}

func catalogHasSuffix(s string, suffixes ...string) bool {
	for _, x := range suffixes {
		if strings.HasSuffix(s, x) {
			return true
		}
	}
	return false
}

func catalogContains(s string, parts ...string) bool {
	for _, x := range parts {
		if strings.Contains(s, x) {
			return true
		}
	}
	return false
}

func catalogIsOneOf(s string, list ...string) bool {
	for _, x := range list {
		if s == x {
			return true
		}
	}
	return false
}

// DefaultBlacklist is what no player can obtain in survival: the game's
// operator items (operatorItems, from its Operator Utilities creative tab)
// and three more that only creative mode or commands give.
func DefaultBlacklist() []string {
	return append([]string{"BEDROCK", "SPAWNER", "KNOWLEDGE_BOOK"}, operatorItems...)
}

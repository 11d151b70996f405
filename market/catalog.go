package market

import (
	"math/bits"
	"strconv"
	"strings"
)

// This file is the item catalogue: the materials and enchantments the market
// knows, and the 12 market categories with the exact classification rules of
// the original plugin (reference §1.3). Everything here is built once, when the
// package is initialised, and is read-only afterwards, so it needs no locking.

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

// categoryCount is the number of valid categories.
const categoryCount = 12

var categoryNames = [categoryCount]string{
	"ALL", "TOOLS", "WEAPONS", "ARMOR", "BLOCKS", "FOOD", "FARMING",
	"REDSTONE", "DECORATIONS", "POTIONS", "ENCHANTED_BOOKS", "OTHER",
}

var categoryDisplayNames = [categoryCount]string{
	"Wszystko", "Narzędzia", "Broń", "Zbroja", "Bloki", "Jedzenie", "Farma",
	"Redstone", "Dekoracje", "Mikstury", "Zaklęte księgi", "Inne",
}

// categoryIcons are the icon materials of the original gui.yml (reference §1.3).
var categoryIcons = [categoryCount]string{
	"NETHER_STAR", "DIAMOND_PICKAXE", "DIAMOND_SWORD", "DIAMOND_CHESTPLATE",
	"GRASS_BLOCK", "COOKED_BEEF", "WHEAT", "REDSTONE", "PAINTING", "POTION",
	"ENCHANTED_BOOK", "CHEST",
}

// String returns the category's enum name ("ALL", "TOOLS", ...). It exists
// because these names are the compatible identifiers of the original plugin:
// its config keys are their lower-case forms and its API returns them.
func (c Category) String() string {
	if c < categoryCount {
		return categoryNames[c]
	}
	return "Category(" + strconv.Itoa(int(c)) + ")"
}

// DisplayName returns the Polish name a player sees in the category menu,
// because the market is built for a Polish server. An invalid category
// returns its String form.
func (c Category) DisplayName() string {
	if c < categoryCount {
		return categoryDisplayNames[c]
	}
	return c.String()
}

// Icon returns the material key shown for the category in the menu, as in the
// original gui.yml, so that front ends can draw the same icons. An invalid
// category gets CHEST, the original getCategoryIcon fallback.
func (c Category) Icon() string {
	if c < categoryCount {
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
	return c < categoryCount && s&(1<<c) != 0
}

// List returns the categories of the set in ascending order, for callers that
// need the categories as values (for example the public Listing type).
func (s CategorySet) List() []Category {
	s &= 1<<categoryCount - 1
	out := make([]Category, 0, bits.OnesCount16(uint16(s)))
	for s != 0 {
		c := bits.TrailingZeros16(uint16(s))
		out = append(out, Category(c))
		s &= s - 1
	}
	return out
}

// allCategories returns the 12 categories in order, as a fresh slice.
func allCategories() []Category {
	out := make([]Category, categoryCount)
	for i := range out {
		out[i] = Category(i)
	}
	return out
}

// MaterialInfo describes one item material of the game. The market needs it to
// validate listed items (known material, amount within the stack size), to
// classify them into categories, to show readable names, and to generate
// plausible demo data.
type MaterialInfo struct {
	Key       string // vanilla upper-case key, "DIAMOND_SWORD"
	Name      string // readable English name, "Diamond Sword"
	MaxStack  int    // 1, 16 or 64, as in vanilla Minecraft
	Block     bool   // Material.isBlock() in Bukkit
	Edible    bool   // Material.isEdible() in Bukkit
	Potion    bool   // the item carries PotionMeta (POTION, SPLASH_POTION, LINGERING_POTION, TIPPED_ARROW)
	BasePrice int64  // plausible market price of ONE unit in cents (minor units), > 0; used by the demo data generator
}

// EnchantmentInfo describes one enchantment. The market needs it to validate
// enchantment keys and levels, to decide the enchantment-dependent categories
// (the plugin's "combat" set), and to let the demo generator put plausible
// enchantments on items.
type EnchantmentInfo struct {
	Key      string // lower-case vanilla key without namespace, "sharpness"
	Name     string // readable English name, "Sharpness"
	MaxLevel int    // highest level obtainable in survival
	// Combat reports membership in the original plugin's combat-enchantment set
	// (reference §1.3). That set names the dead key "sweeping", which does not
	// resolve on a modern server, so the real enchantment sweeping_edge is not
	// combat.
	Combat bool
	// Targets hints at the materials the enchantment applies to, for the demo
	// generator. An entry starting with "_" is a key suffix ("_SWORD"), any
	// other entry is an exact key ("BOW" means the bow only, not CROSSBOW).
	// BOOK and ENCHANTED_BOOK accept every enchantment. See appliesTo.
	Targets []string
}

// appliesTo reports whether e plausibly appears on an item of material key,
// following the Targets convention.
func (e *EnchantmentInfo) appliesTo(key string) bool {
	if key == "BOOK" || key == "ENCHANTED_BOOK" {
		return true
	}
	for _, t := range e.Targets {
		if strings.HasPrefix(t, "_") {
			if strings.HasSuffix(key, t) {
				return true
			}
		} else if key == t {
			return true
		}
	}
	return false
}

// Material flags used in catalogMaterialRows.
const (
	matBlock  uint8 = 1 << iota // Material.isBlock()
	matEdible                   // Material.isEdible()
	matPotion                   // carries PotionMeta
)

// catalogMaterialRow is one line of the material table, in compact form.
type catalogMaterialRow struct {
	key   string
	stack int
	flags uint8
	price int64 // cents per unit
}

// catalogMaterialRows is the material table. The position of a row (plus one,
// for the reserved id 0) is the material id. Ids are only meaningful inside
// one process: anything persisted must use the key. New rows may go anywhere.
var catalogMaterialRows = []catalogMaterialRow{

	// Tools (TOOLS) and melee weapons (WEAPONS) of every tier.
	{"WOODEN_SWORD", 1, 0, 60},
	{"WOODEN_PICKAXE", 1, 0, 80},
	{"WOODEN_AXE", 1, 0, 80},
	{"WOODEN_SHOVEL", 1, 0, 30},
	{"WOODEN_HOE", 1, 0, 50},
	{"WOODEN_SPEAR", 1, 0, 70},
	{"STONE_SWORD", 1, 0, 90},
	{"STONE_PICKAXE", 1, 0, 130},
	{"STONE_AXE", 1, 0, 130},
	{"STONE_SHOVEL", 1, 0, 40},
	{"STONE_HOE", 1, 0, 80},
	{"STONE_SPEAR", 1, 0, 100},
	{"COPPER_SWORD", 1, 0, 500},
	{"COPPER_PICKAXE", 1, 0, 700},
	{"COPPER_AXE", 1, 0, 700},
	{"COPPER_SHOVEL", 1, 0, 250},
	{"COPPER_HOE", 1, 0, 450},
	{"COPPER_SPEAR", 1, 0, 550},
	{"IRON_SWORD", 1, 0, 1200},
	{"IRON_PICKAXE", 1, 0, 1680},
	{"IRON_AXE", 1, 0, 1680},
	{"IRON_SHOVEL", 1, 0, 600},
	{"IRON_HOE", 1, 0, 1080},
	{"IRON_SPEAR", 1, 0, 1320},
	{"GOLDEN_SWORD", 1, 0, 1400},
	{"GOLDEN_PICKAXE", 1, 0, 1960},
	{"GOLDEN_AXE", 1, 0, 1960},
	{"GOLDEN_SHOVEL", 1, 0, 700},
	{"GOLDEN_HOE", 1, 0, 1260},
	{"GOLDEN_SPEAR", 1, 0, 1540},
	{"DIAMOND_SWORD", 1, 0, 15000},
	{"DIAMOND_PICKAXE", 1, 0, 21000},
	{"DIAMOND_AXE", 1, 0, 21000},
	{"DIAMOND_SHOVEL", 1, 0, 7500},
	{"DIAMOND_HOE", 1, 0, 13500},
	{"DIAMOND_SPEAR", 1, 0, 16500},
	{"NETHERITE_SWORD", 1, 0, 80000},
	{"NETHERITE_PICKAXE", 1, 0, 86000},
	{"NETHERITE_AXE", 1, 0, 86000},
	{"NETHERITE_SHOVEL", 1, 0, 72500},
	{"NETHERITE_HOE", 1, 0, 78500},
	{"NETHERITE_SPEAR", 1, 0, 81500},
	{"FISHING_ROD", 1, 0, 250},
	{"SHEARS", 1, 0, 1100},
	{"FLINT_AND_STEEL", 1, 0, 600},
	{"BRUSH", 1, 0, 800},
	{"CARROT_ON_A_STICK", 1, 0, 350},
	{"WARPED_FUNGUS_ON_A_STICK", 1, 0, 450},

	// Ranged weapons, projectiles and throwables (WEAPONS).
	{"BOW", 1, 0, 400},
	{"CROSSBOW", 1, 0, 1500},
	{"TRIDENT", 1, 0, 150000},
	{"MACE", 1, 0, 250000},
	{"ARROW", 64, 0, 10},
	{"SPECTRAL_ARROW", 64, 0, 60},
	{"TIPPED_ARROW", 64, matPotion, 150},
	{"SNOWBALL", 16, 0, 2},
	{"EGG", 16, 0, 5},
	{"ENDER_PEARL", 16, 0, 1500},
	{"FIRE_CHARGE", 64, 0, 300},
	{"WIND_CHARGE", 64, 0, 400},

	// Armour (ARMOR).
	{"LEATHER_HELMET", 1, 0, 450},
	{"LEATHER_CHESTPLATE", 1, 0, 720},
	{"LEATHER_LEGGINGS", 1, 0, 630},
	{"LEATHER_BOOTS", 1, 0, 360},
	{"CHAINMAIL_HELMET", 1, 0, 4500},
	{"CHAINMAIL_CHESTPLATE", 1, 0, 7200},
	{"CHAINMAIL_LEGGINGS", 1, 0, 6300},
	{"CHAINMAIL_BOOTS", 1, 0, 3600},
	{"COPPER_HELMET", 1, 0, 800},
	{"COPPER_CHESTPLATE", 1, 0, 1280},
	{"COPPER_LEGGINGS", 1, 0, 1120},
	{"COPPER_BOOTS", 1, 0, 640},
	{"IRON_HELMET", 1, 0, 2750},
	{"IRON_CHESTPLATE", 1, 0, 4400},
	{"IRON_LEGGINGS", 1, 0, 3850},
	{"IRON_BOOTS", 1, 0, 2200},
	{"GOLDEN_HELMET", 1, 0, 3250},
	{"GOLDEN_CHESTPLATE", 1, 0, 5200},
	{"GOLDEN_LEGGINGS", 1, 0, 4550},
	{"GOLDEN_BOOTS", 1, 0, 2600},
	{"DIAMOND_HELMET", 1, 0, 26000},
	{"DIAMOND_CHESTPLATE", 1, 0, 41600},
	{"DIAMOND_LEGGINGS", 1, 0, 36400},
	{"DIAMOND_BOOTS", 1, 0, 20800},
	{"NETHERITE_HELMET", 1, 0, 91000},
	{"NETHERITE_CHESTPLATE", 1, 0, 106600},
	{"NETHERITE_LEGGINGS", 1, 0, 101400},
	{"NETHERITE_BOOTS", 1, 0, 85800},
	{"TURTLE_HELMET", 1, 0, 20000},
	{"SHIELD", 1, 0, 800},
	{"ELYTRA", 1, 0, 500000},
	{"TOTEM_OF_UNDYING", 1, 0, 80000},
	{"CARVED_PUMPKIN", 64, matBlock, 120},
	{"LEATHER_HORSE_ARMOR", 1, 0, 600},
	{"IRON_HORSE_ARMOR", 1, 0, 5000},
	{"GOLDEN_HORSE_ARMOR", 1, 0, 7000},
	{"DIAMOND_HORSE_ARMOR", 1, 0, 30000},
	{"WOLF_ARMOR", 1, 0, 2500},

	// Stone, earth and other natural blocks (BLOCKS).
	{"STONE", 64, matBlock, 8},
	{"COBBLESTONE", 64, matBlock, 5},
	{"MOSSY_COBBLESTONE", 64, matBlock, 20},
	{"SMOOTH_STONE", 64, matBlock, 12},
	{"STONE_BRICKS", 64, matBlock, 10},
	{"MOSSY_STONE_BRICKS", 64, matBlock, 20},
	{"CRACKED_STONE_BRICKS", 64, matBlock, 15},
	{"CHISELED_STONE_BRICKS", 64, matBlock, 20},
	{"GRANITE", 64, matBlock, 6},
	{"POLISHED_GRANITE", 64, matBlock, 8},
	{"DIORITE", 64, matBlock, 6},
	{"POLISHED_DIORITE", 64, matBlock, 8},
	{"ANDESITE", 64, matBlock, 6},
	{"POLISHED_ANDESITE", 64, matBlock, 8},
	{"DEEPSLATE", 64, matBlock, 6},
	{"COBBLED_DEEPSLATE", 64, matBlock, 5},
	{"POLISHED_DEEPSLATE", 64, matBlock, 10},
	{"DEEPSLATE_BRICKS", 64, matBlock, 12},
	{"DEEPSLATE_TILES", 64, matBlock, 12},
	{"CHISELED_DEEPSLATE", 64, matBlock, 15},
	{"TUFF", 64, matBlock, 6},
	{"POLISHED_TUFF", 64, matBlock, 10},
	{"TUFF_BRICKS", 64, matBlock, 12},
	{"CALCITE", 64, matBlock, 15},
	{"DRIPSTONE_BLOCK", 64, matBlock, 15},
	{"POINTED_DRIPSTONE", 64, matBlock, 20},
	{"BLACKSTONE", 64, matBlock, 8},
	{"POLISHED_BLACKSTONE", 64, matBlock, 10},
	{"POLISHED_BLACKSTONE_BRICKS", 64, matBlock, 12},
	{"GILDED_BLACKSTONE", 64, matBlock, 300},
	{"BASALT", 64, matBlock, 8},
	{"POLISHED_BASALT", 64, matBlock, 10},
	{"SMOOTH_BASALT", 64, matBlock, 10},
	{"NETHERRACK", 64, matBlock, 2},
	{"NETHER_BRICKS", 64, matBlock, 15},
	{"RED_NETHER_BRICKS", 64, matBlock, 25},
	{"CRIMSON_NYLIUM", 64, matBlock, 10},
	{"WARPED_NYLIUM", 64, matBlock, 10},
	{"NETHER_WART_BLOCK", 64, matBlock, 40},
	{"WARPED_WART_BLOCK", 64, matBlock, 40},
	{"END_STONE", 64, matBlock, 15},
	{"END_STONE_BRICKS", 64, matBlock, 20},
	{"PURPUR_BLOCK", 64, matBlock, 40},
	{"PURPUR_PILLAR", 64, matBlock, 45},
	{"SAND", 64, matBlock, 5},
	{"RED_SAND", 64, matBlock, 8},
	{"GRAVEL", 64, matBlock, 5},
	{"SANDSTONE", 64, matBlock, 12},
	{"CHISELED_SANDSTONE", 64, matBlock, 14},
	{"CUT_SANDSTONE", 64, matBlock, 14},
	{"SMOOTH_SANDSTONE", 64, matBlock, 14},
	{"RED_SANDSTONE", 64, matBlock, 14},
	{"CUT_RED_SANDSTONE", 64, matBlock, 16},
	{"DIRT", 64, matBlock, 3},
	{"COARSE_DIRT", 64, matBlock, 5},
	{"GRASS_BLOCK", 64, matBlock, 20},
	{"PODZOL", 64, matBlock, 15},
	{"MYCELIUM", 64, matBlock, 30},
	{"ROOTED_DIRT", 64, matBlock, 10},
	{"MUD", 64, matBlock, 5},
	{"PACKED_MUD", 64, matBlock, 10},
	{"MUD_BRICKS", 64, matBlock, 15},
	{"CLAY", 64, matBlock, 30},
	{"MOSS_BLOCK", 64, matBlock, 15},
	{"PALE_MOSS_BLOCK", 64, matBlock, 20},
	{"SNOW", 64, matBlock, 5},
	{"SNOW_BLOCK", 64, matBlock, 10},
	{"ICE", 64, matBlock, 20},
	{"PACKED_ICE", 64, matBlock, 60},
	{"BLUE_ICE", 64, matBlock, 400},
	{"SOUL_SAND", 64, matBlock, 20},
	{"SOUL_SOIL", 64, matBlock, 15},
	{"MAGMA_BLOCK", 64, matBlock, 40},
	{"GLOWSTONE", 64, matBlock, 150},
	{"SHROOMLIGHT", 64, matBlock, 100},
	{"OBSIDIAN", 64, matBlock, 300},
	{"CRYING_OBSIDIAN", 64, matBlock, 500},
	{"PRISMARINE", 64, matBlock, 60},
	{"PRISMARINE_BRICKS", 64, matBlock, 80},
	{"DARK_PRISMARINE", 64, matBlock, 100},
	{"SEA_LANTERN", 64, matBlock, 200},
	{"QUARTZ_BLOCK", 64, matBlock, 150},
	{"SMOOTH_QUARTZ", 64, matBlock, 160},
	{"QUARTZ_PILLAR", 64, matBlock, 160},
	{"CHISELED_QUARTZ_BLOCK", 64, matBlock, 160},
	{"QUARTZ_BRICKS", 64, matBlock, 160},
	{"BRICKS", 64, matBlock, 40},
	{"BONE_BLOCK", 64, matBlock, 60},
	{"HAY_BLOCK", 64, matBlock, 90},
	{"DRIED_KELP_BLOCK", 64, matBlock, 50},
	{"HONEYCOMB_BLOCK", 64, matBlock, 200},
	{"SPONGE", 64, matBlock, 1500},
	{"WET_SPONGE", 64, matBlock, 1200},
	{"AMETHYST_BLOCK", 64, matBlock, 120},
	{"AMETHYST_CLUSTER", 64, matBlock, 100},
	{"SCULK", 64, matBlock, 30},
	{"SCULK_VEIN", 64, matBlock, 10},
	{"SCULK_CATALYST", 64, matBlock, 1500},
	{"SCULK_SHRIEKER", 64, matBlock, 2000},
	{"OCHRE_FROGLIGHT", 64, matBlock, 400},
	{"VERDANT_FROGLIGHT", 64, matBlock, 400},
	{"PEARLESCENT_FROGLIGHT", 64, matBlock, 400},
	{"COBWEB", 64, matBlock, 50},
	{"RESIN_BLOCK", 64, matBlock, 200},
	{"RESIN_BRICKS", 64, matBlock, 220},

	// Stairs, slabs and walls of stone-like blocks (BLOCKS).
	{"STONE_STAIRS", 64, matBlock, 10},
	{"STONE_SLAB", 64, matBlock, 4},
	{"COBBLESTONE_STAIRS", 64, matBlock, 7},
	{"COBBLESTONE_SLAB", 64, matBlock, 2},
	{"STONE_BRICK_STAIRS", 64, matBlock, 13},
	{"STONE_BRICK_SLAB", 64, matBlock, 5},
	{"MOSSY_COBBLESTONE_STAIRS", 64, matBlock, 25},
	{"MOSSY_COBBLESTONE_SLAB", 64, matBlock, 10},
	{"SANDSTONE_STAIRS", 64, matBlock, 15},
	{"SANDSTONE_SLAB", 64, matBlock, 6},
	{"BRICK_STAIRS", 64, matBlock, 49},
	{"BRICK_SLAB", 64, matBlock, 20},
	{"NETHER_BRICK_STAIRS", 64, matBlock, 19},
	{"NETHER_BRICK_SLAB", 64, matBlock, 7},
	{"QUARTZ_STAIRS", 64, matBlock, 181},
	{"QUARTZ_SLAB", 64, matBlock, 75},
	{"DEEPSLATE_BRICK_STAIRS", 64, matBlock, 15},
	{"DEEPSLATE_BRICK_SLAB", 64, matBlock, 6},
	{"POLISHED_BLACKSTONE_STAIRS", 64, matBlock, 13},
	{"POLISHED_BLACKSTONE_SLAB", 64, matBlock, 5},
	{"PRISMARINE_STAIRS", 64, matBlock, 73},
	{"PRISMARINE_SLAB", 64, matBlock, 30},
	{"PURPUR_STAIRS", 64, matBlock, 49},
	{"PURPUR_SLAB", 64, matBlock, 20},
	{"COBBLESTONE_WALL", 64, matBlock, 6},
	{"STONE_BRICK_WALL", 64, matBlock, 11},
	{"BRICK_WALL", 64, matBlock, 41},
	{"NETHER_BRICK_WALL", 64, matBlock, 16},
	{"DEEPSLATE_BRICK_WALL", 64, matBlock, 13},
	{"BLACKSTONE_WALL", 64, matBlock, 9},
	{"NETHER_BRICK_FENCE", 64, matBlock, 20},

	// Ores, raw-ore blocks and storage blocks (BLOCKS; REDSTONE for the redstone ones).
	{"COAL_ORE", 64, matBlock, 80},
	{"DEEPSLATE_COAL_ORE", 64, matBlock, 90},
	{"IRON_ORE", 64, matBlock, 400},
	{"DEEPSLATE_IRON_ORE", 64, matBlock, 420},
	{"COPPER_ORE", 64, matBlock, 150},
	{"DEEPSLATE_COPPER_ORE", 64, matBlock, 160},
	{"GOLD_ORE", 64, matBlock, 500},
	{"DEEPSLATE_GOLD_ORE", 64, matBlock, 520},
	{"REDSTONE_ORE", 64, matBlock, 200},
	{"DEEPSLATE_REDSTONE_ORE", 64, matBlock, 220},
	{"LAPIS_ORE", 64, matBlock, 300},
	{"DEEPSLATE_LAPIS_ORE", 64, matBlock, 320},
	{"DIAMOND_ORE", 64, matBlock, 6000},
	{"DEEPSLATE_DIAMOND_ORE", 64, matBlock, 6200},
	{"EMERALD_ORE", 64, matBlock, 3000},
	{"DEEPSLATE_EMERALD_ORE", 64, matBlock, 3200},
	{"NETHER_GOLD_ORE", 64, matBlock, 200},
	{"NETHER_QUARTZ_ORE", 64, matBlock, 100},
	{"ANCIENT_DEBRIS", 64, matBlock, 15000},
	{"COAL_BLOCK", 64, matBlock, 540},
	{"IRON_BLOCK", 64, matBlock, 4500},
	{"GOLD_BLOCK", 64, matBlock, 5400},
	{"DIAMOND_BLOCK", 64, matBlock, 45000},
	{"EMERALD_BLOCK", 64, matBlock, 27000},
	{"LAPIS_BLOCK", 64, matBlock, 1800},
	{"REDSTONE_BLOCK", 64, matBlock, 900},
	{"NETHERITE_BLOCK", 64, matBlock, 540000},
	{"RAW_IRON_BLOCK", 64, matBlock, 3600},
	{"RAW_GOLD_BLOCK", 64, matBlock, 4500},
	{"RAW_COPPER_BLOCK", 64, matBlock, 900},
	{"COPPER_BLOCK", 64, matBlock, 900},
	{"EXPOSED_COPPER", 64, matBlock, 900},
	{"WEATHERED_COPPER", 64, matBlock, 900},
	{"OXIDIZED_COPPER", 64, matBlock, 950},
	{"CUT_COPPER", 64, matBlock, 250},
	{"WAXED_COPPER_BLOCK", 64, matBlock, 950},

	// Wood: logs, planks, stairs, slabs, fences, doors, signs, leaves, saplings, boats (BLOCKS/FARMING/REDSTONE).
	{"OAK_LOG", 64, matBlock, 50},
	{"STRIPPED_OAK_LOG", 64, matBlock, 55},
	{"OAK_WOOD", 64, matBlock, 60},
	{"OAK_PLANKS", 64, matBlock, 15},
	{"OAK_STAIRS", 64, matBlock, 20},
	{"OAK_SLAB", 64, matBlock, 8},
	{"OAK_FENCE", 64, matBlock, 20},
	{"OAK_FENCE_GATE", 64, matBlock, 40},
	{"OAK_DOOR", 64, matBlock, 30},
	{"OAK_TRAPDOOR", 64, matBlock, 40},
	{"OAK_SIGN", 16, matBlock, 30},
	{"OAK_HANGING_SIGN", 16, matBlock, 60},
	{"OAK_BUTTON", 64, matBlock, 10},
	{"OAK_PRESSURE_PLATE", 64, matBlock, 25},
	{"OAK_LEAVES", 64, matBlock, 5},
	{"OAK_SAPLING", 64, matBlock, 20},
	{"OAK_BOAT", 1, 0, 150},
	{"OAK_CHEST_BOAT", 1, 0, 300},
	{"SPRUCE_LOG", 64, matBlock, 50},
	{"STRIPPED_SPRUCE_LOG", 64, matBlock, 55},
	{"SPRUCE_WOOD", 64, matBlock, 60},
	{"SPRUCE_PLANKS", 64, matBlock, 15},
	{"SPRUCE_STAIRS", 64, matBlock, 20},
	{"SPRUCE_SLAB", 64, matBlock, 8},
	{"SPRUCE_FENCE", 64, matBlock, 20},
	{"SPRUCE_FENCE_GATE", 64, matBlock, 40},
	{"SPRUCE_DOOR", 64, matBlock, 30},
	{"SPRUCE_TRAPDOOR", 64, matBlock, 40},
	{"SPRUCE_SIGN", 16, matBlock, 30},
	{"SPRUCE_HANGING_SIGN", 16, matBlock, 60},
	{"SPRUCE_BUTTON", 64, matBlock, 10},
	{"SPRUCE_PRESSURE_PLATE", 64, matBlock, 25},
	{"SPRUCE_LEAVES", 64, matBlock, 5},
	{"SPRUCE_SAPLING", 64, matBlock, 20},
	{"SPRUCE_BOAT", 1, 0, 150},
	{"SPRUCE_CHEST_BOAT", 1, 0, 300},
	{"BIRCH_LOG", 64, matBlock, 50},
	{"STRIPPED_BIRCH_LOG", 64, matBlock, 55},
	{"BIRCH_WOOD", 64, matBlock, 60},
	{"BIRCH_PLANKS", 64, matBlock, 15},
	{"BIRCH_STAIRS", 64, matBlock, 20},
	{"BIRCH_SLAB", 64, matBlock, 8},
	{"BIRCH_FENCE", 64, matBlock, 20},
	{"BIRCH_FENCE_GATE", 64, matBlock, 40},
	{"BIRCH_DOOR", 64, matBlock, 30},
	{"BIRCH_TRAPDOOR", 64, matBlock, 40},
	{"BIRCH_SIGN", 16, matBlock, 30},
	{"BIRCH_HANGING_SIGN", 16, matBlock, 60},
	{"BIRCH_BUTTON", 64, matBlock, 10},
	{"BIRCH_PRESSURE_PLATE", 64, matBlock, 25},
	{"BIRCH_LEAVES", 64, matBlock, 5},
	{"BIRCH_SAPLING", 64, matBlock, 20},
	{"BIRCH_BOAT", 1, 0, 150},
	{"BIRCH_CHEST_BOAT", 1, 0, 300},
	{"JUNGLE_LOG", 64, matBlock, 70},
	{"STRIPPED_JUNGLE_LOG", 64, matBlock, 75},
	{"JUNGLE_WOOD", 64, matBlock, 80},
	{"JUNGLE_PLANKS", 64, matBlock, 20},
	{"JUNGLE_STAIRS", 64, matBlock, 25},
	{"JUNGLE_SLAB", 64, matBlock, 10},
	{"JUNGLE_FENCE", 64, matBlock, 25},
	{"JUNGLE_FENCE_GATE", 64, matBlock, 45},
	{"JUNGLE_DOOR", 64, matBlock, 35},
	{"JUNGLE_TRAPDOOR", 64, matBlock, 45},
	{"JUNGLE_SIGN", 16, matBlock, 35},
	{"JUNGLE_HANGING_SIGN", 16, matBlock, 65},
	{"JUNGLE_BUTTON", 64, matBlock, 15},
	{"JUNGLE_PRESSURE_PLATE", 64, matBlock, 30},
	{"JUNGLE_LEAVES", 64, matBlock, 10},
	{"JUNGLE_SAPLING", 64, matBlock, 30},
	{"JUNGLE_BOAT", 1, 0, 175},
	{"JUNGLE_CHEST_BOAT", 1, 0, 325},
	{"ACACIA_LOG", 64, matBlock, 70},
	{"STRIPPED_ACACIA_LOG", 64, matBlock, 75},
	{"ACACIA_WOOD", 64, matBlock, 80},
	{"ACACIA_PLANKS", 64, matBlock, 20},
	{"ACACIA_STAIRS", 64, matBlock, 25},
	{"ACACIA_SLAB", 64, matBlock, 10},
	{"ACACIA_FENCE", 64, matBlock, 25},
	{"ACACIA_FENCE_GATE", 64, matBlock, 45},
	{"ACACIA_DOOR", 64, matBlock, 35},
	{"ACACIA_TRAPDOOR", 64, matBlock, 45},
	{"ACACIA_SIGN", 16, matBlock, 35},
	{"ACACIA_HANGING_SIGN", 16, matBlock, 65},
	{"ACACIA_BUTTON", 64, matBlock, 15},
	{"ACACIA_PRESSURE_PLATE", 64, matBlock, 30},
	{"ACACIA_LEAVES", 64, matBlock, 10},
	{"ACACIA_SAPLING", 64, matBlock, 30},
	{"ACACIA_BOAT", 1, 0, 175},
	{"ACACIA_CHEST_BOAT", 1, 0, 325},
	{"DARK_OAK_LOG", 64, matBlock, 70},
	{"STRIPPED_DARK_OAK_LOG", 64, matBlock, 75},
	{"DARK_OAK_WOOD", 64, matBlock, 80},
	{"DARK_OAK_PLANKS", 64, matBlock, 20},
	{"DARK_OAK_STAIRS", 64, matBlock, 25},
	{"DARK_OAK_SLAB", 64, matBlock, 10},
	{"DARK_OAK_FENCE", 64, matBlock, 25},
	{"DARK_OAK_FENCE_GATE", 64, matBlock, 45},
	{"DARK_OAK_DOOR", 64, matBlock, 35},
	{"DARK_OAK_TRAPDOOR", 64, matBlock, 45},
	{"DARK_OAK_SIGN", 16, matBlock, 35},
	{"DARK_OAK_HANGING_SIGN", 16, matBlock, 65},
	{"DARK_OAK_BUTTON", 64, matBlock, 15},
	{"DARK_OAK_PRESSURE_PLATE", 64, matBlock, 30},
	{"DARK_OAK_LEAVES", 64, matBlock, 10},
	{"DARK_OAK_SAPLING", 64, matBlock, 30},
	{"DARK_OAK_BOAT", 1, 0, 175},
	{"DARK_OAK_CHEST_BOAT", 1, 0, 325},
	{"MANGROVE_LOG", 64, matBlock, 90},
	{"STRIPPED_MANGROVE_LOG", 64, matBlock, 95},
	{"MANGROVE_WOOD", 64, matBlock, 100},
	{"MANGROVE_PLANKS", 64, matBlock, 25},
	{"MANGROVE_STAIRS", 64, matBlock, 30},
	{"MANGROVE_SLAB", 64, matBlock, 13},
	{"MANGROVE_FENCE", 64, matBlock, 30},
	{"MANGROVE_FENCE_GATE", 64, matBlock, 50},
	{"MANGROVE_DOOR", 64, matBlock, 40},
	{"MANGROVE_TRAPDOOR", 64, matBlock, 50},
	{"MANGROVE_SIGN", 16, matBlock, 40},
	{"MANGROVE_HANGING_SIGN", 16, matBlock, 70},
	{"MANGROVE_BUTTON", 64, matBlock, 20},
	{"MANGROVE_PRESSURE_PLATE", 64, matBlock, 35},
	{"MANGROVE_LEAVES", 64, matBlock, 15},
	{"MANGROVE_PROPAGULE", 64, matBlock, 40},
	{"MANGROVE_BOAT", 1, 0, 200},
	{"MANGROVE_CHEST_BOAT", 1, 0, 350},
	{"CHERRY_LOG", 64, matBlock, 110},
	{"STRIPPED_CHERRY_LOG", 64, matBlock, 115},
	{"CHERRY_WOOD", 64, matBlock, 120},
	{"CHERRY_PLANKS", 64, matBlock, 30},
	{"CHERRY_STAIRS", 64, matBlock, 35},
	{"CHERRY_SLAB", 64, matBlock, 15},
	{"CHERRY_FENCE", 64, matBlock, 35},
	{"CHERRY_FENCE_GATE", 64, matBlock, 55},
	{"CHERRY_DOOR", 64, matBlock, 45},
	{"CHERRY_TRAPDOOR", 64, matBlock, 55},
	{"CHERRY_SIGN", 16, matBlock, 45},
	{"CHERRY_HANGING_SIGN", 16, matBlock, 75},
	{"CHERRY_BUTTON", 64, matBlock, 25},
	{"CHERRY_PRESSURE_PLATE", 64, matBlock, 40},
	{"CHERRY_LEAVES", 64, matBlock, 20},
	{"CHERRY_SAPLING", 64, matBlock, 50},
	{"CHERRY_BOAT", 1, 0, 225},
	{"CHERRY_CHEST_BOAT", 1, 0, 375},
	{"PALE_OAK_LOG", 64, matBlock, 130},
	{"STRIPPED_PALE_OAK_LOG", 64, matBlock, 135},
	{"PALE_OAK_WOOD", 64, matBlock, 140},
	{"PALE_OAK_PLANKS", 64, matBlock, 35},
	{"PALE_OAK_STAIRS", 64, matBlock, 40},
	{"PALE_OAK_SLAB", 64, matBlock, 18},
	{"PALE_OAK_FENCE", 64, matBlock, 40},
	{"PALE_OAK_FENCE_GATE", 64, matBlock, 60},
	{"PALE_OAK_DOOR", 64, matBlock, 50},
	{"PALE_OAK_TRAPDOOR", 64, matBlock, 60},
	{"PALE_OAK_SIGN", 16, matBlock, 50},
	{"PALE_OAK_HANGING_SIGN", 16, matBlock, 80},
	{"PALE_OAK_BUTTON", 64, matBlock, 30},
	{"PALE_OAK_PRESSURE_PLATE", 64, matBlock, 45},
	{"PALE_OAK_LEAVES", 64, matBlock, 25},
	{"PALE_OAK_SAPLING", 64, matBlock, 60},
	{"PALE_OAK_BOAT", 1, 0, 250},
	{"PALE_OAK_CHEST_BOAT", 1, 0, 400},
	{"CRIMSON_STEM", 64, matBlock, 60},
	{"STRIPPED_CRIMSON_STEM", 64, matBlock, 65},
	{"CRIMSON_HYPHAE", 64, matBlock, 70},
	{"CRIMSON_PLANKS", 64, matBlock, 18},
	{"CRIMSON_STAIRS", 64, matBlock, 24},
	{"CRIMSON_SLAB", 64, matBlock, 10},
	{"CRIMSON_FENCE", 64, matBlock, 24},
	{"CRIMSON_FENCE_GATE", 64, matBlock, 45},
	{"CRIMSON_DOOR", 64, matBlock, 35},
	{"CRIMSON_TRAPDOOR", 64, matBlock, 45},
	{"CRIMSON_SIGN", 16, matBlock, 35},
	{"CRIMSON_HANGING_SIGN", 16, matBlock, 65},
	{"CRIMSON_BUTTON", 64, matBlock, 12},
	{"CRIMSON_PRESSURE_PLATE", 64, matBlock, 28},
	{"CRIMSON_FUNGUS", 64, matBlock, 40},
	{"CRIMSON_ROOTS", 64, matBlock, 5},
	{"WARPED_STEM", 64, matBlock, 60},
	{"STRIPPED_WARPED_STEM", 64, matBlock, 65},
	{"WARPED_HYPHAE", 64, matBlock, 70},
	{"WARPED_PLANKS", 64, matBlock, 18},
	{"WARPED_STAIRS", 64, matBlock, 24},
	{"WARPED_SLAB", 64, matBlock, 10},
	{"WARPED_FENCE", 64, matBlock, 24},
	{"WARPED_FENCE_GATE", 64, matBlock, 45},
	{"WARPED_DOOR", 64, matBlock, 35},
	{"WARPED_TRAPDOOR", 64, matBlock, 45},
	{"WARPED_SIGN", 16, matBlock, 35},
	{"WARPED_HANGING_SIGN", 16, matBlock, 65},
	{"WARPED_BUTTON", 64, matBlock, 12},
	{"WARPED_PRESSURE_PLATE", 64, matBlock, 28},
	{"WARPED_FUNGUS", 64, matBlock, 40},
	{"WARPED_ROOTS", 64, matBlock, 5},
	{"BAMBOO_BLOCK", 64, matBlock, 45},
	{"STRIPPED_BAMBOO_BLOCK", 64, matBlock, 50},
	{"BAMBOO_PLANKS", 64, matBlock, 12},
	{"BAMBOO_MOSAIC", 64, matBlock, 15},
	{"BAMBOO_STAIRS", 64, matBlock, 16},
	{"BAMBOO_SLAB", 64, matBlock, 6},
	{"BAMBOO_FENCE", 64, matBlock, 16},
	{"BAMBOO_FENCE_GATE", 64, matBlock, 35},
	{"BAMBOO_DOOR", 64, matBlock, 25},
	{"BAMBOO_TRAPDOOR", 64, matBlock, 35},
	{"BAMBOO_SIGN", 16, matBlock, 25},
	{"BAMBOO_HANGING_SIGN", 16, matBlock, 55},
	{"BAMBOO_BUTTON", 64, matBlock, 8},
	{"BAMBOO_PRESSURE_PLATE", 64, matBlock, 20},
	{"BAMBOO_RAFT", 1, 0, 120},
	{"BAMBOO_CHEST_RAFT", 1, 0, 270},
	{"AZALEA_LEAVES", 64, matBlock, 8},
	{"FLOWERING_AZALEA_LEAVES", 64, matBlock, 12},

	// Colour families: wool, concrete, terracotta, glass, beds, shulker boxes (BLOCKS), dyes (OTHER).
	{"GLASS", 64, matBlock, 15},
	{"GLASS_PANE", 64, matBlock, 6},
	{"TINTED_GLASS", 64, matBlock, 300},
	{"TERRACOTTA", 64, matBlock, 18},
	{"SHULKER_BOX", 1, matBlock, 45000},
	{"WHITE_WOOL", 64, matBlock, 30},
	{"WHITE_CONCRETE", 64, matBlock, 25},
	{"WHITE_CONCRETE_POWDER", 64, matBlock, 15},
	{"WHITE_TERRACOTTA", 64, matBlock, 20},
	{"WHITE_GLAZED_TERRACOTTA", 64, matBlock, 30},
	{"WHITE_STAINED_GLASS", 64, matBlock, 20},
	{"WHITE_STAINED_GLASS_PANE", 64, matBlock, 8},
	{"WHITE_BED", 1, matBlock, 150},
	{"WHITE_SHULKER_BOX", 1, matBlock, 45500},
	{"WHITE_DYE", 64, 0, 10},
	{"ORANGE_WOOL", 64, matBlock, 30},
	{"ORANGE_CONCRETE", 64, matBlock, 25},
	{"ORANGE_CONCRETE_POWDER", 64, matBlock, 15},
	{"ORANGE_TERRACOTTA", 64, matBlock, 20},
	{"ORANGE_GLAZED_TERRACOTTA", 64, matBlock, 30},
	{"ORANGE_STAINED_GLASS", 64, matBlock, 20},
	{"ORANGE_STAINED_GLASS_PANE", 64, matBlock, 8},
	{"ORANGE_BED", 1, matBlock, 150},
	{"ORANGE_SHULKER_BOX", 1, matBlock, 45500},
	{"ORANGE_DYE", 64, 0, 10},
	{"MAGENTA_WOOL", 64, matBlock, 30},
	{"MAGENTA_CONCRETE", 64, matBlock, 25},
	{"MAGENTA_CONCRETE_POWDER", 64, matBlock, 15},
	{"MAGENTA_TERRACOTTA", 64, matBlock, 20},
	{"MAGENTA_GLAZED_TERRACOTTA", 64, matBlock, 30},
	{"MAGENTA_STAINED_GLASS", 64, matBlock, 20},
	{"MAGENTA_STAINED_GLASS_PANE", 64, matBlock, 8},
	{"MAGENTA_BED", 1, matBlock, 150},
	{"MAGENTA_SHULKER_BOX", 1, matBlock, 45500},
	{"MAGENTA_DYE", 64, 0, 10},
	{"LIGHT_BLUE_WOOL", 64, matBlock, 30},
	{"LIGHT_BLUE_CONCRETE", 64, matBlock, 25},
	{"LIGHT_BLUE_CONCRETE_POWDER", 64, matBlock, 15},
	{"LIGHT_BLUE_TERRACOTTA", 64, matBlock, 20},
	{"LIGHT_BLUE_GLAZED_TERRACOTTA", 64, matBlock, 30},
	{"LIGHT_BLUE_STAINED_GLASS", 64, matBlock, 20},
	{"LIGHT_BLUE_STAINED_GLASS_PANE", 64, matBlock, 8},
	{"LIGHT_BLUE_BED", 1, matBlock, 150},
	{"LIGHT_BLUE_SHULKER_BOX", 1, matBlock, 45500},
	{"LIGHT_BLUE_DYE", 64, 0, 10},
	{"YELLOW_WOOL", 64, matBlock, 30},
	{"YELLOW_CONCRETE", 64, matBlock, 25},
	{"YELLOW_CONCRETE_POWDER", 64, matBlock, 15},
	{"YELLOW_TERRACOTTA", 64, matBlock, 20},
	{"YELLOW_GLAZED_TERRACOTTA", 64, matBlock, 30},
	{"YELLOW_STAINED_GLASS", 64, matBlock, 20},
	{"YELLOW_STAINED_GLASS_PANE", 64, matBlock, 8},
	{"YELLOW_BED", 1, matBlock, 150},
	{"YELLOW_SHULKER_BOX", 1, matBlock, 45500},
	{"YELLOW_DYE", 64, 0, 10},
	{"LIME_WOOL", 64, matBlock, 30},
	{"LIME_CONCRETE", 64, matBlock, 25},
	{"LIME_CONCRETE_POWDER", 64, matBlock, 15},
	{"LIME_TERRACOTTA", 64, matBlock, 20},
	{"LIME_GLAZED_TERRACOTTA", 64, matBlock, 30},
	{"LIME_STAINED_GLASS", 64, matBlock, 20},
	{"LIME_STAINED_GLASS_PANE", 64, matBlock, 8},
	{"LIME_BED", 1, matBlock, 150},
	{"LIME_SHULKER_BOX", 1, matBlock, 45500},
	{"LIME_DYE", 64, 0, 10},
	{"PINK_WOOL", 64, matBlock, 30},
	{"PINK_CONCRETE", 64, matBlock, 25},
	{"PINK_CONCRETE_POWDER", 64, matBlock, 15},
	{"PINK_TERRACOTTA", 64, matBlock, 20},
	{"PINK_GLAZED_TERRACOTTA", 64, matBlock, 30},
	{"PINK_STAINED_GLASS", 64, matBlock, 20},
	{"PINK_STAINED_GLASS_PANE", 64, matBlock, 8},
	{"PINK_BED", 1, matBlock, 150},
	{"PINK_SHULKER_BOX", 1, matBlock, 45500},
	{"PINK_DYE", 64, 0, 10},
	{"GRAY_WOOL", 64, matBlock, 30},
	{"GRAY_CONCRETE", 64, matBlock, 25},
	{"GRAY_CONCRETE_POWDER", 64, matBlock, 15},
	{"GRAY_TERRACOTTA", 64, matBlock, 20},
	{"GRAY_GLAZED_TERRACOTTA", 64, matBlock, 30},
	{"GRAY_STAINED_GLASS", 64, matBlock, 20},
	{"GRAY_STAINED_GLASS_PANE", 64, matBlock, 8},
	{"GRAY_BED", 1, matBlock, 150},
	{"GRAY_SHULKER_BOX", 1, matBlock, 45500},
	{"GRAY_DYE", 64, 0, 10},
	{"LIGHT_GRAY_WOOL", 64, matBlock, 30},
	{"LIGHT_GRAY_CONCRETE", 64, matBlock, 25},
	{"LIGHT_GRAY_CONCRETE_POWDER", 64, matBlock, 15},
	{"LIGHT_GRAY_TERRACOTTA", 64, matBlock, 20},
	{"LIGHT_GRAY_GLAZED_TERRACOTTA", 64, matBlock, 30},
	{"LIGHT_GRAY_STAINED_GLASS", 64, matBlock, 20},
	{"LIGHT_GRAY_STAINED_GLASS_PANE", 64, matBlock, 8},
	{"LIGHT_GRAY_BED", 1, matBlock, 150},
	{"LIGHT_GRAY_SHULKER_BOX", 1, matBlock, 45500},
	{"LIGHT_GRAY_DYE", 64, 0, 10},
	{"CYAN_WOOL", 64, matBlock, 30},
	{"CYAN_CONCRETE", 64, matBlock, 25},
	{"CYAN_CONCRETE_POWDER", 64, matBlock, 15},
	{"CYAN_TERRACOTTA", 64, matBlock, 20},
	{"CYAN_GLAZED_TERRACOTTA", 64, matBlock, 30},
	{"CYAN_STAINED_GLASS", 64, matBlock, 20},
	{"CYAN_STAINED_GLASS_PANE", 64, matBlock, 8},
	{"CYAN_BED", 1, matBlock, 150},
	{"CYAN_SHULKER_BOX", 1, matBlock, 45500},
	{"CYAN_DYE", 64, 0, 10},
	{"PURPLE_WOOL", 64, matBlock, 30},
	{"PURPLE_CONCRETE", 64, matBlock, 25},
	{"PURPLE_CONCRETE_POWDER", 64, matBlock, 15},
	{"PURPLE_TERRACOTTA", 64, matBlock, 20},
	{"PURPLE_GLAZED_TERRACOTTA", 64, matBlock, 30},
	{"PURPLE_STAINED_GLASS", 64, matBlock, 20},
	{"PURPLE_STAINED_GLASS_PANE", 64, matBlock, 8},
	{"PURPLE_BED", 1, matBlock, 150},
	{"PURPLE_SHULKER_BOX", 1, matBlock, 45500},
	{"PURPLE_DYE", 64, 0, 10},
	{"BLUE_WOOL", 64, matBlock, 30},
	{"BLUE_CONCRETE", 64, matBlock, 25},
	{"BLUE_CONCRETE_POWDER", 64, matBlock, 15},
	{"BLUE_TERRACOTTA", 64, matBlock, 20},
	{"BLUE_GLAZED_TERRACOTTA", 64, matBlock, 30},
	{"BLUE_STAINED_GLASS", 64, matBlock, 20},
	{"BLUE_STAINED_GLASS_PANE", 64, matBlock, 8},
	{"BLUE_BED", 1, matBlock, 150},
	{"BLUE_SHULKER_BOX", 1, matBlock, 45500},
	{"BLUE_DYE", 64, 0, 10},
	{"BROWN_WOOL", 64, matBlock, 30},
	{"BROWN_CONCRETE", 64, matBlock, 25},
	{"BROWN_CONCRETE_POWDER", 64, matBlock, 15},
	{"BROWN_TERRACOTTA", 64, matBlock, 20},
	{"BROWN_GLAZED_TERRACOTTA", 64, matBlock, 30},
	{"BROWN_STAINED_GLASS", 64, matBlock, 20},
	{"BROWN_STAINED_GLASS_PANE", 64, matBlock, 8},
	{"BROWN_BED", 1, matBlock, 150},
	{"BROWN_SHULKER_BOX", 1, matBlock, 45500},
	{"BROWN_DYE", 64, 0, 10},
	{"GREEN_WOOL", 64, matBlock, 30},
	{"GREEN_CONCRETE", 64, matBlock, 25},
	{"GREEN_CONCRETE_POWDER", 64, matBlock, 15},
	{"GREEN_TERRACOTTA", 64, matBlock, 20},
	{"GREEN_GLAZED_TERRACOTTA", 64, matBlock, 30},
	{"GREEN_STAINED_GLASS", 64, matBlock, 20},
	{"GREEN_STAINED_GLASS_PANE", 64, matBlock, 8},
	{"GREEN_BED", 1, matBlock, 150},
	{"GREEN_SHULKER_BOX", 1, matBlock, 45500},
	{"GREEN_DYE", 64, 0, 10},
	{"RED_WOOL", 64, matBlock, 30},
	{"RED_CONCRETE", 64, matBlock, 25},
	{"RED_CONCRETE_POWDER", 64, matBlock, 15},
	{"RED_TERRACOTTA", 64, matBlock, 20},
	{"RED_GLAZED_TERRACOTTA", 64, matBlock, 30},
	{"RED_STAINED_GLASS", 64, matBlock, 20},
	{"RED_STAINED_GLASS_PANE", 64, matBlock, 8},
	{"RED_BED", 1, matBlock, 150},
	{"RED_SHULKER_BOX", 1, matBlock, 45500},
	{"RED_DYE", 64, 0, 10},
	{"BLACK_WOOL", 64, matBlock, 30},
	{"BLACK_CONCRETE", 64, matBlock, 25},
	{"BLACK_CONCRETE_POWDER", 64, matBlock, 15},
	{"BLACK_TERRACOTTA", 64, matBlock, 20},
	{"BLACK_GLAZED_TERRACOTTA", 64, matBlock, 30},
	{"BLACK_STAINED_GLASS", 64, matBlock, 20},
	{"BLACK_STAINED_GLASS_PANE", 64, matBlock, 8},
	{"BLACK_BED", 1, matBlock, 150},
	{"BLACK_SHULKER_BOX", 1, matBlock, 45500},
	{"BLACK_DYE", 64, 0, 10},

	// Plants and flowers (BLOCKS; the *FLOWER* ones are DECORATIONS).
	{"DANDELION", 64, matBlock, 5},
	{"POPPY", 64, matBlock, 5},
	{"BLUE_ORCHID", 64, matBlock, 10},
	{"ALLIUM", 64, matBlock, 10},
	{"AZURE_BLUET", 64, matBlock, 8},
	{"RED_TULIP", 64, matBlock, 8},
	{"ORANGE_TULIP", 64, matBlock, 8},
	{"WHITE_TULIP", 64, matBlock, 8},
	{"PINK_TULIP", 64, matBlock, 8},
	{"OXEYE_DAISY", 64, matBlock, 8},
	{"CORNFLOWER", 64, matBlock, 8},
	{"LILY_OF_THE_VALLEY", 64, matBlock, 10},
	{"WITHER_ROSE", 64, matBlock, 500},
	{"TORCHFLOWER", 64, matBlock, 60},
	{"PITCHER_PLANT", 64, matBlock, 60},
	{"SUNFLOWER", 64, matBlock, 15},
	{"LILAC", 64, matBlock, 15},
	{"ROSE_BUSH", 64, matBlock, 15},
	{"PEONY", 64, matBlock, 15},
	{"PINK_PETALS", 64, matBlock, 10},
	{"WILDFLOWERS", 64, matBlock, 10},
	{"SPORE_BLOSSOM", 64, matBlock, 300},
	{"CHORUS_FLOWER", 64, matBlock, 200},
	{"SHORT_GRASS", 64, matBlock, 2},
	{"TALL_GRASS", 64, matBlock, 3},
	{"FERN", 64, matBlock, 3},
	{"LARGE_FERN", 64, matBlock, 3},
	{"DEAD_BUSH", 64, matBlock, 3},
	{"VINE", 64, matBlock, 5},
	{"LILY_PAD", 64, matBlock, 10},
	{"SEAGRASS", 64, matBlock, 3},
	{"KELP", 64, matBlock, 5},
	{"SEA_PICKLE", 64, matBlock, 20},
	{"BROWN_MUSHROOM", 64, matBlock, 15},
	{"RED_MUSHROOM", 64, matBlock, 15},
	{"AZALEA", 64, matBlock, 30},
	{"FLOWERING_AZALEA", 64, matBlock, 40},
	{"GLOW_LICHEN", 64, matBlock, 10},
	{"HANGING_ROOTS", 64, matBlock, 5},
	{"BIG_DRIPLEAF", 64, matBlock, 30},
	{"SMALL_DRIPLEAF", 64, matBlock, 30},
	{"NETHER_WART", 64, matBlock, 50},
	{"TUBE_CORAL_BLOCK", 64, matBlock, 80},
	{"BRAIN_CORAL_BLOCK", 64, matBlock, 80},

	// Functional and utility blocks (BLOCKS).
	{"CRAFTING_TABLE", 64, matBlock, 60},
	{"FURNACE", 64, matBlock, 50},
	{"BLAST_FURNACE", 64, matBlock, 2800},
	{"SMOKER", 64, matBlock, 300},
	{"CHEST", 64, matBlock, 120},
	{"TRAPPED_CHEST", 64, matBlock, 350},
	{"BARREL", 64, matBlock, 100},
	{"ENDER_CHEST", 64, matBlock, 3000},
	{"ANVIL", 64, matBlock, 17000},
	{"ENCHANTING_TABLE", 64, matBlock, 15000},
	{"BOOKSHELF", 64, matBlock, 350},
	{"CHISELED_BOOKSHELF", 64, matBlock, 200},
	{"LECTERN", 64, matBlock, 450},
	{"STONECUTTER", 64, matBlock, 600},
	{"GRINDSTONE", 64, matBlock, 200},
	{"SMITHING_TABLE", 64, matBlock, 1100},
	{"CARTOGRAPHY_TABLE", 64, matBlock, 200},
	{"FLETCHING_TABLE", 64, matBlock, 150},
	{"LOOM", 64, matBlock, 100},
	{"BREWING_STAND", 64, matBlock, 900},
	{"CAULDRON", 64, matBlock, 3600},
	{"BELL", 64, matBlock, 5000},
	{"BEACON", 64, matBlock, 300000},
	{"CONDUIT", 64, matBlock, 80000},
	{"LODESTONE", 64, matBlock, 8000},
	{"RESPAWN_ANCHOR", 64, matBlock, 6000},
	{"BEEHIVE", 64, matBlock, 500},
	{"BEE_NEST", 64, matBlock, 2000},
	{"LADDER", 64, matBlock, 10},
	{"SCAFFOLDING", 64, matBlock, 20},
	{"IRON_BARS", 64, matBlock, 150},
	{"IRON_DOOR", 64, matBlock, 1200},
	{"IRON_TRAPDOOR", 64, matBlock, 2200},
	{"TORCH", 64, matBlock, 10},
	{"SOUL_TORCH", 64, matBlock, 15},
	{"LANTERN", 64, matBlock, 100},
	{"SOUL_LANTERN", 64, matBlock, 110},
	{"END_ROD", 64, matBlock, 150},
	{"JACK_O_LANTERN", 64, matBlock, 130},
	{"CAMPFIRE", 64, matBlock, 100},
	{"SOUL_CAMPFIRE", 64, matBlock, 120},
	{"LIGHTNING_ROD", 64, matBlock, 300},
	{"RAIL", 64, matBlock, 200},
	{"POWERED_RAIL", 64, matBlock, 1000},
	{"DETECTOR_RAIL", 64, matBlock, 400},
	{"ACTIVATOR_RAIL", 64, matBlock, 400},
	{"TNT", 64, matBlock, 500},
	{"NOTE_BLOCK", 64, matBlock, 200},
	{"JUKEBOX", 64, matBlock, 6000},
	{"CRAFTER", 64, matBlock, 3000},
	{"DECORATED_POT", 1, matBlock, 200},
	{"TURTLE_EGG", 64, matBlock, 3000},
	{"SNIFFER_EGG", 64, matBlock, 20000},
	{"DRAGON_EGG", 64, matBlock, 5000000},

	// Admin-only and technical blocks and items (kept valid so the blacklist can name them).
	{"BEDROCK", 64, matBlock, 1000000},
	{"BARRIER", 64, matBlock, 1000000},
	{"COMMAND_BLOCK", 64, matBlock, 1000000},
	{"STRUCTURE_VOID", 64, matBlock, 1000000},
	{"STRUCTURE_BLOCK", 64, matBlock, 1000000},
	{"JIGSAW", 64, matBlock, 1000000},
	{"LIGHT", 64, matBlock, 1000000},
	{"SPAWNER", 64, matBlock, 1000000},
	{"REINFORCED_DEEPSLATE", 64, matBlock, 1000000},
	{"END_PORTAL_FRAME", 64, matBlock, 1000000},
	{"DEBUG_STICK", 1, 0, 1000000},
	{"KNOWLEDGE_BOOK", 1, 0, 1000000},

	// Food (FOOD; a few raw crops are FARMING too).
	{"APPLE", 64, matEdible, 50},
	{"GOLDEN_APPLE", 64, matEdible, 8000},
	{"ENCHANTED_GOLDEN_APPLE", 64, matEdible, 200000},
	{"BREAD", 64, matEdible, 60},
	{"COOKIE", 64, matEdible, 20},
	{"PUMPKIN_PIE", 64, matEdible, 150},
	{"MELON_SLICE", 64, matEdible, 15},
	{"SWEET_BERRIES", 64, matEdible, 10},
	{"GLOW_BERRIES", 64, matEdible, 20},
	{"CHORUS_FRUIT", 64, matEdible, 50},
	{"CARROT", 64, matEdible, 20},
	{"GOLDEN_CARROT", 64, matEdible, 900},
	{"POTATO", 64, matEdible, 15},
	{"BAKED_POTATO", 64, matEdible, 40},
	{"POISONOUS_POTATO", 64, matEdible, 5},
	{"BEETROOT", 64, matEdible, 15},
	{"BEETROOT_SOUP", 1, matEdible, 100},
	{"MUSHROOM_STEW", 1, matEdible, 100},
	{"RABBIT_STEW", 1, matEdible, 250},
	{"SUSPICIOUS_STEW", 1, matEdible, 250},
	{"BEEF", 64, matEdible, 60},
	{"COOKED_BEEF", 64, matEdible, 100},
	{"PORKCHOP", 64, matEdible, 60},
	{"COOKED_PORKCHOP", 64, matEdible, 100},
	{"CHICKEN", 64, matEdible, 40},
	{"COOKED_CHICKEN", 64, matEdible, 70},
	{"MUTTON", 64, matEdible, 50},
	{"COOKED_MUTTON", 64, matEdible, 90},
	{"RABBIT", 64, matEdible, 60},
	{"COOKED_RABBIT", 64, matEdible, 100},
	{"COD", 64, matEdible, 40},
	{"COOKED_COD", 64, matEdible, 70},
	{"SALMON", 64, matEdible, 50},
	{"COOKED_SALMON", 64, matEdible, 90},
	{"TROPICAL_FISH", 64, matEdible, 80},
	{"PUFFERFISH", 64, matEdible, 120},
	{"DRIED_KELP", 64, matEdible, 5},
	{"HONEY_BOTTLE", 16, matEdible, 200},
	{"ROTTEN_FLESH", 64, matEdible, 2},
	{"SPIDER_EYE", 64, matEdible, 50},
	{"CAKE", 1, matBlock, 500},
	{"MILK_BUCKET", 1, 0, 1600},

	// Farming (FARMING).
	{"WHEAT_SEEDS", 64, 0, 3},
	{"PUMPKIN_SEEDS", 64, 0, 20},
	{"MELON_SEEDS", 64, 0, 20},
	{"BEETROOT_SEEDS", 64, 0, 5},
	{"TORCHFLOWER_SEEDS", 64, 0, 200},
	{"PITCHER_POD", 64, 0, 200},
	{"COCOA_BEANS", 64, 0, 30},
	{"BONE_MEAL", 64, 0, 15},
	{"WHEAT", 64, matBlock, 20},
	{"SUGAR_CANE", 64, matBlock, 15},
	{"BAMBOO", 64, matBlock, 5},
	{"CACTUS", 64, matBlock, 20},
	{"MELON", 64, matBlock, 120},
	{"PUMPKIN", 64, matBlock, 100},
	{"COMPOSTER", 64, matBlock, 60},

	// Redstone (REDSTONE; the placeable ones are BLOCKS too).
	{"REDSTONE", 64, 0, 100},
	{"REDSTONE_TORCH", 64, matBlock, 110},
	{"REDSTONE_LAMP", 64, matBlock, 600},
	{"REPEATER", 64, matBlock, 350},
	{"COMPARATOR", 64, matBlock, 600},
	{"OBSERVER", 64, matBlock, 700},
	{"HOPPER", 64, matBlock, 2800},
	{"DROPPER", 64, matBlock, 400},
	{"DISPENSER", 64, matBlock, 600},
	{"PISTON", 64, matBlock, 800},
	{"STICKY_PISTON", 64, matBlock, 1000},
	{"SLIME_BLOCK", 64, matBlock, 900},
	{"HONEY_BLOCK", 64, matBlock, 900},
	{"TARGET", 64, matBlock, 400},
	{"DAYLIGHT_DETECTOR", 64, matBlock, 800},
	{"TRIPWIRE_HOOK", 64, matBlock, 300},
	{"LEVER", 64, matBlock, 20},
	{"SCULK_SENSOR", 64, matBlock, 2000},
	{"CALIBRATED_SCULK_SENSOR", 64, matBlock, 3000},
	{"STONE_BUTTON", 64, matBlock, 10},
	{"POLISHED_BLACKSTONE_BUTTON", 64, matBlock, 12},
	{"STONE_PRESSURE_PLATE", 64, matBlock, 20},
	{"POLISHED_BLACKSTONE_PRESSURE_PLATE", 64, matBlock, 25},
	{"LIGHT_WEIGHTED_PRESSURE_PLATE", 64, matBlock, 1200},
	{"HEAVY_WEIGHTED_PRESSURE_PLATE", 64, matBlock, 1100},

	// Decorations (DECORATIONS).
	{"PAINTING", 64, 0, 100},
	{"ITEM_FRAME", 64, 0, 150},
	{"GLOW_ITEM_FRAME", 64, 0, 300},
	{"ARMOR_STAND", 16, 0, 300},
	{"FLOWER_POT", 64, matBlock, 40},
	{"CANDLE", 64, matBlock, 40},
	{"MOSS_CARPET", 64, matBlock, 15},
	{"PALE_MOSS_CARPET", 64, matBlock, 15},
	{"SKELETON_SKULL", 64, matBlock, 5000},
	{"WITHER_SKELETON_SKULL", 64, matBlock, 40000},
	{"ZOMBIE_HEAD", 64, matBlock, 5000},
	{"CREEPER_HEAD", 64, matBlock, 6000},
	{"PLAYER_HEAD", 64, matBlock, 3000},
	{"PIGLIN_HEAD", 64, matBlock, 6000},
	{"DRAGON_HEAD", 64, matBlock, 100000},
	{"WHITE_CARPET", 64, matBlock, 20},
	{"WHITE_BANNER", 16, matBlock, 120},
	{"WHITE_CANDLE", 64, matBlock, 45},
	{"ORANGE_CARPET", 64, matBlock, 20},
	{"ORANGE_BANNER", 16, matBlock, 120},
	{"ORANGE_CANDLE", 64, matBlock, 45},
	{"MAGENTA_CARPET", 64, matBlock, 20},
	{"MAGENTA_BANNER", 16, matBlock, 120},
	{"MAGENTA_CANDLE", 64, matBlock, 45},
	{"LIGHT_BLUE_CARPET", 64, matBlock, 20},
	{"LIGHT_BLUE_BANNER", 16, matBlock, 120},
	{"LIGHT_BLUE_CANDLE", 64, matBlock, 45},
	{"YELLOW_CARPET", 64, matBlock, 20},
	{"YELLOW_BANNER", 16, matBlock, 120},
	{"YELLOW_CANDLE", 64, matBlock, 45},
	{"LIME_CARPET", 64, matBlock, 20},
	{"LIME_BANNER", 16, matBlock, 120},
	{"LIME_CANDLE", 64, matBlock, 45},
	{"PINK_CARPET", 64, matBlock, 20},
	{"PINK_BANNER", 16, matBlock, 120},
	{"PINK_CANDLE", 64, matBlock, 45},
	{"GRAY_CARPET", 64, matBlock, 20},
	{"GRAY_BANNER", 16, matBlock, 120},
	{"GRAY_CANDLE", 64, matBlock, 45},
	{"LIGHT_GRAY_CARPET", 64, matBlock, 20},
	{"LIGHT_GRAY_BANNER", 16, matBlock, 120},
	{"LIGHT_GRAY_CANDLE", 64, matBlock, 45},
	{"CYAN_CARPET", 64, matBlock, 20},
	{"CYAN_BANNER", 16, matBlock, 120},
	{"CYAN_CANDLE", 64, matBlock, 45},
	{"PURPLE_CARPET", 64, matBlock, 20},
	{"PURPLE_BANNER", 16, matBlock, 120},
	{"PURPLE_CANDLE", 64, matBlock, 45},
	{"BLUE_CARPET", 64, matBlock, 20},
	{"BLUE_BANNER", 16, matBlock, 120},
	{"BLUE_CANDLE", 64, matBlock, 45},
	{"BROWN_CARPET", 64, matBlock, 20},
	{"BROWN_BANNER", 16, matBlock, 120},
	{"BROWN_CANDLE", 64, matBlock, 45},
	{"GREEN_CARPET", 64, matBlock, 20},
	{"GREEN_BANNER", 16, matBlock, 120},
	{"GREEN_CANDLE", 64, matBlock, 45},
	{"RED_CARPET", 64, matBlock, 20},
	{"RED_BANNER", 16, matBlock, 120},
	{"RED_CANDLE", 64, matBlock, 45},
	{"BLACK_CARPET", 64, matBlock, 20},
	{"BLACK_BANNER", 16, matBlock, 120},
	{"BLACK_CANDLE", 64, matBlock, 45},
	{"FLOWER_BANNER_PATTERN", 1, 0, 500},
	{"CREEPER_BANNER_PATTERN", 1, 0, 3000},
	{"SKULL_BANNER_PATTERN", 1, 0, 20000},
	{"MOJANG_BANNER_PATTERN", 1, 0, 50000},
	{"GLOBE_BANNER_PATTERN", 1, 0, 2000},
	{"PIGLIN_BANNER_PATTERN", 1, 0, 3000},
	{"FLOW_BANNER_PATTERN", 1, 0, 4000},
	{"GUSTER_BANNER_PATTERN", 1, 0, 4000},

	// Potions and bottles (POTIONS).
	{"POTION", 1, matPotion, 500},
	{"SPLASH_POTION", 1, matPotion, 700},
	{"LINGERING_POTION", 1, matPotion, 1500},
	{"EXPERIENCE_BOTTLE", 64, 0, 300},
	{"DRAGON_BREATH", 64, 0, 2000},
	{"GLASS_BOTTLE", 64, 0, 10},

	// Books (ENCHANTED_BOOK is ENCHANTED_BOOKS; a BOOK only with a combat enchantment).
	{"ENCHANTED_BOOK", 1, 0, 3000},
	{"BOOK", 64, 0, 100},
	{"WRITABLE_BOOK", 1, 0, 150},
	{"WRITTEN_BOOK", 16, 0, 200},

	// Materials, mob drops and miscellaneous items (OTHER).
	{"DIAMOND", 64, 0, 5000},
	{"EMERALD", 64, 0, 3000},
	{"IRON_INGOT", 64, 0, 500},
	{"GOLD_INGOT", 64, 0, 600},
	{"COPPER_INGOT", 64, 0, 100},
	{"NETHERITE_INGOT", 64, 0, 60000},
	{"NETHERITE_SCRAP", 64, 0, 14000},
	{"RAW_IRON", 64, 0, 400},
	{"RAW_GOLD", 64, 0, 500},
	{"RAW_COPPER", 64, 0, 100},
	{"IRON_NUGGET", 64, 0, 55},
	{"GOLD_NUGGET", 64, 0, 65},
	{"COAL", 64, 0, 60},
	{"CHARCOAL", 64, 0, 50},
	{"LAPIS_LAZULI", 64, 0, 200},
	{"QUARTZ", 64, 0, 40},
	{"AMETHYST_SHARD", 64, 0, 30},
	{"ECHO_SHARD", 64, 0, 3000},
	{"RESIN_CLUMP", 64, 0, 25},
	{"ENDER_EYE", 64, 0, 3000},
	{"BLAZE_ROD", 64, 0, 800},
	{"BLAZE_POWDER", 64, 0, 400},
	{"BREEZE_ROD", 64, 0, 1000},
	{"STRING", 64, 0, 20},
	{"LEATHER", 64, 0, 80},
	{"PAPER", 64, 0, 30},
	{"FEATHER", 64, 0, 10},
	{"GUNPOWDER", 64, 0, 60},
	{"FLINT", 64, 0, 15},
	{"BONE", 64, 0, 40},
	{"SLIME_BALL", 64, 0, 100},
	{"MAGMA_CREAM", 64, 0, 300},
	{"GHAST_TEAR", 64, 0, 2000},
	{"PHANTOM_MEMBRANE", 64, 0, 300},
	{"RABBIT_FOOT", 64, 0, 500},
	{"RABBIT_HIDE", 64, 0, 50},
	{"INK_SAC", 64, 0, 30},
	{"GLOW_INK_SAC", 64, 0, 100},
	{"STICK", 64, 0, 5},
	{"BOWL", 64, 0, 10},
	{"CLAY_BALL", 64, 0, 8},
	{"BRICK", 64, 0, 10},
	{"NETHER_BRICK", 64, 0, 10},
	{"GLOWSTONE_DUST", 64, 0, 40},
	{"SUGAR", 64, 0, 10},
	{"FERMENTED_SPIDER_EYE", 64, 0, 150},
	{"GLISTERING_MELON_SLICE", 64, 0, 600},
	{"POPPED_CHORUS_FRUIT", 64, 0, 60},
	{"PRISMARINE_SHARD", 64, 0, 40},
	{"PRISMARINE_CRYSTALS", 64, 0, 60},
	{"HONEYCOMB", 64, 0, 100},
	{"TURTLE_SCUTE", 64, 0, 3000},
	{"ARMADILLO_SCUTE", 64, 0, 500},
	{"NAUTILUS_SHELL", 64, 0, 2000},
	{"HEART_OF_THE_SEA", 64, 0, 50000},
	{"SHULKER_SHELL", 64, 0, 20000},
	{"NETHER_STAR", 64, 0, 150000},
	{"END_CRYSTAL", 64, 0, 15000},
	{"HEAVY_CORE", 64, 0, 150000},
	{"TRIAL_KEY", 64, 0, 1000},
	{"OMINOUS_TRIAL_KEY", 64, 0, 5000},
	{"OMINOUS_BOTTLE", 64, 0, 3000},
	{"DISC_FRAGMENT_5", 64, 0, 5000},
	{"NAME_TAG", 64, 0, 2500},
	{"LEAD", 64, 0, 300},
	{"SADDLE", 1, 0, 2000},
	{"COMPASS", 64, 0, 2000},
	{"RECOVERY_COMPASS", 64, 0, 8000},
	{"CLOCK", 64, 0, 2500},
	{"MAP", 64, 0, 300},
	{"FILLED_MAP", 64, 0, 500},
	{"SPYGLASS", 1, 0, 600},
	{"BUNDLE", 1, 0, 300},
	{"GOAT_HORN", 1, 0, 3000},
	{"FIREWORK_ROCKET", 64, 0, 50},
	{"FIREWORK_STAR", 64, 0, 50},
	{"BUCKET", 16, 0, 1500},
	{"WATER_BUCKET", 1, 0, 1500},
	{"LAVA_BUCKET", 1, 0, 1600},
	{"POWDER_SNOW_BUCKET", 1, 0, 1500},
	{"COD_BUCKET", 1, 0, 1600},
	{"SALMON_BUCKET", 1, 0, 1600},
	{"PUFFERFISH_BUCKET", 1, 0, 1700},
	{"TROPICAL_FISH_BUCKET", 1, 0, 1700},
	{"AXOLOTL_BUCKET", 1, 0, 5000},
	{"TADPOLE_BUCKET", 1, 0, 1600},
	{"MINECART", 1, 0, 2500},
	{"CHEST_MINECART", 1, 0, 2700},
	{"FURNACE_MINECART", 1, 0, 2600},
	{"TNT_MINECART", 1, 0, 3000},
	{"HOPPER_MINECART", 1, 0, 5300},
	{"NETHERITE_UPGRADE_SMITHING_TEMPLATE", 64, 0, 40000},
	{"SENTRY_ARMOR_TRIM_SMITHING_TEMPLATE", 64, 0, 5000},
	{"COAST_ARMOR_TRIM_SMITHING_TEMPLATE", 64, 0, 6000},
	{"WILD_ARMOR_TRIM_SMITHING_TEMPLATE", 64, 0, 6000},
	{"RIB_ARMOR_TRIM_SMITHING_TEMPLATE", 64, 0, 8000},
	{"SNOUT_ARMOR_TRIM_SMITHING_TEMPLATE", 64, 0, 8000},
	{"EYE_ARMOR_TRIM_SMITHING_TEMPLATE", 64, 0, 20000},
	{"SILENCE_ARMOR_TRIM_SMITHING_TEMPLATE", 64, 0, 60000},
	{"SPIRE_ARMOR_TRIM_SMITHING_TEMPLATE", 64, 0, 15000},
	{"FLOW_ARMOR_TRIM_SMITHING_TEMPLATE", 64, 0, 8000},
	{"ANGLER_POTTERY_SHERD", 64, 0, 500},
	{"ARCHER_POTTERY_SHERD", 64, 0, 500},
	{"PRIZE_POTTERY_SHERD", 64, 0, 600},
	{"SKULL_POTTERY_SHERD", 64, 0, 600},
	{"MUSIC_DISC_13", 1, 0, 6000},
	{"MUSIC_DISC_CAT", 1, 0, 6000},
	{"MUSIC_DISC_BLOCKS", 1, 0, 6000},
	{"MUSIC_DISC_CHIRP", 1, 0, 6000},
	{"MUSIC_DISC_FAR", 1, 0, 6000},
	{"MUSIC_DISC_MALL", 1, 0, 6000},
	{"MUSIC_DISC_MELLOHI", 1, 0, 6000},
	{"MUSIC_DISC_STAL", 1, 0, 6000},
	{"MUSIC_DISC_STRAD", 1, 0, 6000},
	{"MUSIC_DISC_WARD", 1, 0, 6000},
	{"MUSIC_DISC_11", 1, 0, 8000},
	{"MUSIC_DISC_WAIT", 1, 0, 6000},
	{"MUSIC_DISC_OTHERSIDE", 1, 0, 25000},
	{"MUSIC_DISC_5", 1, 0, 20000},
	{"MUSIC_DISC_PIGSTEP", 1, 0, 30000},
	{"MUSIC_DISC_RELIC", 1, 0, 15000},
	{"MUSIC_DISC_CREATOR", 1, 0, 20000},
	{"MUSIC_DISC_CREATOR_MUSIC_BOX", 1, 0, 15000},
	{"MUSIC_DISC_PRECIPICE", 1, 0, 15000},
}

// catalogNameOverrides holds the vanilla English names that do not follow from
// the key by title-casing it.
var catalogNameOverrides = map[string]string{
	"EXPERIENCE_BOTTLE":            "Bottle o' Enchanting",
	"ENDER_EYE":                    "Eye of Ender",
	"JACK_O_LANTERN":               "Jack o'Lantern",
	"TNT":                          "TNT",
	"TNT_MINECART":                 "Minecart with TNT",
	"CHEST_MINECART":               "Minecart with Chest",
	"FURNACE_MINECART":             "Minecart with Furnace",
	"HOPPER_MINECART":              "Minecart with Hopper",
	"BAMBOO_CHEST_RAFT":            "Bamboo Raft with Chest",
	"BEEF":                         "Raw Beef",
	"PORKCHOP":                     "Raw Porkchop",
	"CHICKEN":                      "Raw Chicken",
	"MUTTON":                       "Raw Mutton",
	"RABBIT":                       "Raw Rabbit",
	"COD":                          "Raw Cod",
	"SALMON":                       "Raw Salmon",
	"COOKED_BEEF":                  "Steak",
	"QUARTZ":                       "Nether Quartz",
	"SMOOTH_QUARTZ":                "Smooth Quartz Block",
	"DRAGON_BREATH":                "Dragon's Breath",
	"MAP":                          "Empty Map",
	"FILLED_MAP":                   "Map",
	"WRITABLE_BOOK":                "Book and Quill",
	"DISC_FRAGMENT_5":              "Disc Fragment",
	"MUSIC_DISC_CREATOR_MUSIC_BOX": "Music Disc (Creator - Music Box)",
	"REDSTONE":                     "Redstone Dust",
	"SLIME_BALL":                   "Slimeball",
	"NETHER_QUARTZ_ORE":            "Nether Quartz Ore",
}

// catalogName derives the readable English name of a material key.
func catalogName(key string) string {
	if n, ok := catalogNameOverrides[key]; ok {
		return n
	}
	if rest, ok := strings.CutPrefix(key, "MUSIC_DISC_"); ok {
		return "Music Disc (" + catalogTitle(rest) + ")"
	}
	if rest, ok := strings.CutSuffix(key, "_SMITHING_TEMPLATE"); ok {
		return "Smithing Template (" + catalogTitle(rest) + ")"
	}
	if rest, ok := strings.CutSuffix(key, "_CHEST_BOAT"); ok {
		return catalogTitle(rest) + " Boat with Chest"
	}
	return catalogTitle(key)
}

// catalogTitle turns "LILY_OF_THE_VALLEY" into "Lily of the Valley".
func catalogTitle(key string) string {
	words := strings.Split(strings.ToLower(key), "_")
	for i, w := range words {
		if w == "" {
			continue
		}
		if i > 0 && (w == "of" || w == "the" || w == "a" || w == "on" || w == "o") {
			continue
		}
		words[i] = strings.ToUpper(w[:1]) + w[1:]
	}
	return strings.Join(words, " ")
}

// materials is the material table: index = material id. Index 0 is a reserved
// invalid entry (Key "") so that id 0 can mean "none". It is a package-level
// variable with an initialiser (not filled in init) so that other package-level
// variables may use it during their own initialisation.
var materials = catalogBuildMaterials(catalogMaterialRows)

func catalogBuildMaterials(rows []catalogMaterialRow) []MaterialInfo {
	if len(rows)+1 > 1<<16 {
		panic("market: too many materials for uint16 ids")
	}
	out := make([]MaterialInfo, 1, len(rows)+1)
	for _, r := range rows {
		out = append(out, MaterialInfo{
			Key:       r.key,
			Name:      catalogName(r.key),
			MaxStack:  r.stack,
			Block:     r.flags&matBlock != 0,
			Edible:    r.flags&matEdible != 0,
			Potion:    r.flags&matPotion != 0,
			BasePrice: r.price,
		})
	}
	return out
}

// materialIndex maps a material key to its id.
var materialIndex = func() map[string]uint16 {
	m := make(map[string]uint16, len(materials))
	for i := 1; i < len(materials); i++ {
		k := materials[i].Key
		if _, dup := m[k]; dup {
			panic("market: duplicate material key " + k)
		}
		m[k] = uint16(i)
	}
	return m
}()

// materialID returns the id of the material with the exact upper-case key.
func materialID(key string) (uint16, bool) {
	id, ok := materialIndex[key]
	return id, ok
}

// Target groups for the enchantment table.
var (
	catArmorTargets   = []string{"_HELMET", "_CHESTPLATE", "_LEGGINGS", "_BOOTS"}
	catMeleeTargets   = []string{"_SWORD", "_AXE", "_SPEAR"}
	catDiggerTargets  = []string{"_PICKAXE", "_SHOVEL", "_AXE", "_HOE"}
	catDamageableList = []string{
		"_HELMET", "_CHESTPLATE", "_LEGGINGS", "_BOOTS", "_SWORD", "_AXE", "_SPEAR",
		"_PICKAXE", "_SHOVEL", "_HOE", "BOW", "CROSSBOW", "TRIDENT", "MACE",
		"FISHING_ROD", "SHEARS", "FLINT_AND_STEEL", "SHIELD", "ELYTRA", "BRUSH",
		"CARROT_ON_A_STICK", "WARPED_FUNGUS_ON_A_STICK",
	}
)

// catalogTargets concatenates target lists into a new slice.
func catalogTargets(lists ...[]string) []string {
	var out []string
	for _, l := range lists {
		out = append(out, l...)
	}
	return out
}

// enchantments is the enchantment table: index = enchantment id. Index 0 is a
// reserved invalid entry (Key "") so that id 0 can mean "none". As with
// materials, ids are process-local; persist keys.
var enchantments = []EnchantmentInfo{
	{},
	// Armour.
	{Key: "protection", Name: "Protection", MaxLevel: 4, Combat: true, Targets: catArmorTargets},
	{Key: "fire_protection", Name: "Fire Protection", MaxLevel: 4, Combat: true, Targets: catArmorTargets},
	{Key: "blast_protection", Name: "Blast Protection", MaxLevel: 4, Combat: true, Targets: catArmorTargets},
	{Key: "projectile_protection", Name: "Projectile Protection", MaxLevel: 4, Combat: true, Targets: catArmorTargets},
	{Key: "thorns", Name: "Thorns", MaxLevel: 3, Combat: true, Targets: catArmorTargets},
	{Key: "respiration", Name: "Respiration", MaxLevel: 3, Combat: true, Targets: []string{"_HELMET"}},
	{Key: "aqua_affinity", Name: "Aqua Affinity", MaxLevel: 1, Combat: true, Targets: []string{"_HELMET"}},
	{Key: "feather_falling", Name: "Feather Falling", MaxLevel: 4, Combat: true, Targets: []string{"_BOOTS"}},
	{Key: "depth_strider", Name: "Depth Strider", MaxLevel: 3, Combat: true, Targets: []string{"_BOOTS"}},
	{Key: "frost_walker", Name: "Frost Walker", MaxLevel: 2, Combat: true, Targets: []string{"_BOOTS"}},
	{Key: "soul_speed", Name: "Soul Speed", MaxLevel: 3, Combat: true, Targets: []string{"_BOOTS"}},
	{Key: "swift_sneak", Name: "Swift Sneak", MaxLevel: 3, Combat: true, Targets: []string{"_LEGGINGS"}},
	{Key: "binding_curse", Name: "Curse of Binding", MaxLevel: 1, Combat: true, Targets: catalogTargets(catArmorTargets, []string{"ELYTRA", "CARVED_PUMPKIN"})},
	// Melee weapons.
	{Key: "sharpness", Name: "Sharpness", MaxLevel: 5, Combat: true, Targets: catMeleeTargets},
	{Key: "smite", Name: "Smite", MaxLevel: 5, Combat: true, Targets: catalogTargets(catMeleeTargets, []string{"MACE"})},
	{Key: "bane_of_arthropods", Name: "Bane of Arthropods", MaxLevel: 5, Combat: true, Targets: catalogTargets(catMeleeTargets, []string{"MACE"})},
	{Key: "knockback", Name: "Knockback", MaxLevel: 2, Combat: true, Targets: []string{"_SWORD", "_SPEAR"}},
	{Key: "fire_aspect", Name: "Fire Aspect", MaxLevel: 2, Combat: true, Targets: []string{"_SWORD", "_SPEAR", "MACE"}},
	{Key: "looting", Name: "Looting", MaxLevel: 3, Combat: true, Targets: []string{"_SWORD", "_SPEAR"}},
	{Key: "sweeping_edge", Name: "Sweeping Edge", MaxLevel: 3, Combat: false, Targets: []string{"_SWORD"}},
	{Key: "cleaving", Name: "Cleaving", MaxLevel: 3, Combat: true, Targets: []string{"_AXE"}},
	{Key: "lunge", Name: "Lunge", MaxLevel: 3, Combat: true, Targets: []string{"_SPEAR"}},
	// Mace.
	{Key: "density", Name: "Density", MaxLevel: 5, Combat: true, Targets: []string{"MACE"}},
	{Key: "breach", Name: "Breach", MaxLevel: 4, Combat: true, Targets: []string{"MACE"}},
	{Key: "wind_burst", Name: "Wind Burst", MaxLevel: 3, Combat: true, Targets: []string{"MACE"}},
	// Bow.
	{Key: "power", Name: "Power", MaxLevel: 5, Combat: true, Targets: []string{"BOW"}},
	{Key: "punch", Name: "Punch", MaxLevel: 2, Combat: true, Targets: []string{"BOW"}},
	{Key: "flame", Name: "Flame", MaxLevel: 1, Combat: true, Targets: []string{"BOW"}},
	{Key: "infinity", Name: "Infinity", MaxLevel: 1, Combat: true, Targets: []string{"BOW"}},
	// Crossbow.
	{Key: "quick_charge", Name: "Quick Charge", MaxLevel: 3, Combat: true, Targets: []string{"CROSSBOW"}},
	{Key: "multishot", Name: "Multishot", MaxLevel: 1, Combat: true, Targets: []string{"CROSSBOW"}},
	{Key: "piercing", Name: "Piercing", MaxLevel: 4, Combat: true, Targets: []string{"CROSSBOW"}},
	// Trident.
	{Key: "impaling", Name: "Impaling", MaxLevel: 5, Combat: true, Targets: []string{"TRIDENT"}},
	{Key: "loyalty", Name: "Loyalty", MaxLevel: 3, Combat: true, Targets: []string{"TRIDENT"}},
	{Key: "riptide", Name: "Riptide", MaxLevel: 3, Combat: true, Targets: []string{"TRIDENT"}},
	{Key: "channeling", Name: "Channeling", MaxLevel: 1, Combat: true, Targets: []string{"TRIDENT"}},
	// Tools and fishing (not combat).
	{Key: "efficiency", Name: "Efficiency", MaxLevel: 5, Targets: catalogTargets(catDiggerTargets, []string{"SHEARS"})},
	{Key: "silk_touch", Name: "Silk Touch", MaxLevel: 1, Targets: catDiggerTargets},
	{Key: "fortune", Name: "Fortune", MaxLevel: 3, Targets: catDiggerTargets},
	{Key: "luck_of_the_sea", Name: "Luck of the Sea", MaxLevel: 3, Targets: []string{"FISHING_ROD"}},
	{Key: "lure", Name: "Lure", MaxLevel: 3, Targets: []string{"FISHING_ROD"}},
	// Everything damageable (not combat).
	{Key: "unbreaking", Name: "Unbreaking", MaxLevel: 3, Targets: catDamageableList},
	{Key: "mending", Name: "Mending", MaxLevel: 1, Targets: catDamageableList},
	{Key: "vanishing_curse", Name: "Curse of Vanishing", MaxLevel: 1, Targets: catalogTargets(catDamageableList, []string{"CARVED_PUMPKIN", "COMPASS", "RECOVERY_COMPASS"})},
}

// enchantmentIndex maps an enchantment key to its id.
var enchantmentIndex = func() map[string]uint8 {
	if len(enchantments) > 1<<8 {
		panic("market: too many enchantments for uint8 ids")
	}
	m := make(map[string]uint8, len(enchantments))
	for i := 1; i < len(enchantments); i++ {
		k := enchantments[i].Key
		if _, dup := m[k]; dup {
			panic("market: duplicate enchantment key " + k)
		}
		m[k] = uint8(i)
	}
	return m
}()

// enchantmentID returns the id of the enchantment with the exact lower-case
// key (no "minecraft:" namespace).
func enchantmentID(key string) (uint8, bool) {
	id, ok := enchantmentIndex[key]
	return id, ok
}

// combatEnchantment[id] is enchantments[id].Combat, as an array indexed by the
// full uint8 range so that categoriesOf needs no bounds check.
var combatEnchantment = func() (t [1 << 8]bool) {
	for i, e := range enchantments {
		t[i] = e.Combat
	}
	return t
}()

// materialCategories[id] is the part of a material's category set that does
// not depend on enchantments. CategoryOther is set when the material alone
// qualifies for OTHER; categoriesOf removes it again for items with a combat
// enchantment.
var materialCategories = func() []CategorySet {
	out := make([]CategorySet, len(materials))
	for i := range materials {
		out[i] = catalogStaticCategories(&materials[i])
	}
	return out
}()

// bookMaterial is the id of BOOK, the one material whose categories gain
// ENCHANTED_BOOKS from a combat enchantment.
var bookMaterial, _ = materialID("BOOK")

// categoriesOf returns the categories of an item of material mat carrying the
// given enchantment ids (stored enchants of books and normal enchants are the
// same list here). Always includes ALL. An unknown material id is treated like
// id 0, a material with no properties. It does not allocate.
func categoriesOf(mat uint16, enchs []uint8) CategorySet {
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

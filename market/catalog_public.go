package market

import "strings"

// Materials returns the catalogue of the game's materials, in the game's
// order, without the reserved invalid entry and without the materials learnt
// at run time. The slice is a copy.
func Materials() []MaterialInfo {
	return append([]MaterialInfo(nil), materials[1:1+catalogMaterialCount]...)
}

// LookupMaterial returns the entry of a material: one of the catalogue or
// one the market has met while running. The key may be in any form
// CanonicalMaterialKey accepts ("DIAMOND_SWORD", "minecraft:diamond_sword",
// " diamond_sword ").
func LookupMaterial(key string) (MaterialInfo, bool) {
	id, ok := materialID(strings.TrimSpace(key))
	if !ok {
		return MaterialInfo{}, false
	}
	return materials[id], true
}

// Enchantments returns the catalogue of the game's enchantments, without the
// reserved invalid entry and those learnt at run time. The slice is a copy.
func Enchantments() []EnchantmentInfo {
	return append([]EnchantmentInfo(nil), enchantments[1:1+catalogEnchantmentCount]...)
}

// LookupEnchantment returns the entry of an enchantment, in any form
// CanonicalEnchantmentKey accepts.
func LookupEnchantment(key string) (EnchantmentInfo, bool) {
	id, ok := enchantmentID(strings.TrimSpace(key))
	if !ok {
		return EnchantmentInfo{}, false
	}
	return enchantments[id], true
}

// AppliesTo reports whether the game lets the enchantment be on an item of
// material key (a stored key, "DIAMOND_SWORD").
func (e EnchantmentInfo) AppliesTo(key string) bool { return e.appliesTo(key) }

// CategoriesOf returns the categories of an item stack. A material the market
// does not know is filed under OTHER, as it would be once listed.
func CategoriesOf(s ItemStack) []Category {
	id, _ := materialID(s.Material)
	var ids []uint8
	for _, e := range s.Enchantments {
		if eid, ok := enchantmentID(e.Key); ok {
			ids = append(ids, eid)
		}
	}
	return categoriesOf(id, ids).List()
}

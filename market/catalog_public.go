package market

import "strings"

// Materials returns the catalogue of materials the market accepts, without
// the reserved invalid entry. The slice is a copy.
func Materials() []MaterialInfo {
	out := make([]MaterialInfo, 0, len(materials)-1)
	for _, m := range materials[1:] {
		out = append(out, m)
	}
	return out
}

// LookupMaterial returns the catalogue entry of a material key
// (case-insensitive).
func LookupMaterial(key string) (MaterialInfo, bool) {
	id, ok := materialID(strings.ToUpper(strings.TrimSpace(key)))
	if !ok {
		return MaterialInfo{}, false
	}
	return materials[id], true
}

// Enchantments returns the catalogue of enchantments, without the reserved
// invalid entry. The slice is a copy.
func Enchantments() []EnchantmentInfo {
	out := make([]EnchantmentInfo, 0, len(enchantments)-1)
	for _, e := range enchantments[1:] {
		out = append(out, e)
	}
	return out
}

// LookupEnchantment returns the catalogue entry of an enchantment key.
func LookupEnchantment(key string) (EnchantmentInfo, bool) {
	id, ok := enchantmentID(strings.ToLower(strings.TrimSpace(key)))
	if !ok {
		return EnchantmentInfo{}, false
	}
	return enchantments[id], true
}

// AppliesTo reports whether the enchantment can be on an item of material
// key: a Targets entry starting with '_' matches a key suffix, any other entry
// the whole key.
func (e EnchantmentInfo) AppliesTo(key string) bool { return e.appliesTo(key) }

// CategoriesOf returns the categories of an item stack.
func CategoriesOf(s ItemStack) []Category {
	id, ok := materialID(s.Material)
	if !ok {
		return []Category{CategoryAll}
	}
	var ids []uint8
	for _, e := range s.Enchantments {
		if eid, ok := enchantmentID(e.Key); ok {
			ids = append(ids, eid)
		}
	}
	return categoriesOf(id, ids).List()
}

package catalog

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
	id, ok := MaterialID(strings.TrimSpace(key))
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
	id, ok := EnchantmentID(strings.TrimSpace(key))
	if !ok {
		return EnchantmentInfo{}, false
	}
	return enchantments[id], true
}

// AppliesTo reports whether the game lets the enchantment be on an item of
// material key (a stored key, "DIAMOND_SWORD").
func (e EnchantmentInfo) AppliesTo(key string) bool { return e.appliesTo(key) }

// The market's packages hold materials and enchantments by id: an index of
// the tables (registry.go), given once and never changed, meaningful inside
// one process only. Everything persisted or shown uses keys.

// Material is the entry of material id, one that MaterialID, FindMaterial
// or AddMaterial gave. Any goroutine may read it without a lock.
func Material(id uint16) *MaterialInfo { return &materials[id] }

// Enchantment is Material for enchantment ids.
func Enchantment(id uint8) *EnchantmentInfo { return &enchantments[id] }

// CatalogueMaterialID is the id of a catalogue material given by its stored
// key, without converting the key to a string: the fast path of a decoder
// that reads a million keys. Keys the market learnt at run time are not
// found here (FindMaterial finds them).
func CatalogueMaterialID(key []byte) (uint16, bool) {
	id, ok := materialKeys.fixed[string(key)]
	return uint16(id), ok
}

// CatalogueEnchantmentID is CatalogueMaterialID for enchantments.
func CatalogueEnchantmentID(key []byte) (uint8, bool) {
	id, ok := enchantmentKeys.fixed[string(key)]
	return uint8(id), ok
}

// StoredEnchantmentID is the id of an enchantment given by its stored key
// (CanonicalEnchantmentKey's form), from the catalogue or learnt at run
// time; it never adds one.
func StoredEnchantmentID(canon string) (uint8, bool) {
	id, ok := enchantmentKeys.lookup(canon)
	return uint8(id), ok
}

package catalog

import (
	"strings"
	"sync"
	"sync/atomic"
	"unicode/utf8"

	"github.com/rynek/rynek/market/playertext"
)

// The material and enchantment tables. An id indexes a table: id 0 is a
// reserved empty entry, then come the catalogue's entries (generated from the
// game's data), then the keys the market meets while it runs that the
// catalogue lacks: an item of a newer game version or of another namespace
// ("nexo:ruby_sword") is kept, not refused, because real data must never be
// dropped for being newer than our list.
//
// Items hold ids (a uint16 material id keeps the in-memory item at 32 bytes),
// and readers on any goroutine index the tables without locks. So the tables
// are fixed-size arrays that are never reallocated, and an entry is written
// once, under keyTable's lock, before its id is published through an atomic
// pointer; a reader that holds an id therefore always sees its entry. The
// number of ids added at run time is bounded, so hostile or broken input
// cannot grow memory without limit; past the bound a new key is refused with
// a clear error and nothing changes.
//
// Ids are meaningful inside one process only: anything persisted uses keys.

// Limits on keys and on the keys added at run time.
const (
	// MaxKeyBytes bounds a material or enchantment key as given.
	MaxKeyBytes = 128
	// MaxRuntimeMaterials is how many materials outside the catalogue one
	// process accepts.
	MaxRuntimeMaterials = 4096
	// MaxItemStack is the largest stack size an item can carry (Paper's
	// max_stack_size component allows 1..99).
	MaxItemStack = 99
	// MaxEnchantLevel is the highest enchantment level an item can carry.
	MaxEnchantLevel = 255
	// RuntimeMaterialStack is the stack size of a material outside the
	// catalogue when the item does not carry its own: the game's default for
	// an item.
	RuntimeMaterialStack = 64
)

// MaterialCapacity is the size of the material table.
const MaterialCapacity = 1 + catalogMaterialCount + MaxRuntimeMaterials

// materials is the material table, indexed by material id. It is a
// package-level variable with an initialiser (not filled in init) so that
// other package-level variables may use it during their own initialisation.
var materials = func() *[MaterialCapacity]MaterialInfo {
	t := new([MaterialCapacity]MaterialInfo)
	for i, r := range catalogMaterialRows {
		t[1+i] = MaterialInfo{
			Key:         r.key,
			Name:        r.name,
			PolishWords: PolishWords(r.name),
			MaxStack:    r.stack,
			Block:       r.flags&matBlock != 0,
			Edible:      r.flags&matEdible != 0,
			Potion:      r.flags&matPotion != 0,
			BasePrice:   r.price,
		}
	}
	return t
}()

// enchantments is the enchantment table, indexed by enchantment id (a uint8:
// the catalogue plus up to 255 ids in all).
var enchantments = func() *[1 << 8]EnchantmentInfo {
	t := new([1 << 8]EnchantmentInfo)
	for i, r := range catalogEnchantmentRows {
		targets, ok := catalogEnchantTargets[r.category]
		if !ok {
			panic("market: enchantment " + r.key + " has no targets")
		}
		t[1+i] = EnchantmentInfo{Key: r.key, Name: r.name, MaxLevel: r.maxLevel,
			Combat: catalogIsOneOf(r.key, combatEnchantmentKeys...), Targets: targets}
	}
	return t
}()

var (
	materialKeys    = newKeyTable(materials[1:1+catalogMaterialCount], func(m MaterialInfo) string { return m.Key }, MaterialCapacity)
	enchantmentKeys = newKeyTable(enchantments[1:1+catalogEnchantmentCount], func(e EnchantmentInfo) string { return e.Key }, len(enchantments))
)

// keyTable maps the keys of one table to ids. The catalogue's keys are in a
// map that is never written after initialisation; keys added at run time are
// in a second map that is replaced whole (copy on write) and published with an
// atomic store, so that lookups never lock.
type keyTable struct {
	fixed map[string]int
	added atomic.Pointer[map[string]int]
	mu    sync.Mutex // serializes add
	next  int        // the next free id, under mu
	limit int        // one past the highest id
}

func newKeyTable[T any](catalogue []T, key func(T) string, limit int) *keyTable {
	t := &keyTable{fixed: make(map[string]int, len(catalogue)), next: 1 + len(catalogue), limit: limit}
	for i, e := range catalogue {
		k := key(e)
		if _, dup := t.fixed[k]; dup {
			panic("market: duplicate catalogue key " + k)
		}
		t.fixed[k] = 1 + i
	}
	t.added.Store(&map[string]int{})
	return t
}

// lookup returns the id of a key in its stored form.
func (t *keyTable) lookup(key string) (int, bool) {
	if id, ok := t.fixed[key]; ok {
		return id, true
	}
	id, ok := (*t.added.Load())[key]
	return id, ok
}

// find returns the id of a key given in any form that canonical accepts.
func (t *keyTable) find(key string, canonical func(string) (string, error)) (int, bool) {
	if id, ok := t.fixed[key]; ok {
		return id, true // the common case: a catalogue key as stored
	}
	canon, err := canonical(key)
	if err != nil {
		return 0, false
	}
	return t.lookup(canon)
}

// addOrRefuse is add with the error that a full table gives; what names the
// kind of key in it.
func (t *keyTable) addOrRefuse(what, canon string, fill func(id int)) (int, error) {
	id, ok := t.add(canon, fill)
	if !ok {
		return 0, invalidKey("%s %s is not in the catalogue, and the market already holds the %d others it can keep",
			what, playertext.Excerpt(canon), t.limit-1-len(t.fixed))
	}
	return id, nil
}

// add returns the id of key, a key in its stored form. If the key is new it
// takes the next id and calls fill(id), which writes the table's entry, before
// anyone can see the id. ok is false when the table is full.
func (t *keyTable) add(key string, fill func(id int)) (id int, ok bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if id, ok := t.lookup(key); ok {
		return id, true
	}
	if t.next >= t.limit {
		return 0, false
	}
	id = t.next
	fill(id)
	old := *t.added.Load()
	m := make(map[string]int, len(old)+1)
	for k, v := range old {
		m[k] = v
	}
	m[key] = id
	t.added.Store(&m)
	t.next++
	return id, true
}

// MaterialID returns the id of a known material, given its key in any form
// CanonicalMaterialKey accepts. It never adds a material.
func MaterialID(key string) (uint16, bool) {
	id, ok := materialKeys.find(key, CanonicalMaterialKey)
	return uint16(id), ok
}

// EnchantmentID is MaterialID for enchantments.
func EnchantmentID(key string) (uint8, bool) {
	id, ok := enchantmentKeys.find(key, CanonicalEnchantmentKey)
	return uint8(id), ok
}

// AddMaterial returns the id of the material with stored key canon, adding it
// to the table if it is new.
func AddMaterial(canon string) (uint16, error) {
	id, err := materialKeys.addOrRefuse("material", canon, func(id int) { materials[id] = runtimeMaterial(canon) })
	return uint16(id), err
}

// AddEnchantment is AddMaterial for enchantments.
func AddEnchantment(canon string) (uint8, error) {
	id, err := enchantmentKeys.addOrRefuse("enchantment", canon, func(id int) { enchantments[id] = runtimeEnchantment(canon) })
	return uint8(id), err
}

// runtimeMaterial describes a material outside the catalogue: no facts, so
// it is filed under OTHER; its name is made from its key; it stacks to the
// game's default unless an item says otherwise.
func runtimeMaterial(canon string) MaterialInfo {
	name := nameFromKey(canon)
	return MaterialInfo{Key: canon, Name: name, PolishWords: PolishWords(name), MaxStack: RuntimeMaterialStack}
}

// runtimeEnchantment describes an enchantment outside the catalogue.
func runtimeEnchantment(canon string) EnchantmentInfo {
	return EnchantmentInfo{Key: canon, Name: nameFromKey(canon), MaxLevel: MaxEnchantLevel}
}

// nameFromKey makes a readable name of a key that has none: the last part of
// its path in title case, "nexo:weapons/ruby_sword" -> "Ruby Sword",
// "LILY_OF_THE_VALLEY" -> "Lily of the Valley". A key with no letters or
// digits there is its own name.
func nameFromKey(key string) string {
	parts := strings.FieldsFunc(key, func(r rune) bool { return r == ':' || r == '/' })
	if len(parts) == 0 {
		return key
	}
	words := strings.FieldsFunc(strings.ToLower(parts[len(parts)-1]), func(r rune) bool { return r == '_' || r == '.' || r == '-' })
	if len(words) == 0 {
		return key
	}
	for i, w := range words {
		if i > 0 && catalogIsOneOf(w, "of", "the", "a", "on", "and") {
			continue
		}
		words[i] = strings.ToUpper(w[:1]) + w[1:]
	}
	return strings.Join(words, " ")
}

// CanonicalMaterialKey returns the stored form of a material key, or a
// *Error (CodeInvalidItem) that says what is wrong with it.
//
// A key is a resource location, "namespace:path", as the game writes item ids;
// without a namespace it is the game's own ("minecraft"). Letters may be given
// in either case (Bukkit's Material names are upper case; the game's ids are
// lower case, and never differ only in case). The stored form is:
//
//   - for the game's own items whose path is letters, digits and underscores:
//     the upper-case Bukkit name, "DIAMOND_SWORD" (so "minecraft:diamond_sword",
//     "diamond_sword" and "DIAMOND_SWORD" are one material, and the keys that
//     databases already hold keep their meaning);
//   - for anything else: the lower-case resource location, "nexo:ruby_sword".
//
// AIR and its variants are empty space, not items, and are refused.
func CanonicalMaterialKey(key string) (string, error) {
	ns, path, err := parseResourceKey("material", key)
	if err != nil {
		return "", err
	}
	if ns == "minecraft" && isPlainPath(path) {
		canon := strings.ToUpper(path)
		if catalogIsOneOf(canon, "AIR", "CAVE_AIR", "VOID_AIR") {
			return "", invalidKey("material %s is empty space, not an item", canon)
		}
		return canon, nil
	}
	return qualified("material", ns, path)
}

// CanonicalEnchantmentKey returns the stored form of an enchantment key: the
// lower-case path for the game's own ("sharpness", from "minecraft:sharpness"
// or "SHARPNESS"), the lower-case resource location for any other namespace.
func CanonicalEnchantmentKey(key string) (string, error) {
	ns, path, err := parseResourceKey("enchantment", key)
	if err != nil {
		return "", err
	}
	if ns == "minecraft" && isPlainPath(path) {
		return path, nil
	}
	return qualified("enchantment", ns, path)
}

// qualified is the stored form "namespace:path", which must fit the same
// bound as the key as given: a key without a namespace gains "minecraft:"
// (a path with a '.' or '/' has no Bukkit name), and a stored key longer than
// MaxKeyBytes could never be read back.
func qualified(what, ns, path string) (string, error) {
	key := ns + ":" + path
	if len(key) > MaxKeyBytes {
		return "", invalidKey("%s key %q is %d bytes long as stored; at most %d allowed", what, playertext.Excerpt(key), len(key), MaxKeyBytes)
	}
	return key, nil
}

// parseResourceKey splits a key into a namespace (default "minecraft") and a
// path, with ASCII letters folded to lower case, and checks them against the
// game's rules for resource locations: a namespace of [a-z0-9_.-], a path of
// [a-z0-9_.-/].
func parseResourceKey(what, key string) (namespace, path string, err error) {
	if key == "" {
		return "", "", invalidKey("%s key is empty", what)
	}
	if len(key) > MaxKeyBytes {
		return "", "", invalidKey("%s key is %d bytes long; at most %d allowed", what, len(key), MaxKeyBytes)
	}
	colon := strings.IndexByte(key, ':')
	lower := []byte(key)
	for i, c := range lower {
		switch {
		case 'A' <= c && c <= 'Z':
			lower[i] = c + 'a' - 'A'
		case 'a' <= c && c <= 'z', '0' <= c && c <= '9', c == '_', c == '.', c == '-':
		case i == colon:
		case c == '/' && i > colon: // in the path; a namespace holds no '/'
		default:
			r, _ := utf8.DecodeRuneInString(key[i:])
			return "", "", invalidKey("%s key %q has %q, which keys may not hold (allowed: a-z 0-9 _ . - and, in the path, /)",
				what, playertext.Excerpt(key), r)
		}
	}
	if colon < 0 {
		return "minecraft", string(lower), nil
	}
	namespace, path = string(lower[:colon]), string(lower[colon+1:])
	if namespace == "" || path == "" {
		return "", "", invalidKey("%s key %q needs both a namespace and a path around its ':'", what, playertext.Excerpt(key))
	}
	return namespace, path, nil
}

// isPlainPath reports whether a path is letters, digits and underscores
// only: the paths that have a Bukkit Material name.
func isPlainPath(path string) bool {
	for i := 0; i < len(path); i++ {
		c := path[i]
		if !('a' <= c && c <= 'z' || '0' <= c && c <= '9' || c == '_') {
			return false
		}
	}
	return true
}

// FindMaterial returns the stored form of a material key and its id, 0 if
// the market has not met it yet.
func FindMaterial(key string) (canon string, id uint16, err error) {
	if id, ok := materialKeys.fixed[key]; ok {
		return key, uint16(id), nil
	}
	if canon, err = CanonicalMaterialKey(key); err != nil {
		return "", 0, err
	}
	found, _ := materialKeys.lookup(canon)
	return canon, uint16(found), nil
}

// Package item is the market's item model: the compact in-memory form of
// an item stack (Item, 32 bytes and an optional Extra), the checks an
// item's text must pass, a player's inventory, and the one binary format
// items and every other market record are stored in (codec.go, reader.go).
//
// It exists so that the item and its codec have one home and one naming
// scheme (Encode/Decode, EncodeInventory/DecodeInventory, Reader). It
// imports only market/catalog (material and enchantment ids) and never
// market: the market converts its public ItemStack to and from an Item
// (toItem, stackOf) and turns this package's errors into its own codes.
package item

import (
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/google/uuid"

	"github.com/rynek/rynek/market/catalog"
)

// Limits on item input. They bound memory per listing and the work a single
// hostile item can cause; the game itself allows similar sizes.
const (
	MaxDisplayNameBytes = 256
	MaxLoreLines        = 16
	MaxLoreLineBytes    = 256
	MaxEnchantments     = 16
)

// Item is the compact in-memory form of an ItemStack: 32 bytes plus an
// optional extra for the uncommon parts, so that a million listings stay
// within the memory budget (most stacks have no name, lore or enchantments).
type Item struct {
	UID    uuid.UUID
	Mat    uint16
	Amount uint8
	// StackMax is the item's own maximum stack size (Paper's
	// max_stack_size component), 1..MaxItemStack, or 0 when it has the
	// material's. It fits in what would otherwise be padding.
	StackMax uint8
	X        *Extra
}

// Extra is the uncommon part of an item: a display name, lore,
// enchantments and the original form, nil for most items.
type Extra struct {
	Name     string
	Lore     []string
	Ench     []Ench
	Original Original
}

// Ench is one enchantment of an item: its id in the catalogue's table and
// its level.
type Ench struct {
	ID    uint8
	Level uint8
}

// Original is an item as another system stored it, kept verbatim so that an
// export can give it back unchanged: an importer cannot know every component
// or meta key a server or plugin wrote. It is
// provenance, not identity: SameKind ignores it.
type Original struct {
	Format uint8  // OriginalNone, or what Data is
	Data   string // the bytes, never empty when format is set
}

// Formats of Original.Data, the numbers that ItemStack.Original's formats
// (OriginalFormat) have in the item blob.
const (
	OriginalNone = 0
	// OriginalBukkitYAML is an item's subtree of the original plugin's
	// listings.yml or market-data.yml, as UTF-8 YAML.
	OriginalBukkitYAML = 1
)

// MaxOriginalBytes bounds an item's original form.
const MaxOriginalBytes = 1 << 20

// Name is the item's display name, "" for none.
func (it Item) Name() string {
	if it.X == nil {
		return ""
	}
	return it.X.Name
}

// EnchIDs appends the ids of the item's enchantments to buf[:0].
func (it Item) EnchIDs(buf []uint8) []uint8 {
	if it.X == nil {
		return buf[:0]
	}
	buf = buf[:0]
	for _, e := range it.X.Ench {
		buf = append(buf, e.ID)
	}
	return buf
}

// MaxStack is how many of the item one stack may hold.
func (it Item) MaxStack() int {
	if it.StackMax != 0 {
		return int(it.StackMax)
	}
	return catalog.Material(it.Mat).MaxStack
}

// Categories returns the item's category set.
func (it Item) Categories() catalog.CategorySet {
	var buf [MaxEnchantments]uint8
	return catalog.Categories(it.Mat, it.EnchIDs(buf[:0]))
}

// SameKind reports whether a and b are the same item apart from identity and
// amount (Bukkit's isSimilar). The original form is provenance and does not
// count.
func (it Item) SameKind(o Item) bool {
	if it.Mat != o.Mat || it.StackMax != o.StackMax {
		return false
	}
	if (it.X == nil) != (o.X == nil) {
		return false
	}
	if it.X == nil {
		return true
	}
	return it.X.Name == o.X.Name && slices.Equal(it.X.Lore, o.X.Lore) && slices.Equal(it.X.Ench, o.X.Ench)
}

// ValidateText rejects text that cannot be stored faithfully. Control
// characters other than NUL are accepted (they are sanitized on screen), but
// invalid UTF-8 and NUL are not: they would not round-trip.
func ValidateText(what, s string, max int) error {
	if len(s) > max {
		return fmt.Errorf("%s is %d bytes long; at most %d allowed", what, len(s), max)
	}
	if !utf8.ValidString(s) {
		return fmt.Errorf("%s is not valid UTF-8", what)
	}
	if strings.IndexByte(s, 0) >= 0 {
		return fmt.Errorf("%s contains a NUL character", what)
	}
	return nil
}

package item

import (
	"encoding/binary"
	"unicode/utf8"

	"github.com/rynek/rynek/market/catalog"
)

// Item blob format. Keys are stored as text, not catalogue indexes, so that a
// catalogue change never changes meaning; they are in their stored form
// (CanonicalMaterialKey, CanonicalEnchantmentKey).
//
// Version 1, written for every item that needs nothing of version 2, so that
// the blobs of existing databases and of older builds keep their bytes:
//
//	byte    version (1)
//	[16]    stack id
//	str     material key (at most 64 bytes)
//	uvarint amount
//	str     display name
//	uvarint lore count, then str per line
//	uvarint enchantment count, then str key (at most 64 bytes) + uvarint level each
//
// Version 2, for an item with its own max stack size, an original form, or a
// key longer than 64 bytes:
//
//	byte    version (2)
//	[16]    stack id
//	str     material key (at most MaxKeyBytes)
//	uvarint amount
//	uvarint max stack size, 0 for the material's
//	str     display name
//	uvarint lore count, then str per line
//	uvarint enchantment count, then str key (at most MaxKeyBytes) + uvarint level each
//	uvarint original format, 0 for none; if not 0, str original data
//
// str is a uvarint length followed by the bytes. Every uvarint is minimal and
// enchantments are sorted by key, so that an item has exactly one encoding:
// the decoder accepts nothing else.
const (
	blobV1 = 1
	blobV2 = 2
	// v1KeyBytes is the longest key that version 1 holds.
	v1KeyBytes = 64
)

// needsV2 reports whether the item has anything that version 1 cannot hold.
func (it Item) needsV2() bool {
	if it.StackMax != 0 || len(catalog.Material(it.Mat).Key) > v1KeyBytes {
		return true
	}
	if it.X == nil {
		return false
	}
	if it.X.Original.Format != OriginalNone {
		return true
	}
	for _, e := range it.X.Ench {
		if len(catalog.Enchantment(e.ID).Key) > v1KeyBytes {
			return true
		}
	}
	return false
}

// Encode appends the blob of it to dst: version 1 unless it needs 2.
func Encode(dst []byte, it Item) []byte {
	v2 := it.needsV2()
	if v2 {
		dst = append(dst, blobV2)
	} else {
		dst = append(dst, blobV1)
	}
	dst = append(dst, it.UID[:]...)
	dst = AppendString(dst, catalog.Material(it.Mat).Key)
	dst = binary.AppendUvarint(dst, uint64(it.Amount))
	if v2 {
		dst = binary.AppendUvarint(dst, uint64(it.StackMax))
	}
	x := it.X
	if x == nil {
		x = &Extra{}
	}
	dst = AppendString(dst, x.Name)
	dst = binary.AppendUvarint(dst, uint64(len(x.Lore)))
	for _, l := range x.Lore {
		dst = AppendString(dst, l)
	}
	dst = binary.AppendUvarint(dst, uint64(len(x.Ench)))
	for _, e := range x.Ench {
		dst = AppendString(dst, catalog.Enchantment(e.ID).Key)
		dst = binary.AppendUvarint(dst, uint64(e.Level))
	}
	if v2 {
		dst = binary.AppendUvarint(dst, uint64(x.Original.Format))
		if x.Original.Format != OriginalNone {
			dst = AppendString(dst, x.Original.Data)
		}
	}
	return dst
}

// Decode parses an item blob and validates it as strictly as the market's toItem: a
// store that was edited by hand cannot smuggle in an impossible item. It
// accepts exactly the blobs that Encode writes. A material or enchantment
// outside the catalogue is added to the tables, as the market's toItem does.
func Decode(b []byte) (Item, error) {
	r := Reader{B: b}
	version := r.Byte()
	if version != blobV1 && version != blobV2 {
		return Item{}, ErrMalformed
	}
	keyMax := v1KeyBytes
	if version == blobV2 {
		keyMax = catalog.MaxKeyBytes
	}
	var it Item
	r.Fixed(it.UID[:])
	matKey := r.Bytes(keyMax)
	amount := r.Uvarint()
	var stackMax uint64
	if version == blobV2 {
		stackMax = r.Uvarint()
	}
	// x stays on the stack unless the item has an extra part: most have none.
	x := Extra{Name: string(r.Bytes(MaxDisplayNameBytes))}
	nLore := r.Uvarint()
	if r.Err != nil || nLore > MaxLoreLines {
		return Item{}, ErrMalformed
	}
	for i := uint64(0); i < nLore; i++ {
		x.Lore = append(x.Lore, string(r.Bytes(MaxLoreLineBytes)))
	}
	nEnch := r.Uvarint()
	if r.Err != nil || nEnch > MaxEnchantments {
		return Item{}, ErrMalformed
	}
	var enchKeys [MaxEnchantments][]byte
	for i := range nEnch {
		enchKeys[i] = r.Bytes(keyMax)
		lvl := r.Uvarint()
		if lvl < 1 || lvl > catalog.MaxEnchantLevel {
			return Item{}, ErrMalformed
		}
		x.Ench = append(x.Ench, Ench{Level: uint8(lvl)})
	}
	if version == blobV2 {
		if format := r.Uvarint(); format != OriginalNone {
			x.Original = Original{Format: uint8(format), Data: string(r.Bytes(MaxOriginalBytes))}
			if format != OriginalBukkitYAML || x.Original.Data == "" || !utf8.ValidString(x.Original.Data) {
				return Item{}, ErrMalformed
			}
		}
	}
	if r.Err != nil || len(r.B) != 0 || stackMax > catalog.MaxItemStack {
		return Item{}, ErrMalformed
	}
	// As strict as the market's toItem: a hand-edited row cannot smuggle in text or
	// enchantments that live input would refuse.
	if ValidateText("display name", x.Name, MaxDisplayNameBytes) != nil {
		return Item{}, ErrMalformed
	}
	for _, l := range x.Lore {
		if ValidateText("lore", l, MaxLoreLineBytes) != nil {
			return Item{}, ErrMalformed
		}
	}
	for i := range x.Ench {
		id, ok := catalog.CatalogueEnchantmentID(enchKeys[i])
		if !ok {
			key := string(enchKeys[i])
			if canon, err := catalog.CanonicalEnchantmentKey(key); err != nil || canon != key {
				return Item{}, ErrMalformed
			}
			id, _ = catalog.StoredEnchantmentID(key)
		}
		if i > 0 && string(enchKeys[i-1]) >= string(enchKeys[i]) {
			return Item{}, ErrMalformed
		}
		x.Ench[i].ID = id // 0 until added below
	}
	id, ok := catalog.CatalogueMaterialID(matKey)
	mat := int(id)
	if !ok {
		canon, id, err := catalog.FindMaterial(string(matKey))
		if err != nil || canon != string(matKey) {
			return Item{}, ErrMalformed
		}
		mat = int(id)
	}
	limit := uint64(catalog.RuntimeMaterialStack)
	if mat != 0 {
		limit = uint64(catalog.Material(uint16(mat)).MaxStack)
	}
	if stackMax != 0 {
		limit = stackMax
	}
	if amount < 1 || amount > limit {
		return Item{}, ErrMalformed
	}
	// Valid: learn what is new.
	if mat == 0 {
		id, err := catalog.AddMaterial(string(matKey))
		if err != nil {
			return Item{}, err
		}
		mat = int(id)
	}
	for i := range x.Ench {
		if x.Ench[i].ID == 0 {
			id, err := catalog.AddEnchantment(string(enchKeys[i]))
			if err != nil {
				return Item{}, err
			}
			x.Ench[i].ID = id
		}
	}
	it.Mat, it.Amount, it.StackMax = uint16(mat), uint8(amount), uint8(stackMax)
	if x.Name != "" || len(x.Lore) > 0 || len(x.Ench) > 0 || x.Original.Format != OriginalNone {
		it.X = new(Extra)
		*it.X = x
	}
	if it.needsV2() != (version == blobV2) {
		return Item{}, ErrMalformed // version 1 would have held it
	}
	return it, nil
}

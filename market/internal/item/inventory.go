package item

import "encoding/binary"

// InventorySize is the number of storage slots of a player inventory.
const InventorySize = 36

// Inventory is a player's 36 storage slots; mat 0 marks an empty slot.
type Inventory = [InventorySize]Item

// EncodeInventory writes the occupied slots as: byte slot, uvarint length,
// item blob.
func EncodeInventory(dst []byte, inv *Inventory) []byte {
	var buf []byte
	for i := range inv {
		if inv[i].Mat == 0 {
			continue
		}
		buf = Encode(buf[:0], inv[i])

		dst = append(dst, byte(i))
		dst = binary.AppendUvarint(dst, uint64(len(buf)))
		dst = append(dst, buf...)
	}
	return dst
}

// DecodeInventory accepts exactly what EncodeInventory writes: slots in
// ascending order, each once.
func DecodeInventory(b []byte) (Inventory, error) {
	var inv Inventory
	r := Reader{B: b}
	last := -1
	for len(r.B) > 0 {
		slot := int(r.Byte())
		blob := r.Bytes(len(r.B))
		if r.Err != nil || slot <= last || slot >= InventorySize {
			return inv, ErrMalformed
		}
		it, err := Decode(blob)
		if err != nil {
			return inv, err
		}
		inv[slot], last = it, slot
	}
	return inv, nil
}

// FreeSlot is the first empty slot of inv, or -1.
func FreeSlot(inv *Inventory) int {
	for i := range inv {
		if inv[i].Mat == 0 {
			return i
		}
	}
	return -1
}

package market

import (
	"encoding/binary"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/google/uuid"
)

// Limits on item input. They bound memory per listing and the work a single
// hostile item can cause; the game itself allows similar sizes.
const (
	MaxDisplayNameBytes = 256
	MaxLoreLines        = 16
	MaxLoreLineBytes    = 256
	MaxEnchantments     = 16
	MaxEnchantLevel     = 255
)

// item is the compact in-memory form of an ItemStack: 32 bytes plus an
// optional extra for the uncommon parts, so that a million listings stay
// within the memory budget (most stacks have no name, lore or enchantments).
type item struct {
	uid    uuid.UUID
	mat    uint16
	amount uint8
	x      *itemExtra
}

type itemExtra struct {
	name string
	lore []string
	ench []ench
}

type ench struct {
	id    uint8
	level uint8
}

func (it item) name() string {
	if it.x == nil {
		return ""
	}
	return it.x.name
}

func (it item) enchIDs(buf []uint8) []uint8 {
	if it.x == nil {
		return buf[:0]
	}
	buf = buf[:0]
	for _, e := range it.x.ench {
		buf = append(buf, e.id)
	}
	return buf
}

// categories returns the item's category set.
func (it item) categories() CategorySet {
	var buf [MaxEnchantments]uint8
	return categoriesOf(it.mat, it.enchIDs(buf[:0]))
}

// stack returns the public form of it.
func (it item) stack() ItemStack {
	s := ItemStack{ID: it.uid, Material: materials[it.mat].Key, Amount: int(it.amount)}
	if it.x != nil {
		s.DisplayName = it.x.name
		if len(it.x.lore) > 0 {
			s.Lore = slices.Clone(it.x.lore)
		}
		if len(it.x.ench) > 0 {
			s.Enchantments = make([]Enchantment, len(it.x.ench))
			for i, e := range it.x.ench {
				s.Enchantments[i] = Enchantment{Key: enchantments[e.id].Key, Level: int(e.level)}
			}
		}
	}
	return s
}

// sameKind reports whether a and b are the same item apart from identity and
// amount (Bukkit's isSimilar).
func (it item) sameKind(o item) bool {
	if it.mat != o.mat {
		return false
	}
	if (it.x == nil) != (o.x == nil) {
		return false
	}
	if it.x == nil {
		return true
	}
	return it.x.name == o.x.name && slices.Equal(it.x.lore, o.x.lore) && slices.Equal(it.x.ench, o.x.ench)
}

// validateText rejects text that cannot be stored faithfully. Control
// characters other than NUL are accepted (they are sanitized on screen), but
// invalid UTF-8 and NUL are not: they would not round-trip.
func validateText(what, s string, max int) error {
	if len(s) > max {
		return errf(CodeInvalidItem, "%s is %d bytes long; at most %d allowed", what, len(s), max)
	}
	if !utf8.ValidString(s) {
		return errf(CodeInvalidItem, "%s is not valid UTF-8", what)
	}
	if strings.IndexByte(s, 0) >= 0 {
		return errf(CodeInvalidItem, "%s contains a NUL character", what)
	}
	return nil
}

// toItem validates a public ItemStack and converts it to the compact form.
func toItem(s ItemStack) (item, error) {
	mat, ok := materialID(s.Material)
	if !ok {
		return item{}, errf(CodeInvalidItem, "unknown material %q", truncateForMsg(s.Material))
	}
	info := materials[mat]
	if s.Amount < 1 || s.Amount > info.MaxStack {
		return item{}, errf(CodeInvalidItem, "amount %d of %s is outside 1..%d", s.Amount, info.Key, info.MaxStack)
	}
	it := item{uid: s.ID, mat: mat, amount: uint8(s.Amount)}
	if s.DisplayName == "" && len(s.Lore) == 0 && len(s.Enchantments) == 0 {
		return it, nil
	}
	if err := validateText("display name", s.DisplayName, MaxDisplayNameBytes); err != nil {
		return item{}, err
	}
	if len(s.Lore) > MaxLoreLines {
		return item{}, errf(CodeInvalidItem, "lore has %d lines; at most %d allowed", len(s.Lore), MaxLoreLines)
	}
	for i, l := range s.Lore {
		if err := validateText(fmt.Sprintf("lore line %d", i+1), l, MaxLoreLineBytes); err != nil {
			return item{}, err
		}
	}
	if len(s.Enchantments) > MaxEnchantments {
		return item{}, errf(CodeInvalidItem, "%d enchantments; at most %d allowed", len(s.Enchantments), MaxEnchantments)
	}
	x := &itemExtra{name: s.DisplayName}
	if len(s.Lore) > 0 {
		x.lore = slices.Clone(s.Lore)
	}
	for _, e := range s.Enchantments {
		id, ok := enchantmentID(e.Key)
		if !ok {
			return item{}, errf(CodeInvalidItem, "unknown enchantment %q", truncateForMsg(e.Key))
		}
		if e.Level < 1 || e.Level > MaxEnchantLevel {
			return item{}, errf(CodeInvalidItem, "enchantment %s level %d is outside 1..%d", e.Key, e.Level, MaxEnchantLevel)
		}
		for _, have := range x.ench {
			if have.id == id {
				return item{}, errf(CodeInvalidItem, "enchantment %s given twice", e.Key)
			}
		}
		x.ench = append(x.ench, ench{id: id, level: uint8(e.Level)})
	}
	slices.SortFunc(x.ench, func(a, b ench) int {
		return strings.Compare(enchantments[a.id].Key, enchantments[b.id].Key)
	})
	it.x = x
	return it, nil
}

// truncateForMsg keeps error messages short when the input is hostile.
func truncateForMsg(s string) string {
	if len(s) <= 40 {
		return s
	}
	cut := 40
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "…"
}

// Item blob format, version 1:
//
//	byte    version (1)
//	[16]    stack id
//	str     material key
//	uvarint amount
//	str     display name
//	uvarint lore count, then str per line
//	uvarint enchantment count, then str key + uvarint level each
//
// str is a uvarint length followed by UTF-8 bytes. Keys are stored as text,
// not catalogue indexes, so that a catalogue change never changes meaning.
const itemBlobVersion = 1

func encodeItem(dst []byte, it item) []byte {
	dst = append(dst, itemBlobVersion)
	dst = append(dst, it.uid[:]...)
	dst = appendStr(dst, materials[it.mat].Key)
	dst = binary.AppendUvarint(dst, uint64(it.amount))
	if it.x == nil {
		return append(dst, 0, 0, 0)
	}
	dst = appendStr(dst, it.x.name)
	dst = binary.AppendUvarint(dst, uint64(len(it.x.lore)))
	for _, l := range it.x.lore {
		dst = appendStr(dst, l)
	}
	dst = binary.AppendUvarint(dst, uint64(len(it.x.ench)))
	for _, e := range it.x.ench {
		dst = appendStr(dst, enchantments[e.id].Key)
		dst = binary.AppendUvarint(dst, uint64(e.level))
	}
	return dst
}

func appendStr(dst []byte, s string) []byte {
	dst = binary.AppendUvarint(dst, uint64(len(s)))
	return append(dst, s...)
}

var errBlob = errors.New("malformed item blob")

type blobReader struct {
	b   []byte
	err error
}

func (r *blobReader) uvarint() uint64 {
	if r.err != nil {
		return 0
	}
	v, n := binary.Uvarint(r.b)
	if n <= 0 {
		r.err = errBlob
		return 0
	}
	r.b = r.b[n:]
	return v
}

func (r *blobReader) bytes(max int) []byte {
	n := r.uvarint()
	if r.err != nil {
		return nil
	}
	if n > uint64(max) || n > uint64(len(r.b)) {
		r.err = errBlob
		return nil
	}
	s := r.b[:n]
	r.b = r.b[n:]
	return s
}

// decodeItem parses an item blob and validates it as strictly as toItem: a
// store that was edited by hand cannot smuggle in an impossible item.
func decodeItem(b []byte) (item, error) {
	if len(b) < 17 || b[0] != itemBlobVersion {
		return item{}, errBlob
	}
	var it item
	copy(it.uid[:], b[1:17])
	r := blobReader{b: b[17:]}
	matKey := r.bytes(64)
	amount := r.uvarint()
	name := r.bytes(MaxDisplayNameBytes)
	nLore := r.uvarint()
	if r.err != nil || nLore > MaxLoreLines {
		return item{}, errBlob
	}
	mat, ok := materialID(string(matKey))
	if !ok || amount < 1 || amount > uint64(materials[mat].MaxStack) {
		return item{}, errBlob
	}
	it.mat, it.amount = mat, uint8(amount)
	var x *itemExtra
	if len(name) > 0 || nLore > 0 {
		x = &itemExtra{name: string(name)}
	}
	for i := uint64(0); i < nLore; i++ {
		x.lore = append(x.lore, string(r.bytes(MaxLoreLineBytes)))
	}
	nEnch := r.uvarint()
	if r.err != nil || nEnch > MaxEnchantments {
		return item{}, errBlob
	}
	if nEnch > 0 && x == nil {
		x = &itemExtra{}
	}
	for i := uint64(0); i < nEnch; i++ {
		key := r.bytes(64)
		lvl := r.uvarint()
		id, ok := enchantmentID(string(key))
		if r.err != nil || !ok || lvl < 1 || lvl > MaxEnchantLevel {
			return item{}, errBlob
		}
		x.ench = append(x.ench, ench{id: id, level: uint8(lvl)})
	}
	if r.err != nil || len(r.b) != 0 {
		return item{}, errBlob
	}
	if x != nil {
		// As strict as toItem: a hand-edited row cannot smuggle in text or
		// enchantments that live input would refuse.
		if validateText("display name", x.name, MaxDisplayNameBytes) != nil {
			return item{}, errBlob
		}
		for _, l := range x.lore {
			if validateText("lore", l, MaxLoreLineBytes) != nil {
				return item{}, errBlob
			}
		}
		for i := 1; i < len(x.ench); i++ {
			if enchantments[x.ench[i-1].id].Key >= enchantments[x.ench[i].id].Key {
				return item{}, errBlob
			}
		}
	}
	it.x = x
	return it, nil
}

// inventory is a player's 36 storage slots; mat 0 marks an empty slot.
type inventory = [InventorySize]item

// encodeInventory writes the occupied slots as: byte slot, uvarint length,
// item blob.
func encodeInventory(dst []byte, inv *inventory) []byte {
	var buf []byte
	for i := range inv {
		if inv[i].mat == 0 {
			continue
		}
		buf = encodeItem(buf[:0], inv[i])
		dst = append(dst, byte(i))
		dst = binary.AppendUvarint(dst, uint64(len(buf)))
		dst = append(dst, buf...)
	}
	return dst
}

func decodeInventory(b []byte) (inventory, error) {
	var inv inventory
	for len(b) > 0 {
		slot := int(b[0])
		if slot >= InventorySize || inv[slot].mat != 0 {
			return inv, errBlob
		}
		n, k := binary.Uvarint(b[1:])
		if k <= 0 || n > uint64(len(b)-1-k) {
			return inv, errBlob
		}
		it, err := decodeItem(b[1+k : 1+k+int(n)])
		if err != nil {
			return inv, err
		}
		inv[slot] = it
		b = b[1+k+int(n):]
	}
	return inv, nil
}

// stateIndex maps a state to its position in States(), for the timeline blob.
func stateIndex(s State) int {
	for i, t := range States() {
		if t == s {
			return i
		}
	}
	return -1
}

// timeline is the compact in-memory state history of a transaction.
type timeline []stamp

type stamp struct {
	state uint8 // index into States()
	at    int64 // unix ms
}

func encodeTimeline(dst []byte, tl timeline) []byte {
	for _, s := range tl {
		dst = append(dst, s.state)
		dst = binary.AppendVarint(dst, s.at)
	}
	return dst
}

func decodeTimeline(b []byte) (timeline, error) {
	var tl timeline
	for len(b) > 0 {
		st := b[0]
		if int(st) >= len(States()) {
			return nil, errBlob
		}
		v, n := binary.Varint(b[1:])
		if n <= 0 {
			return nil, errBlob
		}
		tl = append(tl, stamp{state: st, at: v})
		b = b[1+n:]
	}
	return tl, nil
}

func (tl timeline) public() []StateTime {
	out := make([]StateTime, len(tl))
	all := States()
	for i, s := range tl {
		out[i] = StateTime{State: all[s.state], At: time.UnixMilli(s.at).UTC()}
	}
	return out
}

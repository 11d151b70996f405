package market

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"math/bits"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/google/uuid"
	"github.com/rynek/rynek/market/catalog"
	"github.com/rynek/rynek/market/playertext"
)

// Limits on item input. They bound memory per listing and the work a single
// hostile item can cause; the game itself allows similar sizes.
const (
	MaxDisplayNameBytes = 256
	MaxLoreLines        = 16
	MaxLoreLineBytes    = 256
	MaxEnchantments     = 16
)

// item is the compact in-memory form of an ItemStack: 32 bytes plus an
// optional extra for the uncommon parts, so that a million listings stay
// within the memory budget (most stacks have no name, lore or enchantments).
type item struct {
	uid    uuid.UUID
	mat    uint16
	amount uint8
	// stackMax is the item's own maximum stack size (Paper's
	// max_stack_size component), 1..MaxItemStack, or 0 when it has the
	// material's. It fits in what would otherwise be padding.
	stackMax uint8
	x        *itemExtra
}

type itemExtra struct {
	name     string
	lore     []string
	ench     []ench
	original original
}

type ench struct {
	id    uint8
	level uint8
}

// original is an item as another system stored it, kept verbatim so that an
// export can give it back unchanged: an importer cannot know every component
// or meta key a server or plugin wrote. It is
// provenance, not identity: sameKind ignores it.
type original struct {
	format uint8  // originalNone, or what data is
	data   string // the bytes, never empty when format is set
}

// Formats of original.data, the numbers that ItemStack.Original's formats
// (OriginalFormat) have in the item blob.
const (
	originalNone = 0
	// originalBukkitYAML is an item's subtree of the original plugin's
	// listings.yml or market-data.yml, as UTF-8 YAML.
	originalBukkitYAML = 1
)

// MaxOriginalBytes bounds an item's original form.
const MaxOriginalBytes = 1 << 20

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

// maxStack is how many of the item one stack may hold.
func (it item) maxStack() int {
	if it.stackMax != 0 {
		return int(it.stackMax)
	}
	return catalog.Material(it.mat).MaxStack
}

// categories returns the item's category set.
func (it item) categories() catalog.CategorySet {
	var buf [MaxEnchantments]uint8
	return catalog.Categories(it.mat, it.enchIDs(buf[:0]))
}

// stack returns the public form of it.
func (it item) stack() ItemStack {
	s := ItemStack{ID: it.uid, Material: catalog.Material(it.mat).Key, Amount: int(it.amount), MaxStack: int(it.stackMax)}
	if it.x != nil {
		s.DisplayName = it.x.name
		if len(it.x.lore) > 0 {
			s.Lore = slices.Clone(it.x.lore)
		}
		if len(it.x.ench) > 0 {
			s.Enchantments = make([]Enchantment, len(it.x.ench))
			for i, e := range it.x.ench {
				s.Enchantments[i] = Enchantment{Key: catalog.Enchantment(e.id).Key, Level: int(e.level)}
			}
		}
		s.Original = ItemOriginal{Format: OriginalFormat(it.x.original.format), Data: it.x.original.data}
	}
	return s
}

// sameKind reports whether a and b are the same item apart from identity and
// amount (Bukkit's isSimilar). The original form is provenance and does not
// count.
func (it item) sameKind(o item) bool {
	if it.mat != o.mat || it.stackMax != o.stackMax {
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

// toItem validates a public ItemStack and converts it to the compact form. A
// material or enchantment outside the catalogue is kept (see registry.go); it
// is added to the tables only once everything else has passed, so that a
// refused item leaves them as they were.
func toItem(s ItemStack) (item, error) {
	canon, mat, err := catalog.FindMaterial(s.Material)
	if err != nil {
		return item{}, invalidItem(err)
	}
	stackOf := catalog.RuntimeMaterialStack // a material outside the catalogue: the game's default
	if mat != 0 {
		stackOf = catalog.Material(mat).MaxStack
	}
	it := item{uid: s.ID, mat: mat}
	limit := stackOf
	if s.MaxStack != 0 {
		if s.MaxStack < 1 || s.MaxStack > catalog.MaxItemStack {
			return item{}, errf(CodeInvalidItem, "max stack size %d of %s is outside 1..%d", s.MaxStack, playertext.Excerpt(canon), catalog.MaxItemStack)
		}
		if s.MaxStack != stackOf {
			limit, it.stackMax = s.MaxStack, uint8(s.MaxStack)
		}
	}
	if s.Amount < 1 || s.Amount > limit {
		return item{}, errf(CodeInvalidItem, "amount %d of %s is outside 1..%d", s.Amount, playertext.Excerpt(canon), limit)
	}
	it.amount = uint8(s.Amount)
	var x *itemExtra
	var pending []pendingEnch
	if s.DisplayName != "" || len(s.Lore) > 0 || len(s.Enchantments) > 0 || s.Original != (ItemOriginal{}) {
		if x, pending, err = toItemExtra(s); err != nil {
			return item{}, err
		}
	}
	// Valid: learn what is new.
	if it.mat == 0 {
		if it.mat, err = catalog.AddMaterial(canon); err != nil {
			return item{}, invalidItem(err)
		}
	}
	for i, p := range pending {
		id := p.id
		if id == 0 {
			if id, err = catalog.AddEnchantment(p.key); err != nil {
				return item{}, invalidItem(err)
			}
		}
		x.ench[i] = ench{id: id, level: p.level}
	}
	it.x = x
	return it, nil
}

// invalidItem is the market's INVALID_ITEM for a key the catalogue refused
// (catalog.ErrInvalidKey), with the catalogue's text.
func invalidItem(err error) error { return &Error{Code: CodeInvalidItem, Msg: err.Error()} }

// pendingEnch is a validated enchantment whose id may not exist yet (id 0).
type pendingEnch struct {
	key   string // stored form
	id    uint8
	level uint8
}

// toItemExtra validates the uncommon parts of s. The enchantments come back
// sorted by key, with x.ench sized for them but not yet filled.
func toItemExtra(s ItemStack) (*itemExtra, []pendingEnch, error) {
	if err := validateText("display name", s.DisplayName, MaxDisplayNameBytes); err != nil {
		return nil, nil, err
	}
	if len(s.Lore) > MaxLoreLines {
		return nil, nil, errf(CodeInvalidItem, "lore has %d lines; at most %d allowed", len(s.Lore), MaxLoreLines)
	}
	for i, l := range s.Lore {
		if err := validateText(fmt.Sprintf("lore line %d", i+1), l, MaxLoreLineBytes); err != nil {
			return nil, nil, err
		}
	}
	if len(s.Enchantments) > MaxEnchantments {
		return nil, nil, errf(CodeInvalidItem, "%d enchantments; at most %d allowed", len(s.Enchantments), MaxEnchantments)
	}
	switch o := s.Original; {
	case o == ItemOriginal{}:
	case o.Format != OriginalBukkitYAML:
		return nil, nil, errf(CodeInvalidItem, "original form has unknown format %d", o.Format)
	case o.Data == "":
		return nil, nil, errf(CodeInvalidItem, "original form is empty")
	case len(o.Data) > MaxOriginalBytes:
		return nil, nil, errf(CodeInvalidItem, "original form is %d bytes long; at most %d allowed", len(o.Data), MaxOriginalBytes)
	case !utf8.ValidString(o.Data):
		return nil, nil, errf(CodeInvalidItem, "original form is not valid UTF-8")
	}
	x := &itemExtra{name: s.DisplayName, original: original{format: uint8(s.Original.Format), data: s.Original.Data}}
	if len(s.Lore) > 0 {
		x.lore = slices.Clone(s.Lore)
	}
	var pending []pendingEnch
	for _, e := range s.Enchantments {
		key, err := catalog.CanonicalEnchantmentKey(e.Key)
		if err != nil {
			return nil, nil, invalidItem(err)
		}
		if e.Level < 1 || e.Level > catalog.MaxEnchantLevel {
			return nil, nil, errf(CodeInvalidItem, "enchantment %s level %d is outside 1..%d", playertext.Excerpt(key), e.Level, catalog.MaxEnchantLevel)
		}
		for _, have := range pending {
			if have.key == key {
				return nil, nil, errf(CodeInvalidItem, "enchantment %s given twice", playertext.Excerpt(key))
			}
		}
		id, _ := catalog.StoredEnchantmentID(key)
		pending = append(pending, pendingEnch{key: key, id: uint8(id), level: uint8(e.Level)})
	}
	slices.SortFunc(pending, func(a, b pendingEnch) int { return strings.Compare(a.key, b.key) })
	if len(pending) > 0 {
		x.ench = make([]ench, len(pending))
	}
	return x, pending, nil
}

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
	itemBlobV1 = 1
	itemBlobV2 = 2
	// v1KeyBytes is the longest key that version 1 holds.
	v1KeyBytes = 64
)

// needsV2 reports whether the item has anything that version 1 cannot hold.
func (it item) needsV2() bool {
	if it.stackMax != 0 || len(catalog.Material(it.mat).Key) > v1KeyBytes {
		return true
	}
	if it.x == nil {
		return false
	}
	if it.x.original.format != originalNone {
		return true
	}
	for _, e := range it.x.ench {
		if len(catalog.Enchantment(e.id).Key) > v1KeyBytes {
			return true
		}
	}
	return false
}

func encodeItem(dst []byte, it item) []byte {
	v2 := it.needsV2()
	if v2 {
		dst = append(dst, itemBlobV2)
	} else {
		dst = append(dst, itemBlobV1)
	}
	dst = append(dst, it.uid[:]...)
	dst = appendStr(dst, catalog.Material(it.mat).Key)
	dst = binary.AppendUvarint(dst, uint64(it.amount))
	if v2 {
		dst = binary.AppendUvarint(dst, uint64(it.stackMax))
	}
	x := it.x
	if x == nil {
		x = &itemExtra{}
	}
	dst = appendStr(dst, x.name)
	dst = binary.AppendUvarint(dst, uint64(len(x.lore)))
	for _, l := range x.lore {
		dst = appendStr(dst, l)
	}
	dst = binary.AppendUvarint(dst, uint64(len(x.ench)))
	for _, e := range x.ench {
		dst = appendStr(dst, catalog.Enchantment(e.id).Key)
		dst = binary.AppendUvarint(dst, uint64(e.level))
	}
	if v2 {
		dst = binary.AppendUvarint(dst, uint64(x.original.format))
		if x.original.format != originalNone {
			dst = appendStr(dst, x.original.data)
		}
	}
	return dst
}

func appendStr(dst []byte, s string) []byte {
	dst = binary.AppendUvarint(dst, uint64(len(s)))
	return append(dst, s...)
}

var errBlob = errors.New("malformed item blob")

// blobReader reads the fields of a blob, remembering the first error. It
// accepts only minimal varints: binary.Uvarint also takes padded ones
// ("\x80\x00" for 0), which would give one value two encodings.
type blobReader struct {
	b   []byte
	err error
}

func (r *blobReader) uvarint() uint64 {
	if r.err != nil {
		return 0
	}
	v, n := binary.Uvarint(r.b)
	if n <= 0 || n != uvarintLen(v) {
		r.err = errBlob
		return 0
	}
	r.b = r.b[n:]
	return v
}

// listingID reads a listing id, which is at most math.MaxInt32 everywhere:
// a larger varint would be cut to another id, and the next write would not
// give back what was read.
func (r *blobReader) listingID() uint32 {
	v := r.uvarint()
	if v > math.MaxInt32 {
		r.err = errBlob
		return 0
	}
	return uint32(v)
}

// varint reads a zig-zag varint, as binary.AppendVarint writes it.
func (r *blobReader) varint() int64 {
	u := r.uvarint()
	v := int64(u >> 1)
	if u&1 != 0 {
		v = ^v
	}
	return v
}

// byte reads one byte.
func (r *blobReader) byte() byte {
	if r.err != nil {
		return 0
	}
	if len(r.b) == 0 {
		r.err = errBlob
		return 0
	}
	c := r.b[0]
	r.b = r.b[1:]
	return c
}

// fixed reads the next len(dst) bytes into dst.
func (r *blobReader) fixed(dst []byte) {
	if r.err != nil {
		return
	}
	if len(r.b) < len(dst) {
		r.err = errBlob
		return
	}
	copy(dst, r.b)
	r.b = r.b[len(dst):]
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

// uvarintLen is the length of v's minimal uvarint encoding.
func uvarintLen(v uint64) int {
	return (bits.Len64(v|1) + 6) / 7
}

// decodeItem parses an item blob and validates it as strictly as toItem: a
// store that was edited by hand cannot smuggle in an impossible item. It
// accepts exactly the blobs that encodeItem writes. A material or enchantment
// outside the catalogue is added to the tables, as toItem does.
func decodeItem(b []byte) (item, error) {
	r := blobReader{b: b}
	version := r.byte()
	if version != itemBlobV1 && version != itemBlobV2 {
		return item{}, errBlob
	}
	keyMax := v1KeyBytes
	if version == itemBlobV2 {
		keyMax = catalog.MaxKeyBytes
	}
	var it item
	r.fixed(it.uid[:])
	matKey := r.bytes(keyMax)
	amount := r.uvarint()
	var stackMax uint64
	if version == itemBlobV2 {
		stackMax = r.uvarint()
	}
	// x stays on the stack unless the item has an extra part: most have none.
	x := itemExtra{name: string(r.bytes(MaxDisplayNameBytes))}
	nLore := r.uvarint()
	if r.err != nil || nLore > MaxLoreLines {
		return item{}, errBlob
	}
	for i := uint64(0); i < nLore; i++ {
		x.lore = append(x.lore, string(r.bytes(MaxLoreLineBytes)))
	}
	nEnch := r.uvarint()
	if r.err != nil || nEnch > MaxEnchantments {
		return item{}, errBlob
	}
	var enchKeys [MaxEnchantments][]byte
	for i := range nEnch {
		enchKeys[i] = r.bytes(keyMax)
		lvl := r.uvarint()
		if lvl < 1 || lvl > catalog.MaxEnchantLevel {
			return item{}, errBlob
		}
		x.ench = append(x.ench, ench{level: uint8(lvl)})
	}
	if version == itemBlobV2 {
		if format := r.uvarint(); format != originalNone {
			x.original = original{format: uint8(format), data: string(r.bytes(MaxOriginalBytes))}
			if format != originalBukkitYAML || x.original.data == "" || !utf8.ValidString(x.original.data) {
				return item{}, errBlob
			}
		}
	}
	if r.err != nil || len(r.b) != 0 || stackMax > catalog.MaxItemStack {
		return item{}, errBlob
	}
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
	for i := range x.ench {
		id, ok := catalog.CatalogueEnchantmentID(enchKeys[i])
		if !ok {
			key := string(enchKeys[i])
			if canon, err := catalog.CanonicalEnchantmentKey(key); err != nil || canon != key {
				return item{}, errBlob
			}
			id, _ = catalog.StoredEnchantmentID(key)
		}
		if i > 0 && string(enchKeys[i-1]) >= string(enchKeys[i]) {
			return item{}, errBlob
		}
		x.ench[i].id = id // 0 until added below
	}
	id, ok := catalog.CatalogueMaterialID(matKey)
	mat := int(id)
	if !ok {
		canon, id, err := catalog.FindMaterial(string(matKey))
		if err != nil || canon != string(matKey) {
			return item{}, errBlob
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
		return item{}, errBlob
	}
	// Valid: learn what is new.
	if mat == 0 {
		id, err := catalog.AddMaterial(string(matKey))
		if err != nil {
			return item{}, invalidItem(err)
		}
		mat = int(id)
	}
	for i := range x.ench {
		if x.ench[i].id == 0 {
			id, err := catalog.AddEnchantment(string(enchKeys[i]))
			if err != nil {
				return item{}, invalidItem(err)
			}
			x.ench[i].id = id
		}
	}
	it.mat, it.amount, it.stackMax = uint16(mat), uint8(amount), uint8(stackMax)
	if x.name != "" || len(x.lore) > 0 || len(x.ench) > 0 || x.original.format != originalNone {
		it.x = new(itemExtra)
		*it.x = x
	}
	if it.needsV2() != (version == itemBlobV2) {
		return item{}, errBlob // version 1 would have held it
	}
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

// decodeInventory accepts exactly what encodeInventory writes: slots in
// ascending order, each once.
func decodeInventory(b []byte) (inventory, error) {
	var inv inventory
	r := blobReader{b: b}
	last := -1
	for len(r.b) > 0 {
		slot := int(r.byte())
		blob := r.bytes(len(r.b))
		if r.err != nil || slot <= last || slot >= InventorySize {
			return inv, errBlob
		}
		it, err := decodeItem(blob)
		if err != nil {
			return inv, err
		}
		inv[slot], last = it, slot
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
	r := blobReader{b: b}
	for len(r.b) > 0 {
		st := r.byte()
		at := r.varint()
		if r.err != nil || int(st) >= len(States()) {
			return nil, errBlob
		}
		tl = append(tl, stamp{state: st, at: at})
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

// CategoriesOf returns the categories of an item stack. A material the market
// does not know is filed under OTHER, as it would be once listed.
func CategoriesOf(s ItemStack) []catalog.Category {
	id, _ := catalog.MaterialID(s.Material)
	var ids []uint8
	for _, e := range s.Enchantments {
		if eid, ok := catalog.EnchantmentID(e.Key); ok {
			ids = append(ids, eid)
		}
	}
	return catalog.Categories(id, ids).List()
}

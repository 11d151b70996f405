package market

import (
	"fmt"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/rynek/rynek/market/catalog"
	"github.com/rynek/rynek/market/internal/item"
	"github.com/rynek/rynek/market/internal/record"
	"github.com/rynek/rynek/market/internal/search"
	"github.com/rynek/rynek/market/playertext"
)

// Limits on item input. They bound memory per listing and the work a single
// hostile item can cause; the game itself allows similar sizes. The item
// model (market/internal/item) holds them, and its decoder refuses a stored
// item past them as toItem refuses one given.
const (
	MaxDisplayNameBytes = item.MaxDisplayNameBytes
	MaxLoreLines        = item.MaxLoreLines
	MaxLoreLineBytes    = item.MaxLoreLineBytes
	MaxEnchantments     = item.MaxEnchantments
	// MaxOriginalBytes bounds an item's original form.
	MaxOriginalBytes = item.MaxOriginalBytes
)

// stackOf returns the public form of it.
func stackOf(it item.Item) ItemStack {
	s := ItemStack{ID: it.UID, Material: catalog.Material(it.Mat).Key, Amount: int(it.Amount), MaxStack: int(it.StackMax)}
	if it.X != nil {
		s.DisplayName = it.X.Name
		if len(it.X.Lore) > 0 {
			s.Lore = slices.Clone(it.X.Lore)
		}
		if len(it.X.Ench) > 0 {
			s.Enchantments = make([]Enchantment, len(it.X.Ench))
			for i, e := range it.X.Ench {
				s.Enchantments[i] = Enchantment{Key: catalog.Enchantment(e.ID).Key, Level: int(e.Level)}
			}
		}
		s.Original = ItemOriginal{Format: OriginalFormat(it.X.Original.Format), Data: it.X.Original.Data}
	}
	return s
}

// toItem validates a public ItemStack and converts it to the compact form. A
// material or enchantment outside the catalogue is kept (see registry.go); it
// is added to the tables only once everything else has passed, so that a
// refused item leaves them as they were.
func toItem(s ItemStack) (item.Item, error) {
	canon, mat, err := catalog.FindMaterial(s.Material)
	if err != nil {
		return item.Item{}, invalidItem(err)
	}
	stackOf := catalog.RuntimeMaterialStack // a material outside the catalogue: the game's default
	if mat != 0 {
		stackOf = catalog.Material(mat).MaxStack
	}
	it := item.Item{UID: s.ID, Mat: mat}
	limit := stackOf
	if s.MaxStack != 0 {
		if s.MaxStack < 1 || s.MaxStack > catalog.MaxItemStack {
			return item.Item{}, errf(CodeInvalidItem, "max stack size %d of %s is outside 1..%d", s.MaxStack, playertext.Excerpt(canon), catalog.MaxItemStack)
		}
		if s.MaxStack != stackOf {
			limit, it.StackMax = s.MaxStack, uint8(s.MaxStack)
		}
	}
	if s.Amount < 1 || s.Amount > limit {
		return item.Item{}, errf(CodeInvalidItem, "amount %d of %s is outside 1..%d", s.Amount, playertext.Excerpt(canon), limit)
	}
	it.Amount = uint8(s.Amount)
	var x *item.Extra
	var pending []pendingEnch
	if s.DisplayName != "" || len(s.Lore) > 0 || len(s.Enchantments) > 0 || s.Original != (ItemOriginal{}) {
		if x, pending, err = toItemExtra(s); err != nil {
			return item.Item{}, err
		}
	}
	// Valid: learn what is new.
	if it.Mat == 0 {
		if it.Mat, err = catalog.AddMaterial(canon); err != nil {
			return item.Item{}, invalidItem(err)
		}
	}
	for i, p := range pending {
		id := p.id
		if id == 0 {
			if id, err = catalog.AddEnchantment(p.key); err != nil {
				return item.Item{}, invalidItem(err)
			}
		}
		x.Ench[i] = item.Ench{ID: id, Level: p.level}
	}
	it.X = x
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
func toItemExtra(s ItemStack) (*item.Extra, []pendingEnch, error) {
	if err := item.ValidateText("display name", s.DisplayName, MaxDisplayNameBytes); err != nil {
		return nil, nil, invalidItem(err)
	}
	if len(s.Lore) > MaxLoreLines {
		return nil, nil, errf(CodeInvalidItem, "lore has %d lines; at most %d allowed", len(s.Lore), MaxLoreLines)
	}
	for i, l := range s.Lore {
		if err := item.ValidateText(fmt.Sprintf("lore line %d", i+1), l, MaxLoreLineBytes); err != nil {
			return nil, nil, invalidItem(err)
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
	x := &item.Extra{Name: s.DisplayName, Original: item.Original{Format: uint8(s.Original.Format), Data: s.Original.Data}}
	if len(s.Lore) > 0 {
		x.Lore = slices.Clone(s.Lore)
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
		x.Ench = make([]item.Ench, len(pending))
	}
	return x, pending, nil
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

// publicTimeline is the public form of a transaction's timeline.
func publicTimeline(tl record.Timeline) []StateTime {
	out := make([]StateTime, len(tl))
	all := States()
	for i, s := range tl {
		out[i] = StateTime{State: all[s.State], At: time.UnixMilli(s.At).UTC()}
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

// materialOf is the catalogue's material that key names ("OAK_LOG",
// "oak_log", "minecraft:oak_log"), or an error with code for one it does
// not know: INVALID_ITEM for what a change names, INVALID_QUERY for a read.
func materialOf(key string, code Code) (uint16, error) {
	mat, ok := catalog.MaterialID(strings.TrimSpace(key))
	if !ok {
		return 0, errf(code, "unknown material %q", playertext.Excerpt(key))
	}
	return mat, nil
}

// materialsListed is how many materials MaterialNamed's refusal names of
// those a text finds.
const materialsListed = 5

// MaterialNamed is the material a player means by text: its key in any
// form ("OAK_LOG", "minecraft:oak_log"), its name ("Oak Log"), or words a
// search finds it by, English or Polish, that name it whole ("diament" for
// Diamond, "diament miecz" for Diamond Sword) or find it alone. Words that
// find several and name none, or name several, are refused with the
// first few they find: the player types more of the name. Any goroutine.
func MaterialNamed(text string) (string, error) {
	t := strings.TrimSpace(text)
	if id, ok := catalog.MaterialID(strings.ReplaceAll(t, " ", "_")); ok {
		return catalog.Material(id).Key, nil
	}
	named, found := search.MaterialsFound(t)
	switch {
	case len(named) == 1:
		return catalog.Material(named[0]).Key, nil
	case len(named) == 0 && len(found) == 1:
		return catalog.Material(found[0]).Key, nil
	case len(found) == 0:
		return "", errf(CodeInvalidQuery, "no material is called %q", playertext.Excerpt(t))
	}
	some := named
	if len(some) == 0 {
		some = found
	}
	names := make([]string, 0, materialsListed)
	for _, id := range some[:min(len(some), materialsListed)] {
		names = append(names, catalog.Material(id).Name)
	}
	list := strings.Join(names, ", ")
	if len(some) > materialsListed {
		list += fmt.Sprintf(" and %d more", len(some)-materialsListed)
	}
	return "", errf(CodeInvalidQuery, "%q is more than one material (%s): type more of its name", playertext.Excerpt(t), list)
}

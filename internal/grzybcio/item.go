package grzybcio

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"unicode"

	"github.com/rynek/rynek/market"
	"github.com/rynek/rynek/market/catalog"
	"go.yaml.in/yaml/v3"
)

// Bukkit's tag of a serialized item, and the DataVersion of the game's 26.2,
// which an exported item made in Rynek carries.
const (
	itemStackTag      = "org.bukkit.inventory.ItemStack"
	exportDataVersion = 4903
)

// skip is why an entry is left out: its item is air, its amount is not
// positive, or something in it cannot be read. The plugin skipped such
// entries too.
type skip struct {
	at     *yaml.Node
	reason string
}

// readItem reads an ItemStack of either shape: the current one (Paper
// 1.20.5 and later: id, count, components of SNBT strings) or the legacy one
// (type, amount, meta). It extracts what Rynek searches, files and shows,
// and keeps the whole subtree as the item's original. Text longer than
// Rynek's limits is shortened for display only (the original keeps it
// whole); each shortening is returned as a note.
func (f *file) readItem(n *yaml.Node) (market.ItemStack, []string, *skip) {
	var s market.ItemStack
	if isNull(n) {
		return s, nil, &skip{n, "it has no item"}
	}
	if n.Kind != yaml.MappingNode {
		return s, nil, &skip{n, "its item is " + kindName(n) + ", not an item stack"}
	}
	if tag, ok := text(get(n, "==")); ok && tag != itemStackTag {
		return s, nil, &skip{n, fmt.Sprintf("its item is a %q, not an %s", truncate(tag, 60), itemStackTag)}
	}
	var x extract
	var sk *skip
	switch {
	case get(n, "id") != nil || get(n, "schema_version") != nil:
		sk = x.current(n)
	case get(n, "type") != nil:
		sk = x.legacy(n)
	default:
		return s, nil, &skip{n, "its item has neither an id (current shape) nor a type (legacy shape)"}
	}
	if sk != nil {
		return s, nil, sk
	}
	s = x.stack
	data, err := canonical(n)
	switch {
	case err != nil:
		x.note("the item's original could not be kept: %v", err)
	case len(data) > market.MaxOriginalBytes:
		x.note("the item's original (%d bytes) is too large to keep", len(data))
	default:
		s.Original = market.ItemOriginal{Format: market.OriginalBukkitYAML, Data: string(data)}
	}
	return s, x.notes, nil
}

// extract collects an item's searchable parts and notes about them.
type extract struct {
	stack market.ItemStack
	notes []string
}

func (x *extract) note(format string, args ...any) {
	x.notes = append(x.notes, fmt.Sprintf(format, args...))
}

// material checks and sets the item's material, refusing air.
func (x *extract) material(n *yaml.Node, key string) *skip {
	plain := strings.ToUpper(strings.TrimPrefix(strings.TrimSpace(key), "minecraft:"))
	switch plain {
	case "AIR", "CAVE_AIR", "VOID_AIR":
		return &skip{n, "its item is air"}
	}
	canon, err := catalog.CanonicalMaterialKey(key)
	if err != nil {
		return &skip{n, "its item's material is unreadable: " + err.Error()}
	}
	// A resource location's path is segments between '/': one that is
	// ".." (or ".") names no item, and would be served as it is.
	path := canon[strings.IndexByte(canon, ':')+1:]
	for _, seg := range strings.Split(path, "/") {
		if seg == ".." || seg == "." || seg == "" {
			return &skip{n, fmt.Sprintf("its item's material %q is not a resource location (namespace:path, the path's parts between '/' neither empty, '.' nor '..')",
				truncate(strings.TrimSpace(key), 60))}
		}
	}
	x.stack.Material = canon
	return nil
}

// amount checks and sets the stack's size: the plugin skipped a stack of 0
// or fewer.
func (x *extract) amount(n *yaml.Node, given bool) *skip {
	if !given {
		x.stack.Amount = 1 // the legacy shape omits an amount of 1
		return nil
	}
	v, ok := integer(n)
	switch {
	case !ok:
		return &skip{n, "its item's amount " + kindName(n) + " is not a whole number"}
	case v <= 0:
		return &skip{n, fmt.Sprintf("its item's amount is %d", v)}
	case v > catalog.MaxItemStack:
		return &skip{n, fmt.Sprintf("its item's amount %d is above the game's largest stack, %d", v, catalog.MaxItemStack)}
	}
	x.stack.Amount = int(v)
	return nil
}

// current reads the shape of Paper 1.20.5 and later.
func (x *extract) current(n *yaml.Node) *skip {
	idNode := get(n, "id")
	id, ok := text(idNode)
	if !ok {
		return &skip{n, "its item has no id"}
	}
	if sk := x.material(idNode, id); sk != nil {
		return sk
	}
	countNode := get(n, "count")
	if sk := x.amount(countNode, countNode != nil); sk != nil {
		return sk
	}
	comps := get(n, "components")
	if isNull(comps) {
		return nil
	}
	if comps.Kind != yaml.MappingNode {
		return &skip{comps, "its item's components are " + kindName(comps) + ", not a map"}
	}
	value := func(key string) any {
		s, ok := text(get(comps, key))
		if !ok {
			return nil
		}
		v, err := parseSNBT(s)
		if err != nil {
			x.note("component %s is not read: %v", key, err)
			return nil
		}
		return v
	}
	if v := value("minecraft:custom_name"); v != nil {
		x.name(legacyText(v))
	}
	if v, ok := value("minecraft:lore").([]any); ok {
		lines := make([]string, len(v))
		for i, l := range v {
			lines[i] = legacyText(l)
		}
		x.lore(lines)
	}
	var ench []market.Enchantment
	for _, key := range []string{"minecraft:enchantments", "minecraft:stored_enchantments"} {
		m, ok := value(key).(map[string]any)
		if !ok {
			continue
		}
		if levels, ok := m["levels"].(map[string]any); ok { // before 1.21.5
			m = levels
		}
		for k, lvl := range m {
			if l, ok := lvl.(float64); ok {
				ench = append(ench, market.Enchantment{Key: k, Level: int(l)})
			}
		}
	}
	x.enchantments(ench)
	if v, ok := value("minecraft:max_stack_size").(float64); ok {
		if v < 1 || v > catalog.MaxItemStack {
			x.note("max stack size %v is outside 1..%d and is not used", v, catalog.MaxItemStack)
		} else {
			x.stack.MaxStack = int(v)
		}
	}
	return nil
}

// legacy reads the shape of Spigot and older Paper.
func (x *extract) legacy(n *yaml.Node) *skip {
	typeNode := get(n, "type")
	typ, ok := text(typeNode)
	if !ok {
		return &skip{n, "its item has no type"}
	}
	if sk := x.material(typeNode, typ); sk != nil {
		return sk
	}
	amountNode := get(n, "amount")
	if sk := x.amount(amountNode, amountNode != nil); sk != nil {
		return sk
	}
	meta := get(n, "meta")
	if isNull(meta) {
		return nil
	}
	if meta.Kind != yaml.MappingNode {
		return &skip{meta, "its item's meta is " + kindName(meta) + ", not a map"}
	}
	if s, ok := text(get(meta, "display-name")); ok {
		x.name(legacyText(parseJSONText(s)))
	}
	if lore := get(meta, "lore"); lore != nil && lore.Kind == yaml.SequenceNode {
		var lines []string
		for _, l := range lore.Content {
			s, _ := text(deref(l))
			lines = append(lines, legacyText(parseJSONText(s)))
		}
		x.lore(lines)
	}
	var ench []market.Enchantment
	for _, key := range []string{"enchants", "stored-enchants"} {
		m := get(meta, key)
		if m == nil || m.Kind != yaml.MappingNode {
			continue
		}
		pairs(m, func(k, v *yaml.Node) error {
			if lvl, ok := integer(v); ok {
				ench = append(ench, market.Enchantment{Key: legacyEnchantment(k.Value), Level: int(min(max(lvl, -1), 1<<20))})
			}
			return nil
		})
	}
	x.enchantments(ench)
	return nil
}

// legacyEnchantments are Bukkit's old enchantment names whose key differs.
var legacyEnchantments = map[string]string{
	"PROTECTION_ENVIRONMENTAL": "protection", "PROTECTION_FIRE": "fire_protection", "PROTECTION_FALL": "feather_falling",
	"PROTECTION_EXPLOSIONS": "blast_protection", "PROTECTION_PROJECTILE": "projectile_protection",
	"OXYGEN": "respiration", "WATER_WORKER": "aqua_affinity", "DAMAGE_ALL": "sharpness", "DAMAGE_UNDEAD": "smite",
	"DAMAGE_ARTHROPODS": "bane_of_arthropods", "LOOT_BONUS_MOBS": "looting", "DIG_SPEED": "efficiency",
	"DURABILITY": "unbreaking", "LOOT_BONUS_BLOCKS": "fortune", "ARROW_DAMAGE": "power", "ARROW_KNOCKBACK": "punch",
	"ARROW_FIRE": "flame", "ARROW_INFINITE": "infinity", "LUCK": "luck_of_the_sea", "SWEEPING_EDGE": "sweeping_edge",
}

func legacyEnchantment(name string) string {
	if k, ok := legacyEnchantments[strings.ToUpper(name)]; ok {
		return k
	}
	return name
}

// name sets the display name, shortened to Rynek's limit.
func (x *extract) name(s string) {
	s = x.fit("display name", s)
	x.stack.DisplayName = s
}

// lore sets the lore, shortened to Rynek's limits.
func (x *extract) lore(lines []string) {
	if len(lines) > market.MaxLoreLines {
		x.note("lore has %d lines; the first %d are searched and shown", len(lines), market.MaxLoreLines)
		lines = lines[:market.MaxLoreLines]
	}
	for i, l := range lines {
		lines[i] = x.fit(fmt.Sprintf("lore line %d", i+1), l)
	}
	x.stack.Lore = lines
}

// fit shortens display text to Rynek's limit for it.
func (x *extract) fit(what, s string) string {
	if strings.IndexByte(s, 0) >= 0 {
		x.note("%s holds NUL characters, left out of what is shown", what)
		s = strings.ReplaceAll(s, "\x00", "")
	}
	limit := market.MaxDisplayNameBytes
	if what != "display name" {
		limit = market.MaxLoreLineBytes
	}
	if len(s) > limit {
		x.note("%s is %d bytes long; the first %d are searched and shown", what, len(s), limit)
		s = truncate(s, limit)
	}
	return s
}

// enchantments sets the enchantments: canonical keys, each once, levels in
// Rynek's range, at most its limit.
func (x *extract) enchantments(in []market.Enchantment) {
	var out []market.Enchantment
	for _, e := range in {
		key, err := catalog.CanonicalEnchantmentKey(e.Key)
		if err != nil {
			x.note("enchantment %q is not read: %v", truncate(e.Key, 40), err)
			continue
		}
		if slices.ContainsFunc(out, func(o market.Enchantment) bool { return o.Key == key }) {
			continue // on the item and stored, as a book may have it
		}
		switch {
		case e.Level < 1:
			x.note("enchantment %s has level %d and is not shown", key, e.Level)
			continue
		case e.Level > catalog.MaxEnchantLevel:
			x.note("enchantment %s level %d is shown as %d", key, e.Level, catalog.MaxEnchantLevel)
			e.Level = catalog.MaxEnchantLevel
		}
		out = append(out, market.Enchantment{Key: key, Level: e.Level})
	}
	slices.SortFunc(out, func(a, b market.Enchantment) int { return strings.Compare(a.Key, b.Key) })
	if len(out) > market.MaxEnchantments {
		x.note("%d enchantments; the first %d are searched and shown", len(out), market.MaxEnchantments)
		out = out[:market.MaxEnchantments]
	}
	x.stack.Enchantments = out
}

// maxOriginalNodes bounds the nodes of one kept item, aliases expanded, so
// that a file of aliases to aliases cannot blow up.
const maxOriginalNodes = 100_000

// canonical encodes an item's subtree in one form whatever SnakeYAML's
// choices were: aliases expanded, map keys sorted (SnakeYAML writes them in
// Java HashMap order), no comments or anchors, block style with a two-space
// indent, and each scalar plain when that is unambiguous, double-quoted
// otherwise (so a folded string and a plain one that say the same thing are
// the same bytes). It writes the text itself: the YAML library's encoder
// cost a third of an import.
func canonical(n *yaml.Node) ([]byte, error) {
	w := canonicalWriter{budget: maxOriginalNodes}
	if err := w.node(n, 0, 0); err != nil {
		return nil, err
	}
	return w.buf, nil
}

type canonicalWriter struct {
	buf    []byte
	budget int
}

func (w *canonicalWriter) indent(n int) {
	for range n {
		w.buf = append(w.buf, ' ')
	}
}

// node writes n, a value on lines of its own at indent.
func (w *canonicalWriter) node(n *yaml.Node, indent, depth int) error {
	n = deref(n)
	if w.budget--; w.budget < 0 || depth > maxNesting {
		return fmt.Errorf("it is too large or nested too deep")
	}
	switch {
	case n == nil || n.Kind == yaml.AliasNode:
		return fmt.Errorf("it holds an alias that leads nowhere")
	case n.Kind == yaml.MappingNode && len(n.Content) > 0:
		type kv struct {
			key string
			v   *yaml.Node
		}
		entries := make([]kv, 0, len(n.Content)/2)
		for i := 0; i+1 < len(n.Content); i += 2 {
			k := deref(n.Content[i])
			if k == nil || k.Kind != yaml.ScalarNode {
				return fmt.Errorf("it has a key that is not text")
			}
			entries = append(entries, kv{scalarText(k), n.Content[i+1]})
		}
		slices.SortStableFunc(entries, func(a, b kv) int { return strings.Compare(a.key, b.key) })
		for _, e := range entries {
			w.indent(indent)
			w.buf = append(w.buf, e.key...)
			w.buf = append(w.buf, ':')
			if err := w.value(e.v, indent+2, depth); err != nil {
				return err
			}
		}
	case n.Kind == yaml.SequenceNode && len(n.Content) > 0:
		for _, e := range n.Content {
			w.indent(indent)
			w.buf = append(w.buf, '-')
			if err := w.value(e, indent+2, depth); err != nil {
				return err
			}
		}
	default:
		w.indent(indent)
		if err := w.value(n, indent, depth); err != nil {
			return err
		}
	}
	return nil
}

// value writes n after a key's colon or a list's dash: a scalar or an empty
// collection on the same line, anything else on the lines that follow.
func (w *canonicalWriter) value(n *yaml.Node, indent, depth int) error {
	n = deref(n)
	switch {
	case n == nil || n.Kind == yaml.AliasNode:
		return fmt.Errorf("it holds an alias that leads nowhere")
	case n.Kind == yaml.ScalarNode:
		w.budget--
		w.buf = append(w.buf, ' ')
		w.buf = append(w.buf, scalarText(n)...)
		w.buf = append(w.buf, '\n')
		return nil
	case n.Kind == yaml.MappingNode && len(n.Content) == 0:
		w.buf = append(w.buf, " {}\n"...)
		return nil
	case n.Kind == yaml.SequenceNode && len(n.Content) == 0:
		w.buf = append(w.buf, " []\n"...)
		return nil
	case n.Kind != yaml.MappingNode && n.Kind != yaml.SequenceNode:
		return fmt.Errorf("it holds a YAML node of kind %d", n.Kind)
	}
	w.buf = append(w.buf, '\n')
	return w.node(n, indent, depth+1)
}

// scalarText writes a scalar so that it reads back with the same tag and
// value: plain when that is unambiguous, double-quoted otherwise, with its
// tag when the tag is not one plain text resolves to.
func scalarText(n *yaml.Node) string {
	switch tag := n.ShortTag(); tag {
	case "!!null":
		return "null"
	case "!!str":
		if plainString(n.Value) {
			return n.Value
		}
		return strconv.Quote(n.Value)
	case "!!bool", "!!int", "!!float":
		if plainWord(n.Value) {
			return n.Value
		}
		return tag + " " + strconv.Quote(n.Value)
	case "!!merge":
		return "<<"
	default:
		if !strings.HasPrefix(tag, "!") {
			tag = "!<" + tag + ">"
		}
		return tag + " " + strconv.Quote(n.Value)
	}
}

// plainWord reports whether a number or boolean is written in plain
// characters only.
func plainWord(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || strings.IndexByte("+-._", c) >= 0) {
			return false
		}
	}
	return true
}

// reservedWords are plain words that YAML (1.1 or 1.2) reads as something
// other than a string.
var reservedWords = map[string]bool{"true": true, "false": true, "yes": true, "no": true, "on": true, "off": true,
	"y": true, "n": true, "null": true}

// plainString reports whether s, written plain, certainly reads back as the
// string s: it starts with a letter, an underscore or '=' (Bukkit's "=="
// key), holds only letters, digits and "_.-/=:" and inner single spaces, has
// no ": " or " #" in it and does not end in ':'; and it is none of YAML's
// reserved words.
func plainString(s string) bool {
	if s == "" || len(s) > 200 || reservedWords[strings.ToLower(s)] {
		return false
	}
	for i, r := range s {
		switch {
		case r == '_' || r == '=' || unicode.IsLetter(r):
		case i == 0:
			return false
		case unicode.IsDigit(r) || strings.ContainsRune(".-/", r):
		case r == ':':
			if i == len(s)-1 || s[i+1] == ' ' {
				return false
			}
		case r == ' ':
			if i == len(s)-1 || s[i+1] == ' ' || s[i+1] == '#' {
				return false
			}
		default:
			return false
		}
	}
	return true
}

// itemNode is the YAML of a stack for an export: its kept original with the
// amount it has now (a stack sold in part is smaller than it came in), or,
// for a stack made in Rynek, the current shape built from its parts.
func itemNode(s market.ItemStack) (*yaml.Node, error) {
	if s.Original.Format == market.OriginalBukkitYAML {
		var doc yaml.Node
		if err := yaml.Unmarshal([]byte(s.Original.Data), &doc); err != nil || len(doc.Content) == 0 {
			return nil, fmt.Errorf("the kept original of item %s is not readable YAML", s.ID)
		}
		n := doc.Content[0]
		if get(n, "type") != nil && get(n, "id") == nil { // legacy: amount omitted when 1
			setAmount(n, "amount", s.Amount, s.Amount == 1)
		} else {
			setAmount(n, "count", s.Amount, false)
		}
		return n, nil
	}
	n := mapping()
	add(n, "==", str(itemStackTag))
	add(n, "DataVersion", integerNode(exportDataVersion))
	add(n, "id", str(resourceKey(s.Material)))
	add(n, "count", integerNode(int64(s.Amount)))
	comps := mapping()
	if s.DisplayName != "" {
		add(comps, "minecraft:custom_name", str(snbtString(s.DisplayName)))
	}
	if len(s.Lore) > 0 {
		quoted := make([]string, len(s.Lore))
		for i, l := range s.Lore {
			quoted[i] = snbtString(l)
		}
		add(comps, "minecraft:lore", str("["+strings.Join(quoted, ",")+"]"))
	}
	if len(s.Enchantments) > 0 {
		parts := make([]string, len(s.Enchantments))
		for i, e := range s.Enchantments {
			parts[i] = snbtString(resourceKey(e.Key)) + ":" + strconv.Itoa(e.Level)
		}
		key := "minecraft:enchantments"
		if s.Material == "ENCHANTED_BOOK" {
			key = "minecraft:stored_enchantments"
		}
		add(comps, key, str("{"+strings.Join(parts, ",")+"}"))
	}
	if s.MaxStack != 0 {
		add(comps, "minecraft:max_stack_size", str(strconv.Itoa(s.MaxStack)))
	}
	if len(comps.Content) > 0 {
		add(n, "components", comps)
	}
	add(n, "schema_version", integerNode(1))
	return n, nil
}

// setAmount sets key of mapping n to v, or removes it when omit.
func setAmount(n *yaml.Node, key string, v int, omit bool) {
	for i := 0; i+1 < len(n.Content); i += 2 {
		if n.Content[i].Value == key {
			if omit {
				n.Content = slices.Delete(n.Content, i, i+2)
			} else {
				n.Content[i+1] = integerNode(int64(v))
			}
			return
		}
	}
	if !omit {
		add(n, key, integerNode(int64(v)))
	}
}

// resourceKey is a stored material or enchantment key as the game writes
// it: DIAMOND_SWORD as minecraft:diamond_sword.
func resourceKey(k string) string {
	if strings.Contains(k, ":") {
		return k
	}
	return "minecraft:" + strings.ToLower(k)
}

func mapping() *yaml.Node { return &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map"} }

func sequence() *yaml.Node { return &yaml.Node{Kind: yaml.SequenceNode, Tag: "!!seq"} }

func str(s string) *yaml.Node { return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: s} }

func integerNode(v int64) *yaml.Node {
	return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!int", Value: strconv.FormatInt(v, 10)}
}

func add(m *yaml.Node, key string, v *yaml.Node) { m.Content = append(m.Content, str(key), v) }

package seed

import (
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/rynek/rynek/market"
	"github.com/rynek/rynek/market/catalog"
)

// excluded are materials never generated: the market's blacklist (the
// default one, and the rules' own) plus the other items that no survival
// player can have in their inventory.
func excluded(blacklist []string) map[string]bool {
	m := map[string]bool{}
	for _, k := range []string{"REINFORCED_DEEPSLATE", "END_PORTAL_FRAME", "BUDDING_AMETHYST",
		"CHORUS_PLANT", "FARMLAND", "DIRT_PATH", "FROGSPAWN", "PETRIFIED_OAK_SLAB", "VAULT", "TRIAL_SPAWNER"} {
		m[k] = true
	}
	for _, list := range [][]string{market.DefaultConfig().Blacklist, blacklist} {
		for _, k := range list {
			m[strings.ToUpper(k)] = true
		}
	}
	for _, info := range catalog.Materials() {
		if strings.HasSuffix(info.Key, "_SPAWN_EGG") || strings.HasPrefix(info.Key, "INFESTED_") {
			m[info.Key] = true
		}
	}
	return m
}

// popular materials are traded more often than the rest of their category.
var popular = map[string]float64{
	"DIAMOND": 8, "IRON_INGOT": 6, "GOLD_INGOT": 5, "NETHERITE_INGOT": 4, "EMERALD": 5,
	"NETHERITE_SCRAP": 3, "ANCIENT_DEBRIS": 3, "COAL": 4, "LAPIS_LAZULI": 3, "QUARTZ": 3,
	"OAK_LOG": 6, "SPRUCE_LOG": 4, "BIRCH_LOG": 3, "COBBLESTONE": 6, "STONE": 5, "DIRT": 3,
	"GLASS": 4, "OBSIDIAN": 5, "SAND": 3, "OAK_PLANKS": 4, "STONE_BRICKS": 3, "DEEPSLATE": 3,
	"SHULKER_BOX": 4, "BEACON": 2, "TORCH": 3, "BREAD": 5, "COOKED_BEEF": 6, "COOKED_PORKCHOP": 4,
	"GOLDEN_CARROT": 5, "GOLDEN_APPLE": 5, "ENCHANTED_GOLDEN_APPLE": 2, "ENDER_PEARL": 5,
	"ARROW": 4, "BOW": 3, "DIAMOND_SWORD": 5, "NETHERITE_SWORD": 4, "DIAMOND_PICKAXE": 5,
	"NETHERITE_PICKAXE": 4, "DIAMOND_AXE": 3, "ELYTRA": 3, "TOTEM_OF_UNDYING": 4, "SHIELD": 3,
	"DIAMOND_CHESTPLATE": 3, "NETHERITE_CHESTPLATE": 3, "DIAMOND_HELMET": 2, "DIAMOND_BOOTS": 2,
	"REDSTONE": 6, "HOPPER": 4, "PISTON": 4, "STICKY_PISTON": 3, "OBSERVER": 3, "REPEATER": 3,
	"COMPARATOR": 3, "POTION": 6, "SPLASH_POTION": 3, "EXPERIENCE_BOTTLE": 5,
	"WHEAT": 5, "CARROT": 4, "POTATO": 4, "SUGAR_CANE": 5, "BONE_MEAL": 4, "WHEAT_SEEDS": 3,
	"MELON_SLICE": 3, "PUMPKIN": 3, "BAMBOO": 3, "CACTUS": 2, "ENCHANTED_BOOK": 1,
	"BLAZE_ROD": 3, "SLIME_BALL": 3, "STRING": 3, "GUNPOWDER": 4, "LEATHER": 3, "FEATHER": 2,
	"PAPER": 2, "BOOK": 2, "NAME_TAG": 2, "SADDLE": 1, "NETHER_STAR": 1,
}

// categoryShare is the share of listings each item's main category gets, so
// that every one of the 11 categories (the twelfth, ALL, holds them all) is
// on the market.
var categoryShare = map[catalog.Category]float64{
	catalog.CategoryBlocks: 0.26, catalog.CategoryTools: 0.08, catalog.CategoryWeapons: 0.08,
	catalog.CategoryArmor: 0.08, catalog.CategoryFood: 0.10, catalog.CategoryFarming: 0.08,
	catalog.CategoryRedstone: 0.07, catalog.CategoryDecorations: 0.06, catalog.CategoryPotions: 0.05,
	catalog.CategoryEnchantedBooks: 0.05, catalog.CategoryOther: 0.09,
}

// mainOrder picks one main category of an item that is in several.
var mainOrder = []catalog.Category{
	catalog.CategoryEnchantedBooks, catalog.CategoryPotions, catalog.CategoryWeapons,
	catalog.CategoryTools, catalog.CategoryArmor, catalog.CategoryRedstone, catalog.CategoryFarming,
	catalog.CategoryFood, catalog.CategoryDecorations, catalog.CategoryBlocks, catalog.CategoryOther,
}

type matKind uint8

const (
	kindPlain    matKind = iota
	kindGear             // unstackable tool, weapon or armour: may be enchanted
	kindEnchBook         // ENCHANTED_BOOK: always 1-2 enchantments
	kindBook             // BOOK: rarely one enchantment
)

// mat is one tradable material with everything the hot path needs.
type mat struct {
	idx       int // in gen.mats
	key       string
	maxStack  int
	maxAmount int // MaxStack, lowered so that a full stack stays under maxPrice
	base      float64
	kind      matKind
	names     []string // display-name pool
	ench      []int    // indexes into gen.enchs that apply
	// Price drift over time: 1 + amp*sin(2π·days/period + phase) + trend·days/30.
	amp, period, phase, trend float64
}

type enchInfo struct {
	key    string
	max    int
	weight float64
	excl   uint16 // exclusivity groups: two enchantments sharing a bit conflict
}

// exclusive lists the groups of mutually exclusive enchantments.
var exclusive = [][]string{
	{"protection", "fire_protection", "blast_protection", "projectile_protection"},
	{"sharpness", "smite", "bane_of_arthropods", "density", "breach"},
	{"silk_touch", "fortune"},
	{"infinity", "mending"},
	{"multishot", "piercing"},
	{"riptide", "loyalty"},
	{"riptide", "channeling"},
	{"depth_strider", "frost_walker"},
}

// gen holds the precomputed tables of one Load.
type gen struct {
	mats    []mat
	matPick alias
	enchs   []enchInfo // sorted by key
	sellers alias
	ids     []uuid.UUID
	nowMs   int64
	enchBuf []market.Enchantment
	loreBuf []string
	// The price range a listing may have under the rules: their lowest
	// and highest price, and the maximum transaction value.
	minPrice, maxPrice market.Money
}

func newGen(o Options) *gen {
	g := &gen{ids: make([]uuid.UUID, o.Players), nowMs: o.Now.UnixMilli(), minPrice: o.rules.MinPrice, maxPrice: o.rules.MaxPrice}
	if v := o.rules.MaxTransactionValue; v > 0 {
		g.maxPrice = min(g.maxPrice, v)
	}
	skip := excluded(o.rules.Blacklist)
	r := newRand(o.Rand, streamMarket)

	// Enchantments, in key order so that picked sets sort by index.
	all := catalog.Enchantments()
	slices.SortFunc(all, func(a, b catalog.EnchantmentInfo) int { return strings.Compare(a.Key, b.Key) })
	idx := map[string]int{}
	for i, e := range all {
		w := 1.0
		if strings.HasSuffix(e.Key, "_curse") {
			w = 0.1
		}
		g.enchs = append(g.enchs, enchInfo{key: e.Key, max: e.MaxLevel, weight: w})
		idx[e.Key] = i
	}
	for gi, grp := range exclusive {
		for _, k := range grp {
			if i, ok := idx[k]; ok {
				g.enchs[i].excl |= 1 << gi
			}
		}
	}

	// Materials, weighted so that each main category gets its share.
	type cand struct {
		m    mat
		main catalog.Category
		w    float64
	}
	var cands []cand
	catWeight := map[catalog.Category]float64{}
	for _, info := range catalog.Materials() {
		if skip[info.Key] || info.BasePrice <= 0 {
			continue
		}
		cats := market.CategoriesOf(market.ItemStack{Material: info.Key, Amount: 1})
		main := catalog.CategoryOther
		for _, c := range mainOrder {
			if slices.Contains(cats, c) {
				main = c
				break
			}
		}
		m := mat{key: info.Key, maxStack: info.MaxStack, base: float64(info.BasePrice)}
		// A full stack at the top of the noise and drift must fit under maxPrice.
		m.maxAmount = max(1, min(info.MaxStack, int(float64(g.maxPrice)/(m.base*2.6))))
		switch info.Key {
		case "ENCHANTED_BOOK":
			m.kind = kindEnchBook
		case "BOOK":
			m.kind = kindBook
		}
		gear := info.MaxStack == 1 && (main == catalog.CategoryTools || main == catalog.CategoryWeapons || main == catalog.CategoryArmor)
		for i, e := range all {
			if m.kind != kindPlain || gear {
				if e.AppliesTo(info.Key) {
					m.ench = append(m.ench, i)
				}
			}
		}
		if gear && len(m.ench) > 0 {
			m.kind = kindGear
		}
		switch main {
		case catalog.CategoryWeapons:
			m.names = coloredWeapon
		case catalog.CategoryTools:
			m.names = coloredTool
		case catalog.CategoryArmor:
			m.names = coloredArmor
		case catalog.CategoryPotions:
			m.names = coloredPotion
		case catalog.CategoryEnchantedBooks:
			m.names = coloredBook
		default:
			m.names = coloredGeneric
			if m.kind == kindBook {
				m.names = coloredBook
			}
		}
		m.amp = 0.04 + 0.14*r.Float64()
		m.period = 3 + 17*r.Float64()
		m.phase = 2 * math.Pi * r.Float64()
		m.trend = 0.3 * (r.Float64() - 0.5)
		w := 1.0
		if p, ok := popular[info.Key]; ok {
			w = p
		}
		cands = append(cands, cand{m: m, main: main, w: w})
		catWeight[main] += w
	}
	weights := make([]float64, len(cands))
	for i, c := range cands {
		c.m.idx = i
		g.mats = append(g.mats, c.m)
		weights[i] = categoryShare[c.main] * c.w / catWeight[c.main]
	}
	g.matPick = newAlias(weights)

	// Sellers: Zipf-like over the players, Admin last in rank.
	sw := make([]float64, o.Players)
	for i := range sw {
		rank := i - 1
		if i == 0 {
			rank = o.Players - 1
		}
		sw[i] = math.Pow(float64(rank)+6, -1.1)
	}
	g.sellers = newAlias(sw)
	return g
}

func (g *gen) pickMaterial(r *rand.Rand) *mat { return &g.mats[g.matPick.pick(r)] }

// amount picks a stack size: full stacks are common, as on real markets.
func amount(r *rand.Rand, m *mat) int {
	n := m.maxAmount
	if n == 1 {
		return 1
	}
	switch x := r.IntN(100); {
	case x < 45:
		return n
	case x < 60 && n >= 32:
		return n / 2
	case x < 68 && n >= 16:
		return n / 4
	default:
		return 1 + r.IntN(n)
	}
}

// item generates a stack of m. pName and pLore are the chances of a display
// name and of lore. The returned stack's Lore and Enchantments alias buffers
// of g that the next call overwrites (market.Bulk copies them).
func (g *gen) item(r *rand.Rand, m *mat, pName, pLore float64) market.ItemStack {
	st := market.ItemStack{ID: randUUID(r), Material: m.key, Amount: amount(r, m)}
	if r.Float64() < pName {
		st.DisplayName = m.names[r.IntN(len(m.names))]
	}
	if r.Float64() < pLore {
		g.loreBuf = g.loreBuf[:0]
		for n := 1 + r.IntN(3); n > 0; n-- {
			g.loreBuf = append(g.loreBuf, loreLines[r.IntN(len(loreLines))])
		}
		st.Lore = g.loreBuf
	}
	switch m.kind {
	case kindGear:
		if r.Float64() < 0.40 {
			st.Enchantments = g.enchant(r, m, 1+min(r.IntN(4), r.IntN(4)))
		}
	case kindEnchBook:
		st.Enchantments = g.enchant(r, m, 1+r.IntN(2))
	case kindBook:
		if r.Float64() < 0.03 {
			st.Enchantments = g.enchant(r, m, 1)
		}
	}
	return st
}

// enchant picks up to n compatible enchantments applicable to m, sorted by key.
func (g *gen) enchant(r *rand.Rand, m *mat, n int) []market.Enchantment {
	var chosen [4]int
	k := 0
	var excl uint16
	for try := 0; k < n && try < 12; try++ {
		i := m.ench[r.IntN(len(m.ench))]
		e := &g.enchs[i]
		if e.excl&excl != 0 || slices.Contains(chosen[:k], i) || r.Float64() >= e.weight {
			continue
		}
		chosen[k] = i
		k++
		excl |= e.excl
	}
	if k == 0 {
		return nil
	}
	slices.Sort(chosen[:k])
	g.enchBuf = g.enchBuf[:0]
	for _, i := range chosen[:k] {
		e := &g.enchs[i]
		lvl := e.max
		if e.max > 1 && r.IntN(100) >= 45 {
			lvl = 1 + r.IntN(e.max)
		}
		g.enchBuf = append(g.enchBuf, market.Enchantment{Key: e.key, Level: lvl})
	}
	return g.enchBuf
}

const dayMs = 24 * 60 * 60 * 1000

// price is base × amount × enchantments × drift(m, at) × noise, noise
// clamped to [lo, hi], rounded to cents and clamped to the market's price
// range. Every enchantment level adds 30% to the price.
func (g *gen) price(m *mat, st *market.ItemStack, at int64, noise, lo, hi float64) market.Money {
	days := float64(at-g.nowMs) / dayMs
	drift := 1 + m.amp*math.Sin(2*math.Pi*days/m.period+m.phase) + m.trend*days/30
	drift = max(drift, 0.3)
	noise = min(max(noise, lo), hi)
	levels := 0
	for _, e := range st.Enchantments {
		levels += e.Level
	}
	p := market.Money(math.Round(m.base * float64(st.Amount) * (1 + 0.3*float64(levels)) * drift * noise))
	return min(max(p, g.minPrice), g.maxPrice)
}

// alias is Vose's alias table: O(1) weighted picks.
type alias struct {
	prob  []float64
	alias []int32
}

func newAlias(w []float64) alias {
	n := len(w)
	a := alias{prob: make([]float64, n), alias: make([]int32, n)}
	var sum float64
	for _, x := range w {
		sum += x
	}
	scaled := make([]float64, n)
	var small, large []int32
	for i, x := range w {
		scaled[i] = x * float64(n) / sum
		if scaled[i] < 1 {
			small = append(small, int32(i))
		} else {
			large = append(large, int32(i))
		}
	}
	for len(small) > 0 && len(large) > 0 {
		s, l := small[len(small)-1], large[len(large)-1]
		small = small[:len(small)-1]
		a.prob[s], a.alias[s] = scaled[s], l
		scaled[l] -= 1 - scaled[s]
		if scaled[l] < 1 {
			large = large[:len(large)-1]
			small = append(small, l)
		}
	}
	for _, i := range large {
		a.prob[i], a.alias[i] = 1, i
	}
	for _, i := range small {
		a.prob[i], a.alias[i] = 1, i
	}
	return a
}

func (a *alias) pick(r *rand.Rand) int {
	i := r.IntN(len(a.prob))
	if r.Float64() < a.prob[i] {
		return i
	}
	return int(a.alias[i])
}

// hourWeight is the market's activity by hour of the day (Polish time):
// quiet nights, busy evenings.
var hourWeight = [24]float64{
	0.45, 0.30, 0.18, 0.12, 0.10, 0.10, 0.15, 0.25, 0.35, 0.45, 0.55, 0.65,
	0.75, 0.85, 0.95, 1.05, 1.20, 1.35, 1.50, 1.65, 1.70, 1.55, 1.15, 0.75,
}

// warp maps u in [0,1] to a time in [start, end] with the density of the
// daily activity cycle. It is monotonic, so sorted u give sorted times.
type warp struct {
	start, end int64
	cum        []float64 // cum[i] = weight of the hours before bucket i
}

const hourMs = 60 * 60 * 1000

// cycleNow is the moment of the daily cycle a generated market's "now"
// stands at, whenever it is made: a Saturday, 20:00 in Poland (19:00 UTC),
// a busy evening. The cycle runs from there, not from the wall clock, so
// that the same options made at another time give the same market shifted
// in time: every time the same distance before its now.
var cycleNow = time.Date(2026, 11, 7, 19, 0, 0, 0, time.UTC).UnixMilli()

// newWarp is the warp of [start, end] for a market whose now is now.
func newWarp(start, end, now int64) *warp {
	w := &warp{start: start, end: end, cum: []float64{0}}
	for t := start; t < end; t += hourMs {
		l := min(end-t, hourMs)
		mid := t + l/2 - now + cycleNow
		hour := ((mid/hourMs+1)%24 + 24) % 24 // UTC+1
		weekday := ((mid/dayMs+4)%7 + 7) % 7  // 0 = Sunday (1970-01-01 was a Thursday)
		wt := hourWeight[hour] * float64(l) / hourMs
		if weekday == 0 || weekday == 6 {
			wt *= 1.3
		}
		w.cum = append(w.cum, w.cum[len(w.cum)-1]+wt)
	}
	return w
}

func (w *warp) at(u float64) int64 {
	n := len(w.cum) - 1
	if n <= 0 {
		return w.start
	}
	target := u * w.cum[n]
	i, _ := slices.BinarySearch(w.cum[1:], target) // first bucket whose end >= target
	if i >= n {
		return w.end
	}
	lo, hi := w.cum[i], w.cum[i+1]
	bStart := w.start + int64(i)*hourMs
	bLen := min(w.end-bStart, hourMs)
	f := 0.0
	if hi > lo {
		f = (target - lo) / (hi - lo)
	}
	return min(bStart+int64(f*float64(bLen)), w.end)
}

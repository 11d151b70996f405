package catalog

import (
	"slices"
	"strings"

	"github.com/rynek/rynek/market/playertext"
)

// Polish search words. Item names are the game's English ones, but the
// market's players write Polish: "diament miecz" should find a Diamond
// Sword. polishForms gives, for the English words of item names, the
// Polish words a player types for them, folded (no diacritics, lower
// case), as the beginnings their inflected forms share: "miecz" stands for
// miecz, miecza, mieczem, miecze; "diament" for diament, diamentowy,
// diamentowe. A form that ends in "$" stands only for itself: "luk$" (a
// bow) must not catch "lukier".
//
// A material is found by the forms of its name's words
// (MaterialInfo.PolishWords, indexed like its name), and a query word that
// begins with a form is looked up as that form (polishStem), so every
// inflection finds the item. No English word of the catalogue begins with
// a form (a test keeps it so): English searches are unchanged.
//
// The table covers the words of the items players trade most (tools,
// weapons, armour, ores, food, wood, common blocks); a word it lacks is
// still found in English, and in any Polish display name or lore.
var polishForms = map[string][]string{
	// Materials and ores.
	"diamond": {"diament"}, "netherite": {"netheryt"}, "iron": {"zelaz"}, "gold": {"zlot"}, "golden": {"zlot"},
	"copper": {"miedz"}, "stone": {"kamien"}, "cobblestone": {"bruk"}, "wooden": {"drewn"}, "wood": {"drewn"},
	"leather": {"skora", "skory", "skorz"}, "chainmail": {"kolcz"}, "emerald": {"szmaragd"}, "coal": {"wegiel", "wegl"},
	"lapis": {"lazuryt"}, "quartz": {"kwarc"}, "amethyst": {"ametyst"}, "obsidian": {"obsydian"},
	"redstone": {"czerwien"}, "ore": {"ruda$", "rudy$"}, "ingot": {"sztab"}, "nugget": {"brylk"},
	// Tools, weapons and armour.
	"sword": {"miecz"}, "pickaxe": {"kilof"}, "axe": {"siekier"}, "shovel": {"lopat"}, "hoe": {"motyk"},
	"bow": {"luk$", "luku$", "luki$"}, "crossbow": {"kusz"}, "trident": {"trojz"}, "shield": {"tarcz"},
	"arrow": {"strzal"}, "helmet": {"helm$", "helmu$", "helmy$", "helmow"}, "chestplate": {"napiersnik"}, "leggings": {"nogawic", "spodni"},
	"boots": {"buty", "butow"}, "armor": {"zbroj"}, "rod": {"wedk"}, "shears": {"nozyc"},
	"compass": {"kompas"}, "clock": {"zegar"}, "spyglass": {"lunet"}, "bucket": {"wiadr"}, "saddle": {"siodl"},
	// Food.
	"apple": {"jabl"}, "bread": {"chleb"}, "carrot": {"marchew", "marchw"}, "potato": {"ziemniak"},
	"beef": {"wolowin"}, "steak": {"stek"}, "porkchop": {"wieprzowin", "schab"}, "chicken": {"kurczak", "kurczec"},
	"mutton": {"baranin"}, "cod": {"dorsz"}, "salmon": {"losos"}, "cookie": {"ciastk"}, "cake": {"ciast", "tort"},
	"melon": {"arbuz"}, "pumpkin": {"dyni"}, "wheat": {"pszenic"}, "sugar": {"cukier", "cukru"}, "egg": {"jajk", "jajo"},
	"honey": {"miod"}, "mushroom": {"grzyb"}, "stew": {"gulasz"}, "berries": {"jagod"}, "seeds": {"nasion"},
	// Wood, plants and blocks.
	"log": {"klod"}, "planks": {"desk"}, "oak": {"dab$", "debow", "debu$"}, "spruce": {"swierk"}, "birch": {"brzoz"},
	"sapling": {"sadzonk"}, "leaves": {"lisc"}, "flower": {"kwiat"}, "sand": {"piasek", "piask"}, "dirt": {"ziemi"},
	"glass": {"szkl"}, "wool": {"weln"}, "brick": {"cegl"}, "bricks": {"cegl"}, "concrete": {"beton"},
	"terracotta": {"terakot"}, "carpet": {"dywan"}, "stairs": {"schod"}, "slab": {"plyt"}, "ice": {"lod$", "lodu$"},
	"snow": {"snieg"}, "chest": {"skrzyn"}, "furnace": {"piec$", "pieca$", "piecyk"}, "anvil": {"kowadl"}, "bed": {"lozk"},
	"torch": {"pochodni"}, "lantern": {"latarni"}, "candle": {"swiec"}, "door": {"drzwi"}, "rail": {"tory$", "torow"},
	"minecart": {"wagonik"}, "boat": {"lodk", "lodz"}, "tnt": {"dynamit", "trotyl"},
	// Other items.
	"book": {"ksiazk", "ksieg"}, "enchanted": {"zaklet", "zaczarow"}, "potion": {"mikstur"}, "bottle": {"butelk"},
	"experience": {"doswiadcz"}, "flint": {"krzemien"}, "string": {"nici"}, "feather": {"pior"},
	"bone": {"kosc"}, "gunpowder": {"proch"}, "pearl": {"perl"}, "slime": {"szlam"}, "star": {"gwiazd"},
	"head": {"glowa$", "glowy$", "glowe$", "glowie$"}, "skull": {"czaszk"}, "dragon": {"smok$", "smoka$", "smocz"}, "totem": {"totem"}, "map": {"mapa$", "mapy$"},
	"dye": {"barwnik"}, "paper": {"papier"}, "horse": {"kon$", "konia", "konsk"},
}

// polishForm is one form of polishForms: its text and whether it stands
// for longer words too.
type polishForm struct {
	text   string
	prefix bool
}

// polishLookup lists every form once, longest first, for polishStem.
var polishLookup = func() []polishForm {
	var all []polishForm
	for _, forms := range polishForms {
		for _, f := range forms {
			text, whole := strings.CutSuffix(f, "$")
			all = append(all, polishForm{text: text, prefix: !whole})
		}
	}
	slices.SortFunc(all, func(a, b polishForm) int {
		if len(a.text) != len(b.text) {
			return len(b.text) - len(a.text)
		}
		return strings.Compare(a.text, b.text)
	})
	return slices.Compact(all)
}()

// PolishStem is the form a folded query word is looked up as: the longest
// form it begins with (or is, for a whole-word form), else the word itself.
func PolishStem(w string) string {
	for _, f := range polishLookup {
		if w == f.text || f.prefix && strings.HasPrefix(w, f.text) {
			return f.text
		}
	}
	return w
}

// PolishWords are the Polish forms of an English item name's words, space
// separated, each once; "" when the name has no word in polishForms.
func PolishWords(name string) string {
	var out []string
	for _, w := range playertext.AppendWords(nil, name) {
		for _, f := range polishForms[w] {
			f = strings.TrimSuffix(f, "$")
			if !slices.Contains(out, f) {
				out = append(out, f)
			}
		}
	}
	return strings.Join(out, " ")
}

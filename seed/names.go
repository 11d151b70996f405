package seed

import (
	"math/rand/v2"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/rynek/rynek/market/playertext"
)

// Name pools. Every entry is ASCII letters, digits or '_' only: a game
// name is [A-Za-z0-9_]{3,16} and the market refuses any other
// (INVALID_PLAYER), so Polish names are written as players type them,
// without their diacritics (Łukasz is Lukasz).

// fixedNames open every generated world (after "Admin"), so that demos and
// docs can rely on them.
var fixedNames = []string{
	"Lukasz", "Kowalski", "Zosia_PL", "Steve", "xXDragonSlayerXx", "Malgorzata",
	"Wojcik99", "Alex", "Brzeczyszczyk", "Grzegorz_B", "Zaneta", "Notch_PL",
}

var polishFirst = []string{
	"Lukasz", "Malgorzata", "Zosia", "Grzegorz", "Krzysztof", "Agnieszka", "Pawel",
	"Michal", "Wojtek", "Jedrek", "Kasia", "Ania", "Basia", "Tomek", "Bartek", "Kuba",
	"Piotrek", "Marysia", "Jadwiga", "Stanislaw", "Bozena", "Zaneta", "Lucja",
	"Zbigniew", "Wieslaw", "Przemyslaw", "Dorota", "Ewa", "Ola", "Magda", "Iga",
	"Jozef", "Waclaw", "Czeslaw", "Halina", "Krystyna", "Radoslaw", "Przemek",
	"Slawek", "Jarek", "Darek", "Marek", "Szymon", "Antoni", "Franek", "Hania",
	"Ignacy", "Kacper", "Oskar", "Filip", "Wiktoria", "Natalia", "Gosia", "Jas",
	"Stas", "Tadeusz", "Bolek", "Lolek", "Zdzislaw", "Bogdan", "Grazyna", "Janusz",
	"Mariusz", "Dominika", "Weronika", "Julka", "Maciek", "Kamil", "Lucjan", "Ksawery",
}

var polishLast = []string{
	"Kowalski", "Nowak", "Wisniewski", "Wojcik", "Kowalczyk", "Kaminski", "Lewandowski",
	"Zielinski", "Szymanski", "Wozniak", "Dabrowski", "Kozlowski", "Jankowski", "Mazur",
	"Krawczyk", "Piotrowski", "Grabowski", "Zajac", "Pawlowski", "Krol", "Wrobel",
	"Gorski", "Sikora", "Baran", "Duda", "Szewczyk", "Ostrowski", "Tomaszewski",
	"Pietrzak", "Jablonski", "Majewski", "Olszewski", "Stepien", "Jaworski", "Malinowski",
	"Adamczyk", "Nowicki", "Dudek", "Wieczorek", "Kaczmarek", "Brzeczyszczyk", "Zolkiewski",
	"Kosciuszko", "Sliwinski", "Lapinski", "Golebiowski", "Chrzaszcz", "Zdzblo",
}

var englishNames = []string{
	"Steve", "Alex", "Notch", "Jack", "Emily", "Oliver", "Harry", "Charlie", "Sophie",
	"Mia", "Jake", "Ryan", "Chloe", "Liam", "Noah", "Ella", "Grace", "Ben", "Sam", "Max",
	"Leo", "Lucy", "Ruby", "Tom", "Kate", "Zoe", "Ethan", "Mason", "Lily", "Amelia",
}

var gamerTags = []string{
	"DragonSlayer", "CreeperHunter", "DiamondMiner", "EnderKing", "PixelWarrior",
	"NetherLord", "BlockMaster", "RedstoneGuru", "ShadowNinja", "SkyBuilder",
	"LavaSurfer", "CraftQueen", "MobHunter", "IronGolem", "WitherSlayer", "SnowFox",
	"NightOwl", "ProGamer", "NoobMaster", "Kopacz", "Gornik", "Rycerz", "Smok", "Wilk",
	"KrolDiamentow", "Czarodziej", "Lowca", "Kowal", "Piekarz", "Budowniczy", "Zbojnik",
	"Husarz", "Szlachcic", "Kmiec", "Zmij", "Smialek", "Wedrowiec", "Grzybiarz",
	"Pogromca", "Obsydian", "Endermen", "Szkieletor", "Pajak", "Zombiak",
}

var tagSuffixes = []string{"_PL", "PL", "_pl", "_YT", "_TV", "HD", "_x", "_Pro", "_MC", "_007"}
var tagPrefixes = []string{"xX", "The", "Pan", "Mr", "Lord", "Sir", "Krol", "Mistrz", "Dark", "Epic"}

// runeLen is utf8.RuneCountInString, named for readability.
func runeLen(s string) int { return utf8.RuneCountInString(s) }

// truncRunes keeps at most n runes of s.
func truncRunes(s string, n int) string {
	i := 0
	for j := range s {
		if i == n {
			return s[:j]
		}
		i++
	}
	return s
}

func pick(r *rand.Rand, list []string) string { return list[r.IntN(len(list))] }

func digits(r *rand.Rand) string {
	switch r.IntN(4) {
	case 0:
		return strconv.Itoa(r.IntN(10))
	case 1:
		return strconv.Itoa(10 + r.IntN(90))
	case 2:
		return strconv.Itoa(1985 + r.IntN(25))
	default:
		return strconv.Itoa(100 + r.IntN(900))
	}
}

// fullName joins a first name and a surname, giving a woman's name the
// feminine form of an adjectival surname (Kowalski -> Kowalska).
func fullName(first, last string) string {
	if strings.HasSuffix(first, "a") && first != "Kuba" && strings.HasSuffix(last, "ki") {
		last = strings.TrimSuffix(last, "i") + "a"
	}
	return first + "_" + last
}

// candidateName makes one name from the pools; it may be longer than 16
// runes, the caller checks.
func candidateName(r *rand.Rand) string {
	switch x := r.IntN(100); {
	case x < 14:
		return pick(r, polishFirst)
	case x < 24:
		return pick(r, polishFirst) + digits(r)
	case x < 30:
		return pick(r, polishFirst) + pick(r, tagSuffixes)
	case x < 38:
		return pick(r, polishLast)
	case x < 46:
		return pick(r, polishLast) + digits(r)
	case x < 52:
		return fullName(pick(r, polishFirst), pick(r, polishLast))
	case x < 56:
		f := pick(r, polishFirst)
		l := pick(r, polishLast)
		return f + truncRunes(l, 1)
	case x < 63:
		return pick(r, englishNames)
	case x < 69:
		return pick(r, englishNames) + digits(r)
	case x < 73:
		return pick(r, englishNames) + "_" + pick(r, gamerTags)
	case x < 77:
		return "xX" + pick(r, gamerTags) + "Xx"
	case x < 84:
		return pick(r, gamerTags) + digits(r)
	case x < 90:
		return pick(r, tagPrefixes) + pick(r, gamerTags)
	case x < 95:
		return pick(r, gamerTags) + pick(r, tagSuffixes)
	default:
		return pick(r, gamerTags)
	}
}

// makeNames returns n unique player names (unique after playertext.Fold, so
// that "Lukasz" and "lukasz" never both exist). The first is always "Admin", then
// the fixed names, then generated ones.
func makeNames(r *rand.Rand, n int) []string {
	out := make([]string, 0, n)
	seen := make(map[string]bool, n)
	add := func(name string) bool {
		k := playertext.Fold(name)
		if seen[k] || runeLen(name) < 3 || runeLen(name) > 16 {
			return false
		}
		seen[k] = true
		out = append(out, name)
		return true
	}
	if n > 0 {
		add("Admin")
	}
	for _, f := range fixedNames {
		if len(out) == n {
			break
		}
		add(f)
	}
	for len(out) < n {
		c := candidateName(r)
		for runeLen(c) > 16 {
			c = candidateName(r)
		}
		if add(c) {
			continue
		}
		// Taken (or too short): append digits, shortening the base as needed.
		for try := 0; ; try++ {
			d := strconv.Itoa(r.IntN(10 << min(try/4, 12)))
			base := truncRunes(c, 16-len(d))
			if add(base + d) {
				break
			}
		}
	}
	return out
}

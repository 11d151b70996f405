package seed

import (
	"math/rand/v2"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/rynek/rynek/market/playertext"
)

// Name pools. Every entry is letters (ASCII or Polish), digits or '_' only.

// fixedNames open every generated world (after "Admin"), so that demos and
// docs can rely on them.
var fixedNames = []string{
	"Łukasz", "Kowalski", "Zosia_PL", "Steve", "xXDragonSlayerXx", "Małgorzata",
	"Wójcik99", "Alex", "Brzęczyszczyk", "Grzegorz_B", "Żaneta", "Notch_PL",
}

var polishFirst = []string{
	"Łukasz", "Małgorzata", "Zosia", "Grzegorz", "Krzysztof", "Agnieszka", "Paweł",
	"Michał", "Wojtek", "Jędrek", "Kasia", "Ania", "Basia", "Tomek", "Bartek", "Kuba",
	"Piotrek", "Marysia", "Jadwiga", "Stanisław", "Bożena", "Żaneta", "Łucja",
	"Zbigniew", "Wiesław", "Przemysław", "Dorota", "Ewa", "Ola", "Magda", "Iga",
	"Józef", "Wacław", "Czesław", "Halina", "Krystyna", "Radosław", "Przemek",
	"Sławek", "Jarek", "Darek", "Marek", "Szymon", "Antoni", "Franek", "Hania",
	"Ignacy", "Kacper", "Oskar", "Filip", "Wiktoria", "Natalia", "Gosia", "Jaś",
	"Staś", "Tadeusz", "Bolek", "Lolek", "Zdzisław", "Bogdan", "Grażyna", "Janusz",
	"Mariusz", "Dominika", "Weronika", "Julka", "Maciek", "Kamil", "Łucjan", "Ksawery",
}

var polishLast = []string{
	"Kowalski", "Nowak", "Wiśniewski", "Wójcik", "Kowalczyk", "Kamiński", "Lewandowski",
	"Zieliński", "Szymański", "Woźniak", "Dąbrowski", "Kozłowski", "Jankowski", "Mazur",
	"Krawczyk", "Piotrowski", "Grabowski", "Zając", "Pawłowski", "Król", "Wróbel",
	"Górski", "Sikora", "Baran", "Duda", "Szewczyk", "Ostrowski", "Tomaszewski",
	"Pietrzak", "Jabłoński", "Majewski", "Olszewski", "Stępień", "Jaworski", "Malinowski",
	"Adamczyk", "Nowicki", "Dudek", "Wieczorek", "Kaczmarek", "Brzęczyszczyk", "Żółkiewski",
	"Kościuszko", "Śliwiński", "Łapiński", "Gołębiowski", "Chrząszcz", "Źdźbło",
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
	"NightOwl", "ProGamer", "NoobMaster", "Kopacz", "Górnik", "Rycerz", "Smok", "Wilk",
	"KrólDiamentów", "Czarodziej", "Łowca", "Kowal", "Piekarz", "Budowniczy", "Zbójnik",
	"Husarz", "Szlachcic", "Kmieć", "Żmij", "Śmiałek", "Wędrowiec", "Grzybiarz",
	"Pogromca", "Obsydian", "Endermen", "Szkieletor", "Pająk", "Zombiak",
}

var tagSuffixes = []string{"_PL", "PL", "_pl", "_YT", "_TV", "HD", "_x", "_Pro", "_MC", "_007"}
var tagPrefixes = []string{"xX", "The", "Pan", "Mr", "Lord", "Sir", "Król", "Mistrz", "Dark", "Epic"}

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

// makeNames returns n unique player names (unique after market.Fold, so that
// "Łukasz" and "lukasz" never both exist). The first is always "Admin", then
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

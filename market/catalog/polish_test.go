package catalog

import (
	"strings"
	"testing"

	"github.com/rynek/rynek/market/playertext"
)

// TestPolishFormsLeaveEnglishAlone: no word of the catalogue's English
// names (materials and enchantments) begins with a Polish form, so an
// English search is looked up as typed; every English word of the table is
// a word of some item's name, and every form is folded text.
func TestPolishFormsLeaveEnglishAlone(t *testing.T) {
	english := map[string]bool{}
	for i := 1; i <= catalogMaterialCount; i++ {
		for _, w := range playertext.AppendWords(playertext.AppendWords(nil, materials[i].Key), materials[i].Name) {
			english[w] = true
		}
	}
	for i := 1; i <= catalogEnchantmentCount; i++ {
		for _, w := range playertext.AppendWords(playertext.AppendWords(nil, enchantments[i].Key), enchantments[i].Name) {
			english[w] = true
		}
	}
	for w := range english {
		if s := PolishStem(w); s != w {
			t.Errorf("the English word %q would be looked up as the Polish form %q", w, s)
		}
	}
	for w, forms := range polishForms {
		if !english[w] {
			t.Errorf("%q is no word of an item's name", w)
		}
		for _, f := range forms {
			text := strings.TrimSuffix(f, "$")
			if got := playertext.AppendWords(nil, text); len(got) != 1 || got[0] != text {
				t.Errorf("form %q of %q is not one folded word", f, w)
			}
		}
	}
}

// TestPolishWords: a material's Polish words and how query words meet them.
func TestPolishWords(t *testing.T) {
	for name, want := range map[string]string{
		"Diamond Sword": "diament miecz", "Golden Apple": "zlot jabl", "Oak Log": "dab debow debu klod",
		"Enchanted Golden Apple": "zaklet zaczarow zlot jabl", "Bedrock": "",
	} {
		if got := PolishWords(name); got != want {
			t.Errorf("PolishWords(%q) = %q, want %q", name, got, want)
		}
	}
	for w, want := range map[string]string{
		"diament": "diament", "diamentowy": "diament", "miecze": "miecz", "mieczem": "miecz", "kilofy": "kilof",
		"zelazny": "zelaz", "ciastko": "ciastk", "ciasto": "ciast", "luk": "luk", "lukier": "lukier", "smoker": "smoker",
		"smocze": "smocz", "diamond": "diamond", "kowalski": "kowalski",
	} {
		if got := PolishStem(w); got != want {
			t.Errorf("PolishStem(%q) = %q, want %q", w, got, want)
		}
	}
}

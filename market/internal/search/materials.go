package search

import (
	"slices"
	"strings"
	"sync"

	"github.com/rynek/rynek/market/catalog"
	"github.com/rynek/rynek/market/playertext"
)

// MaterialWords are the folded words a material is found by: its key, its
// name and its Polish words, as the index files a listing of it.
func MaterialWords(dst []string, mat uint16) []string {
	info := catalog.Material(mat)
	dst = playertext.AppendWords(dst, info.Key)
	dst = playertext.AppendWords(dst, info.Name)
	return playertext.AppendWords(dst, info.PolishWords)
}

// materialEntry is a catalogue material with what MaterialsFound reads:
// its words, and the English and Polish forms of each word of its key and
// of its name.
type materialEntry struct {
	mat        uint16
	words      []string
	key, named [][]string
}

// materialEntries is the catalogue's materials in its order, made once.
var materialEntries = sync.OnceValue(func() []materialEntry {
	forms := func(text string) [][]string {
		var out [][]string
		for _, w := range playertext.AppendWords(nil, text) {
			out = append(out, playertext.AppendWords([]string{w}, catalog.PolishWords(w)))
		}
		return out
	}
	var all []materialEntry
	for _, info := range catalog.Materials() {
		mat, ok := catalog.MaterialID(info.Key)
		if !ok {
			continue
		}
		all = append(all, materialEntry{mat: mat, words: MaterialWords(nil, mat), key: forms(info.Key), named: forms(info.Name)})
	}
	return all
})

// MaterialsFound returns the catalogue's materials that text finds as a
// search finds their listings (ParseText's words, each inside one of the
// material's words: "diament" finds Diamond and Diamond Sword). Of those,
// named are the ones text names whole: each word of the material's key,
// or of its name, met by one of text's words in English or Polish
// ("diament" names Diamond; "diament miecz" Diamond Sword). Both are in
// the catalogue's order.
func MaterialsFound(text string) (named, found []uint16) {
	pq := ParseText(text)
	if pq.Bad || len(pq.IDs) > 0 || len(pq.Words) == 0 {
		return nil, nil
	}
	met := func(words [][]string) bool {
		for _, forms := range words {
			if !slices.ContainsFunc(pq.Words, func(q string) bool {
				return slices.ContainsFunc(forms, func(f string) bool { return strings.Contains(f, q) })
			}) {
				return false
			}
		}
		return len(words) > 0
	}
	for _, m := range materialEntries() {
		if !allIn(pq.Words, m.words) {
			continue
		}
		found = append(found, m.mat)
		if met(m.key) || met(m.named) {
			named = append(named, m.mat)
		}
	}
	return named, found
}

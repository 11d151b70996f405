package search

import (
	"slices"
	"strconv"
	"strings"

	"github.com/rynek/rynek/market/catalog"
	"github.com/rynek/rynek/market/playertext"
)

// Terms is search text split into words and #id terms. Colour codes are
// stripped first, as the original plugin does: "§b" is no text. A word that
// begins with a Polish form of an item word is looked up as that form
// ("diamentowy" as "diament"; see catalog.PolishStem).
type Terms struct {
	Words []string // folded, sorted, each once
	IDs   []uint32
	Bad   bool // an #id term that can never match, or text without a word
}

// ParseText splits search text into its terms.
func ParseText(text string) Terms {
	var pq Terms
	for _, f := range strings.Fields(playertext.StripColors(text)) {
		if len(f) > 1 && f[0] == '#' {
			n, err := strconv.ParseUint(f[1:], 10, 32)
			if err == nil {
				if n == 0 {
					pq.Bad = true
				}
				pq.IDs = append(pq.IDs, uint32(n))
				continue
			}
		}
		n := len(pq.Words)
		pq.Words = playertext.AppendWords(pq.Words, f)
		for i := n; i < len(pq.Words); i++ {
			pq.Words[i] = catalog.PolishStem(pq.Words[i])
		}
	}
	if len(pq.Words) == 0 && len(pq.IDs) == 0 && strings.TrimSpace(text) != "" {
		// Text that says something but leaves no word to look for (colour
		// codes alone, punctuation) matches nothing, not everything.
		pq.Bad = true
	}
	slices.Sort(pq.Words)
	pq.Words = slices.Compact(pq.Words)
	return pq
}

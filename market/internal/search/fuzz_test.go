package search

import (
	"testing"

	"github.com/rynek/rynek/market/playertext"
)

// FuzzQueryText parses arbitrary search text: no panic, words are folded
// word runes only.
func FuzzQueryText(f *testing.F) {
	for _, s := range []string{"diamond sword", "#12", "#", "##1", "łódź", "§b§l", "\x1b[2J", "a b c d e", "#4294967296"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		pq := ParseText(s)
		for _, w := range pq.Words {
			if w == "" || playertext.Fold(w) != w {
				t.Fatalf("word %q of %q is not folded", w, s)
			}
			for _, r := range w {
				if !playertext.IsWordRune(r) {
					t.Fatalf("word %q of %q has non-word rune %q", w, s, r)
				}
			}
		}
	})
}

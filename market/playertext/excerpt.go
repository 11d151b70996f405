package playertext

import "unicode/utf8"

// Excerpt is how a message quotes text that may be hostile (a key, a
// name, a search typed by anyone): its first 40 bytes, cut at a rune
// boundary, and an ellipsis when something was cut, so that an error
// message stays short whatever the input.
func Excerpt(s string) string {
	if len(s) <= 40 {
		return s
	}
	cut := 40
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "…"
}

// Package playertext makes text that came from players (names, item names,
// lore) safe for a terminal cell, and says exactly what of it is shown. The
// console renders player text with it and the market's search index folds
// the same shown text, so that nothing the screen hides (a stripped escape
// sequence, an APC payload, a link's URL) can be found by searching.
//
// It also holds the form in which search compares text (fold.go): Fold,
// StripColors and the words of a text (AppendWords), which the market's
// index, its query parser, its price alerts and the catalogue's Polish
// words all use, so that one text always gives the same words.
//
// It is a leaf: it imports nothing of Rynek, so that the market (which
// must import nothing outside market/) and the console can both build on
// it.
package playertext

import (
	"iter"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/charmbracelet/x/ansi"
)

// Sanitize makes untrusted text safe for a single-line terminal cell: escape
// sequences (CSI, OSC, DCS, APC, ...) are removed by ansi.Strip; C0 and C1
// controls, DEL, bidi overrides and other invisible format characters are
// dropped; line breaks and tabs become spaces; invalid UTF-8 that ansi.Strip
// has not dropped already becomes U+FFFD.
// ansi.Strip alone keeps CR, BS, C1 code points and bidi controls, any of
// which can spoof the screen.
//
// The zero-width joiner is kept only inside an emoji sequence (between two
// pictographs, as in 👩‍💻): between letters it is invisible and would let
// "Ad\u200dmin" pass for "Admin".
func Sanitize(s string) string {
	if isClean(s) {
		return s
	}
	return sanitize(s)
}

// sanitize is Sanitize without the shortcut for clean text.
func sanitize(s string) string {
	s = ansi.Strip(s)
	var b strings.Builder
	b.Grow(len(s))
	prev := rune(0) // the last rune written, ignoring emoji modifiers
	for len(s) > 0 {
		r, size := utf8.DecodeRuneInString(s)
		s = s[size:]
		switch {
		case r == utf8.RuneError && size == 1:
			b.WriteRune('\uFFFD')
			prev = r
		case r == '\n' || r == '\r' || r == '\t' || r == '\v' || r == '\f':
			b.WriteByte(' ')
			prev = ' '
		case r < 0x20 || r == 0x7f: // other C0 controls and DEL
		case r >= 0x80 && r <= 0x9f: // C1 controls as code points
		case (r >= 0x202a && r <= 0x202e) || (r >= 0x2066 && r <= 0x2069) ||
			r == 0x200e || r == 0x200f || r == 0x061c: // bidi controls
		case r == zwj:
			if next, _ := utf8.DecodeRuneInString(s); isPictograph(prev) && isPictograph(next) {
				b.WriteRune(r)
			}
		case unicode.Is(unicode.Cf, r): // other invisible format characters
		default:
			b.WriteRune(r)
			if !isEmojiModifier(r) {
				prev = r
			}
		}
	}
	return b.String()
}

// Runs yields the runs of s between Minecraft § formatting codes, each with
// the code before it in lower case (0 before the first run, and an empty
// run between two codes in a row). § and the character after it are a
// code whatever that character is; a trailing lone § is dropped. The runs
// are raw: Sanitize them before they are shown.
func Runs(s string) iter.Seq2[rune, string] {
	return func(yield func(code rune, text string) bool) {
		code, start := rune(0), 0
		for i := 0; i < len(s); {
			r, size := utf8.DecodeRuneInString(s[i:])
			if r != '§' {
				i += size
				continue
			}
			if (i > start || code != 0) && !yield(code, s[start:i]) {
				return
			}
			i += size
			if i >= len(s) {
				return // a trailing lone §
			}
			r, size = utf8.DecodeRuneInString(s[i:])
			code = unicode.ToLower(r)
			i += size
			start = i
		}
		if len(s) > start || code != 0 {
			yield(code, s[start:])
		}
	}
}

// Plain is the text of s as the console shows it: without its § codes, each
// run sanitized (the console styles the runs one by one).
func Plain(s string) string {
	if !strings.ContainsRune(s, '§') {
		return Sanitize(s)
	}
	// Most such text is one run after a colour code: return it without
	// copying.
	var b strings.Builder
	first, n := "", 0
	for _, text := range Runs(s) {
		switch {
		case text == "":
			continue
		case n == 0:
			first = text
		case n == 1:
			b.Grow(len(s))
			b.WriteString(Sanitize(first))
			fallthrough
		default:
			b.WriteString(Sanitize(text))
		}
		n++
	}
	if n <= 1 {
		return Sanitize(first)
	}
	return b.String()
}

// zwj is the zero-width joiner, U+200D.
const zwj = '\u200d'

// isPictograph approximates Unicode's Extended_Pictographic property (which
// the standard library does not carry): the emoji blocks and the older
// symbols that have emoji forms.
func isPictograph(r rune) bool {
	switch {
	case r >= 0x1f000 && r <= 0x1faff, r >= 0x2600 && r <= 0x27bf, r >= 0x2300 && r <= 0x23ff,
		r >= 0x2b00 && r <= 0x2bff, r >= 0x2190 && r <= 0x21ff:
		return true
	}
	switch r {
	case 0x00a9, 0x00ae, 0x203c, 0x2049, 0x2122, 0x2139, 0x3030, 0x303d, 0x3297, 0x3299:
		return true
	}
	return false
}

// isEmojiModifier reports the characters that modify the emoji before them
// without ending its sequence: variation selectors and skin tones.
func isEmojiModifier(r rune) bool {
	return r == 0xfe0e || r == 0xfe0f || (r >= 0x1f3fb && r <= 0x1f3ff)
}

// isClean reports whether s is already what Sanitize makes of it: valid
// UTF-8 without escapes, controls or format characters. Most names and lore
// are, and they cost a scan instead of ansi.Strip's parser (the search index
// sanitizes every display name and lore line it loads).
func isClean(s string) bool {
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if c < 0x20 || c == 0x7f {
				return false
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 || r <= 0x9f || unicode.Is(unicode.Cf, r) {
			return false
		}
		i += size
	}
	return true
}

// Unsafe finds the first rune of s that must not reach a terminal: an
// escape, a control character other than the newline that separates a
// screen's lines, a C1 control, a bidi control, an invisible format
// character other than the joiner, or invalid UTF-8. Sanitize's output has
// none; tests check whole screens with it.
func Unsafe(s string) (at int, r rune, found bool) {
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1,
			r < 0x20 && r != '\n', r == 0x7f, r >= 0x80 && r <= 0x9f,
			r >= 0x202a && r <= 0x202e, r >= 0x2066 && r <= 0x2069, r == 0x200e, r == 0x200f, r == 0x061c,
			unicode.Is(unicode.Cf, r) && r != zwj:
			return i, r, true
		}
		i += size
	}
	return 0, 0, false
}

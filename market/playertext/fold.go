package playertext

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

// foldTable maps Latin letters with diacritics (U+00C0..U+024F) to their
// lower-case base letters, so that "łódź" folds to "lodz". Built once from
// Unicode decompositions plus the letters that have none (ł, ø, đ, ß, ...).
var foldTable = func() map[rune]string {
	t := make(map[rune]string, 400)
	special := map[rune]string{
		'ł': "l", 'Ł': "l", 'ø': "o", 'Ø': "o", 'đ': "d", 'Đ': "d", 'ß': "ss",
		'æ': "ae", 'Æ': "ae", 'œ': "oe", 'Œ': "oe", 'þ': "th", 'Þ': "th", 'ı': "i",
		'ħ': "h", 'Ħ': "h", 'ŀ': "l", 'Ŀ': "l", 'ŧ': "t", 'Ŧ': "t", 'ð': "d", 'Ð': "d",
	}
	for r := rune(0xC0); r <= 0x24F; r++ {
		if s, ok := special[r]; ok {
			t[r] = s
			continue
		}
		d := norm.NFD.String(string(r))
		base, _ := utf8.DecodeRuneInString(d)
		if base < 0x80 && unicode.IsLetter(base) {
			t[r] = string(unicode.ToLower(base))
		}
	}
	return t
}()

// Fold lower-cases s and removes diacritics, the normal form in which search
// compares text. It is pure and allocation-light for ASCII.
func Fold(s string) string {
	ascii := true
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			ascii = false
			break
		}
	}
	if ascii {
		return strings.ToLower(s)
	}
	var b strings.Builder
	b.Grow(len(s))
	for _, r := range s {
		// Lower first, then the table: some letters outside the table's
		// range lower into it (ẞ to ß, the Ångström sign to å), and the
		// folded form must fold to itself.
		r = unicode.ToLower(r)
		if f, ok := foldTable[r]; ok {
			b.WriteString(f)
			continue
		}
		if unicode.Is(unicode.Mn, r) { // a stray combining mark
			continue
		}
		b.WriteRune(r)
	}
	return b.String()
}

// StripColors removes Minecraft legacy formatting codes: '§' followed by one
// character (colour 0-9a-f, format k-o, reset r, or the hex prefix x). A
// trailing lone '§' is dropped too. The codes are found as the console finds
// them (Runs); the text is left as it is.
func StripColors(s string) string {
	if !strings.ContainsRune(s, '§') {
		return s
	}
	var b strings.Builder
	b.Grow(len(s))
	for _, text := range Runs(s) {
		b.WriteString(text)
	}
	return b.String()
}

// IsWordRune reports whether r belongs to a search word.
func IsWordRune(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) }

// AppendWords folds s and appends its words (maximal runs of letters and
// digits) to dst. Words are what the search index stores and what a query is
// split into, so "Diamond_Sword" and "diamond sword" meet in the same words.
func AppendWords(dst []string, s string) []string {
	f := Fold(s)
	start := -1
	for i, r := range f {
		if IsWordRune(r) {
			if start < 0 {
				start = i
			}
			continue
		}
		if start >= 0 {
			dst = append(dst, f[start:i])
			start = -1
		}
	}
	if start >= 0 {
		dst = append(dst, f[start:])
	}
	return dst
}

package tui

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"
)

// Sanitize makes untrusted text (player names, item names, lore) safe for a
// single-line terminal cell: escape sequences (CSI, OSC, DCS, APC, ...) are
// removed by ansi.Strip; C0 and C1 controls, DEL, bidi overrides and other
// invisible format characters are dropped; line breaks and tabs become
// spaces; invalid UTF-8 becomes U+FFFD. ansi.Strip alone keeps CR, BS, C1 code
// points and bidi controls (bubbletea.md §6), any of which can spoof the
// screen.
//
// The zero-width joiner is kept only inside an emoji sequence (between two
// pictographs, as in 👩‍💻): between letters it is invisible and would let
// "Ad\u200dmin" pass for "Admin".
func Sanitize(s string) string {
	if isPlain(s) {
		return s
	}
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

// isPlain reports whether s is printable ASCII only: the common case, which
// needs no work.
func isPlain(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c >= 0x7f {
			return false
		}
	}
	return true
}

// mcColors are Minecraft's 16 legacy colours, §0 to §f.
var mcColors = [16]string{
	"#000000", "#0000AA", "#00AA00", "#00AAAA", "#AA0000", "#AA00AA", "#FFAA00", "#AAAAAA",
	"#555555", "#5555FF", "#55FF55", "#55FFFF", "#FF5555", "#FF55FF", "#FFFF55", "#FFFFFF",
}

// RenderMC renders text with Minecraft § formatting codes as terminal
// styles on top of base: §0-§f set a colour (and, as in the game, reset the
// formatting), §l bold, §m strikethrough, §n underline, §o italic, §r reset;
// §k (obfuscated) and unknown codes are dropped. Every segment is sanitized.
func RenderMC(s string, base lipgloss.Style) string {
	if !strings.ContainsRune(s, '§') {
		return base.Render(Sanitize(s))
	}
	var out strings.Builder
	st := base
	var seg strings.Builder
	flush := func() {
		if seg.Len() > 0 {
			out.WriteString(st.Render(Sanitize(seg.String())))
			seg.Reset()
		}
	}
	runes := []rune(s)
	for i := 0; i < len(runes); i++ {
		r := runes[i]
		if r != '§' {
			seg.WriteRune(r)
			continue
		}
		if i+1 >= len(runes) {
			break // a trailing lone §
		}
		i++
		code := unicode.ToLower(runes[i])
		flush()
		switch {
		case code >= '0' && code <= '9':
			st = base.Foreground(lipgloss.Color(mcColors[code-'0']))
		case code >= 'a' && code <= 'f':
			st = base.Foreground(lipgloss.Color(mcColors[code-'a'+10]))
		case code == 'l':
			st = st.Bold(true)
		case code == 'm':
			st = st.Strikethrough(true)
		case code == 'n':
			st = st.Underline(true)
		case code == 'o':
			st = st.Italic(true)
		case code == 'r':
			st = base
		}
	}
	flush()
	return out.String()
}

// cells is how the terminal counts the cells of a grapheme, as Bubble Tea's
// renderer does: per code point (wcwidth) unless the terminal reports mode
// 2027 (grapheme clustering), when the renderer switches to whole graphemes
// and so does the console (Model.Update on tea.ModeReportMsg). An emoji
// sequence like 👩‍💻 is 4 cells in tmux and 2 in a terminal with mode 2027;
// measuring it any other way than the renderer pushes a row past the screen
// edge. One program runs per process, so this is process-wide.
var cells = ansi.WcWidth

// width is the number of cells s takes on the terminal.
func width(s string) int { return cells.StringWidth(s) }

// truncate cuts s to w cells, ending it with tail when it was cut.
func truncate(s string, w int, tail string) string { return cells.Truncate(s, w, tail) }

// fit truncates rendered text to w cells (with an ellipsis) and pads it to
// exactly w cells, so that columns line up.
func fit(s string, w int) string {
	if w <= 0 {
		return ""
	}
	if sw := width(s); sw > w {
		s = truncate(s, w, "…")
		if sw = width(s); sw < w { // a wide character did not fit before the ellipsis
			s += strings.Repeat(" ", w-sw)
		}
	} else if sw < w {
		s += strings.Repeat(" ", w-sw)
	}
	return s
}

// fitLeft pads on the left (right-aligns numbers).
func fitLeft(s string, w int) string {
	if w <= 0 {
		return ""
	}
	if sw := width(s); sw > w {
		return fit(s, w)
	} else if sw < w {
		return strings.Repeat(" ", w-sw) + s
	}
	return s
}

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
func Sanitize(s string) string {
	if isPlain(s) {
		return s
	}
	s = ansi.Strip(s)
	var b strings.Builder
	b.Grow(len(s))
	for len(s) > 0 {
		r, size := utf8.DecodeRuneInString(s)
		s = s[size:]
		switch {
		case r == utf8.RuneError && size == 1:
			b.WriteRune('\uFFFD')
		case r == '\n' || r == '\r' || r == '\t' || r == '\v' || r == '\f':
			b.WriteByte(' ')
		case r < 0x20 || r == 0x7f: // other C0 controls and DEL
		case r >= 0x80 && r <= 0x9f: // C1 controls as code points
		case (r >= 0x202a && r <= 0x202e) || (r >= 0x2066 && r <= 0x2069) ||
			r == 0x200e || r == 0x200f || r == 0x061c: // bidi controls
		case unicode.Is(unicode.Cf, r) && r != 0x200d: // format characters; keep ZWJ for emoji
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
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

// fit truncates rendered text to w cells (with an ellipsis) and pads it to
// exactly w cells, so that columns line up.
func fit(s string, w int) string {
	if w <= 0 {
		return ""
	}
	if sw := ansi.StringWidth(s); sw > w {
		s = ansi.Truncate(s, w, "…")
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
	if sw := ansi.StringWidth(s); sw > w {
		return ansi.Truncate(s, w, "…")
	} else if sw < w {
		return strings.Repeat(" ", w-sw) + s
	}
	return s
}

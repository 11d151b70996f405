package tui

import (
	"strings"

	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"
	"github.com/rynek/rynek/market/playertext"
)

// mcColors are Minecraft's 16 legacy colours, §0 to §f.
var mcColors = [16]string{
	"#000000", "#0000AA", "#00AA00", "#00AAAA", "#AA0000", "#AA00AA", "#FFAA00", "#AAAAAA",
	"#555555", "#5555FF", "#55FF55", "#55FFFF", "#FF5555", "#FF55FF", "#FFFF55", "#FFFFFF",
}

// RenderMC renders text with Minecraft § formatting codes as terminal
// styles on top of base: §0-§f set a colour (and, as in the game, reset the
// formatting), §l bold, §m strikethrough, §n underline, §o italic, §r reset;
// §k (obfuscated) and unknown codes are dropped. Its text is exactly
// playertext.Plain(s), each run sanitized.
func RenderMC(s string, base lipgloss.Style) string {
	if !strings.ContainsRune(s, '§') {
		return base.Render(playertext.Sanitize(s))
	}
	var out strings.Builder
	st := base
	for code, text := range playertext.Runs(s) {
		switch {
		case code == 0:
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
		if text != "" {
			out.WriteString(st.Render(playertext.Sanitize(text)))
		}
	}
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

var lipglossPlain = lipgloss.NewStyle()

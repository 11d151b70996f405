package tui

import (
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
)

// dialog is a modal box. Like crush's dialogs it does not act itself: it
// returns an action for the root model to run (or nil), and whether it is
// done. Its keys are key.Bindings, shown in the footer while it is open.
type dialog interface {
	Update(c *Common, msg tea.Msg) (a action, done bool)
	// View renders the dialog at most w cells wide and h lines high.
	View(c *Common, w, h int) string
	Help() []key.Binding
}

// dialogMsg is an answer for the dialog that asked for it (to); the root
// drops it when that dialog has closed.
type dialogMsg struct {
	to  dialog
	msg tea.Msg
}

// refusalKeeper is a dialog that stays open when the market refuses its
// action, showing the error and keeping what was typed.
type refusalKeeper interface {
	Refused(err error)
}

// box draws dialog content in a rounded border with one cell of padding, at
// most w cells wide. It measures and cuts lines with the terminal's width
// method (cells), so an emoji sequence in a name cannot push the right
// border out of line.
func box(c *Common, content string, w int) string {
	lines := strings.Split(content, "\n")
	inner := 0
	for _, l := range lines {
		inner = max(inner, width(l))
	}
	inner = min(inner, max(w, 20)-4)
	bs := c.Styles.Border
	var b strings.Builder
	b.WriteString(bs.Render("╭" + strings.Repeat("─", inner+2) + "╮"))
	for _, l := range lines {
		b.WriteString("\n" + bs.Render("│") + " " + fit(l, inner) + " " + bs.Render("│"))
	}
	b.WriteString("\n" + bs.Render("╰"+strings.Repeat("─", inner+2)+"╯"))
	return b.String()
}

// overlay draws a dialog centred over the screen content. The screen's
// lines are cut around the dialog with the terminal's width method, so what
// shows on either side of the dialog stays where it was.
func overlay(bg, fg string, w, h int) string {
	fgLines := strings.Split(fg, "\n")
	fw := 0
	for _, l := range fgLines {
		fw = max(fw, width(l))
	}
	fw = min(fw, w)
	x, y := max((w-fw)/2, 0), max((h-len(fgLines))/2, 0)
	lines := strings.Split(bg, "\n")
	for i, l := range fgLines {
		if y+i >= len(lines) {
			break
		}
		under := lines[y+i]
		left := fit(truncate(under, x, ""), x)
		right := cells.TruncateLeft(truncate(under, w, ""), x+fw, "")
		lines[y+i] = left + resetStyle + fit(l, fw) + resetStyle + fit(right, w-x-fw)
	}
	return strings.Join(lines, "\n")
}

// resetStyle ends every style, so that the colours of the screen under a
// dialog never leak into it.
const resetStyle = "\x1b[m"

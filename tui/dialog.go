package tui

import (
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"github.com/rynek/rynek/market/playertext"
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

// refusalKeeper is a dialog told when the market refuses its action; it
// reports whether it stays open to show why.
type refusalKeeper interface {
	Refused(err error) (stays bool)
}

// keyMode is how a dialog takes keys, which decides the key that closes it
// and what a refusal of the market does to it.
type keyMode int

const (
	// choosing: keys are commands, and n, q and esc close the dialog. A
	// refusal closes it too; the status line says why.
	choosing keyMode = iota
	// typing: letters are text, so esc alone closes the dialog. A refusal
	// keeps it open, with what was typed, and it says why.
	typing
)

// dialogBase is the skeleton every dialog but the pager embeds: the keys
// dialogs share, how it takes keys, and the line that says why the last
// try failed. The one key that closes it is the one its help shows.
type dialogBase struct {
	keys dialogKeys
	mode keyMode
	err  string // why the last try failed; "" none
}

func newDialogBase(mode keyMode) dialogBase {
	return dialogBase{keys: newDialogKeys(), mode: mode}
}

// closeKey is the key that closes the dialog.
func (d *dialogBase) closeKey() key.Binding {
	if d.mode == typing {
		return d.keys.Quit
	}
	return d.keys.Cancel
}

// closes reports whether msg is the key press that closes the dialog.
func (d *dialogBase) closes(msg tea.Msg) bool {
	k, ok := msg.(tea.KeyPressMsg)
	return ok && key.Matches(k, d.closeKey())
}

// Refused shows the market's refusal, with its code, in a dialog typed
// into, which stays open with what was typed; a choice closes. A refusal
// can name a player, so it is made safe before any View shows it.
func (d *dialogBase) Refused(err error) bool {
	if d.mode != typing {
		return false
	}
	d.err = playertext.Sanitize(err.Error() + codeSuffix(err))
	return true
}

// typeInto passes a key or a paste to the field f (nil: none has the
// cursor) as a new try, which clears the error; it reports whether it did.
// Any other message (the mouse) changes nothing.
func (d *dialogBase) typeInto(f *textField, msg tea.Msg) bool {
	switch msg.(type) {
	case tea.KeyPressMsg, tea.PasteMsg:
	default:
		return false
	}
	if f == nil {
		return false
	}
	d.err = ""
	f.Update(msg)
	return true
}

// pickLine marks the line under a dialog's cursor with "▶" and indents the
// others alike.
func pickLine(s Styles, line string, picked bool) string {
	if picked {
		return s.Cursor.Render("▶") + " " + line
	}
	return "  " + line
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

package tui

import (
	"fmt"
	"unicode/utf8"

	"charm.land/bubbles/v2/key"
	"charm.land/bubbles/v2/textinput"
	tea "charm.land/bubbletea/v2"
)

// textField is one line of text typed into the console: every text input of
// every dialog and pane is one, so that they all behave alike.
//
//   - The cursor is where it shows, and typing inserts there; a value the
//     console put in (Prefill) starts with the cursor after it.
//   - A value the console proposes (a suggested price, the whole stack's
//     amount, a starting balance) is shown selected, in reverse video:
//     typing or pasting replaces it, backspace and delete clear it, and a
//     movement key (←, →, home, end) keeps it and moves the cursor in it.
//     What the user typed is never selected.
//   - Nothing typed is dropped silently: a keystroke or a paste that would
//     pass the field's limit is refused whole, and the field says so beside
//     itself until the next edit.
//
// The stock textinput.Model keeps its cursor index when its value is set,
// so a value set after a shorter one left the cursor inside it ("16" after
// "1": 9 made "196"), and its CharLimit cut what was typed without a word.
type textField struct {
	input    textinput.Model
	limit    int  // characters at most; 0 none
	selected bool // the value is the console's proposal, shown selected
	note     string
}

func newTextField(prompt, placeholder string, limit, width int) textField {
	in := textinput.New()
	in.Prompt = prompt
	in.Placeholder = placeholder
	// The limit is the field's own (refused with a note, never cut), and
	// ctrl+v would read the machine's clipboard, not the terminal's: the
	// terminal's paste arrives as a tea.PasteMsg.
	in.CharLimit = 0
	in.KeyMap.Paste = key.NewBinding(key.WithDisabled())
	// tab belongs to the dialogs (next field) and the root (next pane).
	in.KeyMap.AcceptSuggestion = key.NewBinding(key.WithDisabled())
	if width > 0 {
		in.SetWidth(width)
	}
	return textField{input: in, limit: limit}
}

// Prefill puts a value the console proposes into the field, with the cursor
// after it, selected: typing replaces it.
func (f *textField) Prefill(v string) {
	f.input.SetValue(v)
	f.input.CursorEnd()
	f.selected = v != ""
	f.note = ""
}

// Reset empties the field.
func (f *textField) Reset() {
	f.input.Reset()
	f.selected, f.note = false, ""
}

// SetPlaceholder sets what the empty field shows.
func (f *textField) SetPlaceholder(p string) { f.input.Placeholder = p }

// Value is the text in the field.
func (f *textField) Value() string { return f.input.Value() }

// Focus puts the cursor in the field; its command blinks the cursor.
func (f *textField) Focus() tea.Cmd { return f.input.Focus() }

// Blur takes the cursor out of the field.
func (f *textField) Blur() { f.input.Blur() }

// Focused reports whether the field has the cursor.
func (f *textField) Focused() bool { return f.input.Focused() }

// SetWidth sets how many cells of text the field shows.
func (f *textField) SetWidth(w int) { f.input.SetWidth(w) }

// Selected reports whether the value is the console's proposal, which
// typing replaces.
func (f *textField) Selected() bool { return f.selected && f.input.Value() != "" }

// Update edits the field with a key or a paste; it reports whether the
// value changed. Keys the field does not edit with change nothing.
func (f *textField) Update(msg tea.Msg) (tea.Cmd, bool) {
	if !f.input.Focused() {
		return nil, false
	}
	before := f.input.Value()
	// The edit happens on a copy, kept only when the limit allows it.
	// textinput inserts into its value's array, so a copy that may be
	// refused gets its own runes (textinput's sanitizer turns a tab or a
	// newline into one space: what is typed grows the value by at most its
	// own length). Copying always cost 70 µs a keystroke at 1,000
	// characters.
	next := f.input
	grow := 0
	switch msg := msg.(type) {
	case tea.KeyPressMsg:
		grow = utf8.RuneCountInString(msg.Text)
	case tea.PasteMsg:
		grow = utf8.RuneCountInString(msg.Content)
	}
	if f.limit > 0 && utf8.RuneCountInString(before)+grow > f.limit {
		next.SetValue(before)
	}
	switch msg := msg.(type) {
	case tea.KeyPressMsg:
		if f.Selected() {
			switch {
			case inserts(msg):
				next.Reset()
			case key.Matches(msg, next.KeyMap.DeleteCharacterBackward, next.KeyMap.DeleteCharacterForward,
				next.KeyMap.DeleteWordBackward, next.KeyMap.DeleteWordForward, next.KeyMap.DeleteBeforeCursor):
				f.input.Reset()
				f.selected, f.note = false, ""
				return nil, before != ""
			}
		}
	case tea.PasteMsg:
		if f.Selected() {
			next.Reset()
		}
	default:
		return nil, false
	}
	next, cmd := next.Update(msg)
	if n := utf8.RuneCountInString(next.Value()); f.limit > 0 && n > f.limit && n > utf8.RuneCountInString(before) {
		f.note = fmt.Sprintf("at most %d characters", f.limit)
		return nil, false // refused whole: the field is as it was
	}
	// Whatever the key did (typed over the selection, moved the cursor in
	// it), the value is the user's now.
	f.input, f.selected = next, false
	if f.input.Value() != before {
		f.note = ""
	}
	return cmd, f.input.Value() != before
}

// inserts reports whether a key types text (rather than moving or
// deleting).
func inserts(k tea.KeyPressMsg) bool {
	return k.Text != "" && k.Mod&(tea.ModCtrl|tea.ModAlt|tea.ModSuper) == 0
}

// View renders the field: a selected value in reverse video, and the note
// of a refused keystroke after the field.
func (f *textField) View(s Styles) string {
	v := f.input.View()
	if f.Selected() && f.input.Focused() {
		text := f.input.Value()
		// Padded as textinput pads: its width and the cursor's cell.
		pad := 1
		if w := f.input.Width(); w > 0 && width(text) > w {
			text = "…" + cells.TruncateLeft(text, width(text)-w+1, "")
		} else if w > 0 {
			pad = w + 1 - width(text)
		}
		v = f.input.Styles().Focused.Prompt.Render(f.input.Prompt) + s.Cursor.Render(text)
		if pad > 0 {
			v += fmt.Sprintf("%*s", pad, "")
		}
	}
	if f.note != "" && f.input.Focused() {
		v += " " + s.Warn.Render("⚠ "+f.note)
	}
	return v
}

// selectedHint is what a dialog says beside a focused field whose value is
// selected, so that the reverse video reads as a selection, not a cursor.
func selectedHint(s Styles, f *textField) string {
	if f.Focused() && f.Selected() {
		return s.Dim.Render("  typing replaces it")
	}
	return ""
}

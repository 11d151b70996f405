package tui

import (
	"errors"
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"github.com/rynek/rynek/market"
)

// pane is one screen of the console. Panes read the market; they never
// mutate it: actions go through the root model (actions.go), which runs them
// inside Update, on the main thread.
type pane interface {
	Title() string
	// Help lists every key of the pane, the most used first (the footer
	// shows as many as fit, the help all).
	Help() []key.Binding
	// TextFocused reports whether a text input has focus, so that the root
	// passes single-letter keys to it instead of treating them as commands.
	TextFocused() bool
	// Selected returns the listing under the cursor, the target of actions.
	Selected() (market.Listing, bool)
	// Refresh re-reads the market after it changed.
	Refresh(c *Common)
	Update(c *Common, msg tea.Msg) tea.Cmd
	View(c *Common, w, h int) string
}

// Optional pane interfaces: what the root may ask of some panes without
// knowing which they are.
type (
	// inputFocuser is a pane with a text box that "/" focuses.
	inputFocuser interface{ FocusInput() tea.Cmd }
	// badger is a pane whose tab shows a count.
	badger interface{ Badge() string }
	// idSelector is a pane whose selection has an id to copy (y) other than
	// a listing's.
	idSelector interface{ SelectedID() string }
	// actorViewer is the pane that shows the acting player.
	actorViewer interface{ showsActor() }
	// starter is a pane with work to begin when the program starts; its
	// command's answer comes back to it.
	starter interface{ Start(c *Common) tea.Cmd }
)

// openDialogMsg asks the root to open a dialog for the pane that sent it;
// the dialog's actions of type actForPane go back to that pane.
type openDialogMsg struct{ dialog dialog }

// actForPane delivers a dialog's answer to the pane that opened it.
type actForPane struct{ msg tea.Msg }

// actionMsg asks the root to run an action for a pane (Enter on an event
// opens its listing).
type actionMsg struct{ a action }

// request is a command that asks the root to run a.
func request(a action) tea.Cmd { return func() tea.Msg { return actionMsg{a} } }

// paneTop is the screen row where panes start (below header and tabs).
const paneTop = 2

// paneHeight is the rows a pane gets on a screen h rows high (header, tabs,
// status and help lines take four).
func paneHeight(h int) int { return max(h-4, 3) }

// errHistoryLoading is what panes that need the transaction history show
// while the market loads it in the background.
var errHistoryLoading = errors.New("loading the transaction history in the background… (the market itself is ready)")

// block lays lines into exactly h lines of width w.
func block(lines []string, w, h int) string {
	var b strings.Builder
	for i := 0; i < h; i++ {
		if i > 0 {
			b.WriteByte('\n')
		}
		if i < len(lines) {
			b.WriteString(fit(lines[i], w))
		} else {
			b.WriteString(strings.Repeat(" ", w))
		}
	}
	return b.String()
}

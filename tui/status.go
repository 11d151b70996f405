package tui

import (
	"errors"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/rynek/rynek/market"
	"github.com/rynek/rynek/market/playertext"
)

// statusMsg is the footer's last result or error.
type statusMsg struct {
	text string
	err  bool
	qa   bool
}

// setStatus shows a result in the footer and keeps it in the history (L),
// stamped with the market's clock: the header's, the one QA moves. The
// text is made safe here, whoever wrote it: the market's refusals name
// players, and a name can hold escape sequences.
func (m *Model) setStatus(s statusMsg) {
	s.text = playertext.Sanitize(s.text)
	m.status = s
	m.history.add(m.c.Svc.Now(), s)
}

// clearRefusal takes a refusal off the footer when the next key comes: the
// key is another action, and a refusal left there would read as its
// outcome, on whatever pane it leads to. A refusal that key meets puts its
// own there; the one cleared stays in the history (L). A result that was
// not a refusal stays until the next one replaces it.
func (m *Model) clearRefusal() {
	if m.status.err {
		m.status = statusMsg{}
	}
}

func (m *Model) statusLine(w int) string {
	s := m.c.Styles
	switch {
	case m.status.text == "":
		return fit("", w)
	case m.status.err:
		return fit(s.Err.Render("✗ "+m.status.text), w)
	case m.status.qa:
		return fit(s.QA.Render("◆ "+m.status.text), w)
	}
	return fit(s.OK.Render("✓ ")+m.status.text, w)
}

// fail shows an error's exact text, with its code when the market gave one.
func (m *Model) fail(err error) {
	m.setStatus(statusMsg{text: err.Error() + codeSuffix(err), err: true})
}

// codeSuffix is " [CODE]" for an error of the market with a code.
func codeSuffix(err error) string {
	var me *market.Error
	if errors.As(err, &me) {
		return " [" + string(me.Code) + "]"
	}
	return ""
}

// refusal is a command that shows the market's refusal of what a pane asked
// for in the footer, with its code.
func refusal(err error) tea.Cmd {
	return func() tea.Msg { return statusMsg{text: err.Error() + codeSuffix(err), err: true} }
}

// statusHistory keeps the footer's messages, so that one replaced by the
// next is still findable (L).
type statusHistory struct {
	entries []statusEntry
}

type statusEntry struct {
	at time.Time // the market's clock
	statusMsg
}

// statusHistoryMax bounds the history.
const statusHistoryMax = 500

func (h *statusHistory) add(at time.Time, s statusMsg) {
	if s.text == "" {
		return
	}
	if len(h.entries) == statusHistoryMax {
		copy(h.entries, h.entries[1:])
		h.entries = h.entries[:statusHistoryMax-1]
	}
	h.entries = append(h.entries, statusEntry{at: at, statusMsg: s})
}

// newStatusLog shows the status history, newest first.
func newStatusLog(h *statusHistory) *pagerDialog {
	lines := make([]string, 0, len(h.entries))
	for i := len(h.entries) - 1; i >= 0; i-- {
		e := h.entries[i]
		mark := "✓"
		switch {
		case e.err:
			mark = "✗"
		case e.qa:
			mark = "◆"
		}
		lines = append(lines, e.at.UTC().Format("01-02 15:04:05")+" "+mark+" "+e.text)
	}
	return newPager("Status history (newest first, the market's clock, UTC)", lines)
}

package tui

import (
	"fmt"
	"strings"
	"time"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"github.com/rynek/rynek/market"
)

// graceQuiet is the grace period of confirmations: a confirming key counts
// only when no key came for graceQuiet before it, and never when it is the
// terminal's auto-repeat, so a held key or a keystroke already in flight
// cannot buy or remove. (crush also confirms after 1.5 s regardless; a key
// held that long would then confirm, so there is no such cap here.)
const graceQuiet = 400 * time.Millisecond

// confirmDialog asks y/n for the action it carries. When that action can be
// armed with a QA failure (a purchase), keys 1-6 arm one at a saga step, so
// FAILED and ROLLED_BACK are three keystrokes away (b, 3, y).
type confirmDialog struct {
	dialogBase
	title   string
	lines   []string
	yes     action
	arm     bool
	failAt  market.State
	lastKey time.Time
}

var armSteps = []market.State{market.StateCreated, market.StateListingReserved, market.StateMoneyWithdrawn,
	market.StateSellerPaid, market.StateItemDelivered, market.StateCompleted}

func newConfirm(c *Common, title string, yes action, lines ...string) *confirmDialog {
	_, arm := yes.(armable)
	return &confirmDialog{dialogBase: newDialogBase(choosing), title: title, lines: lines, yes: yes, arm: arm, lastKey: c.Wall()}
}

// ready reports whether the keyboard has been quiet long enough.
func (d *confirmDialog) ready(now time.Time) bool { return now.Sub(d.lastKey) >= graceQuiet }

func (d *confirmDialog) Help() []key.Binding {
	if d.arm {
		return []key.Binding{d.keys.Confirm, d.closeKey(), d.keys.Arm, d.keys.Disarm}
	}
	return []key.Binding{d.keys.Confirm, d.closeKey()}
}

func (d *confirmDialog) Update(c *Common, msg tea.Msg) (action, bool) {
	k, ok := msg.(tea.KeyPressMsg)
	if !ok {
		return nil, false
	}
	now := c.Wall()
	quiet := d.ready(now) && !k.IsRepeat
	d.lastKey = now
	switch {
	case d.closes(k):
		return nil, true
	case key.Matches(k, d.keys.Confirm) && quiet:
		if a, ok := d.yes.(armable); ok {
			return a.withFailure(d.failAt), true
		}
		return d.yes, true
	case d.arm && key.Matches(k, d.keys.Disarm):
		d.failAt = ""
	case d.arm && key.Matches(k, d.keys.Arm):
		d.failAt = armSteps[k.String()[0]-'1']
	}
	return nil, false
}

func (d *confirmDialog) View(c *Common, w, _ int) string {
	s := c.Styles
	var b strings.Builder
	b.WriteString(s.Title.Render(d.title))
	for _, l := range d.lines {
		b.WriteString("\n" + l)
	}
	if d.arm {
		b.WriteString("\n\n" + s.QA.Render("QA · fail this purchase at a step") + s.Dim.Render(" (0 none):"))
		for i, st := range armSteps {
			label := fmt.Sprintf("%d %s", i+1, st)
			if st == d.failAt {
				label = s.Cursor.Render(label)
			}
			if i%3 == 0 {
				b.WriteString("\n ")
			}
			b.WriteString(" " + label)
		}
		if d.failAt != "" {
			outcome := "ROLLED_BACK"
			if d.failAt == market.StateCreated || d.failAt == market.StateListingReserved {
				outcome = "FAILED"
			}
			b.WriteString("\n" + s.QA.Render(fmt.Sprintf("armed: fails at %s → expect %s", d.failAt, outcome)))
		}
	}
	// Both hints take the same width, so the box keeps its size when the
	// grace period ends.
	hint, wait := "y/enter confirm · n/esc cancel", "wait… (keys count after 0.4 s without one) · n/esc cancel"
	if !d.ready(c.Wall()) {
		hint, wait = wait, hint
	}
	b.WriteString("\n\n" + s.Dim.Render(fit(hint, max(width(hint), width(wait)))))
	return box(c, b.String(), w)
}

package tui

import (
	"fmt"
	"strings"
	"time"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"github.com/rynek/rynek/internal/webhook"
	"github.com/rynek/rynek/market"
	"github.com/rynek/rynek/market/playertext"
)

// webhooksPane shows each webhook endpoint's delivery: how far it got,
// how far behind it is, why its last attempt failed and when the next
// goes; QA pauses and resumes one and sends it a test event. It reads
// webhook.Control, whose methods are goroutine-safe and return at once,
// so it calls them in Update; it re-reads the state on a tick of its own
// (webhooksTick), whichever pane is shown, so that its tab's badge is
// current too.
type webhooksPane struct {
	ctl  webhook.Control // nil: no webhooks configured
	rows []webhook.Status
	nav  tableNav
	now  time.Time // the wall clock at the last read: View reads no clock
	keys webhookKeys
}

type webhookKeys struct {
	Pause, Test key.Binding
}

// webhooksTick is how often the pane reads the endpoints' state.
const webhooksTick = 500 * time.Millisecond

// webhooksTickMsg is the pane's own tick.
type webhooksTickMsg struct{}

func newWebhooksPane(ctl webhook.Control) *webhooksPane {
	return &webhooksPane{ctl: ctl, nav: tableNav{nav: newTableKeys()}, keys: webhookKeys{
		Pause: binding([]string{"space"}, "space", "pause / resume"),
		Test:  binding([]string{"t"}, "t", "send a test event"),
	}}
}

func (p *webhooksPane) Title() string { return "Webhooks" }

// Help offers the endpoints' keys only when there are endpoints: with none,
// space and t have nothing to act on.
func (p *webhooksPane) Help() []key.Binding {
	if len(p.rows) == 0 {
		return nil
	}
	n := p.nav.nav
	return []key.Binding{p.keys.Pause, p.keys.Test, n.Up, n.Down, n.Home, n.End}
}

func (p *webhooksPane) TextFocused() bool { return false }

func (p *webhooksPane) Selected() (market.Listing, bool) { return market.Listing{}, false }

// SelectedID is the selected endpoint's name, for y.
func (p *webhooksPane) SelectedID() string {
	if s, ok := p.selected(); ok {
		return s.Name
	}
	return ""
}

// Badge counts the endpoints that wait for the admin: failing ones.
func (p *webhooksPane) Badge() string {
	n := 0
	for _, s := range p.rows {
		if s.Failing {
			n++
		}
	}
	if n == 0 {
		return ""
	}
	return fmt.Sprintf("%d failing", n)
}

// Start begins the pane's tick.
func (p *webhooksPane) Start(c *Common) tea.Cmd {
	p.Refresh(c)
	return p.tick()
}

func (p *webhooksPane) tick() tea.Cmd {
	if p.ctl == nil {
		return nil // nothing to follow: the empty state does not change
	}
	return tea.Tick(webhooksTick, func(time.Time) tea.Msg { return webhooksTickMsg{} })
}

func (p *webhooksPane) Refresh(c *Common) {
	p.now = c.Wall()
	if p.ctl == nil {
		return
	}
	p.rows = p.ctl.Status()
	p.nav.total = len(p.rows)
	p.nav.clamp(p.tableRows(c))
}

// tableRows is how many endpoints the table shows; the selected one's
// details take the rest.
func (p *webhooksPane) tableRows(c *Common) int { return max(3, min(len(p.rows), paneHeight(c.H)/2-2)) }

func (p *webhooksPane) selected() (webhook.Status, bool) {
	if p.nav.cursor < 0 || p.nav.cursor >= len(p.rows) {
		return webhook.Status{}, false
	}
	return p.rows[p.nav.cursor], true
}

func (p *webhooksPane) Update(c *Common, msg tea.Msg) tea.Cmd {
	switch msg := msg.(type) {
	case webhooksTickMsg:
		p.Refresh(c)
		return p.tick()
	case tea.KeyPressMsg:
		switch {
		case key.Matches(msg, p.keys.Pause):
			return p.act(c, func(s webhook.Status) (string, error) {
				if s.Paused || s.Failing {
					return "resumed: delivery goes on from event " + fmt.Sprint(s.Delivered+1), p.ctl.Resume(s.Name)
				}
				return "paused: its events wait in the log until space resumes it", p.ctl.Pause(s.Name)
			})
		case key.Matches(msg, p.keys.Test):
			return p.act(c, func(s webhook.Status) (string, error) {
				return "test event queued: its outcome shows as the last test", p.ctl.SendTest(s.Name)
			})
		}
	}
	if d, ok := p.nav.delta(msg, p.tableRows(c), paneTop+2); ok {
		p.nav.cursor += d
		p.nav.clamp(p.tableRows(c))
	}
	return nil
}

// act runs one of Control's actions on the selected endpoint and says
// the outcome in the footer.
func (p *webhooksPane) act(c *Common, do func(webhook.Status) (string, error)) tea.Cmd {
	s, ok := p.selected()
	if !ok {
		return status(statusMsg{text: "no webhook to act on: " + webhooksHowTo, err: true})
	}
	done, err := do(s)
	p.Refresh(c)
	if err != nil {
		return status(statusMsg{text: "webhook " + s.Name + ": " + err.Error(), err: true})
	}
	return status(statusMsg{text: "webhook " + s.Name + " " + done, qa: true})
}

// status is a command that says s in the footer.
func status(s statusMsg) tea.Cmd { return func() tea.Msg { return s } }

// webhooksHowTo says where endpoints are configured.
const webhooksHowTo = "add them under webhooks: in rynek.yml (docs/rules.md)"

// webhookColumns are the table's widths for a pane w cells wide: name,
// format, state, delivered, lag, next retry, and the address in the rest.
func webhookColumns(w int) []int {
	cols := []int{14, 8, 9, 10, 8, 10, 0}
	fixed := len(cols) - 1 // the spaces between
	for _, c := range cols {
		fixed += c
	}
	cols[6] = max(w-fixed, 8)
	return cols
}

func (p *webhooksPane) View(c *Common, w, h int) string {
	s := c.Styles
	if p.ctl == nil || len(p.rows) == 0 {
		return block([]string{
			s.Title.Render("Webhooks"),
			"",
			"No webhooks configured: the market's events go to no web service or Discord.",
			"To " + webhooksHowTo + ":",
			"",
			s.Dim.Render("  webhooks:"),
			s.Dim.Render("    - name: discord"),
			s.Dim.Render("      url: https://discord.com/api/webhooks/…"),
			s.Dim.Render("      format: discord    # or standard: Standard Webhooks,"),
			s.Dim.Render("                         # signed with secret: whsec_…"),
			s.Dim.Render("      events: [TransactionCompletedEvent]"),
			"",
			"ctrl+r reloads the file; each endpoint's delivery then shows here.",
		}, w, h)
	}
	title := fmt.Sprintf("%d webhook%s · delivered events, lag and retries; refreshed every %s", len(p.rows), plural(len(p.rows)), webhooksTick)
	var b strings.Builder
	b.WriteString(fit(s.Title.Render(title), w))
	cols := webhookColumns(w - 2)
	b.WriteString("\n" + s.Dim.Render(fit("  "+fit("name", cols[0])+" "+fit("format", cols[1])+" "+fit("state", cols[2])+" "+
		fitLeft("delivered", cols[3])+" "+fitLeft("lag", cols[4])+" "+fit("next try", cols[5])+" "+fit("url", cols[6]), w)))
	rows := p.tableRows(c)
	p.nav.renderRows(&b, c, w, rows, len(p.rows), func(j int) string { return p.row(c, p.rows[j], cols) })
	if st, ok := p.selected(); ok {
		b.WriteString("\n" + block(p.detail(c, st), w, h-2-rows))
	}
	return b.String()
}

// stateText is an endpoint's state in a word, with a mark that carries
// it without colour.
func stateText(c *Common, st webhook.Status, w int) string {
	s := c.Styles
	switch {
	case st.Failing:
		return s.Err.Render(fit("✗ failing", w))
	case st.Paused:
		return s.Warn.Render(fit("‖ paused", w))
	case st.LastError != "":
		return s.Warn.Render(fit("↻ retry", w))
	case st.Lag > 0:
		return fit("→ sending", w)
	}
	return s.OK.Render(fit("✓ ok", w))
}

func (p *webhooksPane) row(c *Common, st webhook.Status, cols []int) string {
	s := c.Styles
	return fit(playertext.Sanitize(st.Name), cols[0]) + " " + fit(string(st.Format), cols[1]) + " " + stateText(c, st, cols[2]) + " " +
		fitLeft(fmt.Sprint(st.Delivered), cols[3]) + " " + fitLeft(count(st.Lag), cols[4]) + " " +
		fit(p.nextTry(st), cols[5]) + " " + s.Dim.Render(fit(playertext.Sanitize(st.URL), cols[6]))
}

// nextTry is when the next attempt goes, relative to the last read.
func (p *webhooksPane) nextTry(st webhook.Status) string {
	switch {
	case st.Paused:
		return "paused"
	case st.Failing:
		return "on resume"
	case st.NextRetry.IsZero():
		return "—"
	}
	d := st.NextRetry.Sub(p.now).Round(time.Second)
	if d <= 0 {
		return "now"
	}
	return "in " + shortDur(d)
}

// detail is everything about the selected endpoint, a line per field.
func (p *webhooksPane) detail(c *Common, st webhook.Status) []string {
	s := c.Styles
	var lines []string
	add := func(label, value string) { lines = append(lines, s.Dim.Render(fmt.Sprintf("%-13s", label))+value) }
	lines = append(lines, "")
	add("webhook", playertext.Sanitize(st.Name)+s.Dim.Render("  ("+string(st.Format)+")"))
	add("url", playertext.Sanitize(st.URL))
	add("delivered", fmt.Sprintf("through event %d of %d", st.Delivered, st.Head)+s.Dim.Render(fmt.Sprintf("  · %s to send", count(st.Lag))))
	switch {
	case st.LastError != "":
		add("last error", s.Err.Render("✗ "+playertext.Sanitize(st.LastError)))
	default:
		add("last error", s.OK.Render("none"))
	}
	add("next try", p.nextTry(st))
	if st.Test != "" {
		add("last test", playertext.Sanitize(st.Test))
	} else {
		add("last test", s.Dim.Render("none sent (t sends one)"))
	}
	if st.Skipped > 0 {
		add("skipped", s.Warn.Render(fmt.Sprintf("⚠ %s events: the log's retention deleted them before delivery", count(int(st.Skipped)))))
	}
	hint := "space pauses · t sends a test event"
	switch {
	case st.Failing:
		hint = "space resumes: delivery tries again from event " + fmt.Sprint(st.Delivered+1) + " · t sends a test event"
	case st.Paused:
		hint = "space resumes · t sends a test event"
	}
	lines = append(lines, "", s.Dim.Render(hint))
	return lines
}

package tui

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
	"github.com/rynek/rynek/market"
)

// Options configure the console.
type Options struct {
	Svc   *market.Service
	Clock *market.ManualClock // QA advances it; nil: the service's own clock cannot be moved
	// ExportDir is where the event log is exported (default: the temp dir).
	ExportDir string
	// Backup writes a consistent copy of the market to a new file (the
	// store's Backup); DatabasePath names the market, and backups go next
	// to it. Without Backup the backup key says there is nothing to copy.
	Backup       func(dest string) error
	DatabasePath string
	// Wall is the wall clock for grace periods; tests replace it.
	Wall func() time.Time
	// Tick is how often the console drains events, runs the expiry timer and
	// the bots (default 100 ms).
	Tick time.Duration
}

// Model is the root of the console. It routes messages to the active pane or
// dialog, runs actions (every market mutation happens here, in Update, on the
// main thread) and lays out header, tabs, pane and footer.
type Model struct {
	c        *Common
	panes    []pane
	active   int
	stale    []bool
	dialog   dialog
	status   statusMsg
	showHelp bool
	log      *eventLog
	keys     globalKeys
	bots     bots
	changed  bool
	tick     time.Duration
	unsub    func()
	hdr      headerData
	histDone bool // the market's history had loaded at the last tick
	swept    int  // listings the timer has removed in the current backlog
	backup   func(dest string) error
	backupOf string // the database a backup copies
}

// errHistoryLoading is what panes that need the transaction history show
// while the market loads it in the background.
var errHistoryLoading = errors.New("loading the transaction history in the background… (the market itself is ready)")

// headerData is what the header shows, read from the market in Update so
// that View never calls the market.
type headerData struct {
	ready    bool
	active   int
	volume   float64
	okCounts bool
	armed    market.State
}

func (m *Model) readHeader() {
	svc := m.c.Svc
	h := headerData{ready: svc.IsReady(), armed: svc.ArmedFailure()}
	var err1, err2 error
	h.active, err1 = svc.GetActiveListingsCount()
	h.volume, err2 = svc.GetMarketVolume()
	h.okCounts = err1 == nil && err2 == nil
	m.hdr = h
}

// statusMsg is the footer's last result or error.
type statusMsg struct {
	text string
	err  bool
	qa   bool
}

// tickMsg drives the console's clock: events, expiry timer, bots.
type tickMsg time.Time

// New builds the console over a ready service.
func New(o Options) *Model {
	if o.Wall == nil {
		o.Wall = time.Now
	}
	if o.Tick <= 0 {
		o.Tick = 100 * time.Millisecond
	}
	c := &Common{Svc: o.Svc, Clock: o.Clock, Wall: o.Wall, W: 80, H: 24, IsDark: true}
	c.Styles = newStyles(true)
	c.NowUnix = o.Svc.Now().Unix()
	m := &Model{c: c, log: &eventLog{next: func(after uint64) (uint64, bool) {
		page, err := o.Svc.EventsSince(after, 1)
		if err != nil || len(page.Events) == 0 {
			return 0, false
		}
		return page.Events[0].Seq(), true
	}}, keys: newGlobalKeys(), tick: o.Tick}
	m.unsub = o.Svc.Subscribe(m.log.push)
	o.Svc.OnListenerPanic(func(r any) { m.status = statusMsg{text: fmt.Sprint(r), err: true} })
	m.chooseActors()
	m.panes = []pane{newListingsPane(), newSearchPane(), newSellerPane(), newStatsPane(), newTransactionsPane(), newEventsPane(m.log, o.ExportDir)}
	m.stale = make([]bool, len(m.panes))
	m.bots = newBots(o.Svc)
	m.backup, m.backupOf = o.Backup, o.DatabasePath
	m.refreshAll() // the active pane now, the others when first shown
	m.status = statusMsg{text: fmt.Sprintf("Welcome. Acting as %s. Press ? for every key; s sells, b buys, p picks the player.", playerName(c.Actor))}
	return m
}

// chooseActors picks a default acting player — the first non-admin who can
// both sell (items, room under the listing limit) and buy (money) — and an
// admin.
func (m *Model) chooseActors() {
	svc := m.c.Svc
	ps, err := svc.Players()
	if err != nil {
		return
	}
	limit := svc.Config().MaxListingsPerPlayer
	for _, p := range ps {
		if p.HasPermission(market.PermAdmin) {
			if m.c.Admin.Name == "" {
				m.c.Admin = p
			}
			continue
		}
		if m.c.Actor.Name != "" {
			continue
		}
		st, err := svc.GetPlayer(p.ID)
		if err != nil || st.Balance < 100 || !hasItems(st) {
			continue
		}
		if page, err := svc.Query(market.Query{Seller: p.ID, Limit: 1}); err == nil && page.Total < limit {
			m.c.Actor = p
		}
	}
	if m.c.Actor.Name == "" && len(ps) > 0 {
		m.c.Actor = ps[0]
	}
}

func hasItems(st market.PlayerState) bool {
	for _, s := range st.Inventory {
		if s != nil {
			return true
		}
	}
	return false
}

func (m *Model) tickCmd() tea.Cmd {
	return tea.Tick(m.tick, func(t time.Time) tea.Msg { return tickMsg(t) })
}

// Init binds the goroutine running the event loop as the market's main
// thread (Bubble Tea calls Init on the goroutine that runs Update), asks for
// the background colour and starts the tick.
func (m *Model) Init() tea.Cmd {
	if err := m.c.Svc.BindMainThread(); err != nil {
		m.status = statusMsg{text: "mutations will be refused: " + err.Error(), err: true}
	}
	return tea.Batch(tea.RequestBackgroundColor, m.tickCmd())
}

// Close unsubscribes from the service.
func (m *Model) Close() {
	if m.unsub != nil {
		m.unsub()
	}
}

// Update routes a message. It is the market's main thread.
func (m *Model) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	c := m.c
	switch msg := msg.(type) {
	case tea.WindowSizeMsg:
		c.W, c.H = msg.Width, msg.Height
		m.refreshAll()
		return m, nil
	case tea.BackgroundColorMsg:
		c.IsDark = msg.IsDark()
		c.Styles = newStyles(c.IsDark)
		m.refreshAll()
		return m, nil
	case tickMsg:
		return m, m.onTick()
	case statusMsg:
		m.status = msg
		return m, nil
	case bgMutationMsg:
		m.onBackgroundResult(msg)
		return m, nil
	case tea.KeyPressMsg:
		if msg.String() == "ctrl+c" {
			return m, tea.Quit
		}
		defer m.readHeader() // a key may have changed the market or the QA state
		if m.dialog != nil {
			a, done := m.dialog.Update(c, msg)
			if done {
				m.dialog = nil
			}
			if a != nil {
				return m, m.run(a)
			}
			return m, nil
		}
		if m.showHelp {
			m.showHelp = false
			return m, nil
		}
		if !m.panes[m.active].TextFocused() {
			if cmd, ok := m.globalKey(msg); ok {
				return m, cmd
			}
		} else if msg.String() == "tab" || msg.String() == "shift+tab" {
			if cmd, ok := m.globalKey(msg); ok {
				return m, cmd
			}
		}
	case tea.MouseClickMsg:
		if m.dialog != nil {
			return m, nil
		}
		if msg.Y == 1 { // the tab bar
			if i := m.tabAt(msg.X); i >= 0 {
				m.switchTo(i)
			}
			return m, nil
		}
	case tea.MouseMsg:
		if m.dialog != nil {
			return m, nil
		}
	}
	return m, m.panes[m.active].Update(c, msg)
}

// refreshAll re-reads the market in the active pane and marks the others.
func (m *Model) refreshAll() {
	m.readHeader()
	for i := range m.stale {
		m.stale[i] = true
	}
	m.panes[m.active].Refresh(m.c)
	m.stale[m.active] = false
}

func (m *Model) switchTo(i int) {
	if i < 0 || i >= len(m.panes) {
		return
	}
	m.active = i
	if m.stale[i] {
		m.panes[i].Refresh(m.c)
		m.stale[i] = false
	}
}

// onTick drains events, runs the expiry timer and the bots, and refreshes
// what changed.
func (m *Model) onTick() tea.Cmd {
	c := m.c
	c.NowUnix = c.Svc.Now().Unix()
	if c.Svc.IsReady() {
		m.bots.step(c, m.tick)
		if n, more, err := m.sweep(); err == nil && n > 0 {
			m.swept += n
			text := fmt.Sprintf("%d listings expired by timer: no event, by contract (items went to their sellers' mailboxes)", m.swept)
			if more {
				text += " · sweeping…"
			} else {
				m.swept = 0
			}
			m.status = statusMsg{text: text, qa: true}
		}
		// The event log's retention, a bounded batch per tick.
		if _, err := c.Svc.TrimEventLog(); err != nil {
			m.fail(err)
		}
	}
	if !m.histDone && c.Svc.HistoryLoaded() {
		m.histDone = true
		m.changed = true // panes waiting for the history can show it now
	}
	if m.log.drain() > 0 || m.bots.changed || m.changed {
		m.changed, m.bots.changed = false, false
		m.refreshAll()
	}
	return m.tickCmd()
}

// sweep runs one batch of the expiry timer (market.SweepBatch listings).
// A backlog — a market opened after a long pause, or the clock moved ahead
// a week — is worked off one batch per tick, about 20,000 listings a
// second, so the console stays responsive meanwhile.
func (m *Model) sweep() (n int, more bool, err error) {
	n, more, err = m.c.Svc.SweepExpired()
	if n > 0 {
		m.changed = true
	}
	return n, more, err
}

func (m *Model) tabAt(x int) int {
	pos := 0
	for i, p := range m.panes {
		w := ansi.StringWidth(m.tabLabel(i, p)) + 2
		if x >= pos && x < pos+w {
			return i
		}
		pos += w
	}
	return -1
}

func (m *Model) tabLabel(i int, p pane) string {
	label := fmt.Sprintf("%d %s", i+1, p.Title())
	if _, ok := p.(*eventsPane); ok {
		label += fmt.Sprintf(" (%s)", count(len(m.log.all)))
	}
	return label
}

// View lays out the screen. It only reads state prepared in Update.
func (m *Model) View() tea.View {
	c := m.c
	w, h := max(c.W, 20), max(c.H, 8)
	var b strings.Builder
	b.WriteString(m.header(w))
	b.WriteByte('\n')
	b.WriteString(m.tabs(w))
	b.WriteByte('\n')
	ph := paneHeight(h)
	if m.showHelp {
		b.WriteString(m.fullHelp(w, ph))
	} else {
		b.WriteString(m.panes[m.active].View(c, w, ph))
	}
	b.WriteByte('\n')
	b.WriteString(m.statusLine(w))
	b.WriteByte('\n')
	b.WriteString(m.shortHelp(w))
	content := b.String()
	if m.dialog != nil {
		content = overlay(content, m.dialog.View(c, min(w-4, 100)), w, h)
	}
	v := tea.NewView(content)
	v.AltScreen = true
	v.MouseMode = tea.MouseModeCellMotion
	v.WindowTitle = "Rynek" // fixed: nothing from players goes into the title
	return v
}

func (m *Model) header(w int) string {
	c := m.c
	s := c.Styles
	parts := []string{s.Header.Render(Sanitize(c.Svc.Name()))}
	if m.hdr.ready {
		parts = append(parts, s.OK.Render("● ready"))
	} else {
		parts = append(parts, s.Err.Render("● NOT READY"))
	}
	clock := time.Unix(c.NowUnix, 0).UTC().Format("2006-01-02 15:04:05 UTC")
	if c.Clock != nil && c.Clock.Offset() > 0 {
		clock += s.QA.Render(fmt.Sprintf(" (+%s)", shortDur(c.Clock.Offset())))
	}
	parts = append(parts, clock)
	if m.hdr.okCounts {
		parts = append(parts, s.HeaderKey.Render("active ")+count(m.hdr.active), s.HeaderKey.Render("volume ")+money(m.hdr.volume))
	}
	parts = append(parts, s.HeaderKey.Render("acting as ")+playerName(c.Actor))
	if f := m.hdr.armed; f != "" {
		parts = append(parts, s.QA.Render("QA armed "+string(f)))
	}
	if m.bots.on {
		parts = append(parts, s.QA.Render(fmt.Sprintf("QA bots %d/s", m.bots.rate)))
	}
	return fit(strings.Join(parts, s.Dim.Render(" │ ")), w)
}

func shortDur(d time.Duration) string {
	if d >= 24*time.Hour && d%(24*time.Hour) == 0 {
		return fmt.Sprintf("%dd", d/(24*time.Hour))
	}
	if d >= time.Hour {
		return fmt.Sprintf("%dh", d/time.Hour)
	}
	return d.String()
}

func (m *Model) tabs(w int) string {
	s := m.c.Styles
	var b strings.Builder
	for i, p := range m.panes {
		label := m.tabLabel(i, p)
		if i == m.active {
			b.WriteString(s.TabActive.Render(label))
		} else {
			b.WriteString(s.Tab.Render(label))
		}
	}
	return fit(b.String(), w)
}

func (m *Model) statusLine(w int) string {
	s := m.c.Styles
	switch {
	case m.status.err:
		return fit(s.Err.Render("✗ "+m.status.text), w)
	case m.status.qa:
		return fit(s.QA.Render("◆ "+m.status.text), w)
	}
	return fit(s.OK.Render("✓ ")+m.status.text, w)
}

func (m *Model) shortHelp(w int) string {
	s := m.c.Styles
	var parts []string
	for _, b := range append(m.panes[m.active].Help(), m.keys.short()...) {
		if !b.Enabled() {
			continue
		}
		parts = append(parts, s.HeaderKey.Render(b.Help().Key)+" "+s.Dim.Render(b.Help().Desc))
	}
	return fit(strings.Join(parts, s.Dim.Render(" · ")), w)
}

func (m *Model) fullHelp(w, h int) string {
	s := m.c.Styles
	var lines []string
	keyW := 14
	if w < 100 {
		keyW = 10
	}
	section := func(title string, bs []key.Binding) {
		lines = append(lines, s.Title.Render(title))
		for _, b := range bs {
			lines = append(lines, fmt.Sprintf(" %-*s %s", keyW, b.Help().Key, b.Help().Desc))
		}
		lines = append(lines, "")
	}
	section("Panes", m.keys.panes())
	section("Actions (selected listing, acting player)", m.keys.actions())
	section("QA controls", m.keys.qa())
	section("This pane", m.panes[m.active].Help())
	lines = append(lines, s.Dim.Render("Mouse: click a tab or a row, wheel scrolls. Any key closes this help."))
	// Two columns when wide enough.
	col := (len(lines) + 1) / 2
	var b strings.Builder
	for i := 0; i < h; i++ {
		if i > 0 {
			b.WriteByte('\n')
		}
		left, right := "", ""
		if w >= 70 {
			if i < col {
				left = lines[i]
			}
			if i+col < len(lines) {
				right = lines[i+col]
			}
			b.WriteString(fit(left, w/2) + fit(right, w-w/2))
		} else {
			if i < len(lines) {
				left = lines[i]
			}
			b.WriteString(fit(left, w))
		}
	}
	return b.String()
}

package tui

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
	"github.com/rynek/rynek/internal/webhook"
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
	// APIAddr is the address the HTTP API serves (rynek --api), shown in
	// the header; empty when it does not run.
	APIAddr string
	// ReloadRules reads the market's rules file again and applies it (on
	// the main thread); nil: the reload key says there is none.
	ReloadRules func() (string, error)
	// TickWork reads the main thread's work per tick for the header
	// (default: the service's TickWork); tests fix the figures.
	TickWork func() market.TickWork
	// Webhooks is the delivery to the rules file's webhooks, for the
	// Webhooks pane; nil: none runs.
	Webhooks webhook.Control
}

// The smallest screen the console lays out; below it, it says so.
const (
	minWidth  = 80
	minHeight = 24
)

// Model is the root of the console. It routes messages to the pane or
// dialog they are for, runs actions (every market mutation happens here, in
// Update, on the main thread) and lays out header, tabs, pane and footer. It
// knows panes only through the pane interface and the small optional ones
// beside it.
type Model struct {
	c       *Common
	panes   []pane
	active  int
	stale   []bool
	dialog  dialog
	owner   int // the pane that opened the dialog (openDialogMsg), or -1
	status  statusMsg
	history *statusHistory
	log     *eventLog
	keys    globalKeys
	bots    bots
	changed bool
	tick    time.Duration
	unsub   func()
	hdr     headerData
	// storeAway is why following the shared market failed at the last
	// tick (nil: it did not).
	storeAway error
	histDone  bool // the market's history had loaded at the last tick
	swept     int  // listings the timer has removed in the current backlog
	ended     int  // of them, auctions (each published AuctionEndedEvent)
	backup    func(dest string) error
	backupOf  string                     // the database a backup copies
	reload    func() (string, error)     // Options.ReloadRules
	apiAddr   string                     // where the HTTP API serves; "" = nowhere
	footer    struct{ key, text string } // the last footer shortHelp styled, and what it showed

	// store is what was said of the store's health (storewatch.go).
	store storeWatch

	// expiredOrders counts the buy orders the timer closed in the current
	// backlog (each published BuyOrderClosedEvent, reason "expired").
	expiredOrders int

	// ticks is the main thread's work per tick the header shows (header.go).
	ticks tickWatch
}

// tickMsg drives the console's clock: events, expiry timer, bots.
type tickMsg time.Time

// paneMsg is the result of a command a pane started, addressed to that
// pane: it reaches it even when another pane is active by then (a search
// debounce that fires after the user switched panes). gh-dash tags its
// sections' messages the same way.
type paneMsg struct {
	pane int
	msg  tea.Msg
}

// New builds the console over a ready service.
func New(o Options) *Model {
	if o.Wall == nil {
		o.Wall = time.Now
	}
	if o.Tick <= 0 {
		o.Tick = 100 * time.Millisecond
	}
	c := &Common{Svc: o.Svc, Clock: o.Clock, Wall: o.Wall, W: minWidth, H: minHeight, IsDark: true}
	c.Styles = newStyles(true)
	c.NowUnix = o.Svc.Now().Unix()
	m := &Model{c: c, log: &eventLog{next: func(after uint64) (uint64, bool) {
		page, err := o.Svc.EventsSince(after, 1)
		if err != nil || len(page.Events) == 0 {
			return 0, false
		}
		return page.Events[0].Seq(), true
	}}, keys: newGlobalKeys(), tick: o.Tick, history: &statusHistory{}, owner: -1, apiAddr: o.APIAddr}
	m.unsub = o.Svc.Subscribe(m.log.push)
	// What the log holds up to here is read by the Events pane at start;
	// the listener brings the rest. No change runs between the two lines:
	// changes run on the main thread, which has not started.
	m.log.start = o.Svc.Version()
	m.log.lastSeq = m.log.start
	o.Svc.OnListenerPanic(func(r any) { m.setStatus(statusMsg{text: fmt.Sprint(r), err: true}) })
	m.chooseActors()
	m.panes = []pane{newListingsPane(), newSearchPane(), newSellerPane(), newStatsPane(), newTransactionsPane(), newEventsPane(m.log, o.ExportDir), newOrdersPane(),
		newWebhooksPane(o.Webhooks)}
	m.stale = make([]bool, len(m.panes))
	m.bots = newBots()
	m.backup, m.backupOf = o.Backup, o.DatabasePath
	m.reload = o.ReloadRules
	m.ticks.read = o.TickWork
	if m.ticks.read == nil {
		m.ticks.read = o.Svc.TickWork
	}
	m.refreshAll() // the active pane now, the others when first shown
	if c.Actor.Name == "" {
		m.setStatus(statusMsg{text: noPlayersText, err: true})
	} else {
		m.setStatus(statusMsg{text: fmt.Sprintf("Welcome. Acting as %s. Press ? for every key; s sells, b buys, p picks the player.", playerName(c.Actor))})
	}
	m.catchUpClock(newestListingTime(o.Svc))
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
		// Their own limit: a big seller may have a tier above the market's.
		if room, err := svc.ListingRoom(p.ID); err == nil && room.Listings < room.Limit {
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
// the background colour, starts the tick and what the panes start with.
func (m *Model) Init() tea.Cmd {
	if err := m.c.Svc.BindMainThread(); err != nil {
		m.setStatus(statusMsg{text: "mutations will be refused: " + err.Error(), err: true})
	}
	cmds := []tea.Cmd{tea.RequestBackgroundColor, m.tickCmd(), m.followCmd(), m.commitCmd()}
	for i, p := range m.panes {
		if s, ok := p.(starter); ok {
			cmds = append(cmds, m.forPane(i, s.Start(m.c)))
		}
	}
	return tea.Batch(cmds...)
}

// followedMsg says that the other instances of a shared market changed it.
type followedMsg struct{}

// followCmd waits for the service's follower to have something, so that
// the change reaches memory and the listeners at once, not at the next tick.
func (m *Model) followCmd() tea.Cmd { return wakeOn(m.c.Svc.Followed(), followedMsg{}) }

// wakeOn waits for ch (nil: nothing to wait for) and then says msg.
func wakeOn(ch <-chan struct{}, msg tea.Msg) tea.Cmd {
	if ch == nil {
		return nil
	}
	return func() tea.Msg {
		<-ch
		return msg
	}
}

// follow applies what the other instances did.
func (m *Model) follow() {
	n, err := m.c.Svc.Follow()
	m.storeAway = err
	if n > 0 {
		m.changed = true
	}
}

// committedMsg says that commits made behind the tick have outcomes.
type committedMsg struct{}

// commitCmd waits for the outcomes of commits, so that their events reach
// the panes at once, not at the next tick.
func (m *Model) commitCmd() tea.Cmd { return wakeOn(m.c.Svc.Committed(), committedMsg{}) }

// takeOutcomes takes the outcomes of the commits; a change the store refused
// after its action had returned is undone, and the status line says so.
func (m *Model) takeOutcomes() {
	refused := m.c.Svc.Settle()
	if len(refused) == 0 {
		return
	}
	m.changed = true
	x := refused[len(refused)-1]
	text := fmt.Sprintf("the store refused %s after it was made, so it was undone: %s", x.What, x.Err.Error()+codeSuffix(x.Err))
	if len(refused) > 1 {
		text += fmt.Sprintf(" (and %d changes made after it)", len(refused)-1)
	}
	m.setStatus(statusMsg{text: text, err: true})
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
		m.restyle()
		return m, nil
	case tea.ModeReportMsg:
		// The renderer measures graphemes whole once the terminal reports
		// mode 2027 (bubbletea's eventLoop); measure as it does.
		if msg.Mode == ansi.ModeUnicodeCore && (msg.Value == ansi.ModeReset || msg.Value == ansi.ModeSet || msg.Value == ansi.ModePermanentlySet) {
			cells = ansi.GraphemeWidth
			m.restyle()
		}
		return m, nil
	case tickMsg:
		// The tick's work is measured for the header, /api/health and
		// the admin; a console whose thread could not bind (Init said so)
		// ticks unmeasured.
		var cmd tea.Cmd
		if _, _, err := c.Svc.MeasureTick(func() { cmd = m.onTick() }); err != nil {
			cmd = m.onTick()
		}
		m.ticks.update(c.Wall())
		return m, cmd
	case followedMsg:
		m.follow()
		return m, m.followCmd()
	case committedMsg:
		m.takeOutcomes()
		return m, m.commitCmd()
	case statusMsg:
		m.setStatus(msg)
		return m, nil
	case dialogMsg:
		if m.dialog != msg.to {
			return m, nil // the dialog that asked has closed
		}
		return m, m.updateDialog(msg.msg)
	case bgMutationMsg:
		m.onBackgroundResult(msg)
		return m, nil
	case paneMsg:
		if msg.pane < 0 || msg.pane >= len(m.panes) {
			return m, nil
		}
		switch inner := msg.msg.(type) {
		case openDialogMsg:
			m.dialog, m.owner = inner.dialog, msg.pane
			return m, nil
		case actionMsg:
			cmd, _ := m.run(inner.a)
			return m, cmd
		}
		return m, m.forPane(msg.pane, m.panes[msg.pane].Update(c, msg.msg))
	case tea.KeyPressMsg:
		if key.Matches(msg, m.keys.Interrupt) {
			return m, tea.Quit
		}
		defer m.readHeader() // a key may have changed the market or the QA state
		if m.dialog != nil {
			return m, m.updateDialog(msg)
		}
		m.clearRefusal()
		if !m.panes[m.active].TextFocused() || key.Matches(msg, m.keys.Next, m.keys.Prev) {
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
				m.clearRefusal()
				m.switchTo(i)
			}
			return m, nil
		}
	case tea.MouseMsg:
		if m.dialog != nil {
			return m, m.updateDialog(msg)
		}
	case tea.PasteMsg:
		// The terminal's paste is typing: it goes where keys go.
		if m.dialog != nil {
			return m, m.updateDialog(msg)
		}
	}
	return m, m.forPane(m.active, m.panes[m.active].Update(c, msg))
}

// updateDialog passes a message to the open dialog and runs what it asks
// for. A dialog whose action the market refused stays open and shows why
// (the sell dialog keeps the amount and price typed).
func (m *Model) updateDialog(msg tea.Msg) tea.Cmd {
	d := m.dialog
	a, done := d.Update(m.c, msg)
	owner := m.owner
	if done {
		m.dialog, m.owner = nil, -1
	}
	if a == nil {
		return nil
	}
	if a, ok := a.(actForPane); ok && owner >= 0 {
		_, cmd := m.Update(paneMsg{pane: owner, msg: a.msg})
		return cmd
	}
	cmd, err := m.run(a)
	if k, ok := d.(refusalKeeper); ok && err != nil && k.Refused(err) {
		m.dialog = d
	}
	return cmd
}

// forPane tags the messages of a pane's command with the pane, so that they
// come back to it whichever pane is active then. Status messages are for the
// root and pass as they are.
func (m *Model) forPane(i int, cmd tea.Cmd) tea.Cmd {
	if cmd == nil {
		return nil
	}
	return func() tea.Msg {
		switch msg := cmd().(type) {
		case nil:
			return nil
		case tea.BatchMsg:
			out := make(tea.BatchMsg, len(msg))
			for j, c := range msg {
				out[j] = m.forPane(i, c)
			}
			return out
		case statusMsg:
			return msg
		default:
			return paneMsg{pane: i, msg: msg}
		}
	}
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

// restyle renders every cached row again (new palette or width method).
func (m *Model) restyle() {
	m.c.Epoch++
	m.refreshAll()
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
		// The market's lock is held through the tick's changes, so that
		// the main thread waits for its readers (the API's) once
		// (Service.Hold), not in each change; the panes are refreshed
		// after, with the lock let go. When the lock is not free in time
		// the changes wait for the next tick. A console whose thread
		// could not bind runs them unheld: each is refused.
		if _, err := c.Svc.Hold(m.change); err != nil {
			m.change()
		}
	}
	if !m.histDone && c.Svc.HistoryLoaded() {
		m.histDone = true
		m.changed = true // panes waiting for the history can show it now
		m.catchUpClock(newestTransactionTime(c.Svc))
	}
	if m.log.drain() > 0 || m.bots.changed || m.changed {
		m.changed, m.bots.changed = false, false
		m.refreshAll()
	}
	return m.tickCmd()
}

// change is the market's part of a tick, on the main thread: the outcomes
// of this console's commits, what the other instances of a shared market
// did, the bots' changes and the timers.
func (m *Model) change() {
	c := m.c
	m.takeOutcomes()
	m.follow()
	m.bots.step(c, m.tick)
	// While the store cannot be reached the timers wait: each would
	// only be refused (and counted as a refused change).
	away := c.Svc.StoreHealth().Unreachable
	if r := m.sweep(away); r.err == nil && r.n+r.orders > 0 {
		m.swept += r.n
		m.ended += r.auctions
		m.expiredOrders += r.orders
		text := sweptText(m.swept-m.ended, m.ended, m.expiredOrders)
		if r.more {
			text += " · sweeping…"
		} else {
			m.swept, m.ended, m.expiredOrders = 0, 0, 0
		}
		m.setStatus(statusMsg{text: text, qa: true})
	}
	// The event log's retention, a bounded batch per tick. While the
	// shared store is away the header says so; its failure each tick
	// would only cover the status line.
	if !away {
		if _, err := c.Svc.TrimEventLog(); err != nil && m.storeAway == nil && !errors.Is(err, market.ErrStore) {
			m.fail(err)
		}
	}
	m.watchStore()
}

// sweepResult is what one batch of the expiry timer did: n listings
// removed, of them auctions that ended (each published
// AuctionEndedEvent), and buy orders that expired (each published
// BuyOrderClosedEvent); more: a backlog is left for the next tick.
type sweepResult struct {
	n, auctions, orders int
	more                bool
	err                 error
}

// sweep runs one batch of the expiry timer, sized to take about
// market.SweepBudget of the tick. A backlog — a market opened after a
// long pause, or the clock moved ahead a week — is worked off one batch
// per tick (some hundreds of listings a second on a local disk), so the
// console stays responsive meanwhile. The auctions and the
// orders are counted by the events they published.
// It waits while the store is away.
func (m *Model) sweep(away bool) sweepResult {
	var r sweepResult
	if away {
		return r
	}
	from := len(m.log.pending)
	r.n, r.more, r.err = m.c.Svc.SweepExpired()
	for _, e := range m.log.pending[from:] {
		switch e := e.(type) {
		case market.AuctionEndedEvent:
			r.auctions++
		case market.BuyOrderClosedEvent:
			if e.Reason() == "expired" {
				r.orders++
			}
		}
	}
	if len(m.log.pending) > from {
		m.changed = true // orders expire, and fill on the timer's look at the book, without removing a listing
	}
	if r.n > 0 {
		m.changed = true
	}
	return r
}

// View lays out the screen. It only reads state prepared in Update.
func (m *Model) View() tea.View {
	v := tea.NewView(m.content())
	v.AltScreen = true
	v.MouseMode = tea.MouseModeCellMotion
	v.WindowTitle = "Rynek" // fixed: nothing from players goes into the title
	return v
}

func (m *Model) content() string {
	c := m.c
	w, h := c.W, c.H
	if w < minWidth || h < minHeight {
		return tooSmall(w, h)
	}
	var b strings.Builder
	b.WriteString(m.header(w))
	b.WriteByte('\n')
	b.WriteString(m.tabs(w))
	b.WriteByte('\n')
	b.WriteString(m.panes[m.active].View(c, w, paneHeight(h)))
	b.WriteByte('\n')
	b.WriteString(m.statusLine(w))
	b.WriteByte('\n')
	b.WriteString(m.shortHelp(w))
	content := b.String()
	if m.dialog != nil {
		content = overlay(content, m.dialog.View(c, min(w-4, 100), h-4), w, h)
	}
	return content
}

// tooSmall is the whole screen below the minimum size.
func tooSmall(w, h int) string {
	msg := fmt.Sprintf("terminal too small (needs %d×%d)", minWidth, minHeight)
	lines := make([]string, max(h, 1))
	for i := range lines {
		lines[i] = strings.Repeat(" ", max(w, 0))
	}
	if w > 0 {
		lines[len(lines)/2] = fit(strings.Repeat(" ", max(0, (w-width(msg))/2))+msg, w)
	}
	return strings.Join(lines, "\n")
}

// shortHelp is the footer: the keys of the open dialog or the active pane
// as far as they fit, and "? all keys · q quit" at the end — or, while the
// pane's text box has the cursor and ? and q are text, "ctrl+c quit". Styling
// it is nearly half of a frame, and it rarely changes: the last one is kept
// and reused while the keys, the width and the palette are the same.
func (m *Model) shortHelp(w int) string {
	bindings := m.panes[m.active].Help()
	if m.dialog != nil {
		bindings = m.dialog.Help()
	}
	var k strings.Builder
	fmt.Fprintf(&k, "%d %d %t %t", w, m.c.Epoch, m.dialog != nil, m.panes[m.active].TextFocused())
	for _, b := range bindings {
		if b.Enabled() {
			k.WriteString("\x00" + b.Help().Key + "\x00" + b.Help().Desc)
		}
	}
	if k.String() != m.footer.key {
		m.footer.key, m.footer.text = k.String(), m.renderShortHelp(w, bindings)
	}
	return m.footer.text
}

// renderShortHelp styles the footer for shortHelp.
func (m *Model) renderShortHelp(w int, bindings []key.Binding) string {
	s := m.c.Styles
	render := func(b key.Binding) string {
		return s.HeaderKey.Render(b.Help().Key) + " " + s.Dim.Render(b.Help().Desc)
	}
	sep := s.Dim.Render(" · ")
	var tail []string
	if m.dialog == nil {
		short := m.keys.short()
		if m.panes[m.active].TextFocused() {
			short = []key.Binding{m.keys.Interrupt}
		}
		for _, b := range short {
			tail = append(tail, render(b))
		}
	}
	end := strings.Join(tail, sep)
	room := w - width(end) - width(sep)
	var parts []string
	used := 0
	for _, b := range bindings {
		if !b.Enabled() {
			continue
		}
		r := render(b)
		if used+width(r)+width(sep) > room {
			break
		}
		parts = append(parts, r)
		used += width(r) + width(sep)
	}
	if end != "" {
		parts = append(parts, end)
	}
	return fit(strings.Join(parts, sep), w)
}

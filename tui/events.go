package tui

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"github.com/rynek/rynek/market"
)

// eventLog keeps every event the service published, in order. The service's
// listener appends to pending (it runs on the main thread, inside Update, so
// it never blocks and never races); each tick moves pending into all, so a
// burst of thousands of events costs one redraw, not thousands. Nothing is
// ever dropped, and the market's event log lets anyone check: seqs skip the
// log's internal entries, so a jump is checked against it (next).
type eventLog struct {
	all     []market.Event
	byKind  [3][]int32 // indexes into all, per kind
	pending []market.Event
	lastSeq uint64
	gaps    int // contract events the market logged but the console missed (must stay 0)
	// next returns the seq of the first contract event after a seq, from
	// the market's log (Service.EventsSince).
	next func(after uint64) (uint64, bool)
}

const (
	kindCreated = iota
	kindRemoved
	kindCompleted
)

var kindNames = [3]string{"ListingCreatedEvent", "ListingRemovedEvent", "TransactionCompletedEvent"}

func kindOf(e market.Event) int {
	switch e.(type) {
	case market.ListingCreatedEvent:
		return kindCreated
	case market.ListingRemovedEvent:
		return kindRemoved
	default:
		return kindCompleted
	}
}

// push is the service listener.
func (l *eventLog) push(e market.Event) { l.pending = append(l.pending, e) }

// drain moves pending events into the log and returns how many arrived.
func (l *eventLog) drain() int {
	n := len(l.pending)
	for _, e := range l.pending {
		if l.lastSeq != 0 && e.Seq() != l.lastSeq+1 && l.next != nil {
			if seq, ok := l.next(l.lastSeq); ok && seq != e.Seq() {
				l.gaps++
			}
		}
		l.lastSeq = e.Seq()
		k := kindOf(e)
		l.byKind[k] = append(l.byKind[k], int32(len(l.all)))
		l.all = append(l.all, e)
	}
	clear(l.pending)
	l.pending = l.pending[:0]
	return n
}

// eventsPane shows the live event log, newest first.
type eventsPane struct {
	log       *eventLog
	exportDir string // where export writes (next to the database in the console)
	filter    int    // -1 all, else a kind
	paused    bool
	frozen    int // log length shown while paused
	cursor    int // 0 = newest shown
	keys      eventKeys
	status    func(string, bool)
}

type eventKeys struct {
	Up, Down, PgUp, PgDown, Top, Filter, Pause, Export key.Binding
}

func newEventsPane(log *eventLog, exportDir string) *eventsPane {
	if exportDir == "" {
		exportDir = os.TempDir()
	}
	return &eventsPane{log: log, exportDir: exportDir, filter: -1, keys: eventKeys{
		Up:     key.NewBinding(key.WithKeys("up", "k"), key.WithHelp("↑/k", "up")),
		Down:   key.NewBinding(key.WithKeys("down", "j"), key.WithHelp("↓/j", "down")),
		PgUp:   key.NewBinding(key.WithKeys("pgup"), key.WithHelp("pgup", "page up")),
		PgDown: key.NewBinding(key.WithKeys("pgdown"), key.WithHelp("pgdn", "page down")),
		Top:    key.NewBinding(key.WithKeys("home", "g"), key.WithHelp("home", "newest")),
		Filter: key.NewBinding(key.WithKeys("f"), key.WithHelp("f", "filter kind")),
		Pause:  key.NewBinding(key.WithKeys("space"), key.WithHelp("space", "pause")),
		Export: key.NewBinding(key.WithKeys("e"), key.WithHelp("e", "export JSONL")),
	}}
}

func (p *eventsPane) Title() string { return "Events" }

func (p *eventsPane) Help() []key.Binding {
	return []key.Binding{p.keys.Filter, p.keys.Pause, p.keys.Export, p.keys.Up, p.keys.Down}
}

func (p *eventsPane) TextFocused() bool { return false }

func (p *eventsPane) Selected() (market.Listing, bool) { return market.Listing{}, false }

func (p *eventsPane) Refresh(*Common) {}

// visible returns the number of events in the current view (filter, pause).
func (p *eventsPane) visible() int {
	n := len(p.log.all)
	if p.paused {
		n = p.frozen
	}
	if p.filter < 0 {
		return n
	}
	idx := p.log.byKind[p.filter]
	// Count kind entries below n (the paused prefix).
	lo, hi := 0, len(idx)
	for lo < hi {
		mid := (lo + hi) / 2
		if int(idx[mid]) < n {
			lo = mid + 1
		} else {
			hi = mid
		}
	}
	return lo
}

// at returns the i-th newest event of the view.
func (p *eventsPane) at(i int) market.Event {
	n := p.visible()
	if p.filter < 0 {
		return p.log.all[n-1-i]
	}
	return p.log.all[p.log.byKind[p.filter][n-1-i]]
}

func (p *eventsPane) Update(c *Common, msg tea.Msg) tea.Cmd {
	h := max(c.H-6, 1)
	switch msg := msg.(type) {
	case tea.KeyPressMsg:
		switch {
		case key.Matches(msg, p.keys.Up):
			p.cursor--
		case key.Matches(msg, p.keys.Down):
			p.cursor++
		case key.Matches(msg, p.keys.PgUp):
			p.cursor -= h
		case key.Matches(msg, p.keys.PgDown):
			p.cursor += h
		case key.Matches(msg, p.keys.Top):
			p.cursor = 0
		case key.Matches(msg, p.keys.Filter):
			p.filter++
			if p.filter > kindCompleted {
				p.filter = -1
			}
			p.cursor = 0
		case key.Matches(msg, p.keys.Pause):
			p.paused = !p.paused
			p.frozen = len(p.log.all)
		case key.Matches(msg, p.keys.Export):
			return p.export()
		}
	case tea.MouseWheelMsg:
		if msg.Button == tea.MouseWheelUp {
			p.cursor -= 3
		} else if msg.Button == tea.MouseWheelDown {
			p.cursor += 3
		}
	}
	p.cursor = max(0, min(p.cursor, p.visible()-1))
	return nil
}

// export writes the shown events (filter applies, pause does not) to JSONL.
func (p *eventsPane) export() tea.Cmd {
	events := make([]market.Event, 0, len(p.log.all))
	if p.filter < 0 {
		events = append(events, p.log.all...)
	} else {
		for _, i := range p.log.byKind[p.filter] {
			events = append(events, p.log.all[i])
		}
	}
	return func() tea.Msg {
		path := filepath.Join(p.exportDir, "rynek-events-"+time.Now().UTC().Format("20060102-150405")+".jsonl")
		n, err := writeJSONL(path, events)
		if err != nil {
			return statusMsg{text: "export failed: " + err.Error(), err: true}
		}
		return statusMsg{text: fmt.Sprintf("exported %d events to %s", n, path)}
	}
}

// eventRecord is one JSONL line: the event's name, sequence, time and its
// getters' values.
type eventRecord struct {
	Seq         uint64              `json:"seq"`
	At          time.Time           `json:"at"`
	Event       string              `json:"event"`
	Listing     *market.Listing     `json:"listing,omitempty"`
	Reason      string              `json:"reason,omitempty"`
	Transaction *market.Transaction `json:"transaction,omitempty"`
}

func recordOf(e market.Event) eventRecord {
	r := eventRecord{Seq: e.Seq(), At: e.At(), Event: e.EventName()}
	switch e := e.(type) {
	case market.ListingCreatedEvent:
		l := e.Listing()
		r.Listing = &l
	case market.ListingRemovedEvent:
		l := e.Listing()
		r.Listing, r.Reason = &l, e.Reason()
	case market.TransactionCompletedEvent:
		t := e.Transaction()
		r.Transaction = &t
	}
	return r
}

func writeJSONL(path string, events []market.Event) (int, error) {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o600)
	if err != nil {
		return 0, err
	}
	w := bufio.NewWriter(f)
	enc := json.NewEncoder(w)
	for _, e := range events {
		if err := enc.Encode(recordOf(e)); err != nil {
			f.Close()
			return 0, err
		}
	}
	if err := w.Flush(); err != nil {
		f.Close()
		return 0, err
	}
	return len(events), f.Close()
}

func (p *eventsPane) View(c *Common, w, h int) string {
	s := c.Styles
	var b strings.Builder
	filter := "all kinds"
	if p.filter >= 0 {
		filter = kindNames[p.filter]
	}
	head := fmt.Sprintf("%s events · showing %s", count(len(p.log.all)), filter)
	if p.paused {
		head += s.Warn.Render(fmt.Sprintf(" · PAUSED (%s new since)", count(len(p.log.all)-p.frozen)))
	}
	if p.log.gaps > 0 {
		head += s.Err.Render(fmt.Sprintf(" · %d sequence gaps!", p.log.gaps))
	}
	head += s.Dim.Render(fmt.Sprintf(" · created %s · removed %s · completed %s",
		count(len(p.log.byKind[0])), count(len(p.log.byKind[1])), count(len(p.log.byKind[2]))))
	b.WriteString(fit(head, w))
	rows := h - 1
	n := p.visible()
	if n == 0 {
		b.WriteString("\n" + fit(s.Dim.Render("No events yet. Sell (s), remove (x/X), force-expire (F) or buy (b) on the Listings pane."), w))
		for i := 2; i < h; i++ {
			b.WriteString("\n" + fit("", w))
		}
		return b.String()
	}
	top := 0
	if p.cursor >= rows {
		top = p.cursor - rows + 1
	}
	for i := 0; i < rows; i++ {
		b.WriteByte('\n')
		j := top + i
		if j >= n {
			b.WriteString(fit("", w))
			continue
		}
		line := fit(p.row(c, p.at(j)), w)
		if j == p.cursor {
			line = s.Selected.Render(line)
		}
		b.WriteString(line)
	}
	return b.String()
}

// row renders one event with the values of its getters.
func (p *eventsPane) row(c *Common, e market.Event) string {
	s := c.Styles
	head := fmt.Sprintf("%s #%-6d %-26s ", e.At().UTC().Format("15:04:05.000"), e.Seq(), e.EventName())
	switch e := e.(type) {
	case market.ListingCreatedEvent:
		l := e.Listing()
		return head + listingSummary(c, l)
	case market.ListingRemovedEvent:
		l := e.Listing()
		return head + s.Warn.Render("reason="+e.Reason()) + " " + listingSummary(c, l)
	case market.TransactionCompletedEvent:
		t := e.Transaction()
		return head + fmt.Sprintf("%s %s %s×%d  %s → %s  %s (fee %s)", s.OK.Render(string(t.State)),
			shortID(t.ID), Sanitize(t.Item.Material), t.Item.Amount, Sanitize(t.SellerName), Sanitize(t.BuyerName),
			s.Price.Render(money(t.Price)), money(t.Fee))
	}
	return head
}

func listingSummary(c *Common, l market.Listing) string {
	return fmt.Sprintf("listing #%d %s ×%d by %s for %s", l.ID, RenderMC(itemName(l.Item), lipglossPlain),
		l.Item.Amount, Sanitize(l.SellerName), c.Styles.Price.Render(money(l.Price)))
}

// shortID is the last 8 characters of a transaction id: ids are version 7
// UUIDs, whose first characters are a timestamp shared by every transaction
// of the same minute, while the tail is random.
func shortID(id string) string {
	if len(id) > 8 {
		return id[len(id)-8:]
	}
	return id
}

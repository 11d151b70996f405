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
	"github.com/google/uuid"
	"github.com/rynek/rynek/internal/wire"
	"github.com/rynek/rynek/market"
	"github.com/rynek/rynek/market/playertext"
)

// eventFilter selects events: by kind and, for removals, reason; or every
// event of one listing.
type eventFilter struct {
	kind    int    // -1 any
	reason  string // removals only; "" any
	listing int    // 0 any
}

// eventFilters are what f cycles through.
var eventFilters = []eventFilter{
	{kind: -1}, {kind: kindCreated}, {kind: kindRemoved},
	{kind: kindRemoved, reason: market.ReasonRemoved}, {kind: kindRemoved, reason: market.ReasonAdminRemoved},
	{kind: kindRemoved, reason: market.ReasonForceExpire}, {kind: kindCompleted}, {kind: kindBid}, {kind: kindEnded},
	{kind: kindOrderPlaced}, {kind: kindOrderFilled}, {kind: kindOrderClosed},
}

func (f eventFilter) String() string {
	var parts []string
	switch {
	case f.kind < 0:
		parts = append(parts, "all published kinds")
	case f.reason != "":
		parts = append(parts, kindNames[f.kind]+" reason="+f.reason)
	default:
		parts = append(parts, kindNames[f.kind])
	}
	if f.listing != 0 {
		parts = append(parts, fmt.Sprintf("listing #%d", f.listing))
	}
	return strings.Join(parts, " · ")
}

// plain reports whether the filter is a kind or nothing, which the log's
// own indexes answer.
func (f eventFilter) plain() bool { return f.reason == "" && f.listing == 0 }

func (f eventFilter) match(e market.Event) bool {
	if f.kind >= 0 && kindOf(e) != f.kind {
		return false
	}
	if f.reason != "" {
		if r, ok := e.(market.ListingRemovedEvent); !ok || r.Reason() != f.reason {
			return false
		}
	}
	return f.listing == 0 || eventListing(e) == f.listing
}

// eventListing is the id of the listing an event is about.
func eventListing(e market.Event) int {
	switch e := e.(type) {
	case market.ListingCreatedEvent:
		return e.Listing().ID
	case market.ListingRemovedEvent:
		return e.Listing().ID
	case market.TransactionCompletedEvent:
		return e.Transaction().ListingID
	case market.BidPlacedEvent:
		return e.Listing().ID
	case market.AuctionEndedEvent:
		return e.ListingID()
	case market.BuyOrderFilledEvent:
		return e.ListingID() // 0 when sold from an inventory
	}
	return 0
}

// seqNote says why the seqs shown skip numbers: the internal kinds of the
// market's log, which no listener receives.
const seqNote = "#seq skips internal entries: expiry, purchase steps, claims, players, issuance"

// eventsPane shows the live event log, newest first. The cursor stays on
// the same event while new ones arrive, unless it is on the newest, which
// it then follows.
type eventsPane struct {
	log       *eventLog
	exportDir string // where export writes (next to the database in the console)
	filter    int    // index into eventFilters
	listing   int    // the listing filter (l), 0 none
	matched   []int32
	scanned   int // log entries the matched index has looked at
	paused    bool
	frozen    int  // log length shown while paused
	pos       int  // the cursor: an index into the view, oldest first
	follow    bool // the cursor is on the newest event
	// history is the reading of the log from before the start.
	history struct {
		loading bool
		n       int // events it brought
		err     error
	}
	keys eventKeys
}

type eventKeys struct {
	Filter, Listing, Pause, Export, Open key.Binding
	nav                                  tableKeys
}

func newEventsPane(log *eventLog, exportDir string) *eventsPane {
	if exportDir == "" {
		exportDir = os.TempDir()
	}
	return &eventsPane{log: log, exportDir: exportDir, follow: true, keys: eventKeys{
		Filter:  binding([]string{"f"}, "f", "filter kind / reason"),
		Listing: binding([]string{"l"}, "l", "only this listing"),
		Pause:   binding([]string{"space"}, "space", "pause"),
		Export:  binding([]string{"e"}, "e", "export JSONL"),
		Open:    binding([]string{"enter"}, "enter", "open"),
		nav:     newTableKeys(),
	}}
}

func (p *eventsPane) Title() string { return "Events" }

// Badge is the number of events so far.
func (p *eventsPane) Badge() string { return count(len(p.log.all)) }

func (p *eventsPane) Help() []key.Binding {
	n := p.keys.nav
	return append([]key.Binding{p.keys.Open, p.keys.Filter, p.keys.Listing, p.keys.Pause, p.keys.Export}, n.all()...)
}

func (p *eventsPane) TextFocused() bool { return false }

func (p *eventsPane) Selected() (market.Listing, bool) {
	if e, ok := p.selected(); ok {
		switch e := e.(type) {
		case market.ListingCreatedEvent:
			return e.Listing(), true
		case market.ListingRemovedEvent:
			return e.Listing(), true
		case market.BidPlacedEvent:
			return e.Listing(), true
		}
	}
	return market.Listing{}, false
}

// SelectedID is the selected completion's transaction id, or the listing's.
func (p *eventsPane) SelectedID() string {
	e, ok := p.selected()
	if !ok {
		return ""
	}
	if t, ok := e.(market.TransactionCompletedEvent); ok {
		return t.Transaction().ID
	}
	if a, ok := e.(market.AuctionEndedEvent); ok && a.TransactionID() != "" {
		return a.TransactionID()
	}
	switch e := e.(type) {
	case market.BuyOrderFilledEvent:
		return e.TransactionID()
	case market.BuyOrderPlacedEvent:
		return fmt.Sprintf("#%d", e.Order().ID) // jump (:) opens it
	case market.BuyOrderClosedEvent:
		return fmt.Sprintf("#%d", e.Order().ID)
	}
	return fmt.Sprintf("#%d", eventListing(e))
}

func (p *eventsPane) current() eventFilter {
	f := eventFilters[p.filter]
	f.listing = p.listing
	return f
}

// Refresh indexes the events that arrived and keeps the cursor where it
// belongs.
func (p *eventsPane) Refresh(*Common) {
	f := p.current()
	if !f.plain() {
		for ; p.scanned < len(p.log.all); p.scanned++ {
			if f.match(p.log.all[p.scanned]) {
				p.matched = append(p.matched, int32(p.scanned))
			}
		}
	}
	p.clamp()
}

// refilter starts the matched index over for a new filter.
func (p *eventsPane) refilter() {
	p.matched, p.scanned = p.matched[:0], 0
	p.follow = true
	p.Refresh(nil)
}

func (p *eventsPane) clamp() {
	n := p.visible()
	if p.follow {
		p.pos = n - 1
	}
	p.pos = max(0, min(p.pos, n-1))
}

// index returns the event indexes of the view and how many of them count
// (the paused prefix).
func (p *eventsPane) index() ([]int32, bool) {
	f := p.current()
	switch {
	case f.kind < 0 && f.plain():
		return nil, false
	case f.plain():
		return p.log.byKind[f.kind], true
	}
	return p.matched, true
}

// visible returns the number of events in the current view (filter, pause).
func (p *eventsPane) visible() int {
	n := len(p.log.all)
	if p.paused {
		n = p.frozen
	}
	idx, ok := p.index()
	if !ok {
		return n
	}
	// Count entries below n (the paused prefix).
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
	if idx, ok := p.index(); ok {
		return p.log.all[idx[n-1-i]]
	}
	return p.log.all[n-1-i]
}

// selected is the event under the cursor.
func (p *eventsPane) selected() (market.Event, bool) {
	n := p.visible()
	if n == 0 {
		return nil, false
	}
	return p.at(n - 1 - p.pos), true
}

func (p *eventsPane) Update(c *Common, msg tea.Msg) tea.Cmd {
	if msg, ok := msg.(eventHistoryMsg); ok {
		p.historyArrived(msg)
		return nil
	}
	h := max(paneHeight(c.H)-1, 1)
	n := p.visible()
	row := n - 1 - p.pos // the cursor's row, newest first
	switch msg := msg.(type) {
	case tea.KeyPressMsg:
		nav := p.keys.nav
		switch {
		case key.Matches(msg, nav.Up):
			row--
		case key.Matches(msg, nav.Down):
			row++
		case key.Matches(msg, nav.PgUp):
			row -= h
		case key.Matches(msg, nav.PgDown):
			row += h
		case key.Matches(msg, nav.Home):
			row = 0
		case key.Matches(msg, nav.End):
			row = n - 1
		case key.Matches(msg, p.keys.Filter):
			p.filter = (p.filter + 1) % len(eventFilters)
			p.refilter()
			return nil
		case key.Matches(msg, p.keys.Listing):
			if p.listing != 0 {
				p.listing = 0
			} else if e, ok := p.selected(); ok {
				p.listing = eventListing(e)
			}
			p.refilter()
			return nil
		case key.Matches(msg, p.keys.Pause):
			p.paused = !p.paused
			p.frozen = len(p.log.all)
			p.clamp()
			return nil
		case key.Matches(msg, p.keys.Export):
			return p.export()
		case key.Matches(msg, p.keys.Open):
			return p.open()
		default:
			return nil
		}
	case tea.MouseWheelMsg:
		if msg.Button == tea.MouseWheelUp {
			row -= 3
		} else if msg.Button == tea.MouseWheelDown {
			row += 3
		}
	case tea.MouseClickMsg:
		top := max(0, row-h+1)
		if r := msg.Y - paneTop - 1; r >= 0 && r < h {
			row = top + r
		}
	default:
		return nil
	}
	row = max(0, min(row, n-1))
	p.pos = n - 1 - row
	p.follow = row == 0
	return nil
}

// open asks the root to show the selected event's listing or transaction.
func (p *eventsPane) open() tea.Cmd {
	e, ok := p.selected()
	if !ok {
		return nil
	}
	var a actOpen
	switch e := e.(type) {
	case market.ListingCreatedEvent:
		a = actOpen{listing: e.Listing(), hasList: true}
	case market.ListingRemovedEvent:
		a = actOpen{listing: e.Listing(), hasList: true}
	case market.TransactionCompletedEvent:
		a = actOpen{txID: e.Transaction().ID}
	case market.BidPlacedEvent:
		a = actOpen{listing: e.Listing(), hasList: true}
	case market.AuctionEndedEvent:
		if e.TransactionID() == "" {
			return nil // nobody bid: the stack went back to its seller's mailbox
		}
		a = actOpen{txID: e.TransactionID()}
	case market.BuyOrderFilledEvent:
		a = actOpen{txID: e.TransactionID()}
	case market.BuyOrderPlacedEvent:
		a = actOpen{order: e.Order().ID}
	case market.BuyOrderClosedEvent:
		a = actOpen{order: e.Order().ID}
	default:
		return nil
	}
	return request(a)
}

// export writes the shown events (filter applies, pause does not) to JSONL,
// in the wire shapes the HTTP interface serves. No events, no file: it says
// so rather than report an empty file as an export.
func (p *eventsPane) export() tea.Cmd {
	f := p.current()
	events := make([]market.Event, 0, len(p.log.all))
	for _, e := range p.log.all {
		if f.match(e) {
			events = append(events, e)
		}
	}
	if len(events) == 0 {
		return refusal(fmt.Errorf("nothing to export: no events in this view (showing %s); no file written", f))
	}
	dir := p.exportDir
	return func() tea.Msg {
		path := filepath.Join(dir, "rynek-events-"+time.Now().UTC().Format("20060102-150405")+".jsonl")
		n, err := writeJSONL(path, events)
		if err != nil {
			return statusMsg{text: "export failed: " + err.Error(), err: true}
		}
		return statusMsg{text: fmt.Sprintf("exported %d event%s to %s", n, plural(n), path)}
	}
}

func writeJSONL(path string, events []market.Event) (int, error) {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o600)
	if err != nil {
		return 0, err
	}
	w := bufio.NewWriter(f)
	enc := json.NewEncoder(w)
	for _, e := range events {
		if err := enc.Encode(wire.NewEvent(e)); err != nil {
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
	head := fmt.Sprintf("%s event%s · showing %s", count(len(p.log.all)), plural(len(p.log.all)), p.current())
	switch h := p.history; {
	case h.loading:
		head += s.Dim.Render(" · reading the log from before this start…")
	case h.err != nil:
		head += s.Err.Render(" · the log from before this start could not be read: " + h.err.Error())
	case h.n > 0:
		head += s.Dim.Render(fmt.Sprintf(" · %s from before this start", count(h.n)))
	}
	if p.paused {
		head += s.Warn.Render(fmt.Sprintf(" · PAUSED (%s new since)", count(len(p.log.all)-p.frozen)))
	}
	if p.log.gaps > 0 {
		head += s.Err.Render(fmt.Sprintf(" · %d sequence gaps!", p.log.gaps))
	}
	head += s.Dim.Render(fmt.Sprintf(" · created %s · removed %s · completed %s",
		count(len(p.log.byKind[kindCreated])), count(len(p.log.byKind[kindRemoved])), count(len(p.log.byKind[kindCompleted]))))
	if n, m := len(p.log.byKind[kindBid]), len(p.log.byKind[kindEnded]); n+m > 0 {
		head += s.Dim.Render(fmt.Sprintf(" · bids %s · auctions ended %s", count(n), count(m)))
	}
	if n, f, cl := len(p.log.byKind[kindOrderPlaced]), len(p.log.byKind[kindOrderFilled]), len(p.log.byKind[kindOrderClosed]); n+f+cl > 0 {
		head += s.Dim.Render(fmt.Sprintf(" · orders placed %s · fills %s · closed %s", count(n), count(f), count(cl)))
	}
	// The seqs are the market log's, which also numbers what it keeps but
	// never publishes (market.EventKind.Published): without a word, #9 then
	// #11 reads as an event lost. Where the head is cut, "published" says it.
	head += s.Dim.Render(" · " + seqNote)
	b.WriteString(fit(head, w))
	rows := h - 1
	n := p.visible()
	if n == 0 {
		msg := "No events yet. Sell (s), remove (x/X), force-expire (F) or buy (b) on the Listings pane."
		if len(p.log.all) > 0 {
			msg = "No event matches the filter: f cycles it."
			if p.listing != 0 {
				msg = "No event matches the filter: f cycles it, l shows every listing again."
			}
		}
		b.WriteString("\n" + fit(s.Dim.Render(msg), w))
		for i := 2; i < h; i++ {
			b.WriteString("\n" + fit("", w))
		}
		return b.String()
	}
	cursor := n - 1 - p.pos
	top := max(0, cursor-rows+1)
	for i := 0; i < rows; i++ {
		b.WriteByte('\n')
		j := top + i
		switch {
		case j >= n:
			b.WriteString(fit("", w))
		case j == cursor:
			b.WriteString(highlight(c, p.row(c, p.at(j)), w))
		default:
			b.WriteString(fit(p.row(c, p.at(j)), w))
		}
	}
	return b.String()
}

// row renders one event with the values of its getters.
func (p *eventsPane) row(c *Common, e market.Event) string {
	s := c.Styles
	head := fmt.Sprintf("%s #%-6d %-26s ", e.At().UTC().Format("15:04:05.000"), e.Seq(), e.EventName())
	if o := e.Origin(); o != "" && o != c.Svc.Instance() {
		head += s.Dim.Render("@"+playertext.Sanitize(o)) + " " // the instance it came from, when another
	}
	switch e := e.(type) {
	case market.ListingCreatedEvent:
		l := e.Listing()
		return head + listingSummary(c, l)
	case market.ListingRemovedEvent:
		l := e.Listing()
		return head + s.Warn.Render("reason="+e.Reason()) + " " + listingSummary(c, l)
	case market.TransactionCompletedEvent:
		t := e.Transaction()
		return head + fmt.Sprintf("%s %s %s ×%d  %s → %s  %s (fee %s)", s.OK.Render(string(t.State)),
			shortID(t.ID), RenderMC(itemName(t.Item), lipglossPlain), t.Item.Amount, playertext.Sanitize(t.SellerName), playertext.Sanitize(t.BuyerName),
			s.Price.Render(money(t.Price)), money(t.Fee))
	case market.BidPlacedEvent:
		l := e.Listing()
		line := fmt.Sprintf("#%d %s ×%d  %s bids %s", l.ID, RenderMC(itemName(l.Item), lipglossPlain), l.Item.Amount,
			playertext.Sanitize(l.Auction.LeaderName), s.Price.Render(money(e.Amount())))
		if e.PreviousLeader() != uuid.Nil {
			line += s.Dim.Render(" · outbids " + playertext.Sanitize(e.PreviousLeaderName()))
		}
		return head + line + s.Dim.Render(" · ends "+e.EndsAt().UTC().Format("15:04:05"))
	case market.AuctionEndedEvent:
		if e.Winner() == uuid.Nil {
			return head + fmt.Sprintf("#%d ", e.ListingID()) + s.Dim.Render("no bid: the stack went back to its seller's mailbox")
		}
		return head + fmt.Sprintf("#%d won by %s for %s", e.ListingID(), playertext.Sanitize(e.WinnerName()), s.Price.Render(money(e.Price()))) +
			s.Dim.Render(" · transaction "+shortID(e.TransactionID()))
	case market.BuyOrderPlacedEvent:
		o := e.Order()
		return head + fmt.Sprintf("order #%d %s ×%d by %s at %s each", o.ID, materialName(o.Material), o.Amount,
			playertext.Sanitize(o.BuyerName), s.Price.Render(money(o.UnitPrice))) +
			s.Dim.Render(fmt.Sprintf(" · escrow %s · ends %s", money(o.Escrow), o.ExpiresAt.UTC().Format("01-02 15:04")))
	case market.BuyOrderFilledEvent:
		o := e.Order()
		from := s.Dim.Render(" · from the inventory")
		if id := e.ListingID(); id != 0 {
			from = s.Dim.Render(fmt.Sprintf(" · from listing #%d (%d left)", id, e.ListingLeft()))
		}
		return head + fmt.Sprintf("order #%d %s ×%d at %s each  %s → %s  %s", o.ID, materialName(o.Material), e.Amount(),
			money(e.UnitPrice()), playertext.Sanitize(e.SellerName()), playertext.Sanitize(o.BuyerName), s.Price.Render(money(e.Price()))) +
			from + s.Dim.Render(fmt.Sprintf(" · %d/%d filled · %s", o.Filled, o.Amount, shortID(e.TransactionID())))
	case market.BuyOrderClosedEvent:
		o := e.Order()
		return head + s.Warn.Render("reason="+e.Reason()) + fmt.Sprintf(" order #%d %s %d of %d filled by %s", o.ID,
			materialName(o.Material), o.Filled, o.Amount, playertext.Sanitize(o.BuyerName)) +
			s.Dim.Render(" · refund "+money(e.Refund()))
	}
	return head
}

func listingSummary(c *Common, l market.Listing) string {
	return fmt.Sprintf("listing #%d %s ×%d by %s for %s", l.ID, RenderMC(itemName(l.Item), lipglossPlain),
		l.Item.Amount, playertext.Sanitize(l.SellerName), c.Styles.Price.Render(money(l.Price)))
}

package tui

import (
	"fmt"
	"net"
	"strconv"
	"strings"
	"time"

	"github.com/rynek/rynek/market"
	"github.com/rynek/rynek/market/playertext"
)

// headerPart is one piece of the header in the forms it can take, fullest
// first; an empty form leaves it out.
type headerPart struct {
	forms []string
	form  int
}

func (p *headerPart) text() string { return p.forms[p.form] }

// narrow moves the part to its next shorter form, if it has one.
func (p *headerPart) narrow() bool {
	if p == nil || p.form == len(p.forms)-1 {
		return false
	}
	p.form++
	return true
}

// header shows the service, its state and the acting player always, and
// the QA marks; the rest narrows, step by step, until the line fits: the
// API address loses its scheme, then its host (":8080"); the tick work
// its labels; the volume goes; an unreachable store's "since" goes (its
// refusals stay); then the API address; the bots' counts; the clock loses
// its year and zone, then keeps the time of day; the refusals go; the
// active count goes. At 80 columns the clock and the tick work stay, and
// the count while a short player name leaves room for it (the volume is
// on the Stats pane).
func (m *Model) header(w int) string {
	c := m.c
	s := c.Styles
	fixed := func(text string) *headerPart { return &headerPart{forms: []string{text}} }
	ready := s.OK.Render("● ready")
	if !m.hdr.ready {
		ready = s.Err.Render("● NOT READY")
	} else if m.storeAway != nil || m.hdr.storeUnreachable {
		ready = s.Err.Render("● STORE UNREACHABLE")
	} else if m.hdr.storeFailing {
		ready = s.Err.Render("● STORE FAILING")
	}
	now := time.Unix(c.NowUnix, 0).UTC()
	offset := ""
	if c.Clock != nil && c.Clock.Offset() > 0 {
		offset = s.QA.Render(fmt.Sprintf(" (+%s)", shortDur(c.Clock.Offset())))
	}
	clock := &headerPart{forms: []string{now.Format("2006-01-02 15:04:05 UTC") + offset,
		now.Format("01-02 15:04:05") + offset, now.Format("15:04:05") + offset}}
	var active, volume, api, bots, away *headerPart
	if h := m.hdr; h.storeUnreachable {
		refused := count(h.refused) + " refused"
		away = &headerPart{forms: []string{s.Err.Render("since " + h.away.UTC().Format("15:04:05") + ", " + refused), s.Err.Render(refused), ""}}
	}
	if m.hdr.okCounts {
		active = &headerPart{forms: []string{s.HeaderKey.Render("active ") + count(m.hdr.active), ""}}
		volume = &headerPart{forms: []string{s.HeaderKey.Render("volume ") + money(m.hdr.volume), ""}}
	}
	if m.apiAddr != "" {
		key := s.HeaderKey.Render("api ")
		api = &headerPart{forms: []string{key + "http://" + m.apiAddr, key + m.apiAddr}}
		if _, port, err := net.SplitHostPort(m.apiAddr); err == nil {
			api.forms = append(api.forms, key+":"+port)
		}
		api.forms = append(api.forms, "")
	}
	if m.bots.on {
		rate := fmt.Sprintf("QA bots %d/s", m.bots.rate)
		bots = &headerPart{forms: []string{s.QA.Render(fmt.Sprintf("%s ok %s refused %s", rate, count(m.bots.total.OK), count(m.bots.total.Refused))),
			s.QA.Render(rate)}}
	}
	tick := m.ticks.part(s)
	beside := besidePart(s, c.Svc.Peers())
	parts := []*headerPart{fixed(s.Header.Render(playertext.Sanitize(c.Svc.Name()))), fixed(ready), beside, away, clock, active, volume,
		fixed(s.HeaderKey.Render("acting as ") + playerName(c.Actor)), tick, api}
	if f := m.hdr.armed; f != "" {
		parts = append(parts, fixed(s.QA.Render("QA armed "+string(f))))
	}
	parts = append(parts, bots)
	steps := []*headerPart{api, api, tick, volume, away, api, bots, beside, clock, clock, away, active}
	sep := s.Dim.Render(" │ ")
	for _, step := range steps {
		if line := joinHeader(parts, sep); width(line) <= w {
			return fit(line, w)
		}
		step.narrow() // an absent part, or one at its shortest, stays as it is
	}
	return fit(joinHeader(parts, sep), w)
}

// besidePart says beside which other instances of the market the console
// runs ("beside rynek serve, pid 4121", "+2" when there are more), nil when
// it has the market alone: what it shows may be changed by them too.
func besidePart(s Styles, peers []market.Peer) *headerPart {
	if len(peers) == 0 {
		return nil
	}
	more := ""
	if len(peers) > 1 {
		more = fmt.Sprintf(" +%d", len(peers)-1)
	}
	return &headerPart{forms: []string{s.QA.Render("beside " + describePeer(peers[0]) + more),
		s.QA.Render("beside " + playertext.Sanitize(peers[0].Name) + more)}}
}

// describePeer names another instance as a person knows it: by its command
// and process on this machine, else by its name in the network.
func describePeer(p market.Peer) string {
	switch {
	case p.Command == "serve" && p.PID != 0:
		return fmt.Sprintf("rynek serve, pid %d", p.PID)
	case p.Command == "console" && p.PID != 0:
		return fmt.Sprintf("a console, pid %d", p.PID)
	}
	return playertext.Sanitize(p.Name)
}

// besideWho names the other instances in a sentence.
func besideWho(peers []market.Peer) string {
	if len(peers) == 1 {
		return describePeer(peers[0])
	}
	return fmt.Sprintf("%s and %d other instance%s", describePeer(peers[0]), len(peers)-1, plural(len(peers)-1))
}

// joinHeader joins the parts present in their current forms.
func joinHeader(parts []*headerPart, sep string) string {
	var kept []string
	for _, p := range parts {
		if p != nil && p.text() != "" {
			kept = append(kept, p.text())
		}
	}
	return strings.Join(kept, sep)
}

// headerData is what the header shows, read from the market in Update so
// that View never calls the market.
type headerData struct {
	ready    bool
	active   int
	volume   float64
	okCounts bool
	armed    market.State

	storeFailing bool // the store refuses the market's changes
	// storeUnreachable: the store cannot reach its database, and every
	// change is refused until it answers (market.StoreHealth.Unreachable),
	// since away; refused changes so far.
	storeUnreachable bool
	away             time.Time
	refused          int
}

func (m *Model) readHeader() {
	svc := m.c.Svc
	sh := svc.StoreHealth()
	h := headerData{ready: svc.IsReady(), storeFailing: sh.Failing, storeUnreachable: sh.Unreachable, away: sh.Away, refused: sh.Refused,
		armed: svc.ArmedFailure()}
	var err1, err2 error
	h.active, err1 = svc.GetActiveListingsCount()
	h.volume, err2 = svc.GetMarketVolume()
	h.okCounts = err1 == nil && err2 == nil
	m.hdr = h
}

// tickWatch is what the header shows of the main thread's work per tick
// over the last minute (market.TickWork): read at most once a second,
// after a tick, since a minute's figures move slowly and reading them
// sorts the minute's ticks.
type tickWatch struct {
	read   func() market.TickWork
	work   market.TickWork
	readAt time.Time // the wall clock
}

// tickReadEvery is how often the header's figures are read again.
const tickReadEvery = time.Second

func (w *tickWatch) update(now time.Time) {
	if w.work.Ticks > 0 && now.Sub(w.readAt) < tickReadEvery {
		return
	}
	w.work, w.readAt = w.read(), now
}

// tickLag is a tick's whole budget at 20 ticks a second: a tick of the
// market's that long makes the game server fall behind, and the header
// says it in the warning colour.
const tickLag = 50 * time.Millisecond

// part is the header's tick work: "tick p50 0.31ms p99 2.14ms max
// 5.02ms", narrowing to "tick 0.31/2.14/5.02ms"; absent before the first
// tick.
func (w *tickWatch) part(s Styles) *headerPart {
	f := w.work.Wall
	if w.work.Ticks == 0 {
		return nil
	}
	figure := func(d time.Duration) string {
		if d >= tickLag {
			return s.Warn.Render(tickMs(d))
		}
		return tickMs(d)
	}
	key := s.HeaderKey.Render
	return &headerPart{forms: []string{
		key("tick p50 ") + figure(f.P50) + "ms" + key(" p99 ") + figure(f.P99) + "ms" + key(" max ") + figure(f.Max) + "ms",
		key("tick ") + figure(f.P50) + "/" + figure(f.P99) + "/" + figure(f.Max) + "ms"}}
}

// tickMs is d in milliseconds to three figures or so: "0.31", "6.49",
// "42.6", "412".
func tickMs(d time.Duration) string {
	ms := float64(d) / float64(time.Millisecond)
	switch {
	case ms < 10:
		return strconv.FormatFloat(ms, 'f', 2, 64)
	case ms < 100:
		return strconv.FormatFloat(ms, 'f', 1, 64)
	}
	return strconv.FormatFloat(ms, 'f', 0, 64)
}

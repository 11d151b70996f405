package tui

import (
	"path/filepath"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
	"github.com/rynek/rynek/market"
	"github.com/rynek/rynek/market/sqlite"
	"github.com/rynek/rynek/seed"
)

// fixedNow is the time of every console test's market and clock.
var fixedNow = time.Date(2026, 11, 1, 12, 0, 0, 0, time.UTC)

// fakeWall is a wall clock the tests move, for grace periods.
type fakeWall struct{ t time.Time }

func (f *fakeWall) now() time.Time          { return f.t }
func (f *fakeWall) advance(d time.Duration) { f.t = f.t.Add(d) }

// testEnv is a console over a small seeded market with a fixed clock.
type testEnv struct {
	t     *testing.T
	svc   *market.Service
	clock *market.ManualClock
	wall  *fakeWall
	m     *Model
	// ticks is the tick work the header reads: real ticks' figures
	// vary, and the screens tests compare must not.
	ticks market.TickWork
}

func newEnv(t *testing.T, w, h int) *testEnv {
	t.Helper()
	// Fixed prices only: the timer's tests count on expiry publishing
	// nothing, and the goldens on rows that do not tick (the auctions'
	// console has tests of its own).
	return envOn(t, seededStore(t, seed.Options{Players: 40, Listings: 400, Days: 10, Rand: 7, Auctions: -1, Orders: -1}), w, h)
}

// seededStore is a temporary store filled by seed (Now: fixedNow).
func seededStore(t *testing.T, o seed.Options) *sqlite.Store {
	t.Helper()
	st, err := sqlite.Open(filepath.Join(t.TempDir(), "m.db"), sqlite.Options{})
	if err != nil {
		t.Fatal(err)
	}
	o.Now = fixedNow
	if _, err := seed.Load(st, o); err != nil {
		st.Close()
		t.Fatal(err)
	}
	return st
}

// paneCommon is a Common over a seeded market, for testing one pane
// without the root model.
func paneCommon(t *testing.T, o seed.Options) *Common {
	t.Helper()
	svc := market.New(seededStore(t, o), market.Config{Clock: market.NewManualClock(fixedNow)})
	svc.BindMainThread()
	if err := svc.Enable(); err != nil {
		svc.Close()
		t.Fatal(err)
	}
	svc.WaitHistory()
	t.Cleanup(func() { svc.Close() })
	return &Common{Svc: svc, Styles: newStyles(true), W: 80, H: 24, NowUnix: fixedNow.Unix(), Wall: time.Now}
}

// envOn is a console at w×h over st, with a fixed clock and no listing
// cooldown.
func envOn(t *testing.T, st market.Store, w, h int) *testEnv {
	t.Helper()
	return envWith(t, st, market.Config{ListingCooldown: -1}, w, h)
}

// envWith is envOn with the market's configuration; its clock is the
// test's.
func envWith(t *testing.T, st market.Store, cfg market.Config, w, h int) *testEnv {
	t.Helper()
	return envOptions(t, st, cfg, w, h, nil)
}

// envOptions is envWith with the console's options edited by edit.
func envOptions(t *testing.T, st market.Store, cfg market.Config, w, h int, edit func(*Options)) *testEnv {
	t.Helper()
	clock := market.NewManualClock(fixedNow)
	cfg.Clock = clock
	svc := market.New(st, cfg)
	svc.BindMainThread()
	if err := svc.Enable(); err != nil {
		t.Fatal(err)
	}
	svc.WaitHistory() // tests look at settled screens
	wall := &fakeWall{t: fixedNow}
	e := &testEnv{t: t, svc: svc, clock: clock, wall: wall}
	o := Options{Svc: svc, Clock: clock, Wall: wall.now, ExportDir: t.TempDir(), TickWork: func() market.TickWork { return e.ticks }}
	if edit != nil {
		edit(&o)
	}
	e.m = New(o)
	e.send(tea.WindowSizeMsg{Width: w, Height: h})
	t.Cleanup(func() { e.m.Close(); svc.Close() })
	return e
}

// send delivers a message and runs the commands it returns, like the
// program would, but synchronously: a Cmd's result is sent back in. Ticks
// are not followed (they would loop forever); use tick().
func (e *testEnv) send(msg tea.Msg) {
	e.t.Helper()
	_, cmd := e.m.Update(msg)
	e.run(cmd, 0)
}

func (e *testEnv) run(cmd tea.Cmd, depth int) {
	if cmd == nil || depth > 8 {
		return
	}
	// Like Bubble Tea, run the command on its own goroutine: a command that
	// mutates the market must meet the main-thread check.
	// A command that sleeps longer than a debounce (a cursor blink) is left
	// behind, as a real program would receive it later.
	ch := make(chan tea.Msg, 1)
	go func() { ch <- cmd() }()
	var msg tea.Msg
	select {
	case msg = <-ch:
	case <-time.After(150 * time.Millisecond):
		return
	}
	switch msg := msg.(type) {
	case nil, tickMsg:
		return
	case tea.BatchMsg:
		for _, c := range msg {
			e.run(c, depth+1)
		}
		return
	default:
		_, next := e.m.Update(msg)
		e.run(next, depth+1)
	}
}

// key types one key: a printable character or a named key.
func (e *testEnv) key(k string) {
	e.t.Helper()
	e.send(keyMsg(k))
}

func keyMsg(k string) tea.KeyPressMsg {
	named := map[string]rune{"enter": tea.KeyEnter, "esc": tea.KeyEscape, "up": tea.KeyUp, "down": tea.KeyDown,
		"tab": tea.KeyTab, "pgdown": tea.KeyPgDown, "pgup": tea.KeyPgUp, "home": tea.KeyHome, "end": tea.KeyEnd,
		"backspace": tea.KeyBackspace, "space": tea.KeySpace}
	if r, ok := named[k]; ok {
		return tea.KeyPressMsg{Code: r}
	}
	r := []rune(k)[0]
	return tea.KeyPressMsg{Code: r, Text: k}
}

// typeText types each character.
func (e *testEnv) typeText(s string) {
	for _, r := range s {
		e.send(tea.KeyPressMsg{Code: r, Text: string(r)})
	}
}

// confirm waits out the grace period and presses y.
func (e *testEnv) confirm() {
	e.wall.advance(graceQuiet)
	e.key("y")
}

// tick runs one console tick.
func (e *testEnv) tick() {
	// A tick that found the market's lock busy past market.HoldWait (the
	// gram keeper's read, slow under -race) put its changes off to the
	// next, as the console does: the tick a test means is the one that
	// makes them.
	for range 100 {
		start := time.Now()
		e.send(tickMsg(e.wall.t))
		if e.svc.TickWorkSince(start).PutOff == 0 {
			return
		}
	}
	e.t.Fatal("a hundred ticks in a row put their changes off")
}

// view returns the screen without styling.
func (e *testEnv) view() string { return ansi.Strip(e.m.View().Content) }

func (e *testEnv) status() string { return e.m.status.text }

// oneEventOfEachKind sells, removes and buys on the Listings pane, and
// ticks: the log then holds one event of each kind. It returns the listing
// bought.
func (e *testEnv) oneEventOfEachKind() market.Listing {
	e.t.Helper()
	e.key("s")
	e.key("enter") // ListingCreatedEvent
	e.key("x")
	e.confirm() // ListingRemovedEvent "removed"
	l, _ := e.m.panes[0].Selected()
	e.m.c.Actor = otherThan(e.t, e, l)
	e.key("b")
	e.confirm() // TransactionCompletedEvent
	e.tick()
	return l
}

func (e *testEnv) mustContain(what string) {
	e.t.Helper()
	if v := e.view(); !strings.Contains(v, what) {
		e.t.Fatalf("screen lacks %q:\n%s", what, v)
	}
}

const (
	notReadyText = "Rynek API nie jest gotowe"
	threadText   = "MarketAPI mutacje muszą być wywoływane z głównego wątku serwera"
)

// otherThan returns a player who can buy l: not its seller, with the money.
func otherThan(t *testing.T, e *testEnv, l market.Listing) market.Player {
	ps, _ := e.svc.Players()
	for _, p := range ps {
		if p.ID == l.Seller {
			continue
		}
		if st, _ := e.svc.GetPlayer(p.ID); st.Balance >= l.Price {
			return p
		}
	}
	t.Fatalf("nobody can afford listing #%d at %v", l.ID, l.Price)
	return market.Player{}
}

func itoa(n int) string { return strings.TrimSpace(strings.Replace(count(n), " ", "", -1)) }

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

func emptyStore(t *testing.T) *sqlite.Store {
	t.Helper()
	st, err := sqlite.Open(filepath.Join(t.TempDir(), "m.db"), sqlite.Options{})
	must(t, err)
	return st
}

// checkScreen asserts the frame is exactly h lines of exactly w cells.
func checkScreen(t *testing.T, content string, w, h int) {
	t.Helper()
	lines := strings.Split(content, "\n")
	if len(lines) != h {
		t.Fatalf("%d lines, want %d", len(lines), h)
	}
	for i, l := range lines {
		if got := width(l); got != w {
			t.Fatalf("line %d is %d cells, want %d: %q", i, got, w, ansi.Strip(l))
		}
	}
}

// envWithSeller is a console over an empty market with one player, the
// acting one, holding the stacks given.
func envWithSeller(t *testing.T, w, h int, items ...market.ItemStack) *testEnv {
	t.Helper()
	e := envOn(t, emptyStore(t), w, h)
	p, err := e.svc.AddPlayer(market.NewPlayer{Name: "Sprzedawca", Balance: 1000, Items: items})
	must(t, err)
	e.m.c.Actor = p
	return e
}

// mustContainStyled checks the styled screen for s.
func (e *testEnv) mustContainStyled(s string) {
	e.t.Helper()
	if v := e.m.View().Content; !strings.Contains(v, s) {
		e.t.Fatalf("screen lacks %q:\n%s", s, e.view())
	}
}

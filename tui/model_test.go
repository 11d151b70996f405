package tui

import (
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
	"github.com/rynek/rynek/market"
	"github.com/rynek/rynek/market/sqlite"
	"github.com/rynek/rynek/seed"
)

const (
	notReadyText = "Rynek API nie jest gotowe"
	threadText   = "MarketAPI mutacje muszą być wywoływane z głównego wątku serwera"
)

func TestSellFromDialogPublishesEvent(t *testing.T) {
	e := newEnv(t, 120, 40)
	before, _ := e.svc.GetActiveListingsCount()
	e.key("s")
	if _, ok := e.m.dialog.(*sellDialog); !ok {
		t.Fatalf("s opened %T", e.m.dialog)
	}
	e.mustContain("Sell as " + e.m.c.Actor.Name)
	e.key("enter")
	if e.m.dialog != nil {
		t.Fatalf("dialog still open: %s", e.view())
	}
	if !strings.Contains(e.status(), "ListingCreatedEvent") {
		t.Fatalf("status %q", e.status())
	}
	if n, _ := e.svc.GetActiveListingsCount(); n != before+1 {
		t.Fatalf("count %d, want %d", n, before+1)
	}
	e.tick()
	e.key("6")
	e.mustContain("ListingCreatedEvent")
	if len(e.m.log.all) != 1 || e.m.log.gaps != 0 {
		t.Fatalf("log %d events, %d gaps", len(e.m.log.all), e.m.log.gaps)
	}
}

func TestSellDialogValidatesInline(t *testing.T) {
	e := newEnv(t, 120, 40)
	e.key("s")
	d := e.m.dialog.(*sellDialog)
	for range 12 {
		e.key("backspace")
	}
	e.typeText("1.005")
	if d.err != "price 1.005 has more than 2 decimals" {
		t.Fatalf("inline error %q", d.err)
	}
	e.key("enter") // refused: stays open, nothing sold
	if e.m.dialog == nil {
		t.Fatal("an invalid price closed the dialog")
	}
	for range 8 {
		e.key("backspace")
	}
	e.typeText("abc")
	if d.err != `price "abc" is not a number` {
		t.Fatalf("inline error %q", d.err)
	}
	e.key("esc")
	if e.m.dialog != nil {
		t.Fatal("esc did not close")
	}
}

func TestBuyNeedsGraceThenCompletes(t *testing.T) {
	e := newEnv(t, 120, 40)
	l, ok := e.m.panes[0].Selected()
	if !ok {
		t.Fatal("no listing selected")
	}
	e.m.c.Actor = otherThan(t, e, l)
	e.key("b")
	e.key("y") // within the grace period: ignored
	if e.m.dialog == nil {
		t.Fatal("y confirmed during the grace period")
	}
	e.confirm()
	if e.m.dialog != nil {
		t.Fatal("dialog still open")
	}
	if !strings.Contains(e.status(), "COMPLETED") || !strings.Contains(e.status(), "TransactionCompletedEvent") {
		t.Fatalf("status %q", e.status())
	}
	e.tick()
	if len(e.m.log.byKind[kindCompleted]) != 1 {
		t.Fatalf("completed events %d", len(e.m.log.byKind[kindCompleted]))
	}
}

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

func TestArmedFailuresInThreeKeystrokes(t *testing.T) {
	cases := []struct {
		key, state, code string
	}{
		{"1", "FAILED", "INJECTED:CREATED"},
		{"2", "FAILED", "INJECTED:LISTING_RESERVED"},
		{"3", "ROLLED_BACK", "INJECTED:MONEY_WITHDRAWN"},
		{"4", "ROLLED_BACK", "INJECTED:SELLER_PAID"},
		{"5", "ROLLED_BACK", "INJECTED:ITEM_DELIVERED"},
		{"6", "ROLLED_BACK", "INJECTED:COMPLETED"},
	}
	for _, c := range cases {
		t.Run(c.state+c.key, func(t *testing.T) {
			e := newEnv(t, 120, 40)
			l, _ := e.m.panes[0].Selected()
			e.m.c.Actor = otherThan(t, e, l)
			e.key("b")
			e.key(c.key)
			e.mustContain("armed: fails at")
			e.confirm()
			if !strings.Contains(e.status(), "ended "+c.state+" ("+c.code+")") {
				t.Fatalf("status %q", e.status())
			}
			if e.svc.ArmedFailure() != "" {
				t.Fatal("failure left armed")
			}
			// The listing is back and nothing was published.
			if _, err := e.svc.GetListing(l.ID); err != nil {
				t.Fatal(err)
			}
			e.tick()
			if len(e.m.log.all) != 0 {
				t.Fatalf("%d events after a failed purchase", len(e.m.log.all))
			}
			// The transaction's timeline is on the Transactions pane, all states.
			e.key("5")
			e.key("a")
			e.mustContain(c.state)
		})
	}
}

func TestRemoveReasons(t *testing.T) {
	for _, c := range []struct{ key, reason string }{{"x", "removed"}, {"X", "admin-removed"}, {"F", "force-expire"}} {
		e := newEnv(t, 120, 40)
		l, _ := e.m.panes[0].Selected()
		e.key(c.key)
		e.confirm()
		want := "→ ListingRemovedEvent reason \"" + c.reason + "\""
		if !strings.Contains(e.status(), want) {
			t.Fatalf("%s: status %q", c.key, e.status())
		}
		e.tick()
		if len(e.m.log.all) != 1 {
			t.Fatalf("%d events", len(e.m.log.all))
		}
		re := e.m.log.all[0].(market.ListingRemovedEvent)
		if re.Reason() != c.reason || re.Listing().ID != l.ID {
			t.Fatalf("event %s #%d", re.Reason(), re.Listing().ID)
		}
		e.key("6")
		e.mustContain("reason=" + c.reason)
	}
}

func TestRemoveRefusalShowsExactError(t *testing.T) {
	e := newEnv(t, 120, 40)
	l, _ := e.m.panes[0].Selected()
	must(t, e.svc.RemoveListing(l.ID, market.Player{ID: l.Seller})) // gone behind the console's back
	e.key("x")                                                      // refused at once, with the market's text and code: no confirmation of a lost cause
	if e.status() != "listing #"+itoa(l.ID)+" does not exist [UNKNOWN_LISTING]" || !e.m.status.err || e.m.dialog != nil {
		t.Fatalf("status %q, dialog %T", e.status(), e.m.dialog)
	}
}

func TestDisableShowsNotReadyText(t *testing.T) {
	e := newEnv(t, 120, 40)
	e.key("D")
	if !strings.Contains(e.status(), notReadyText) {
		t.Fatalf("status %q", e.status())
	}
	e.mustContain("NOT READY")
	e.mustContain(notReadyText) // the listings pane's query error, verbatim
	e.key("s")
	if !strings.Contains(e.status(), notReadyText) {
		t.Fatalf("sell while disabled: %q", e.status())
	}
	e.key("D")
	if !e.svc.IsReady() {
		t.Fatal("not re-enabled")
	}
	e.mustContain("● ready")
}

func TestBackgroundMutationShowsThreadText(t *testing.T) {
	e := newEnv(t, 120, 40)
	before, _ := e.svc.GetActiveListingsCount()
	e.key("T")
	if !strings.Contains(e.status(), threadText) || !strings.Contains(e.status(), "nothing changed") {
		t.Fatalf("status %q", e.status())
	}
	if after, _ := e.svc.GetActiveListingsCount(); after != before {
		t.Fatal("state changed")
	}
}

func TestTimerExpiryPublishesNoEvent(t *testing.T) {
	e := newEnv(t, 120, 40)
	before, _ := e.svc.GetActiveListingsCount()
	e.key("}") // seeded listings expire throughout the next 7 days
	if !strings.Contains(e.status(), "listings expired by timer: no event, by contract") {
		t.Fatalf("status %q", e.status())
	}
	after, _ := e.svc.GetActiveListingsCount()
	if after >= before {
		t.Fatalf("count %d -> %d", before, after)
	}
	e.tick()
	if len(e.m.log.all) != 0 {
		t.Fatalf("timer expiry published %d events", len(e.m.log.all))
	}
	e.mustContain("(+1d)")
	e.key("]")
	e.mustContain("(+25h)")
}

func TestBotsGenerateEventsWithoutGaps(t *testing.T) {
	e := newEnv(t, 120, 40)
	e.key("R")
	for range 5 {
		e.key("+")
	}
	for range 10 {
		e.tick()
	}
	if e.m.bots.total.OK == 0 || len(e.m.log.all) == 0 || e.m.log.gaps != 0 {
		t.Fatalf("bots ok %d bad %d, events %d, gaps %d", e.m.bots.total.OK, e.m.bots.total.Refused, len(e.m.log.all), e.m.log.gaps)
	}
	e.key("R")
	n := len(e.m.log.all)
	e.tick()
	if len(e.m.log.all) != n {
		t.Fatal("bots still running after stop")
	}
}

func TestSearchAsYouTypeDropsStaleResults(t *testing.T) {
	e := newEnv(t, 120, 40)
	e.key("/")
	sp := e.m.panes[1].(*searchPane)
	if !sp.TextFocused() {
		t.Fatal("search box not focused")
	}
	e.typeText("diamond")
	if sp.text != "diamond" || sp.table.total == 0 {
		t.Fatalf("result for %q: %d", sp.text, sp.table.total)
	}
	want := sp.table.total
	// A late answer for an older text is ignored.
	_, _ = e.m.Update(searchResultMsg{seq: sp.seq - 3, text: "d", page: market.Page{Total: 999999}})
	if sp.table.total != want || sp.text != "diamond" {
		t.Fatalf("stale result applied: %q %d", sp.text, sp.table.total)
	}
	e.mustContain("for \"diamond\"")
	// Typed letters go to the box, not to global commands.
	e.typeText(" q")
	if e.m.dialog != nil || sp.input.Value() != "diamond q" {
		t.Fatalf("input %q", sp.input.Value())
	}
}

func TestPlayerPickerFoldsDiacritics(t *testing.T) {
	e := newEnv(t, 120, 40)
	e.key("p")
	e.typeText("lukasz")
	pp := e.m.dialog.(*playerPicker)
	if len(pp.shown) == 0 || !strings.HasPrefix(pp.shown[0].Name, "Łukasz") {
		t.Fatalf("shown %v", pp.shown)
	}
	e.key("enter")
	if !strings.HasPrefix(e.m.c.Actor.Name, "Łukasz") {
		t.Fatalf("actor %q", e.m.c.Actor.Name)
	}
}

func TestQuitKeys(t *testing.T) {
	e := newEnv(t, 80, 24)
	for _, k := range []tea.KeyPressMsg{keyMsg("q"), {Code: 'c', Mod: tea.ModCtrl}} {
		_, cmd := e.m.Update(k)
		if cmd == nil {
			t.Fatalf("%s returned no command", k)
		}
		if _, ok := cmd().(tea.QuitMsg); !ok {
			t.Fatalf("%s does not quit", k)
		}
	}
	// In a confirmation, q cancels it instead of quitting the console.
	e.key("x")
	_, cmd := e.m.Update(keyMsg("q"))
	if cmd != nil || e.m.dialog != nil {
		t.Fatalf("q in a confirmation: cmd %v, dialog %T", cmd != nil, e.m.dialog)
	}
}

func itoa(n int) string { return strings.TrimSpace(strings.Replace(count(n), " ", "", -1)) }

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// gatedStore holds the market's background history load until gate opens.
type gatedStore struct {
	market.Store
	gate chan struct{}
}

func (g *gatedStore) LoadHistory(after [16]byte, limit int, fn func(market.TxRow) error) (int, error) {
	<-g.gate
	return g.Store.LoadHistory(after, limit, fn)
}

func TestPanesSayHistoryIsLoadingWithoutBlocking(t *testing.T) {
	gs := &gatedStore{Store: seededStore(t, seed.Options{Players: 20, Listings: 100, Days: 3, Rand: 2}), gate: make(chan struct{})}
	svc := market.New(gs, market.Config{Clock: market.NewManualClock(fixedNow)})
	svc.BindMainThread()
	must(t, svc.Enable())
	m := New(Options{Svc: svc, Wall: time.Now})
	t.Cleanup(func() { m.Close(); svc.Close() })
	m.Update(tea.WindowSizeMsg{Width: 120, Height: 40})
	for _, k := range []string{"3", "4", "5"} {
		m.Update(keyMsg(k)) // returns: nothing waits for the history
		if k != "3" && !strings.Contains(ansi.Strip(m.View().Content), "loading the transaction history") {
			t.Fatalf("pane %s does not say the history is loading", k)
		}
	}
	close(gs.gate)
	svc.WaitHistory()
	m.Update(tickMsg(time.Now()))
	m.Update(keyMsg("4"))
	if v := ansi.Strip(m.View().Content); !strings.Contains(v, "Top sellers") || strings.Contains(v, "loading the transaction history") {
		t.Fatalf("after the history loaded:\n%s", v)
	}
}

func TestExpiryBacklogIsSweptOneBatchPerTick(t *testing.T) {
	e := envOn(t, seededStore(t, seed.Options{Players: 30, Listings: 2500, Days: 1, Rand: 4}), 120, 40)
	for range 8 {
		e.clock.Advance(24 * time.Hour) // every listing is due, the console has not ticked yet
	}
	e.key("]")
	if n, _ := e.svc.GetActiveListingsCount(); n != 0 {
		t.Fatalf("%d listings still active", n)
	}
	if !strings.Contains(e.status(), "2000 listings expired by timer") || !strings.Contains(e.status(), "sweeping…") {
		t.Fatalf("first batch: %q", e.status())
	}
	e.tick()
	if !strings.Contains(e.status(), "2500 listings expired by timer") || strings.Contains(e.status(), "sweeping") {
		t.Fatalf("after the next tick: %q", e.status())
	}
	if len(e.m.log.all) != 0 {
		t.Fatalf("%d events from the timer", len(e.m.log.all))
	}
}

func TestBackupKeyWritesACopyBesideTheMarket(t *testing.T) {
	st := seededStore(t, seed.Options{Players: 10, Listings: 40, Days: 1, Rand: 4})
	e := envOn(t, st, 120, 40)
	e.m.Update(keyMsg("B"))
	if e.status() != "this console was started without a store to back up" {
		t.Fatalf("without a store: %q", e.status())
	}
	e.m.backup, e.m.backupOf = st.Backup, st.Path()
	_, cmd := e.m.Update(keyMsg("B"))
	if !strings.HasPrefix(e.status(), "backing up to ") || cmd == nil {
		t.Fatalf("status %q", e.status())
	}
	e.m.Update(cmd()) // the copy is made off the main thread; its result comes back
	dest := strings.Fields(e.status())[3]
	if !strings.HasPrefix(e.status(), "backed up to ") || !strings.HasPrefix(dest, strings.TrimSuffix(st.Path(), ".db")+"-backup-") {
		t.Fatalf("status %q", e.status())
	}
	copied, err := sqlite.Open(dest, sqlite.Options{})
	must(t, err)
	svc := market.New(copied, market.Config{Clock: market.NewManualClock(fixedNow)})
	must(t, svc.BindMainThread())
	must(t, svc.Enable())
	defer svc.Close()
	if n, _ := svc.GetActiveListingsCount(); n != 40 {
		t.Fatalf("the copy has %d listings", n)
	}
}

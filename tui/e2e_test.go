package tui

import (
	"bytes"
	"regexp"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/colorprofile"
	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/exp/teatest/v2"
	"github.com/rynek/rynek/market"
)

// End-to-end flows on a real tea.Program (teatest), with the colour profile
// and the environment pinned. The program's own goroutine becomes the
// market's main thread in Init. Assertions are on the final model, not on
// the raw output stream: the renderer skips and merges frames depending on
// timing, so a string may never appear in the stream although the final
// model holds it.

func startProgram(t *testing.T) (*testEnv, *teatest.TestModel) {
	t.Helper()
	return startProgramAfter(t, func(*testEnv) {})
}

// startProgramAfter is startProgram with a step that prepares the model
// first: once the program runs, the model belongs to its goroutine, and a
// test that touched it would race with the program.
func startProgramAfter(t *testing.T, prepare func(e *testEnv)) (*testEnv, *teatest.TestModel) {
	t.Helper()
	return startProgramOn(t, newEnv(t, 120, 40), prepare)
}

// startProgramOn runs a program over the console of e.
func startProgramOn(t *testing.T, e *testEnv, prepare func(e *testEnv)) (*testEnv, *teatest.TestModel) {
	t.Helper()
	e.m.c.Wall = time.Now // real grace periods
	prepare(e)
	// The program's goroutine binds the main thread in Init: hand it over.
	if err := e.svc.ReleaseMainThread(); err != nil {
		t.Fatal(err)
	}
	tm := teatest.NewTestModel(t, e.m,
		teatest.WithInitialTermSize(120, 40),
		teatest.WithProgramOptions(
			tea.WithColorProfile(colorprofile.ANSI256),
			tea.WithEnvironment([]string{"TERM=xterm-256color"}),
		))
	return e, tm
}

// waitFor waits until the screen output shows text.
func waitFor(t *testing.T, tm *teatest.TestModel, text string) {
	t.Helper()
	teatest.WaitFor(t, tm.Output(), func(b []byte) bool {
		return bytes.Contains([]byte(ansi.Strip(string(b))), []byte(text))
	}, teatest.WithDuration(10*time.Second), teatest.WithCheckInterval(20*time.Millisecond))
}

func finish(t *testing.T, tm *teatest.TestModel) *Model {
	t.Helper()
	tm.Quit()
	return tm.FinalModel(t, teatest.WithFinalTimeout(10*time.Second)).(*Model)
}

func typeKey(tm *teatest.TestModel, k string) { tm.Send(keyMsg(k)) }

func TestE2ESellThenEventAppears(t *testing.T) {
	_, tm := startProgram(t)
	waitFor(t, tm, "Welcome")
	typeKey(tm, "s")
	waitFor(t, tm, "Sell as")
	typeKey(tm, "enter")
	waitFor(t, tm, "ListingCreatedEvent")
	typeKey(tm, "6")
	waitFor(t, tm, "#1 ")
	m := finish(t, tm)
	if len(m.log.all) != 1 || m.log.all[0].EventName() != "ListingCreatedEvent" {
		t.Fatalf("events %v", m.log.all)
	}
	if !strings.Contains(ansi.Strip(m.View().Content), "ListingCreatedEvent") {
		t.Fatal("event pane does not show the event")
	}
}

func TestE2EBuyWithArmedFailureRollsBack(t *testing.T) {
	var l market.Listing
	e, tm := startProgramAfter(t, func(e *testEnv) {
		var ok bool
		if l, ok = e.m.panes[0].Selected(); !ok {
			t.Fatal("no listing is selected")
		}
		e.m.c.Actor = otherThan(t, e, l)
	})
	waitFor(t, tm, "Welcome")
	typeKey(tm, "b")
	waitFor(t, tm, "Buy as")
	typeKey(tm, "4") // fail at SELLER_PAID
	waitFor(t, tm, "expect ROLLED_BACK")
	time.Sleep(graceQuiet + 100*time.Millisecond)
	typeKey(tm, "y")
	waitFor(t, tm, "ROLLED_BACK (INJECTED:SELLER_PAID)")
	m := finish(t, tm)
	if !strings.Contains(m.status.text, "ended ROLLED_BACK (INJECTED:SELLER_PAID)") {
		t.Fatalf("status %q", m.status.text)
	}
	if _, err := e.svc.GetListing(l.ID); err != nil {
		t.Fatalf("listing not restored: %v", err)
	}
}

func TestE2EDisableShowsExactNotReadyText(t *testing.T) {
	e, tm := startProgram(t)
	waitFor(t, tm, "Welcome")
	typeKey(tm, "D")
	waitFor(t, tm, notReadyText)
	m := finish(t, tm)
	if !strings.Contains(m.status.text, notReadyText) || e.svc.IsReady() {
		t.Fatalf("status %q, ready %v", m.status.text, e.svc.IsReady())
	}
}

func TestE2EBackgroundMutationShowsExactThreadText(t *testing.T) {
	e, tm := startProgram(t)
	waitFor(t, tm, "Welcome")
	before, _ := e.svc.GetActiveListingsCount()
	typeKey(tm, "T")
	waitFor(t, tm, "nothing changed")
	m := finish(t, tm)
	if !strings.Contains(m.status.text, threadText) {
		t.Fatalf("status %q", m.status.text)
	}
	if after, _ := e.svc.GetActiveListingsCount(); after != before {
		t.Fatal("a refused background mutation changed the market")
	}
}

// An empty market on a real program: a player added from the console is
// added on the program's goroutine (the main thread) and can sell; bots
// bring their own players and trade on the tick.
func TestE2EEmptyMarketAddPlayerAndBots(t *testing.T) {
	e, tm := startProgramOn(t, envOn(t, emptyStore(t), 120, 40), func(*testEnv) {})
	waitFor(t, tm, "A adds one")
	typeKey(tm, "A")
	waitFor(t, tm, "Add a player")
	tm.Type("Nowa_Gracz")
	typeKey(tm, "enter")
	waitFor(t, tm, "acting as Nowa_Gracz")
	typeKey(tm, "s")
	waitFor(t, tm, "Sell as Nowa_Gracz")
	typeKey(tm, "enter")
	waitFor(t, tm, "ListingCreatedEvent")
	typeKey(tm, "R")
	traded := regexp.MustCompile(`QA bots 20/s ok [1-9]`)
	teatest.WaitFor(t, tm.Output(), func(b []byte) bool { return traded.Match([]byte(ansi.Strip(string(b)))) },
		teatest.WithDuration(10*time.Second), teatest.WithCheckInterval(20*time.Millisecond))
	m := finish(t, tm)
	if ps, _ := e.svc.Players(); len(ps) != 1+botRecruits {
		t.Fatalf("%d players", len(ps))
	}
	if !m.bots.on || m.bots.total.OK == 0 {
		t.Fatalf("bots on %v, %d ok, %d refused", m.bots.on, m.bots.total.OK, m.bots.total.Refused)
	}
}

// TestE2ESearchResultReachesItsPaneAfterASwitch: on a real program, whose
// commands run asynchronously, the search's debounce fires while another
// pane is active, and the result is on screen when the user comes back.
func TestE2ESearchResultReachesItsPaneAfterASwitch(t *testing.T) {
	_, tm := startProgram(t)
	waitFor(t, tm, "Welcome")
	typeKey(tm, "/")
	tm.Type("diamond")
	tm.Send(tea.KeyPressMsg{Code: tea.KeyTab}) // within the 40 ms debounce
	waitFor(t, tm, "inventory & mailbox")      // the Seller pane: we left Search
	time.Sleep(4 * searchDebounce)
	tm.Send(tea.KeyPressMsg{Code: tea.KeyTab, Mod: tea.ModShift})
	waitFor(t, tm, `matches for "diamond"`)
	m := finish(t, tm)
	sp := m.panes[1].(*searchPane)
	if sp.pending || sp.text != "diamond" || sp.table.total == 0 {
		t.Fatalf("pending %v, text %q, total %d", sp.pending, sp.text, sp.table.total)
	}
}

// TestE2EAnOrderFilledEndToEnd: on a real program a seller sees the best
// buy order in the sell dialog, lists at its price, and the order buys the
// listing as it is listed; the Orders pane and the Events pane show the
// order filled, and the buyer holds the stack.
func TestE2EAnOrderFilledEndToEnd(t *testing.T) {
	e, _, buyer := orderEnv(t, 120, 40, market.ItemStack{Material: "OAK_LOG", Amount: 64})
	o, err := e.svc.PlaceOrder(buyer, "OAK_LOG", 64, 0.5, 0)
	if err != nil {
		t.Fatal(err)
	}
	e, tm := startProgramOn(t, e, func(*testEnv) {})
	typeKey(tm, "s")
	waitFor(t, tm, "best buy order: 0.50 each")
	for _, r := range "32" {
		tm.Send(tea.KeyPressMsg{Code: r, Text: string(r)})
	}
	typeKey(tm, "enter")
	typeKey(tm, "6")
	// The renderer writes only the cells that changed: wait for text that
	// is new where it shows.
	waitFor(t, tm, "reason=filled")
	m := finish(t, tm)
	if got, _ := e.svc.GetOrder(o.ID); got.State != "filled" || got.Filled != 64 {
		t.Fatalf("the order: %+v", got)
	}
	st, _ := e.svc.GetPlayer(buyer.ID)
	if st.Inventory[0] == nil || st.Inventory[0].Material != "OAK_LOG" || st.Inventory[0].Amount != 64 {
		t.Fatalf("the buyer's inventory: %+v", st.Inventory[0])
	}
	if want := "; buy orders bought 64 at once in 1 fill, each BuyOrderFilledEvent"; !strings.HasSuffix(m.status.text, want) {
		t.Fatalf("status %q, want the suffix %q", m.status.text, want)
	}
	m.switchTo(6)
	if v := ansi.Strip(m.View().Content); !strings.Contains(v, "No open buy orders") {
		t.Fatalf("the Orders pane after the fill:\n%s", v)
	}
}

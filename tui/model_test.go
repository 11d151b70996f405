package tui

import (
	"fmt"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
	"github.com/google/uuid"
	"github.com/rynek/rynek/market"
	"github.com/rynek/rynek/market/sqlite"
	"github.com/rynek/rynek/seed"
)

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

// TestExpiryBacklogIsSweptOneBatchPerTick: a backlog of expired listings
// goes a batch a tick, the first of at most 64 (the next sized to take
// market.SweepBudget of the tick), the status counting them with
// "sweeping…" until the last.
func TestExpiryBacklogIsSweptOneBatchPerTick(t *testing.T) {
	e := envOn(t, seededStore(t, seed.Options{Players: 30, Listings: 2500, Days: 1, Rand: 4, Auctions: -1, Orders: -1}), 120, 40)
	for range 8 {
		e.clock.Advance(24 * time.Hour) // every listing is due, the console has not ticked yet
	}
	e.key("]")
	if n, _ := e.svc.GetActiveListingsCount(); n != 0 {
		t.Fatalf("%d listings still active", n)
	}
	if n := firstBatch(t, e); n < 16 || n > 64 || !strings.Contains(e.status(), "sweeping…") {
		t.Fatalf("first batch: %q", e.status())
	}
	sweepUntilDone(t, e)
	if !strings.Contains(e.status(), "2500 listings expired by timer") || strings.Contains(e.status(), "sweeping") {
		t.Fatalf("after the last batch: %q", e.status())
	}
	if len(e.m.log.all) != 0 {
		t.Fatalf("%d events from the timer", len(e.m.log.all))
	}
}

// firstBatch is the listings the status says the timer's first batch
// removed: 64 at most, fewer when the call's other work took part of its
// budget, never fewer than 16.
func firstBatch(t *testing.T, e *testEnv) int {
	t.Helper()
	m := regexp.MustCompile(`(\d+) listings expired by timer`).FindStringSubmatch(e.status())
	if m == nil {
		t.Fatalf("no batch in %q", e.status())
	}
	n, _ := strconv.Atoi(m[1])
	return n
}

// sweepUntilDone ticks while the status says the timer is sweeping.
func sweepUntilDone(t *testing.T, e *testEnv) {
	t.Helper()
	// Batches of at least 16 (under -race, all of them): the 2,500
	// listings take 157 at most, the first one's call included.
	for range 2500 / 16 {
		if !strings.Contains(e.status(), "sweeping…") {
			return
		}
		e.tick()
	}
	if strings.Contains(e.status(), "sweeping…") {
		t.Fatalf("still sweeping: %q", e.status())
	}
}

// TestSweepingEndsWithTheOrders: on the seeded demo the timer closes the
// due buy orders market.SettleBatch a call beside the listings' batch; the status says
// "sweeping…" until the last of them, then what expired, orders included.
func TestSweepingEndsWithTheOrders(t *testing.T) {
	e := envOn(t, seededStore(t, seed.Options{Players: 30, Listings: 600, Days: 1, Rand: 4, Auctions: -1}), 120, 40)
	open, err := e.svc.Orders(market.OrderQuery{})
	if err != nil || open.Total != 12 {
		t.Fatalf("%d seeded orders (%v), want 12", open.Total, err)
	}
	e.clock.Advance(8 * 24 * time.Hour) // every listing and order is due
	e.key("]")
	if n := firstBatch(t, e); n < 16 || n > 64 || !strings.Contains(e.status(), fmt.Sprintf(" %d buy orders expired", market.SettleBatch)) || !strings.Contains(e.status(), "sweeping…") {
		t.Fatalf("first call: %q", e.status())
	}
	sweepUntilDone(t, e)
	if left, _ := e.svc.Orders(market.OrderQuery{}); left.Total != 0 {
		t.Fatalf("%d orders still open after the sweep", left.Total)
	}
	if !strings.Contains(e.status(), "12 buy orders expired") || !strings.Contains(e.status(), "600 listings expired by timer") ||
		strings.Contains(e.status(), "sweeping") {
		t.Fatalf("after the last orders closed: %q", e.status())
	}
}

// TestPaneMessagesGoToThePaneThatAsked: a pane's tagged message reaches it
// while another pane is active (TestE2ESearchResultReachesItsPaneAfterASwitch
// on a real program).
func TestPaneMessagesGoToThePaneThatAsked(t *testing.T) {
	e := newEnv(t, 120, 40)
	e.key("/")
	sp := e.m.panes[1].(*searchPane)
	sp.input.input.SetValue("diamond")
	sp.seq++
	e.key("tab")
	e.send(paneMsg{pane: 1, msg: searchDebounceMsg{seq: sp.seq}})
	if sp.text != "diamond" || sp.pending {
		t.Fatalf("the search pane did not get its debounce: text %q", sp.text)
	}
}

// TestMinimumSizeLayout: 80×24 is laid out whole; smaller says so.
func TestMinimumSizeLayout(t *testing.T) {
	e := newEnv(t, 80, 24)
	e.mustContain("acting as " + e.m.c.Actor.Name)
	for i := range e.m.panes {
		e.key(fmt.Sprint(i + 1))
		lines := strings.Split(e.view(), "\n")
		if foot := lines[len(lines)-1]; !strings.HasSuffix(strings.TrimRight(foot, " "), "? all keys · q quit") {
			t.Errorf("pane %d footer %q", i+1, foot)
		}
	}
	e.key("1")
	e.key("b")
	checkScreen(t, e.m.View().Content, 80, 24)
	e.mustContain("4 SELLER_PAID 5 ITEM_DELIVERED 6 COMPLETED")
	e.key("esc")
	e.key("?")
	e.key("/")
	e.typeText("admin")
	e.key("enter")
	e.mustContain("remove as admin → admin-removed")
	e.key("esc")
	e.key("esc")
	for _, size := range [][2]int{{79, 24}, {80, 23}, {40, 10}} {
		e.send(tea.WindowSizeMsg{Width: size[0], Height: size[1]})
		checkScreen(t, e.m.View().Content, size[0], size[1])
		e.mustContain("terminal too small (needs 80×24)")
	}
}

// TestFooterOffersThePlayerKeyOnce: the Seller pane's footer does not
// offer p beside the console's own p.
func TestFooterOffersThePlayerKeyOnce(t *testing.T) {
	e := newEnv(t, 120, 40)
	e.key("3")
	if foot := strings.Split(e.view(), "\n")[39]; strings.Count(foot, "p ") > 0 && strings.Count(foot, "player") > 1 {
		t.Errorf("footer offers p twice: %q", foot)
	}
}

// TestFooterAlwaysOffersHelp: at 160 columns the footer keeps "?" too.
func TestFooterAlwaysOffersHelp(t *testing.T) {
	e := newEnv(t, 160, 48)
	for i := range e.m.panes {
		e.key(fmt.Sprint(i + 1))
		lines := strings.Split(e.view(), "\n")
		if !strings.Contains(lines[len(lines)-1], "? all keys") {
			t.Errorf("pane %d footer %q", i+1, lines[len(lines)-1])
		}
	}
}

// TestDigitsSwitchPanesSlashFocuses: digits switch panes; only / focuses the
// search box.
func TestDigitsSwitchPanesSlashFocuses(t *testing.T) {
	e := newEnv(t, 120, 40)
	e.key("2")
	if e.m.active != 1 || e.m.panes[1].TextFocused() {
		t.Fatalf("2: active %d, focused %v", e.m.active, e.m.panes[1].TextFocused())
	}
	e.key("3")
	if e.m.active != 2 {
		t.Fatalf("3 after 2: active %d", e.m.active)
	}
	e.key("/")
	if e.m.active != 1 || !e.m.panes[1].TextFocused() {
		t.Fatalf("/: active %d, focused %v", e.m.active, e.m.panes[1].TextFocused())
	}
}

// TestBackgroundChangeRerendersCachedRows: a light background re-renders the
// rows drawn in the dark palette before it was known.
func TestBackgroundChangeRerendersCachedRows(t *testing.T) {
	e := newEnv(t, 120, 40)
	dark, light := "38;2;79;209;110", "38;2;17;119;43" // the price green of each palette
	if v := e.m.View().Content; !strings.Contains(v, dark) {
		t.Fatal("no dark price colour to begin with")
	}
	e.send(tea.BackgroundColorMsg{Color: colorWhite{}})
	v := e.m.View().Content
	// The footer is styled once and reused: it changes palette too.
	lines := strings.Split(v, "\n")
	if foot, darkDim := lines[len(lines)-1], "38;2;138;138;138"; strings.Contains(foot, darkDim) {
		t.Fatalf("the footer kept the dark palette: %q", foot)
	}
	if strings.Contains(v, dark) || !strings.Contains(v, light) {
		t.Fatalf("after a light background: dark %v light %v", strings.Contains(v, dark), strings.Contains(v, light))
	}
	e.key("5")
	if v := e.m.View().Content; strings.Contains(v, dark) {
		t.Fatal("the Transactions pane kept dark rows")
	}
}

type colorWhite struct{}

func (colorWhite) RGBA() (r, g, b, a uint32) { return 0xffff, 0xffff, 0xffff, 0xffff }

// TestStartActsAsASellerWithATier: a seller over the market's limit with a
// market.limit.<n> tier of their own can still sell, so the console may act
// as them at start (it skipped every seller over the market's limit).
func TestStartActsAsASellerWithATier(t *testing.T) {
	st, err := sqlite.Open(filepath.Join(t.TempDir(), "m.db"), sqlite.Options{})
	must(t, err)
	b, err := market.NewBulk(st)
	must(t, err)
	aaron := market.Player{ID: uuid.New(), Name: "Aaron", Permissions: []string{market.PermListingLimit + "50"}}
	bob := market.Player{ID: uuid.New(), Name: "Bob"}
	for _, p := range []market.Player{aaron, bob} {
		must(t, b.AddPlayer(p, 100_00))
		must(t, b.SetSlot(p.ID, 0, market.ItemStack{Material: "DIAMOND", Amount: 64}))
	}
	for range 25 {
		_, err := b.AddListing(aaron.ID, market.ItemStack{Material: "OAK_LOG", Amount: 1}, 100, fixedNow.Add(-time.Hour), fixedNow.Add(6*24*time.Hour))
		must(t, err)
	}
	must(t, b.Finish())
	e := envOn(t, st, 120, 40)
	if e.m.c.Actor.Name != "Aaron" {
		t.Fatalf("acting as %q, not Aaron (25 listings of the 50 his tier allows)", e.m.c.Actor.Name)
	}
}

package tui

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
	"github.com/google/uuid"
	"github.com/rynek/rynek/internal/traffic"
	"github.com/rynek/rynek/market"
	"github.com/rynek/rynek/market/catalog"
	"github.com/rynek/rynek/market/sqlite"
	"github.com/rynek/rynek/seed"
)

// Regression tests of issue 10, one or more per defect, named after it.

// Defect 1 (lost messages), on a real program whose commands run
// asynchronously: the debounce fires while another pane is active, and the
// result is on screen when the user comes back.
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

// Defect 1, Update level: a pane's tagged message reaches it while another
// pane is active.
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

// Defect 2: 80×24 is laid out whole; smaller says so.
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

// Defect 2: at 160 columns the footer keeps "?" too.
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

// Defect 3: digits switch panes; only / focuses the search box.
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

// Defect 4: a light background re-renders the rows drawn in the dark
// palette before it was known.
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

// Defect 5: numbers never run together, at any magnitude.
func TestStatsNumbersKeepTheirGaps(t *testing.T) {
	c := statsCommon(t)
	p := newStatsPane()
	p.Refresh(c)
	p.st.TopSellers = []market.SellerRank{{Name: "Kowalski", Sales: 19996, Earned: 23349239.05}, {Name: "Nowak", Sales: 7, Earned: 1.5}}
	p.st.TopItems = []market.ItemRank{{Material: "DIAMOND", Name: "Diamond", Amount: 1234567, Volume: 987654321.99}}
	for _, w := range []int{80, 160} {
		v := ansi.Strip(p.View(c, w, 30))
		for _, want := range []string{"19 996  23 349 239.05", "1 234 567  987 654 321.99"} {
			if !strings.Contains(v, want) {
				t.Errorf("%d wide: lacks %q:\n%s", w, want, v)
			}
		}
		if strings.Contains(v, "1.50 ") && !strings.Contains(v, "           1.50") {
			t.Errorf("%d wide: small values are not right-aligned:\n%s", w, v)
		}
	}
}

// Defect 6: the Seller's sales and purchases scroll, open, and show a
// sale's price and net apart.
func TestSellerHistoryScrollsOpensAndShowsNet(t *testing.T) {
	e := newEnv(t, 120, 30) // 22 rows for the acting player's 29 transactions
	e.key("3")
	e.key("v")
	e.key("v")
	sp := e.m.panes[2].(*sellerPane)
	h := sp.history
	if h.total <= sp.rows(e.m.c) {
		t.Fatalf("%d transactions: too few to scroll", h.total)
	}
	e.mustContain(fmt.Sprintf("%s transactions", count(h.total)))
	if strings.Contains(e.view(), "the last") {
		t.Fatal("still shows a truncated history")
	}
	e.key("pgdown")
	e.key("j")
	if h.cursor != sp.rows(e.m.c)+1 {
		t.Fatalf("cursor %d after pgdown and j", h.cursor)
	}
	e.key("end")
	if h.cursor != h.total-1 {
		t.Fatalf("end: cursor %d of %d", h.cursor, h.total)
	}
	var sale market.Transaction
	for e.key("home"); h.cursor < h.total-1; e.key("j") {
		if t, _ := h.selected(); t.Seller == sp.player && t.State == market.StateCompleted {
			sale = t
			break
		}
	}
	if sale.ID == "" {
		t.Fatal("no completed sale in the history")
	}
	row := ansi.Strip(h.row(e.m.c, sale, 118))
	if !strings.Contains(row, money(sale.Price)) || !strings.Contains(row, "+"+money(sale.SellerNet)) {
		t.Fatalf("sale row %q: want price %s and net +%s", row, money(sale.Price), money(sale.SellerNet))
	}
	e.key("enter")
	e.run(e.m.forPane(2, request(actOpen{txID: sale.ID})), 0)
	if _, ok := e.m.dialog.(*pagerDialog); !ok {
		t.Fatalf("enter opened %T", e.m.dialog)
	}
	e.mustContain(sale.ID)
}

// Defect 7: a refused QA action changes nothing.
func TestRefusedControlsChangeNothing(t *testing.T) {
	e := newEnv(t, 120, 40)
	e.key("D")
	offset := e.clock.Offset()
	e.key("]")
	if e.clock.Offset() != offset || !strings.Contains(e.status(), notReadyText) {
		t.Fatalf("] while disabled: offset %v → %v, status %q", offset, e.clock.Offset(), e.status())
	}
	p := e.m.panes[0].(*listingsPane)
	q := p.table.q
	for _, k := range []string{"o", "O", "C"} {
		e.key(k)
		if p.table.q != q || !strings.Contains(e.status(), notReadyText) {
			t.Fatalf("%s while disabled: query %+v → %+v, status %q", k, q, p.table.q, e.status())
		}
	}
}

// Defect 7: a market from the future (the QA clock was advanced in an
// earlier run) continues the clock from its newest time.
func TestClockContinuesFromAMarketFromTheFuture(t *testing.T) {
	ahead := 25 * time.Hour
	st, err := sqlite.Open(filepath.Join(t.TempDir(), "m.db"), sqlite.Options{})
	must(t, err)
	if _, err := seed.Load(st, seed.Options{Players: 10, Listings: 50, Days: 2, Rand: 3, Now: fixedNow.Add(ahead)}); err != nil {
		t.Fatal(err)
	}
	e := envOn(t, st, 120, 40)
	if off := e.clock.Offset(); off < newestListingTime(e.svc).Sub(fixedNow) || off > ahead {
		t.Fatalf("offset %v after the listings, want up to %v", off, ahead)
	}
	e.tick() // the history has loaded: its newest time counts too
	newest := newestTransactionTime(e.svc)
	if n := newestListingTime(e.svc); n.After(newest) {
		newest = n
	}
	if now := e.svc.Now(); now.Before(newest) || now.Sub(newest) > 2*time.Second {
		t.Fatalf("clock at %v, the market's newest time %v", now, newest)
	}
	if !strings.Contains(strings.Join(historyTexts(e.m), "\n"), "ahead of this machine's clock") {
		t.Fatalf("no word of it: %q", historyTexts(e.m))
	}
	for _, l := range e.m.panes[0].(*listingsPane).table.win {
		if left := l.ExpiresAt.Sub(e.svc.Now()); left > 7*24*time.Hour {
			t.Fatalf("listing #%d expires in %v", l.ID, left)
		}
	}
}

func historyTexts(m *Model) []string {
	var out []string
	for _, h := range m.history.entries {
		out = append(out, h.text)
	}
	return out
}

// Defect 8: while disabled the rows stay, marked stale, and every action
// answers with the contract's text.
func TestDisabledKeepsRowsAndActionsAnswerNotReady(t *testing.T) {
	e := newEnv(t, 120, 40)
	e.key("5")
	tp := e.m.panes[4].(*transactionsPane)
	tx, _ := tp.selected()
	e.key("1")
	l, _ := e.m.panes[0].Selected()
	e.key("D")
	e.mustContain(fmt.Sprintf("#%d", l.ID))
	e.mustContain("stale")
	for _, k := range []string{"b", "x", "X", "F", "r", "E", "s", "m"} {
		e.key(k)
		if e.m.dialog != nil || !strings.Contains(e.status(), notReadyText) {
			t.Fatalf("%s while disabled: dialog %T, status %q", k, e.m.dialog, e.status())
		}
	}
	// The Transactions pane keeps its rows too, and its filters change
	// nothing while the market cannot answer.
	e.key("5")
	e.mustContain(shortID(tx.ID))
	e.mustContain("stale")
	q, total := tp.q, tp.total
	e.key("a")
	e.key("f")
	e.typeText(tx.SellerName)
	e.key("enter")
	if tp.q != q || tp.total != total || tp.states != 0 || !strings.Contains(e.status(), notReadyText) {
		t.Fatalf("filters while disabled: query %+v → %+v, total %d → %d, status %q", q, tp.q, total, tp.total, e.status())
	}
	e.mustContain(count(total) + " transactions · completed")
}

// Defect 9: an empty market says what to do, and A adds a player, who
// can sell at once; bad input changes nothing and says why.
func TestEmptyMarketAddsPlayers(t *testing.T) {
	e := envOn(t, emptyStore(t), 120, 40)
	if e.status() != noPlayersText {
		t.Fatalf("status %q", e.status())
	}
	e.mustContain("acting as —")
	e.mustContain("No active listings.") // not "No listings match": nothing is filtered
	e.key("3")
	e.mustContain(noPlayersText)
	for _, k := range []string{"s", "m"} {
		e.key(k)
		if e.status() != noPlayersText || e.m.dialog != nil {
			t.Fatalf("%s: %q", k, e.status())
		}
	}
	e.key("p")
	e.mustContain("A adds one")
	e.key("esc")

	for _, c := range []struct{ name, balance, want string }{
		{"Al", "1000.00", `a player name has 3 to 16 characters, "Al" has 2 [INVALID_PLAYER]`},
		{"Jan_Kowalski", "lots", `the balance must be a number like 1000.00, not "lots"`},
		{"Jan_Kowalski", "0.001", "[INVALID_PLAYER]"},
	} {
		e.key("A")
		d := e.m.dialog.(*addPlayerDialog)
		e.typeText(c.name)
		e.key("tab")
		for range 8 {
			e.key("backspace")
		}
		e.typeText(c.balance)
		e.key("enter")
		if e.m.dialog != d || !strings.Contains(d.err, c.want) || d.name.Value() != c.name {
			t.Fatalf("%s/%s: dialog %T, error %q, want %q", c.name, c.balance, e.m.dialog, d.err, c.want)
		}
		e.mustContain(c.want)
		if ps, _ := e.svc.Players(); len(ps) != 0 {
			t.Fatalf("%s/%s: a refused player was added: %v", c.name, c.balance, ps)
		}
		e.key("esc")
	}

	e.key("A")
	e.typeText("Jan_Kowalski")
	e.key("tab")
	e.key("tab")
	e.key("space") // admin
	e.key("enter")
	if e.m.dialog != nil {
		t.Fatalf("the dialog stayed: %q", e.m.dialog.(*addPlayerDialog).err)
	}
	want := "added player Jan_Kowalski with market.admin, balance 1 000.00, 5 stacks; acting as Jan_Kowalski (p picks another)"
	if e.status() != want {
		t.Fatalf("status %q, want %q", e.status(), want)
	}
	e.mustContain("acting as Jan_Kowalski")
	if e.m.c.Admin.Name != "Jan_Kowalski" {
		t.Fatalf("admin %q", e.m.c.Admin.Name)
	}
	e.key("A")
	e.typeText("jan_kowalski")
	e.key("enter")
	if d, ok := e.m.dialog.(*addPlayerDialog); !ok || !strings.HasSuffix(d.err, "[PLAYER_EXISTS]") {
		t.Fatalf("a second Jan: %T", e.m.dialog)
	}
	e.key("esc")
	e.key("s")
	e.key("enter")
	if !strings.HasPrefix(e.status(), "listed #") {
		t.Fatalf("the new player cannot sell: %q", e.status())
	}
}

// Defect 9: bots started on an empty market bring their own players and
// trade.
func TestBotsRecruitPlayersInAnEmptyMarket(t *testing.T) {
	e := envOn(t, emptyStore(t), 120, 40)
	e.key("R")
	ps, _ := e.svc.Players()
	if len(ps) != botRecruits || !e.m.bots.on {
		t.Fatalf("%d players, bots on %v: %q", len(ps), e.m.bots.on, e.status())
	}
	want := "the market had fewer than 2 players, so the bots added 6 (Bot_1…Bot_6, 5 000.00 and a starter kit each); acting as Bot_1; traffic bots started at 20 actions/s as 6 players (R stops them; +/- pace)"
	if e.status() != want {
		t.Fatalf("status %q, want %q", e.status(), want)
	}
	for range 30 {
		e.tick()
	}
	// The bots' choices are random (seeded by the clock): what they listed
	// may all be bought or taken down again, so the trades are what counts.
	n, _ := e.svc.GetActiveListingsCount()
	done, _ := e.svc.GetCompletedTransactions()
	if n+len(done) == 0 || e.m.bots.total.OK == 0 {
		t.Fatalf("after 30 ticks: %d listings, %d purchases, %d ok, %d refused (%v)", n, len(done), e.m.bots.total.OK, e.m.bots.total.Refused, e.m.bots.total.LastErr)
	}
	e.mustContain("QA bots 20/s ok")
	e.key("R")
	if !strings.HasPrefix(e.status(), "traffic bots stopped after ") {
		t.Fatalf("R again: %q", e.status())
	}
	e.key("R") // the market has players now: nobody new
	if ps, _ := e.svc.Players(); len(ps) != botRecruits {
		t.Fatalf("a second start added players: %d", len(ps))
	}
}

// Found in use: in a market of a few listings the bots' purchases looked
// for one of the 200 cheapest at random and nearly all came back "no
// listing to buy", so the refused count said nothing. They buy among what
// is listed, and a turn with nothing worth buying waits: it is no refusal.
func TestBotsBuyWhatIsListed(t *testing.T) {
	e := envOn(t, seededStore(t, seed.Options{Players: 8, Listings: 5, Days: 1, Rand: 2}), 120, 40)
	b := newBots()
	b.players, _ = e.svc.Players()
	r := b.gen.Step(e.svc, b.players, 300, time.Second)
	if r.Actions[traffic.Bought] == 0 || r.Refused != 0 {
		t.Fatalf("300 turns among a few listings: %s; refused %d (%s)", r.ActionText(), r.Refused, r.RefusalText())
	}
}

// An admin action in a market without an admin says how to get one.
func TestAdminActionWithoutAnAdmin(t *testing.T) {
	e := envOn(t, emptyStore(t), 120, 40)
	e.key("R") // the bots bring players, none of them an admin
	e.key("R")
	e.key("1")
	e.key("s") // as Bot_1, so that there is a listing whatever the bots did
	e.key("enter")
	if _, ok := e.m.panes[0].Selected(); !ok {
		t.Fatalf("nothing listed: %q", e.status())
	}
	for _, k := range []string{"X", "F"} {
		e.key(k)
		if e.m.dialog != nil || e.status() != errNoAdmin.Error() {
			t.Fatalf("%s: dialog %T, status %q", k, e.m.dialog, e.status())
		}
	}
}

func emptyStore(t *testing.T) *sqlite.Store {
	t.Helper()
	st, err := sqlite.Open(filepath.Join(t.TempDir(), "m.db"), sqlite.Options{})
	must(t, err)
	return st
}

// Defect 10: the selected row is one reverse-video run across the width,
// in the Listings and the Events pane.
func TestSelectionHighlightsTheWholeRow(t *testing.T) {
	e := newEnv(t, 160, 48)
	e.key("s")
	e.key("enter")
	e.tick()
	for _, pane := range []string{"1", "6"} {
		e.key(pane)
		var row string
		for _, l := range strings.Split(e.m.View().Content, "\n") {
			if strings.HasPrefix(l, "\x1b[1;7m") {
				row = l
			}
		}
		if row == "" {
			t.Fatalf("pane %s: no highlighted row", pane)
		}
		if strings.Count(row, "\x1b[") != 2 || !strings.HasSuffix(row, "\x1b[m") || width(row) != 160 {
			t.Fatalf("pane %s: the highlight is not one run over 160 cells: %q", pane, row)
		}
	}
}

// Defect 11: Events has End/G and Enter, and the cursor stays on its event
// while new ones arrive.
func TestEventsCursorEndAndEnter(t *testing.T) {
	e := newEnv(t, 120, 40)
	for range 3 {
		e.key("s")
		e.key("enter")
	}
	e.tick()
	e.key("6")
	p := e.m.panes[5].(*eventsPane)
	e.key("G")
	oldest, _ := p.selected()
	if oldest.Seq() != 1 {
		t.Fatalf("G selects seq %d", oldest.Seq())
	}
	e.key("k")
	mine, _ := p.selected()
	// The new sale's seq: after the log entries of alerts it fires.
	var last uint64
	e.svc.Subscribe(func(ev market.Event) { last = ev.Seq() })
	e.key("1")
	e.key("s")
	e.key("enter")
	e.tick()
	e.key("6")
	if now, _ := p.selected(); now.Seq() != mine.Seq() {
		t.Fatalf("the cursor moved from seq %d to %d as an event arrived", mine.Seq(), now.Seq())
	}
	e.key("g")
	if newest, _ := p.selected(); last == 0 || newest.Seq() != last {
		t.Fatalf("g selects seq %d, the newest event is seq %d", newest.Seq(), last)
	}
	e.key("enter")
	d, ok := e.m.dialog.(*pagerDialog)
	if !ok || !strings.HasPrefix(d.title, "Listing #") {
		t.Fatalf("enter opened %T", e.m.dialog)
	}
}

// Defect 12: rows with emoji sequences fit the screen under both width
// methods (playertext's tests strip joiners outside emoji sequences).
func TestJoinersAndEmojiWidths(t *testing.T) {
	st, err := sqlite.Open(filepath.Join(t.TempDir(), "e.db"), sqlite.Options{})
	must(t, err)
	b, err := market.NewBulk(st)
	must(t, err)
	for i := range 30 {
		p := market.Player{ID: uuid.New(), Name: fmt.Sprintf("👩\u200d💻👨\u200d👩\u200d👧%d", i)}
		must(t, b.AddPlayer(p, 1000_00))
		_, err := b.AddListing(p.ID, market.ItemStack{Material: "DIAMOND", Amount: 1, DisplayName: "🏳️\u200d🌈 👩\u200d💻 flag"}, 100, fixedNow, fixedNow.Add(24*time.Hour))
		must(t, err)
	}
	must(t, b.Finish())
	e := envOn(t, st, 80, 24)
	t.Cleanup(func() { cells = ansi.WcWidth })
	for _, method := range []string{"wcwidth", "grapheme"} {
		if method == "grapheme" {
			e.send(tea.ModeReportMsg{Mode: ansi.ModeUnicodeCore, Value: ansi.ModeSet})
		}
		for _, k := range []string{"1", "b"} {
			e.key(k)
			checkScreen(t, e.m.View().Content, 80, 24)
		}
		e.key("esc")
	}
}

// Defect 14: a held key never confirms; a key after a quiet period does.
func TestHeldKeyDoesNotConfirm(t *testing.T) {
	e := newEnv(t, 120, 40)
	l, _ := e.m.panes[0].Selected()
	e.key("x")
	for range 40 { // 3.2 s of auto-repeat every 80 ms
		e.wall.advance(80 * time.Millisecond)
		e.send(tea.KeyPressMsg{Code: 'y', Text: "y", IsRepeat: true})
	}
	if e.m.dialog == nil {
		t.Fatal("a held y confirmed")
	}
	if _, err := e.svc.GetListing(l.ID); err != nil {
		t.Fatal(err)
	}
	e.wall.advance(graceQuiet)
	e.send(tea.KeyPressMsg{Code: 'y', Text: "y", IsRepeat: true}) // still the held key
	if e.m.dialog == nil {
		t.Fatal("an auto-repeat after a pause confirmed")
	}
	e.confirm()
	if _, err := e.svc.GetListing(l.ID); err == nil {
		t.Fatal("a fresh y after a quiet period did not remove")
	}
}

// Found in use: the confirmation kept its size when the grace period
// ended, instead of shrinking under the cursor.
func TestConfirmKeepsItsSize(t *testing.T) {
	e := newEnv(t, 120, 40)
	e.key("x")
	before := e.m.dialog.View(e.m.c, 100, 36)
	e.wall.advance(graceQuiet)
	after := e.m.dialog.View(e.m.c, 100, 36)
	if !strings.Contains(before, "wait…") || strings.Contains(after, "wait…") {
		t.Fatalf("the hint did not change:\n%s\n%s", before, after)
	}
	if wb, wa := width(strings.SplitN(before, "\n", 2)[0]), width(strings.SplitN(after, "\n", 2)[0]); wb != wa {
		t.Fatalf("the box is %d cells wide while waiting, %d after", wb, wa)
	}
}

// Defect 15: plurals, the sell dialog on a refusal, one "p" in the footer,
// loading states.
func TestSmallDefects(t *testing.T) {
	if got := expiredText(1); !strings.HasPrefix(got, "1 listing expired") {
		t.Errorf("%q", got)
	}
	clock := market.NewManualClock(fixedNow)
	svc := market.New(seededStore(t, seed.Options{Players: 20, Listings: 100, Days: 2, Rand: 5}),
		market.Config{Clock: clock, ListingCooldown: time.Minute})
	svc.BindMainThread()
	must(t, svc.Enable())
	svc.WaitHistory()
	m := New(Options{Svc: svc, Clock: clock, Wall: time.Now})
	t.Cleanup(func() { m.Close(); svc.Close() })
	e := &testEnv{t: t, svc: svc, clock: clock, wall: &fakeWall{t: fixedNow}, m: m}
	e.send(tea.WindowSizeMsg{Width: 120, Height: 40})
	e.key("s")
	e.key("enter")
	e.key("s")
	d := e.m.dialog.(*sellDialog)
	for range 12 {
		e.key("backspace")
	}
	e.typeText("12.34")
	e.key("enter")
	if e.m.dialog != d || d.err == "" || !strings.HasSuffix(e.status(), "[COOLDOWN]") || d.price.Value() != "12.34" {
		t.Fatalf("after a COOLDOWN: dialog %T, err %q, price %q", e.m.dialog, d.err, d.price.Value())
	}
	e.key("esc")
	e.key("3")
	if foot := strings.Split(e.view(), "\n")[39]; strings.Count(foot, "p ") > 0 && strings.Count(foot, "player") > 1 {
		t.Errorf("footer offers p twice: %q", foot)
	}
}

// Features: Search sorts and filters like Listings ("cheapest diamond
// sword" two keys away), and shows the sort on the column header.
func TestSearchSortsAndFilters(t *testing.T) {
	e := newEnv(t, 120, 40)
	e.key("/")
	e.typeText("diamond")
	e.key("esc")
	e.key("o")
	e.key("o")
	sp := e.m.panes[1].(*searchPane)
	if sp.table.q.Sort != market.SortCheapest || sp.table.q.Text != "diamond" {
		t.Fatalf("query %+v", sp.table.q)
	}
	e.mustContain("▲price")
	var last float64
	for _, l := range sp.table.win {
		if l.Price < last {
			t.Fatalf("not cheapest first: %v after %v", l.Price, last)
		}
		last = l.Price
	}
	e.key("c")
	if _, ok := e.m.dialog.(*categoryPicker); !ok {
		t.Fatalf("c opened %T", e.m.dialog)
	}
	e.key("down")
	e.key("enter")
	if sp.table.q.Category != catalog.CategoryTools || sp.table.q.Text != "diamond" {
		t.Fatalf("after the picker: %+v", sp.table.q)
	}
}

// Features: remove and force-expire as the acting player reach NOT_OWNER
// and FORBIDDEN, with the code shown.
func TestActingPlayerReachesNotOwnerAndForbidden(t *testing.T) {
	e := newEnv(t, 120, 40)
	l, _ := e.m.panes[0].Selected()
	ps, _ := e.svc.Players()
	for _, p := range ps {
		if p.ID != l.Seller && !p.HasPermission(market.PermAdmin) {
			e.m.c.Actor = p
		}
	}
	e.key("r")
	e.confirm()
	if !strings.HasSuffix(e.status(), "[NOT_OWNER]") {
		t.Fatalf("r: %q", e.status())
	}
	e.key("E")
	e.confirm()
	if !strings.HasSuffix(e.status(), "[FORBIDDEN]") {
		t.Fatalf("E: %q", e.status())
	}
	e.key("L")
	e.mustContain("NOT_OWNER")
}

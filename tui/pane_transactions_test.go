package tui

import (
	"fmt"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
	"github.com/rynek/rynek/market"
	"github.com/rynek/rynek/seed"
)

// txTestCommon seeds a small real market and returns a console Common on it.
func txTestCommon(t *testing.T) *Common {
	return paneCommon(t, seed.Options{Players: 30, Listings: 300, Days: 5, Rand: 1})
}

func txKey(code rune, text string) tea.KeyPressMsg {
	return tea.KeyPressMsg{Code: code, Text: text}
}

func txTotal(t *testing.T, c *Common, all bool) int {
	t.Helper()
	page, err := c.Svc.Transactions(market.TxQuery{AllStates: all, Limit: 1})
	if err != nil {
		t.Fatal(err)
	}
	return page.Total
}

func txView(c *Common, p *transactionsPane) string {
	return ansi.Strip(p.View(c, c.W, paneHeight(c.H)))
}

func TestTransactionsCompletedByDefault(t *testing.T) {
	c := txTestCommon(t)
	p := newTransactionsPane()
	p.Refresh(c)
	want := txTotal(t, c, false)
	if want == 0 || want == txTotal(t, c, true) {
		t.Fatalf("seeded %d completed of %d transactions: want some of each kind", want, txTotal(t, c, true))
	}
	if p.total != want {
		t.Fatalf("total = %d, want %d", p.total, want)
	}
	v := txView(c, p)
	title := strings.SplitN(v, "\n", 2)[0]
	if !strings.Contains(title, count(want)+" transactions · completed") {
		t.Errorf("title %q does not show %d completed", title, want)
	}
	// Page through everything: every row is COMPLETED, and the window stays small.
	rows := p.rows(c)
	for seen := 0; seen < want; seen += rows {
		for _, tx := range p.win {
			if tx.State != market.StateCompleted {
				t.Fatalf("default view holds %s %s", tx.ID, tx.State)
			}
		}
		if len(p.win) > 3*rows {
			t.Fatalf("window of %d rows for a screen of %d", len(p.win), rows)
		}
		v := txView(c, p)
		for _, bad := range []string{"FAILED", "ROLLED_BACK"} {
			if strings.Contains(v, bad) {
				t.Fatalf("default view shows %s:\n%s", bad, v)
			}
		}
		p.Update(c, tea.KeyPressMsg{Code: tea.KeyPgDown})
	}
}

func TestTransactionsAllStates(t *testing.T) {
	c := txTestCommon(t)
	p := newTransactionsPane()
	p.Refresh(c)
	p.Update(c, txKey('a', "a"))
	want := txTotal(t, c, true)
	if p.total != want {
		t.Fatalf("after a: total = %d, want %d", p.total, want)
	}
	if title := strings.SplitN(txView(c, p), "\n", 2)[0]; !strings.Contains(title, count(want)+" transactions · all states") {
		t.Errorf("title %q", title)
	}
	found := ""
	for i := 0; i < want && found == ""; i++ {
		tx, ok := p.selected()
		if !ok {
			t.Fatalf("no transaction under the cursor at row %d", i)
		}
		if tx.State == market.StateFailed || tx.State == market.StateRolledBack {
			v := txView(c, p)
			if !strings.Contains(v, string(tx.State)) || !strings.Contains(v, shortID(tx.ID)) {
				t.Fatalf("row %d (%s %s) not on screen:\n%s", i, tx.ID, tx.State, v)
			}
			found = string(tx.State)
		}
		p.Update(c, txKey('j', "j"))
	}
	if found == "" {
		t.Fatal("no FAILED or ROLLED_BACK transaction in the all-states view")
	}
	// FAILED, ROLLED_BACK, then back to completed only.
	for _, st := range []market.State{market.StateFailed, market.StateRolledBack} {
		p.Update(c, txKey('a', "a"))
		page, err := c.Svc.Transactions(market.TxQuery{State: st, Limit: 1})
		if err != nil {
			t.Fatal(err)
		}
		if p.total != page.Total || p.total == 0 {
			t.Fatalf("%s: total %d, want %d (and some)", st, p.total, page.Total)
		}
		for _, tx := range p.win {
			if tx.State != st {
				t.Fatalf("the %s view holds %s %s", st, tx.ID, tx.State)
			}
		}
		if title := strings.SplitN(txView(c, p), "\n", 2)[0]; !strings.Contains(title, count(p.total)+" transactions · "+string(st)) {
			t.Errorf("title %q", title)
		}
	}
	p.Update(c, txKey('a', "a"))
	if p.total != txTotal(t, c, false) || p.cursor != 0 {
		t.Errorf("after a again: total %d cursor %d", p.total, p.cursor)
	}
}

// Transactions filtered by a player and by a part of an id; text that is
// neither is refused, changing nothing.
func TestTransactionsFilterByPlayerAndID(t *testing.T) {
	e := newEnv(t, 120, 40)
	e.key("5")
	p := e.m.panes[4].(*transactionsPane)
	tx, _ := p.selected()
	e.key("f")
	e.mustContain("Filter transactions")
	e.typeText(tx.SellerName)
	e.key("enter")
	page, err := e.svc.Transactions(market.TxQuery{Player: tx.Seller, Limit: 1})
	must(t, err)
	if p.total != page.Total || p.q.Player != tx.Seller {
		t.Fatalf("player filter: total %d, want %d", p.total, page.Total)
	}
	e.mustContain("transactions · completed · player " + tx.SellerName)
	for _, row := range p.win {
		if row.Seller != tx.Seller && row.Buyer != tx.Seller {
			t.Fatalf("%s is not %s's", row.ID, tx.SellerName)
		}
	}
	e.key("esc")
	if p.filtered() {
		t.Fatal("esc kept the filter")
	}
	e.key("f")
	e.typeText(shortID(tx.ID))
	e.key("enter")
	if p.total != 1 || p.win[0].ID != tx.ID {
		t.Fatalf("id filter %s: total %d", shortID(tx.ID), p.total)
	}
	e.mustContain("1 transaction · completed · id contains " + shortID(tx.ID))
	q := p.q
	e.key("f")
	e.typeText("nobody here")
	e.key("enter")
	if want := `no player is called "nobody here" and it is not a part of a transaction id (hex digits and dashes)`; e.status() != want {
		t.Fatalf("status %q, want %q", e.status(), want)
	}
	if p.q != q {
		t.Fatalf("a refused filter changed the query: %+v → %+v", q, p.q)
	}
	e.key("f")
	e.key("enter") // empty: no filter
	if p.filtered() {
		t.Fatal("an empty filter kept the filter")
	}
}

func TestTransactionsDetailTimeline(t *testing.T) {
	c := txTestCommon(t)
	p := newTransactionsPane()
	p.Refresh(c)
	tx, ok := p.selected()
	if !ok || tx.State != market.StateCompleted {
		t.Fatalf("selected %+v %v", tx, ok)
	}
	p.Update(c, tea.KeyPressMsg{Code: tea.KeyEnter})
	v := txView(c, p)
	for _, want := range []string{tx.ID, "CREATED " + stamp(tx.Timeline[0].At), "COMPLETED", "timeline",
		tx.Seller.String(), tx.Buyer.String(), fmt.Sprintf("#%d", tx.ListingID)} {
		if !strings.Contains(v, want) {
			t.Errorf("detail lacks %q:\n%s", want, v)
		}
	}
	if len(tx.Timeline) > 1 && !strings.Contains(v, "LISTING_RESERVED") {
		t.Errorf("detail lacks LISTING_RESERVED:\n%s", v)
	}
	if !strings.Contains(v, "+") {
		t.Errorf("detail shows no time since the previous state:\n%s", v)
	}
	p.Update(c, tea.KeyPressMsg{Code: tea.KeyEscape})
	if strings.Contains(txView(c, p), "timeline") {
		t.Error("esc did not close the detail")
	}
	p.Update(c, tea.KeyPressMsg{Code: tea.KeyEnter})
	p.Update(c, tea.KeyPressMsg{Code: tea.KeyEnter})
	if p.detail {
		t.Error("enter did not toggle the detail off")
	}
}

func TestTransactionsNavigation(t *testing.T) {
	c := txTestCommon(t)
	p := newTransactionsPane()
	p.Refresh(c)
	p.Update(c, tea.KeyPressMsg{Code: tea.KeyEnd})
	if p.cursor != p.total-1 {
		t.Fatalf("end: cursor %d of %d", p.cursor, p.total)
	}
	last, ok := p.selected()
	if !ok {
		t.Fatal("nothing selected at the end")
	}
	page, err := c.Svc.Transactions(market.TxQuery{Offset: p.total - 1, Limit: 1})
	if err != nil || len(page.Transactions) != 1 || page.Transactions[0].ID != last.ID {
		t.Fatalf("last row %s, want %+v %v", last.ID, page.Transactions, err)
	}
	if v := txView(c, p); !strings.Contains(v, shortID(last.ID)) || !strings.Contains(v, "row "+count(p.total)+" of") {
		t.Errorf("last row not on screen:\n%s", v)
	}
	p.Update(c, txKey('k', "k"))
	if p.cursor != p.total-2 {
		t.Errorf("k: cursor %d", p.cursor)
	}
	p.Update(c, tea.KeyPressMsg{Code: tea.KeyHome})
	if p.cursor != 0 || p.top != 0 {
		t.Errorf("home: cursor %d top %d", p.cursor, p.top)
	}
	p.Update(c, tea.MouseWheelMsg{Button: tea.MouseWheelDown})
	if p.cursor != 3 {
		t.Errorf("wheel: cursor %d", p.cursor)
	}
	p.Update(c, tea.KeyPressMsg{Code: tea.KeyPgDown})
	if p.cursor != 3+p.rows(c) {
		t.Errorf("pgdown: cursor %d", p.cursor)
	}
	p.Update(c, txKey('G', "G"))
	if p.cursor != p.total-1 {
		t.Errorf("G: cursor %d", p.cursor)
	}
	p.Update(c, txKey('g', "g"))
	if p.cursor != 0 {
		t.Errorf("g: cursor %d", p.cursor)
	}
}

func TestTransactionsViewSize(t *testing.T) {
	c := txTestCommon(t)
	p := newTransactionsPane()
	for _, size := range [][2]int{{80, 20}, {160, 44}} {
		c.W, c.H = size[0], size[1]+4
		p.Refresh(c)
		for _, mode := range []string{"table", "detail", "all", "all detail", "end"} {
			switch mode {
			case "detail", "all detail":
				p.Update(c, tea.KeyPressMsg{Code: tea.KeyEnter})
			case "all":
				p.Update(c, tea.KeyPressMsg{Code: tea.KeyEscape})
				p.Update(c, txKey('a', "a"))
			case "end":
				p.Update(c, tea.KeyPressMsg{Code: tea.KeyEscape})
				p.Update(c, tea.KeyPressMsg{Code: tea.KeyEnd})
			}
			w, h := size[0], size[1]
			v := p.View(c, w, h)
			lines := strings.Split(v, "\n")
			if len(lines) != h {
				t.Errorf("%dx%d %s: %d lines", w, h, mode, len(lines))
			}
			for i, l := range lines {
				if got := ansi.StringWidth(l); got != w {
					t.Errorf("%dx%d %s: line %d is %d cells: %q", w, h, mode, i, got, ansi.Strip(l))
				}
			}
		}
		p.Update(c, txKey('a', "a"))
	}
}

func TestTransactionsDisabled(t *testing.T) {
	c := txTestCommon(t)
	p := newTransactionsPane()
	p.Refresh(c)
	p.Update(c, tea.KeyPressMsg{Code: tea.KeyEnter})
	c.Svc.Disable()
	p.Refresh(c)
	v := txView(c, p)
	if !strings.Contains(v, "Rynek API nie jest gotowe") {
		t.Errorf("disabled view:\n%s", v)
	}
	if len(strings.Split(v, "\n")) != paneHeight(c.H) {
		t.Errorf("disabled view is not %d lines", paneHeight(c.H))
	}
	if err := c.Svc.Enable(); err != nil {
		t.Fatal(err)
	}
	p.Refresh(c)
	if p.err != nil || p.total != txTotal(t, c, false) {
		t.Errorf("after enable: err %v total %d", p.err, p.total)
	}
}

func TestTransactionsPaneContract(t *testing.T) {
	p := newTransactionsPane()
	if p.TextFocused() {
		t.Error("TextFocused")
	}
	if _, ok := p.Selected(); ok {
		t.Error("Selected returned a listing")
	}
	keys := map[string]bool{}
	for _, b := range p.Help() {
		for _, k := range b.Keys() {
			keys[k] = true
		}
	}
	for _, k := range []string{"a", "enter", "up", "down", "pgup", "pgdown", "home", "end"} {
		if !keys[k] {
			t.Errorf("Help lacks %q", k)
		}
	}
	var _ pane = p
}

// TestTransactionsAt80KeepNamesAndNet: at 80×24, the documented minimum,
// the parties and the money of a row are whole: other columns give way
// first. Before, a sale seen from its seller read "sold → … (net …".
func TestTransactionsAt80KeepNamesAndNet(t *testing.T) {
	e := newEnv(t, 80, 24)
	rowsOf := func(first int, win []market.Transaction) map[string]market.Transaction {
		lines := strings.Split(e.view(), "\n")
		out := map[string]market.Transaction{}
		for i, tx := range win {
			if first+i >= len(lines)-2 {
				break
			}
			out[lines[first+i]] = tx
		}
		return out
	}

	// The acting player's sales and purchases on the Seller pane.
	e.key("3")
	e.key("v")
	e.key("v")
	sp := e.m.panes[2].(*sellerPane)
	me := sp.player
	if info := strings.Split(e.view(), "\n")[3]; !strings.Contains(info, fmt.Sprintf("sold %d (net %s) · bought %d (%s)",
		sp.sums.sales, money(sp.sums.earned), sp.sums.buys, money(sp.sums.spent))) {
		t.Errorf("the seller's sums are cut: %q", info)
	}
	sales := 0
	for line, tx := range rowsOf(6, sp.history.win) {
		switch {
		case tx.Seller == me && tx.State == market.StateCompleted:
			sales++
			if want := "+" + money(tx.SellerNet) + " sold → " + tx.BuyerName; !strings.Contains(line, want) {
				t.Errorf("sale %s: %q lacks %q", tx.ID, line, want)
			}
		case tx.Seller == me:
			if want := "— sold → " + tx.BuyerName; !strings.Contains(line, want) {
				t.Errorf("%s sale %s: %q lacks %q", tx.State, tx.ID, line, want)
			}
		case tx.State == market.StateCompleted:
			if want := "−" + money(tx.Price) + " bought ← " + tx.SellerName; !strings.Contains(line, want) {
				t.Errorf("purchase %s: %q lacks %q", tx.ID, line, want)
			}
		}
	}
	if sales == 0 {
		t.Fatal("no completed sale on the screen to check")
	}

	// Everyone's on the Transactions pane: both names whole when they fit
	// the column (24 cells), shortened evenly when not.
	e.key("5")
	tp := e.m.panes[4].(*transactionsPane)
	whole := 0
	for line, tx := range rowsOf(4, tp.win) {
		pair := tx.SellerName + " → " + tx.BuyerName
		if width(pair) <= 24 {
			whole++
			if !strings.Contains(line, pair) {
				t.Errorf("%s: %q lacks %q", tx.ID, line, pair)
			}
		}
		if !strings.Contains(line, shortID(tx.ID)) || !strings.Contains(line, money(tx.Price)) {
			t.Errorf("%s: %q lacks its id or price", tx.ID, line)
		}
	}
	if whole < 10 {
		t.Fatalf("only %d rows with names that fit", whole)
	}
}

// TestOrderFillFromTheInventoryHasNoListing: a stack sold into a buy order
// from the inventory had no listing; the Transactions pane names the order
// in the listing column, not "#0" ("—" where "ord #10" does not fit), and
// the details say so.
func TestOrderFillFromTheInventoryHasNoListing(t *testing.T) {
	for _, c := range []struct {
		w      int
		orders int // placed before the one filled
		cell   string
	}{{160, 0, "ord #1 Oak Log"}, {110, 0, "COMPLETED   ord #1 Oak Log"}, {160, 9, "ord #10 Oak Log"}, {110, 9, "COMPLETED        — Oak Log"}} {
		e, seller, buyer := orderEnv(t, c.w, 40, market.ItemStack{Material: "OAK_LOG", Amount: 64})
		for range c.orders {
			_, err := e.svc.PlaceOrder(buyer, "DIAMOND", 1, 1, 0)
			must(t, err)
		}
		o, err := e.svc.PlaceOrder(buyer, "OAK_LOG", 10, 2, 0)
		must(t, err)
		e.m.c.Actor = seller
		e.key("7")
		e.key(".") // the next material with orders: Oak Log's book
		e.key("f")
		e.key("enter")
		if !strings.HasPrefix(e.status(), "sold Oak Log ×10 into buy order #"+itoa(o.ID)) {
			t.Fatalf("status %q", e.status())
		}
		e.key("5")
		if strings.Contains(e.view(), "#0") {
			t.Fatalf("%d wide: the fill shows listing #0:\n%s", c.w, e.view())
		}
		e.mustContain(c.cell)
		e.key("enter")
		e.mustContain("listing     none: sold from the inventory into buy order #" + itoa(o.ID))
	}
}

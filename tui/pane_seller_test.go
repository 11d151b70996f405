package tui

import (
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"
	"github.com/rynek/rynek/market"
)

// TestNotesFollowTheActingPlayer: picking another acting player while the
// Seller pane's fourth view is open shows that player's data, not the
// first player's.
func TestNotesFollowTheActingPlayer(t *testing.T) {
	e := newEnv(t, 160, 48)
	first := e.m.c.Actor
	_, err := e.svc.AddAlert(first.ID, "zzqueryoffirst", 5)
	must(t, err)
	e.key("3")
	for range 3 {
		e.key("v")
	}
	e.mustContain("zzqueryoffirst")
	players, err := e.svc.Players()
	must(t, err)
	var other market.Player
	for _, p := range players {
		if p.ID != first.ID {
			other = p
			break
		}
	}
	e.m.run(actPickPlayer{p: other})
	e.tick()
	if v := e.view(); strings.Contains(v, "zzqueryoffirst") {
		t.Fatalf("acting as %s, the Seller pane still shows %s's alert:\n%s", other.Name, first.Name, v)
	}
}

// TestSellerHistoryScrollsOpensAndShowsNet: the Seller's sales and purchases
// scroll, open, and show a sale's price and net apart.
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

// TestSellerHistoryNewestFirst: the Seller pane's sales and purchases read
// newest first down the time column, for every player of the market. Each
// has a refunded purchase (ROLLED_BACK, seeded), rolled back days after it
// was made: its row showed the refund's time where the list keeps it, by
// the time it was made, between older rows.
func TestSellerHistoryNewestFirst(t *testing.T) {
	e := newEnv(t, 160, 200) // every player's history on one screen
	players, err := e.svc.Players()
	must(t, err)
	stamp := regexp.MustCompile(`^[▶ ] (\d{4}-\d\d-\d\d \d\d:\d\d:\d\d) [0-9a-f]{8} `)
	refunds := 0
	for _, p := range players {
		e.m.run(actPickPlayer{p: p})
		e.key("3")
		for e.m.panes[2].(*sellerPane).view != 2 { // sales & purchases
			e.key("v")
		}
		var last string
		for _, line := range strings.Split(e.view(), "\n") {
			m := stamp.FindStringSubmatch(line)
			if m == nil {
				continue
			}
			if last != "" && m[1] > last {
				t.Fatalf("%s's history: %s after %s:\n%s", p.Name, m[1], last, e.view())
			}
			last = m[1]
			if strings.Contains(line, "ROLLED_BACK") {
				refunds++
			}
		}
		if last == "" {
			t.Fatalf("%s's history shows no row:\n%s", p.Name, e.view())
		}
	}
	if refunds < len(players) {
		t.Fatalf("%d ROLLED_BACK rows among %d players", refunds, len(players))
	}
}

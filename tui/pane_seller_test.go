package tui

import (
	"fmt"
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

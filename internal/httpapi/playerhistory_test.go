package httpapi

import (
	"net/url"
	"testing"

	"github.com/rynek/rynek/internal/wire"
	"github.com/rynek/rynek/market"
	"github.com/rynek/rynek/seed"
)

// TestPlayerHistoryPages: /api/history?player= pages one player's completed
// purchases and sales, newest first, by cursor; paging while the player
// buys and sells meanwhile skips and repeats nothing of what was there, and
// a cursor is the player's only.
func TestPlayerHistoryPages(t *testing.T) {
	e := newEnv(t, seed.Options{Listings: 200, Days: 3, Players: 8}, Options{})
	players, _ := e.svc.Players()
	p := players[0]
	before, err := e.svc.Transactions(market.TxQuery{Player: p.ID, Limit: 1 << 20})
	if err != nil {
		t.Fatal(err)
	}
	if before.Total < 12 {
		t.Fatalf("player %s has %d transactions; the test needs 12", p.Name, before.Total)
	}
	seen := map[string]int{}
	cursor := ""
	pages := 0
	for {
		var page wire.TransactionPage
		path := "/api/history?limit=5&player=" + p.ID.String()
		if cursor != "" {
			path += "&cursor=" + url.QueryEscape(cursor)
		}
		a := e.getJSON(path, &page)
		if a.status != 200 {
			t.Fatalf("page %d: %d %s", pages, a.status, a.body)
		}
		for i, tx := range page.Items {
			seen[tx.ID]++
			if tx.Buyer.UUID != p.ID.String() && tx.Seller.UUID != p.ID.String() {
				t.Errorf("transaction %s is not the player's", tx.ID)
			}
			if i > 0 && tx.UpdatedAt.After(page.Items[i-1].UpdatedAt.Time) {
				t.Errorf("page %d is not newest first", pages)
			}
		}
		pages++
		// The player buys a listing of someone else between pages.
		if l := buyable(t, e, p); l != nil {
			if _, err := e.svc.Buy(p, l.ID); err != nil {
				t.Fatal(err)
			}
		}
		if page.NextCursor == "" {
			break
		}
		cursor = page.NextCursor
	}
	for _, tx := range before.Transactions {
		if seen[tx.ID] != 1 {
			t.Errorf("transaction %s was on %d pages, want 1", tx.ID, seen[tx.ID])
		}
	}
	if pages < 3 {
		t.Errorf("%d pages of 5 for %d transactions", pages, before.Total)
	}
	// A cursor is refused for another player, and a player unknown is 404.
	var first wire.TransactionPage
	e.getJSON("/api/history?limit=2&player="+p.ID.String(), &first)
	if a := e.get("/api/history?limit=2&player=" + players[1].ID.String() + "&cursor=" + first.NextCursor); a.status != 400 || a.problem(t).Code != CodeBadCursor {
		t.Errorf("another player's cursor: %d %s", a.status, a.body)
	}
	if a := e.get("/api/history?cursor=" + first.NextCursor); a.status != 400 || a.problem(t).Code != CodeBadCursor {
		t.Errorf("a player's cursor for everyone's history: %d %s", a.status, a.body)
	}
	if a := e.get("/api/history?player=01234567-89ab-4cde-8f01-23456789abcd"); a.status != 404 || a.problem(t).Code != CodePlayerNotFound {
		t.Errorf("an unknown player: %d %s", a.status, a.body)
	}
	if a := e.get("/api/history?player=kowalski"); a.status != 400 || a.problem(t).Parameter != "player" {
		t.Errorf("a player by name: %d %s", a.status, a.body)
	}
}

// buyable is a listing p can buy (someone else's), or nil.
func buyable(t *testing.T, e *env, p market.Player) *market.Listing {
	t.Helper()
	page, err := e.svc.Query(market.Query{Limit: 50})
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range page.Listings {
		if l.Seller != p.ID && l.Price < 50 {
			return &l
		}
	}
	return nil
}

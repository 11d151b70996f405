package httpapi

import (
	"testing"

	"github.com/rynek/rynek/seed"
)

// TestEmptyValuesAreRefused: a parameter given without a value is not its
// default, as a typo is not: 400 naming it, on every route that takes it.
func TestEmptyValuesAreRefused(t *testing.T) {
	e := newEnv(t, seed.Options{Listings: 5}, Options{})
	for path, param := range map[string]string{
		"/api/listings?limit=": "limit", "/api/listings?kind=": "kind", "/api/listings?sort=": "sort",
		"/api/listings?min_price=": "min_price", "/api/listings?q=": "q", "/api/listings?seller=": "seller",
		"/api/listings?cursor=": "cursor", "/api/listings?q=diament&category": "category", "/api/orders?buyer=": "buyer",
		"/api/history?player=": "player", "/api/listings/1/bids?limit=": "limit", "/api/price-history/DIAMOND?span=": "span",
		"/api/volume-history?span=": "span", "/api/events?since=": "since",
	} {
		a := e.get(path)
		p := a.problem(t)
		want := "parameter " + param + " has no value; give one, or leave " + param + " out for its default"
		if a.status != 400 || p.Code != CodeBadParameter || p.Parameter != param || p.Detail != want {
			t.Errorf("%s: %d %s %q %q, want 400 naming %s: %q", path, a.status, p.Code, p.Parameter, p.Detail, param, want)
		}
	}
}

// TestUnknownPlayersAreNotFound: a player the market does not know, the
// nil UUID among them (it is in canonical form), is 404 player-not-found
// wherever a player is named, in the path or as a filter, never an empty
// page; a transaction id that names none is 404 too.
func TestUnknownPlayersAreNotFound(t *testing.T) {
	e := newEnv(t, seed.Options{Listings: 20}, Options{})
	players, _ := e.svc.Players()
	for _, id := range []string{"00000000-0000-0000-0000-000000000000", "01234567-89ab-4cde-8f01-23456789abcd"} {
		for _, path := range []string{"/api/players/" + id, "/api/listings?seller=" + id, "/api/listings?q=diament&seller=" + id,
			"/api/orders?buyer=" + id, "/api/history?player=" + id} {
			a := e.get(path)
			p := a.problem(t)
			if a.status != 404 || p.Code != CodePlayerNotFound || p.Detail != "no player "+id || p.Parameter != "" {
				t.Errorf("%s: %d %s %q %q, want 404 player-not-found", path, a.status, p.Code, p.Detail, p.Parameter)
			}
		}
		a := e.get("/api/transactions/" + id)
		if p := a.problem(t); a.status != 404 || p.Code != CodeTransactionMissing || p.Detail != "no transaction "+id {
			t.Errorf("/api/transactions/%s: %d %s %q", id, a.status, p.Code, p.Detail)
		}
	}
	for _, path := range []string{"/api/listings?seller=" + players[0].ID.String(), "/api/orders?buyer=" + players[0].ID.String(),
		"/api/history?player=" + players[0].ID.String(), "/api/players/" + players[0].ID.String()} {
		if a := e.get(path); a.status != 200 {
			t.Errorf("%s: %d %s", path, a.status, a.body)
		}
	}
	if a := e.get("/api/listings?seller=00000000-0000-0000-0000-00000000000"); a.status != 400 ||
		a.problem(t).Detail != `seller must be a player UUID in canonical form, got "00000000-0000-0000-0000-00000000000"` {
		t.Errorf("a short UUID as seller: %d %s", a.status, a.body)
	}
}

package tui

import (
	"strings"
	"testing"

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

package seed_test

import (
	"errors"
	"testing"

	"github.com/rynek/rynek/market"
	"github.com/rynek/rynek/seed"
)

// TestDemoNamesPassTheMarketsRule: every name the demo generator makes
// joins a market as a player, through the market's own rule for game
// names (Service.AddPlayer), not a copy of it. The demo had Łucjan_TV,
// Żmij and Brzęczyszczyk, which that rule refuses.
func TestDemoNamesPassTheMarketsRule(t *testing.T) {
	for _, opts := range []seed.Options{{}, {Players: 3000, Rand: 2}, {Players: 3000, Rand: 3}} {
		st := openStore(t)
		svc := market.New(st, market.Config{Clock: market.NewManualClock(now)})
		svc.BindMainThread()
		must(t, svc.Enable())
		// The rule is the one the issue quotes: Polish letters are refused.
		for _, bad := range []string{"A", "Zażółć", "Żmij"} {
			if _, err := svc.AddPlayer(market.NewPlayer{Name: bad}); !errors.Is(err, &market.Error{Code: market.CodeInvalidPlayer}) {
				t.Fatalf("AddPlayer(%q) = %v, want INVALID_PLAYER", bad, err)
			}
		}
		names := seed.Names(opts)
		for _, name := range names {
			if _, err := svc.AddPlayer(market.NewPlayer{Name: name}); err != nil {
				t.Errorf("seed %d: demo player %q: %v", opts.Rand, name, err)
			}
		}
		if want := max(opts.Players, 300); len(names) != want {
			t.Errorf("seed %d: %d names, want %d", opts.Rand, len(names), want)
		}
		must(t, svc.Close())
	}
}

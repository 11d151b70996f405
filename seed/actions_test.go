package seed_test

import (
	"os"
	"testing"
	"time"

	"github.com/rynek/rynek/market"
	"github.com/rynek/rynek/seed"
)

// loadWithRules seeds a fresh store under rules and starts the market on
// it with the same rules, as rynek does with a rules file.
func loadWithRules(t *testing.T, opts seed.Options) (*market.Service, *market.ManualClock) {
	t.Helper()
	st := openStore(t)
	if _, err := seed.Load(st, opts); err != nil {
		st.Close()
		t.Fatal(err)
	}
	clock := market.NewManualClock(opts.Now)
	cfg := opts.Rules
	cfg.Clock = clock
	svc := market.New(st, cfg)
	svc.BindMainThread()
	if err := svc.Enable(); err != nil {
		svc.Close()
		t.Fatal(err)
	}
	if err := svc.WaitHistory(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { svc.Close() })
	return svc, clock
}

// seedCases are the markets every seeded player must be able to act in:
// the default demo, a big one, and rules that are tight everywhere.
func seedCases(t *testing.T) []struct {
	name string
	opts seed.Options
} {
	cases := []struct {
		name string
		opts seed.Options
	}{
		{"default", seed.Options{Rand: 1, Now: now}},
		{"tight rules", seed.Options{Rand: 2, Now: now, Listings: 5000, Rules: market.Config{
			MaxListingsPerPlayer: 5, MaxAlertsPerPlayer: 2, MaxTransactionValue: 500_00, Blacklist: []string{"DIAMOND", "ELYTRA"},
			PurchaseCap: market.PurchaseCap{Max: 1, Window: 24 * time.Hour}, ListingFeeBasisPoints: 100,
			ListingTTL: 3 * 24 * time.Hour}}},
	}
	if !testing.Short() {
		cases = append(cases, struct {
			name string
			opts seed.Options
		}{"100000 listings", seed.Options{Rand: 3, Now: now, Listings: 100_000}})
	}
	if os.Getenv("RYNEK_LARGE") != "" {
		cases = append(cases, struct {
			name string
			opts seed.Options
		}{"1000000 listings", seed.Options{Rand: 1, Now: now, Listings: 1_000_000}})
	}
	return cases
}

// TestSeededMarketKeepsItsRules: no seeded seller holds more listings than
// their limit allows (a big seller has a market.limit.<n> tier) and each
// has room for more; nothing seeded breaks the rules' blacklist, prices or
// expiry; no history breaks the purchase cap.
func TestSeededMarketKeepsItsRules(t *testing.T) {
	for _, c := range seedCases(t) {
		t.Run(c.name, func(t *testing.T) {
			svc, _ := loadWithRules(t, c.opts)
			rules := svc.Config()
			players, err := svc.Players()
			must(t, err)
			tiers := 0
			for _, p := range players {
				room, err := svc.ListingRoom(p.ID)
				must(t, err)
				if room.Listings > room.Limit-3 {
					t.Errorf("%s has %d listings, limit %d: no room for three more", p.Name, room.Listings, room.Limit)
				}
				if room.Limit != rules.MaxListingsPerPlayer {
					tiers++
				}
			}
			blacklisted := map[string]bool{}
			for _, k := range rules.Blacklist {
				blacklisted[k] = true
			}
			all, err := svc.GetListings()
			must(t, err)
			for _, l := range all {
				cents := market.Money(l.Price*100 + 0.5)
				switch {
				case blacklisted[l.Item.Material]:
					t.Fatalf("listing #%d sells blacklisted %s", l.ID, l.Item.Material)
				case cents < rules.MinPrice || cents > rules.MaxPrice || rules.MaxTransactionValue > 0 && cents > rules.MaxTransactionValue:
					t.Fatalf("listing #%d costs %v, outside the rules' prices", l.ID, l.Price)
				case !l.ExpiresAt.Equal(l.CreatedAt.Add(rules.ListingTTL)):
					t.Fatalf("listing #%d expires %v after it was made, not the rules' %v", l.ID, l.ExpiresAt.Sub(l.CreatedAt), rules.ListingTTL)
				}
			}
			if pc := rules.PurchaseCap; pc.Max > 0 {
				done, err := svc.GetCompletedTransactions()
				must(t, err)
				pairs := map[[2]string][]time.Time{}
				for _, tx := range done {
					k := [2]string{tx.BuyerName, tx.SellerName}
					at := tx.Timeline[len(tx.Timeline)-1].At
					for _, before := range pairs[k] {
						if d := at.Sub(before); d < pc.Window && d > -pc.Window {
							t.Fatalf("%s bought from %s at %v and %v, within the cap of %d in %v", k[0], k[1], before, at, pc.Max, pc.Window)
						}
					}
					pairs[k] = append(pairs[k], at)
				}
			}
			t.Logf("%d players, %d with a tier of their own", len(players), tiers)
			if len(all) > rules.MaxListingsPerPlayer*len(players)/2 && tiers == 0 {
				t.Errorf("%d listings among %d players and no tier", len(all), len(players))
			}
		})
	}
}

func must(t testing.TB, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

package seed_test

import (
	"errors"
	"os"
	"slices"
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
	return start(t, st, opts)
}

// start starts the market on st, seeded with opts, with the rules and the
// time of opts.
func start(t *testing.T, st market.Store, opts seed.Options) (*market.Service, *market.ManualClock) {
	t.Helper()
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
				case l.Auction != nil:
					if d := l.ExpiresAt.Sub(l.CreatedAt); d < rules.Auctions.MinDuration || d > rules.Auctions.MaxDuration {
						t.Fatalf("auction #%d lasts %v, outside the rules' %v..%v", l.ID, d, rules.Auctions.MinDuration, rules.Auctions.MaxDuration)
					}
				case !l.ExpiresAt.Equal(l.CreatedAt.Add(rules.ListingTTL)):
					t.Fatalf("listing #%d expires %v after it was made, not the rules' %v", l.ID, l.ExpiresAt.Sub(l.CreatedAt), rules.ListingTTL)
				}
			}
			checkPurchaseCap(t, svc)
			t.Logf("%d players, %d with a tier of their own", len(players), tiers)
			if len(all) > rules.MaxListingsPerPlayer*len(players)/2 && tiers == 0 {
				t.Errorf("%d listings among %d players and no tier", len(all), len(players))
			}
		})
	}
}

// checkPurchaseCap fails t when the history of svc holds more purchases of
// one buyer from one seller within the window of the market's purchase cap
// than it allows.
func checkPurchaseCap(t *testing.T, svc *market.Service) {
	t.Helper()
	pc := svc.Config().PurchaseCap
	if pc.Max <= 0 {
		return
	}
	done, err := svc.GetCompletedTransactions()
	must(t, err)
	pairs := map[[2]string][]time.Time{}
	for _, tx := range done {
		k := [2]string{tx.BuyerName, tx.SellerName}
		pairs[k] = append(pairs[k], tx.Timeline[len(tx.Timeline)-1].At)
	}
	for k, times := range pairs {
		slices.SortFunc(times, time.Time.Compare)
		for i := pc.Max; i < len(times); i++ {
			if d := times[i].Sub(times[i-pc.Max]); d < pc.Window {
				t.Fatalf("%s bought from %s %d times from %v to %v, within %v: the cap allows %d", k[0], k[1], pc.Max+1,
					times[i-pc.Max], times[i], pc.Window, pc.Max)
			}
		}
	}
}

// TestSeedWithinAPurchaseCapItCannotFill: a purchase cap that allows fewer
// sales than the options ask for (4 players, each buying from each other
// once a day, 30 sales a day) gives a history of the sales it allows, at
// once, and none beyond it, where the seed looked for a buyer forever.
func TestSeedWithinAPurchaseCapItCannotFill(t *testing.T) {
	opts := seed.Options{Players: 4, Listings: 40, Days: 3, SalesPerDay: 30, Rand: 1, Now: now,
		Rules: market.Config{PurchaseCap: market.PurchaseCap{Max: 1, Window: 24 * time.Hour}}}
	st := openStore(t)
	type outcome struct {
		res seed.Result
		err error
	}
	done := make(chan outcome, 1)
	go func() {
		res, err := seed.Load(st, opts)
		done <- outcome{res, err}
	}()
	var o outcome
	select {
	case o = <-done:
	case <-time.After(20 * time.Second):
		t.Fatal("the seed still looks for buyers the purchase cap allows after 20 s")
	}
	must(t, o.err)
	// 12 pairs of players, each at most once a day, over 3 days (and the
	// last two, where the recent purchases are).
	if o.res.Completed == 0 || o.res.Completed > 12*4 {
		t.Fatalf("%d completed sales of the 90 asked for under a cap of 12 pairs once a day", o.res.Completed)
	}
	t.Logf("%d transactions, %d of them completed sales", o.res.Transactions, o.res.Completed)
	svc, _ := start(t, st, opts)
	checkPurchaseCap(t, svc)
}

// TestEverySeededPlayerCanAct: every seeded player, one after the other,
// sells, takes a listing back, buys a typical listing, claims their mail,
// rates their last purchase, marks a favourite and adds a price alert, each
// at once; every admin refunds a purchase. Nothing is refused.
func TestEverySeededPlayerCanAct(t *testing.T) {
	for _, c := range seedCases(t) {
		t.Run(c.name, func(t *testing.T) {
			svc, clock := loadWithRules(t, c.opts)
			rules := svc.Config()
			players, err := svc.Players()
			must(t, err)
			// The typical listing: the median price.
			byPrice, err := svc.Query(market.Query{Sort: market.SortCheapest, Kind: "fixed", Limit: -1})
			must(t, err)
			median := byPrice.Listings[len(byPrice.Listings)/2].Price
			t.Logf("%d listings, median price %.2f", byPrice.Total, median)
			next := len(byPrice.Listings) / 2
			// Each takes back a listing of theirs first: a buyer before
			// them could have bought the one a small seller has.
			for _, p := range players {
				mine, err := svc.Query(market.Query{Seller: p.ID, Limit: -1})
				must(t, err)
				// Any but an auction with bids, which runs to its end.
				i := slices.IndexFunc(mine.Listings, func(l market.Listing) bool { return l.Auction == nil || l.Auction.Bids == 0 })
				if i < 0 {
					t.Fatalf("%s has no listing to take back", p.Name)
				}
				if err := svc.RemoveListing(mine.Listings[i].ID, p); err != nil {
					t.Fatalf("%s takes a listing back: %v", p.Name, err)
				}
			}
			for _, p := range players {
				st, err := svc.GetPlayer(p.ID)
				must(t, err)
				act := func(what string, err error) {
					t.Helper()
					if err != nil {
						t.Fatalf("%s %s: %v", p.Name, what, err)
					}
				}
				if st.Balance < median {
					t.Fatalf("%s has %.2f, less than the median listing's %.2f", p.Name, st.Balance, median)
				}
				// Rate their purchase, before buying another.
				page, err := svc.Transactions(market.TxQuery{Player: p.ID, Limit: 10_000_000})
				must(t, err)
				rate := slices.IndexFunc(page.Transactions, func(tx market.Transaction) bool { return tx.Buyer == p.ID && tx.Rating == 0 })
				if rate < 0 {
					t.Fatalf("%s has no purchase to rate", p.Name)
				}
				_, err = svc.Rate(p.ID, page.Transactions[rate].ID, 4)
				act("rates a purchase", err)

				slot := slices.IndexFunc(st.Inventory[:], func(s *market.ItemStack) bool { return s != nil })
				if slot < 0 {
					t.Fatalf("%s has nothing to sell", p.Name)
				}
				price := min(max(10, rules.MinPrice.Float()), rules.MaxPrice.Float())
				_, err = svc.SellItem(p, *st.Inventory[slot], price)
				act("sells", err)

				bought := false
				for tries := 0; !bought && tries < 20; tries++ {
					l := byPrice.Listings[next%len(byPrice.Listings)]
					next++
					if l.Seller == p.ID {
						continue
					}
					_, err := svc.Buy(p, l.ID)
					switch {
					case err == nil:
						bought = true
					case errors.Is(err, market.ErrUnknownListing): // bought or taken back by an earlier player
					case rules.PurchaseCap.Max > 0 && errors.Is(err, &market.Error{Code: market.CodePurchaseCap}):
					default:
						act("buys a typical listing", err)
					}
				}
				if !bought {
					t.Fatalf("%s found nothing to buy near the median", p.Name)
				}

				if len(st.Mailbox) == 0 {
					t.Fatalf("%s has an empty mailbox", p.Name)
				}
				act("claims their mail", svc.ClaimMail(p.ID, st.Mailbox[0].ID))

				for _, l := range byPrice.Listings {
					if l.Seller != p.ID {
						if _, err := svc.GetListing(l.ID); err == nil {
							_, err = svc.ToggleFavorite(p.ID, l.ID)
							act("marks a favourite", err)
							break
						}
					}
				}
				_, err = svc.AddAlert(p.ID, "netherite sword", 2000)
				act("adds a price alert", err)

				if p.HasPermission(market.PermAdmin) {
					refundOne(t, svc, p)
				}
				clock.Advance(time.Second)
			}
			a, err := svc.Audit()
			must(t, err)
			if len(a.Problems) > 0 {
				t.Fatalf("audit: %v", a.Problems[:min(5, len(a.Problems))])
			}
		})
	}
}

// refundOne refunds, as admin, a seeded purchase whose buyer still holds
// the item: the money goes back and the item to its seller.
func refundOne(t *testing.T, svc *market.Service, admin market.Player) {
	t.Helper()
	page, err := svc.Transactions(market.TxQuery{Limit: 10_000_000})
	must(t, err)
	for _, tx := range page.Transactions {
		if tx.Buyer == admin.ID || tx.Seller == admin.ID {
			continue
		}
		st, err := svc.GetPlayer(tx.Buyer)
		must(t, err)
		if !slices.ContainsFunc(st.Inventory[:], func(s *market.ItemStack) bool { return s != nil && s.ID == tx.Item.ID }) {
			continue
		}
		refunded, err := svc.Refund(tx.ID, admin, market.RefundWithItem)
		if err != nil {
			t.Fatalf("%s refunds %s's purchase %s: %v", admin.Name, tx.BuyerName, tx.ID, err)
		}
		if _, returned, ok := refunded.Refunded(); !ok || !returned {
			t.Fatalf("the refund of %s: %s %s", tx.ID, refunded.State, refunded.ErrorCode)
		}
		return
	}
	t.Fatalf("%s found no purchase whose buyer still holds the item", admin.Name)
}

func must(t testing.TB, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

package market_test

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/rynek/rynek/internal/pgtest"
	"github.com/rynek/rynek/market"
	"github.com/rynek/rynek/market/postgres"
)

// networkPlayers seeds a shared market: sellers whose listings the test
// races for, and buyers rich enough to buy everything.
type networkPlayers struct {
	sellers, buyers []market.Player
	listings        []int
	money           market.Money
}

func seedNetwork(t testing.TB, dsn string, sellers, buyers, listings int) networkPlayers {
	t.Helper()
	st, err := postgres.Open(dsn, postgres.Options{Instance: "seed"})
	must(t, err)
	defer st.Close()
	k, err := market.NewBulk(st)
	must(t, err)
	var np networkPlayers
	add := func(name string, balance market.Money) market.Player {
		p := market.Player{ID: uuid.New(), Name: name}
		must(t, k.AddPlayer(p, balance))
		np.money += balance
		return p
	}
	for i := range sellers {
		np.sellers = append(np.sellers, add(fmt.Sprintf("Seller%d", i), 0))
	}
	for i := range buyers {
		np.buyers = append(np.buyers, add(fmt.Sprintf("Buyer%d", i), 1_000_000_00))
	}
	for i := range listings {
		stack := market.ItemStack{ID: uuid.New(), Material: "DIAMOND", Amount: 1 + i%5}
		id, err := k.AddListing(np.sellers[i%sellers].ID, stack, market.Money(100+i), t0, t0.Add(30*24*time.Hour))
		must(t, err)
		np.listings = append(np.listings, id)
	}
	must(t, k.Finish())
	return np
}

// seen is one event as a listener got it.
type seen struct {
	seq     uint64
	name    string
	origin  string
	listing int
}

// TestNetworkSellsEachListingOnce: three instances on one PostgreSQL market,
// eight buyers each, race for the same 1,000 listings. Every listing is sold
// exactly once, money and items are conserved across the network, every
// instance's memory ends equal to the store, and every instance's listeners
// saw every event, in the same order, with the instance it came from.
func TestNetworkSellsEachListingOnce(t *testing.T) {
	dsn := pgtest.Database(t)
	const instances, buyersEach, listings = 3, 8, 1000
	np := seedNetwork(t, dsn, 10, instances*buyersEach, listings)

	type result struct {
		name     string
		events   []seen
		won      int
		states   map[uuid.UUID]string
		audit    market.Audit
		version  uint64
		failures []string
	}
	results := make([]result, instances)
	// Every instance is open before the race: a new instance's listeners
	// start at the log's end.
	var open sync.WaitGroup
	open.Add(instances)
	bought := make(chan struct{}, instances)
	target := make(chan uint64, instances)
	var wg sync.WaitGroup
	for i := range instances {
		wg.Add(1)
		go func() {
			defer wg.Done()
			res := &results[i]
			res.name = fmt.Sprintf("server-%c", 'a'+i)
			fail := func(format string, args ...any) { res.failures = append(res.failures, fmt.Sprintf(format, args...)) }
			defer func() { bought <- struct{}{} }() // also when it failed early
			st, err := postgres.Open(dsn, postgres.Options{Instance: res.name})
			if err != nil {
				fail("open: %v", err)
				open.Done()
				return
			}
			svc := market.New(st, market.Config{Clock: market.NewManualClock(t0), ListingCooldown: -1})
			defer svc.Close()
			svc.BindMainThread()
			svc.Subscribe(func(e market.Event) {
				s := seen{seq: e.Seq(), name: e.EventName(), origin: e.Origin()}
				if c, ok := e.(market.TransactionCompletedEvent); ok {
					s.listing = c.Transaction().ListingID
				}
				res.events = append(res.events, s)
			})
			err = svc.Enable()
			open.Done()
			if err != nil {
				fail("enable: %v", err)
				return
			}
			open.Wait()
			buyers := np.buyers[i*buyersEach : (i+1)*buyersEach]
			rng := rand.New(rand.NewPCG(uint64(i), 1))
			for deadline := time.Now().Add(2 * time.Minute); ; {
				if _, err := svc.Follow(); err != nil {
					fail("follow: %v", err)
				}
				open, err := svc.GetListings()
				if err != nil || len(open) == 0 || time.Now().After(deadline) {
					break
				}
				l := open[rng.IntN(len(open))]
				_, err = svc.Buy(buyers[rng.IntN(len(buyers))], l.ID)
				switch {
				case err == nil:
					res.won++
				case errors.Is(err, market.ErrConflictingChange), errors.Is(err, market.ErrUnknownListing),
					errors.Is(err, market.ErrListingReserved):
					// Another instance was first.
				default:
					fail("buy #%d: %v", l.ID, err)
				}
			}
			bought <- struct{}{}
			want := <-target
			for deadline := time.Now().Add(30 * time.Second); svc.Version() < want && time.Now().Before(deadline); {
				if _, err := svc.Follow(); err != nil {
					fail("follow: %v", err)
				}
				time.Sleep(5 * time.Millisecond)
			}
			res.version = svc.Version()
			res.audit, _ = svc.Audit()
			res.states = map[uuid.UUID]string{}
			for _, p := range append(slices.Clone(np.sellers), np.buyers...) {
				ps, err := svc.GetPlayer(p.ID)
				if err != nil {
					fail("player %s: %v", p.Name, err)
					continue
				}
				res.states[p.ID] = playerSummary(ps)
			}
		}()
	}
	for range instances {
		<-bought
	}
	// Every instance is done buying: the log's end is what each must reach.
	checker, err := postgres.Open(dsn, postgres.Options{Instance: "checker"})
	must(t, err)
	var log []market.EventRow
	_, err = checker.ReadEvents(0, 1<<30, func(e market.EventRow) error {
		e.Body = nil
		log = append(log, e)
		return nil
	})
	must(t, err)
	for range instances {
		target <- log[len(log)-1].Seq
	}
	wg.Wait()
	for range instances {
		<-bought // the deferred sends
	}

	// The truth: a fresh instance on the store.
	truth := market.New(checker, market.Config{Clock: market.NewManualClock(t0), ListingCooldown: -1})
	truth.BindMainThread()
	must(t, truth.Enable())
	defer truth.Close()
	audit, err := truth.Audit()
	must(t, err)
	if len(audit.Problems) > 0 || audit.Listings != 0 || audit.Money != np.money || audit.Stacks != listings {
		t.Fatalf("the store after the race: %d listings, money %d (want %d), %d stacks (want %d), problems %v",
			audit.Listings, audit.Money, np.money, audit.Stacks, listings, audit.Problems)
	}
	sold := map[int]int{}
	won := 0
	for i, r := range results {
		for _, f := range r.failures {
			t.Errorf("%s: %s", r.name, f)
		}
		won += r.won
		if r.version != log[len(log)-1].Seq {
			t.Errorf("%s stopped at version %d, the log is at %d", r.name, r.version, log[len(log)-1].Seq)
		}
		if len(r.audit.Problems) > 0 || r.audit.Money != np.money || r.audit.Listings != 0 {
			t.Errorf("%s's memory: money %d, %d listings, problems %v", r.name, r.audit.Money, r.audit.Listings, r.audit.Problems)
		}
		if i == 0 {
			for _, e := range r.events {
				if e.name == "TransactionCompletedEvent" {
					sold[e.listing]++
				}
			}
			continue
		}
		if !slices.Equal(r.events, results[0].events) {
			t.Errorf("%s's listeners saw %d events, %s's %d, or in another order", r.name, len(r.events), results[0].name, len(results[0].events))
		}
		for id, s := range r.states {
			if want := results[0].states[id]; s != want {
				t.Errorf("%s sees player %s as\n%s\n%s as\n%s", r.name, id, s, results[0].name, want)
				break
			}
		}
	}
	for id, s := range results[0].states {
		ps, err := truth.GetPlayer(id)
		must(t, err)
		if want := playerSummary(ps); s != want {
			t.Errorf("the instances see player %s as\n%s\nthe store as\n%s", id, s, want)
			break
		}
	}
	if won != listings || len(sold) != listings {
		t.Fatalf("%d purchases won, %d listings sold, want %d each", won, len(sold), listings)
	}
	byOrigin := map[string]int{}
	for _, e := range results[0].events {
		if e.name == "TransactionCompletedEvent" {
			byOrigin[e.origin]++
		}
	}
	for i, r := range results {
		if byOrigin[r.name] != r.won {
			t.Errorf("%s won %d purchases, its events say %d", results[i].name, r.won, byOrigin[r.name])
		}
	}
	for id, n := range sold {
		if n != 1 {
			t.Errorf("listing #%d sold %d times", id, n)
		}
	}
	t.Logf("purchases won: %s %d, %s %d, %s %d; %d log entries", results[0].name, results[0].won,
		results[1].name, results[1].won, results[2].name, results[2].won, len(log))
}

// playerSummary is what a player has, for comparing instances: the
// balance, the stacks in each slot and the stacks in the mailbox (as a set:
// entries made in the same millisecond have no order).
func playerSummary(ps market.PlayerState) string {
	s := fmt.Sprintf("%.2f", ps.Balance)
	for i, it := range ps.Inventory {
		if it != nil {
			s += fmt.Sprintf(" %d:%s", i, it.ID.String()[:8])
		}
	}
	var mail []string
	for _, m := range ps.Mailbox {
		mail = append(mail, m.Item.ID.String()[:8])
	}
	slices.Sort(mail)
	return s + fmt.Sprintf(" mail:%v", mail)
}

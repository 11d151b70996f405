package market_test

import (
	"math/rand/v2"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/rynek/rynek/market"
)

// TestARefusedCommitLeavesMemoryAsItWas: a mutation changes memory before
// its commit (docs/commit-path.md), so a commit the store
// refuses must put memory back exactly, indexes included. Each case sets a
// market up, then makes the store refuse every commit of one mutation, and
// compares memory before and after. The cases are the changes that reach
// furthest: an outbid leader's money and notice, a fill's order and
// escrow, a listing other players favour, a price alert that fires, the
// first order of a material (its commodity tree), a new player.
func TestARefusedCommitLeavesMemoryAsItWas(t *testing.T) {
	cases := []struct {
		name  string
		setup func(w *world) func() error // returns the mutation whose commit is refused
	}{
		{"a bid that outbids the leader", func(w *world) func() error {
			a := w.auction(w.alice, 0, 10, 0)
			must(t, second(w.svc.Bid(w.bob, a.ID, 10)))
			return func() error { return second(w.svc.Bid(w.admin, a.ID, 20)) }
		}},
		{"a buy-now of an auction with a leader", func(w *world) func() error {
			a := w.auction(w.alice, 0, 10, 50)
			must(t, second(w.svc.Bid(w.bob, a.ID, 10)))
			return func() error { return second(w.svc.BuyNow(w.admin, a.ID)) }
		}},
		{"a sale into an order", func(w *world) func() error {
			o, err := w.svc.PlaceOrder(w.bob, "OAK_LOG", 10, 1, 0)
			must(t, err)
			return func() error { return second(w.svc.SellToOrder(w.alice, w.stack(w.alice, 2), o.ID)) }
		}},
		{"an order that fills at once from a listing", func(w *world) func() error {
			w.sell(w.alice, 2, 32)
			return func() error { return second(w.svc.PlaceOrder(w.bob, "OAK_LOG", 16, 2, 0)) }
		}},
		{"the first order of a material", func(w *world) func() error {
			return func() error { return second(w.svc.PlaceOrder(w.bob, "OAK_LOG", 16, 0.5, 0)) }
		}},
		{"a purchase of a favourite", func(w *world) func() error {
			l := w.sell(w.alice, 0, 10)
			must(t, second(w.svc.ToggleFavorite(w.admin.ID, l.ID)))
			return func() error { return second(w.svc.Buy(w.bob, l.ID)) }
		}},
		{"a sell that fires an alert", func(w *world) func() error {
			must(t, second(w.svc.AddAlert(w.bob.ID, "diam", 100)))
			return func() error { return second(w.svc.SellItem(w.alice, w.stack(w.alice, 0), 10)) }
		}},
		{"a removal that gives a leader their bid back", func(w *world) func() error {
			a := w.auction(w.alice, 0, 10, 0)
			must(t, second(w.svc.Bid(w.bob, a.ID, 10)))
			return func() error { return w.svc.RemoveListing(a.ID, w.admin) }
		}},
		{"a refund", func(w *world) func() error {
			tx, err := w.svc.Buy(w.bob, w.sell(w.alice, 0, 10).ID)
			must(t, err)
			return func() error { return second(w.svc.Refund(tx.ID, w.admin, market.RefundWithItem)) }
		}},
		{"a new player", func(w *world) func() error {
			return func() error {
				return second(w.svc.AddPlayer(market.NewPlayer{ID: uuid.New(), Name: "Nowy", Balance: 5}))
			}
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			w := newWorld(t)
			must(t, w.svc.Close())
			flaky := &flakyStore{Store: w.openStore(), rng: rand.New(rand.NewPCG(1, 2))}
			w.store = flaky
			w.svc = market.New(flaky, market.Config{Clock: w.clock, ListingCooldown: -1})
			w.svc.BindMainThread()
			must(t, w.svc.Enable())
			must(t, w.svc.WaitHistory())
			t.Cleanup(func() { w.svc.Close() })
			mutation := c.setup(w)
			w.clock.Advance(time.Second)
			was, commits := market.MemoryDump(w.svc), flaky.commits
			flaky.rate = 1 // every commit fails
			err := mutation()
			flaky.rate = 0
			if !errorIs(err, market.CodeStore) {
				t.Fatalf("the mutation: %v, want the store's refusal", err)
			}
			if flaky.commits == commits {
				t.Fatal("the mutation tried no commit")
			}
			if now := market.MemoryDump(w.svc); now != was {
				t.Fatalf("memory changed:\n%s", dumpDiff(was, now))
			}
			// And the market goes on: the same mutation now succeeds.
			must(t, mutation())
		})
	}
}

// errorIs reports whether err is the service's error with code.
func errorIs(err error, code market.Code) bool {
	e, ok := err.(*market.Error)
	return ok && e.Code == code
}

// A player's image holds the record whole, its inventory a kilobyte and
// more: the undo's list of them is made once, at its size, not grown and
// copied for each player its batch names, and once a batch is settled its
// list serves the next batch's undo.
func TestAnUndoCopiesItsPlayersInOneList(t *testing.T) {
	w := newWorld(t)
	// The undo itself and its list of players; the players hold no
	// permissions or mail to copy.
	fresh, settled := market.UndoAllocs(w.svc, w.alice.ID, w.bob.ID, w.alice.ID)
	if fresh != 2 {
		t.Errorf("an undo of two players took %v allocations, want 2", fresh)
	}
	if settled != 1 {
		t.Errorf("an undo of two players after another was settled took %v allocations, want 1 (the list reused)", settled)
	}
}

// A change of a player's inventory writes it whole: the committer encodes
// it, off the main thread, from a copy of the inventory as the change left
// it, and each write expects the one before it (a purchase writes the
// buyer's twice), so that what the store holds after the changes is what
// memory holds.
func TestInventoriesAreEncodedBehindTheTick(t *testing.T) {
	w := newWorld(t, func(c *market.Config) { c.CommitBehind = true })
	encoded := &threadCount{svc: w.svc}
	defer market.SetDataEncoded(func(what string) {
		if what == "inventory" {
			encoded.count()
		}
	})()
	a := w.sell(w.alice, 0, 10)
	w.sell(w.alice, 1, 50)
	_, err := w.svc.Buy(w.bob, a.ID)
	must(t, err)
	w.flush()
	if onMain, off := encoded.counts(); onMain != 0 || off == 0 {
		t.Errorf("inventories encoded: %d on the main thread, %d off it; want none on it", onMain, off)
	}
	before := market.MemoryDump(w.svc)
	w.reopen()
	if after := market.MemoryDump(w.svc); after != before {
		t.Errorf("the store holds other inventories than memory did:\nmemory:\n%s\nstore:\n%s", before, after)
	}
}

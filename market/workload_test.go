package market_test

import (
	"errors"
	"fmt"
	"iter"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/rynek/rynek/market"
	"github.com/rynek/rynek/market/catalog"
)

// seedPlayers loads a small world for randomized tests: n players, each with
// a full-ish inventory and a balance. Player 0 is an admin.
func seedPlayers(t testing.TB, b *market.Bulk, n int, seed uint64) []market.Player {
	t.Helper()
	rng := rand.New(rand.NewPCG(seed, 1))
	mats := []string{"DIAMOND", "OAK_LOG", "DIAMOND_SWORD", "BREAD", "IRON_INGOT", "ENCHANTED_BOOK", "BOW", "COBBLESTONE"}
	var ps []market.Player
	for i := 0; i < n; i++ {
		p := market.Player{ID: uuid.New(), Name: fmt.Sprintf("Gracz_%d", i)}
		if i == 0 {
			p.Permissions = []string{market.PermAdmin}
		}
		ps = append(ps, p)
		must(t, b.AddPlayer(p, market.Money(5000+rng.IntN(500000))))
		for slot := 0; slot < 28; slot++ {
			m := mats[rng.IntN(len(mats))]
			info, _ := catalog.LookupMaterial(m)
			s := market.ItemStack{Material: m, Amount: 1 + rng.IntN(info.MaxStack)}
			if m == "ENCHANTED_BOOK" {
				s.Enchantments = []market.Enchantment{{Key: "mending", Level: 1}}
			}
			if rng.IntN(6) == 0 {
				s.DisplayName = "§aŁup nr " + fmt.Sprint(slot)
			}
			must(t, b.SetSlot(p.ID, slot, s))
		}
	}
	return ps
}

// workload performs random operations on the main thread. Every call either
// succeeds or fails with an error that leaves the market unchanged; the
// caller checks invariants between steps.
type workload struct {
	svc     *market.Service
	rng     *rand.Rand
	players []market.Player
	clock   *market.ManualClock
	ops     map[string]int // op name -> successes, for coverage checks
	errs    map[string]int
}

func newWorkload(svc *market.Service, players []market.Player, clock *market.ManualClock, seed uint64) *workload {
	return &workload{svc: svc, rng: rand.New(rand.NewPCG(seed, 2)), players: players, clock: clock,
		ops: map[string]int{}, errs: map[string]int{}}
}

func (w *workload) player() market.Player { return w.players[w.rng.IntN(len(w.players))] }

func (w *workload) listing() (market.Listing, bool) {
	p, err := w.svc.Query(market.Query{Sort: market.SortMode(w.rng.IntN(7)), Limit: 20})
	if err != nil || len(p.Listings) == 0 {
		return market.Listing{}, false
	}
	return p.Listings[w.rng.IntN(len(p.Listings))], true
}

// step runs one random operation and returns its name and error.
func (w *workload) step() (string, error) {
	var name string
	var err error
	switch r := w.rng.IntN(100); {
	case r < 26:
		name = "sell"
		p := w.player()
		st, e := w.svc.GetPlayer(p.ID)
		if e != nil {
			return name, e
		}
		var slots []int
		for i, s := range st.Inventory {
			if s != nil {
				slots = append(slots, i)
			}
		}
		if len(slots) == 0 {
			return name, nil
		}
		s := *st.Inventory[slots[w.rng.IntN(len(slots))]]
		if s.Amount > 1 && w.rng.IntN(3) == 0 {
			s.Amount = 1 + w.rng.IntN(s.Amount)
		}
		price := float64(1+w.rng.IntN(50000)) / 100
		if w.rng.IntN(20) == 0 {
			price = -1 // an invalid price now and then
		}
		if w.rng.IntN(4) == 0 {
			name = "auction"
			buyNow := 0.0
			if w.rng.IntN(2) == 0 {
				buyNow = price * float64(2+w.rng.IntN(3))
			}
			_, err = w.svc.StartAuction(p, s, price, buyNow, time.Duration(1+w.rng.IntN(48*60))*time.Minute)
			break
		}
		_, err = w.svc.SellItem(p, s, price)
	case r < 40:
		name = "remove"
		l, ok := w.listing()
		if !ok {
			return name, nil
		}
		actor := w.player()
		if w.rng.IntN(2) == 0 {
			actor = market.Player{ID: l.Seller}
		}
		err = w.svc.RemoveListing(l.ID, actor)
	case r < 60:
		name = "buy"
		l, ok := w.listing()
		if !ok {
			return name, nil
		}
		if a := l.Auction; a != nil {
			if a.BuyNow > 0 && w.rng.IntN(4) == 0 {
				name = "buy-now"
				_, err = w.svc.BuyNow(w.player(), l.ID)
				break
			}
			name = "bid" // at the minimum, above it, or now and then below it
			amount := a.MinimumBid + float64(w.rng.IntN(3000))/100
			if w.rng.IntN(10) == 0 {
				amount = a.MinimumBid - 0.01
			}
			_, err = w.svc.Bid(w.player(), l.ID, amount)
			break
		}
		if w.rng.IntN(3) == 0 {
			steps := []market.State{market.StateCreated, market.StateListingReserved, market.StateMoneyWithdrawn,
				market.StateSellerPaid, market.StateItemDelivered, market.StateCompleted}
			if e := w.svc.ArmFailure(steps[w.rng.IntN(len(steps))]); e != nil {
				return name, e
			}
		}
		var tx market.Transaction
		tx, err = w.svc.Buy(w.player(), l.ID)
		w.svc.ArmFailure("") // a refused purchase leaves it armed; do not carry it over
		if err == nil && tx.State != market.StateCompleted {
			return name, fmt.Errorf("purchase returned %s with no error", tx.State)
		}
	case r < 68:
		name, err = w.orderStep()
	case r < 72:
		name = "force-expire"
		l, ok := w.listing()
		if !ok {
			return name, nil
		}
		err = w.svc.ForceExpire(l.ID, w.players[0])
	case r < 78:
		name = "sweep"
		w.clock.Advance(time.Duration(w.rng.IntN(48)) * time.Hour)
		_, _, err = w.svc.SweepExpired()
	case r < 84:
		name = "claim"
		_, err = w.svc.ClaimAll(w.withMail().ID)
	default:
		name, err = w.rare()
	}
	if err == nil {
		w.ops[name]++
	} else {
		w.errs[name]++
	}
	return name, err
}

// orderStep places a buy order, cancels one, or sells into one.
func (w *workload) orderStep() (string, error) {
	mats := []string{"DIAMOND", "OAK_LOG", "BREAD", "IRON_INGOT", "COBBLESTONE"}
	switch w.rng.IntN(4) {
	case 0, 3:
		unit := float64(1+w.rng.IntN(2000)) / 100
		_, err := w.svc.PlaceOrder(w.player(), mats[w.rng.IntN(len(mats))], 1+w.rng.IntN(64), unit,
			time.Duration(1+w.rng.IntN(30*24))*time.Hour)
		return "order", err
	case 1:
		page, err := w.svc.Orders(market.OrderQuery{})
		if err != nil || len(page.Orders) == 0 {
			return "cancel order (none open)", err
		}
		o := page.Orders[w.rng.IntN(len(page.Orders))]
		actor := w.player()
		if w.rng.IntN(2) == 0 {
			actor = market.Player{ID: o.Buyer}
		}
		return "cancel order", w.svc.CancelOrder(o.ID, actor)
	default: // into an open order, a stack of its material (named ones are refused)
		page, err := w.svc.Orders(market.OrderQuery{})
		if err != nil || len(page.Orders) == 0 {
			return "sell to order (none open)", err
		}
		o := page.Orders[w.rng.IntN(len(page.Orders))]
		p := w.player()
		st, err := w.svc.GetPlayer(p.ID)
		if err != nil {
			return "sell to order", err
		}
		var stacks []market.ItemStack
		for _, s := range st.Inventory {
			if s != nil && s.Material == o.Material {
				stacks = append(stacks, *s)
			}
		}
		if len(stacks) == 0 {
			return "sell to order (nothing to sell)", nil
		}
		_, err = w.svc.SellToOrder(p, stacks[w.rng.IntN(len(stacks))], o.ID)
		return "sell to order", err
	}
}

// withMail is a player with a mailbox entry, from a random one on, or a
// random player when nobody has mail.
func (w *workload) withMail() market.Player {
	start := w.rng.IntN(len(w.players))
	for k := range w.players {
		p := w.players[(start+k)%len(w.players)]
		if st, err := w.svc.GetPlayer(p.ID); err == nil && len(st.Mailbox) > 0 {
			return p
		}
	}
	return w.players[start]
}

// rare runs one of the rarer operations: those that bring money or items
// into the market or take them out, a join that renames a player, a refund,
// a relist from the mailbox, a rating, a price alert, a favourite, new
// rules (fees that change, refunded or not).
func (w *workload) rare() (string, error) {
	i := w.rng.IntN(len(w.players))
	p := w.players[i]
	amount := float64(1+w.rng.IntN(100000)) / 100
	switch w.rng.IntN(11) {
	case 10: // new rules: fees that change, refunded or not, a tighter limit
		r := w.svc.Config()
		r.ListingFeeBasisPoints = int64(w.rng.IntN(3) * 250)
		r.RefundListingFee = w.rng.IntN(2) == 0
		r.SaleFeeBasisPoints = int64(1 + w.rng.IntN(1000))
		r.MaxListingsPerPlayer = 5 + w.rng.IntN(30)
		return "rules", w.svc.SetRules(r)
	case 8:
		words := []string{"diamond", "oak", "sword", "bread", "iron", "book", "łup", "cobble"}
		_, err := w.svc.AddAlert(p.ID, words[w.rng.IntN(len(words))], float64(1+w.rng.IntN(2000))/100)
		return "alert", err
	case 9:
		l, ok := w.listing()
		if !ok {
			return "favorite (nothing to favour)", nil
		}
		_, err := w.svc.ToggleFavorite(p.ID, l.ID)
		return "favorite", err
	case 7:
		done, err := w.svc.GetCompletedTransactions()
		if err != nil || len(done) == 0 {
			return "rate (nothing to rate)", err
		}
		tx := done[w.rng.IntN(len(done))]
		_, err = w.svc.Rate(tx.Buyer, tx.ID, 1+w.rng.IntN(5))
		return "rate", err
	case 6: // the first relistable entry of anyone's, from a random player on
		for k := range w.players {
			q := w.players[(i+k)%len(w.players)]
			st, err := w.svc.GetPlayer(q.ID)
			if err != nil {
				return "relist", err
			}
			for _, m := range st.Mailbox {
				if m.PreviousPrice > 0 {
					_, err = w.svc.RelistMail(q.ID, m.ID)
					return "relist", err
				}
			}
		}
		return "relist (nothing to relist)", nil
	case 5:
		done, err := w.svc.GetCompletedTransactions()
		if err != nil || len(done) == 0 {
			return "refund (nothing to refund)", err
		}
		mode := market.RefundMode(w.rng.IntN(2))
		_, err = w.svc.Refund(done[w.rng.IntN(len(done))].ID, w.players[0], mode)
		return "refund", err
	case 0:
		_, err := w.svc.Deposit(p.ID, amount)
		return "deposit", err
	case 1:
		_, err := w.svc.Withdraw(p.ID, amount)
		return "withdraw", err
	case 2:
		_, _, err := w.svc.GiveItem(p.ID, market.ItemStack{Material: "EMERALD", Amount: 1 + w.rng.IntN(64)})
		return "give", err
	case 3:
		_, err := w.svc.TakeItem(p.ID, 1+w.rng.IntN(market.InventorySize))
		return "take", err
	default:
		_, _, err := w.svc.Join(p.ID, fmt.Sprintf("G%d_%d", i, w.rng.IntN(1000)), p.Permissions)
		return "join", err
	}
}

// countRefunded counts the transactions among ids that completed and were
// refunded (the workload refunds some): ROLLED_BACK now, with a
// TransactionCompletedEvent in the log.
func countRefunded(svc *market.Service, ids iter.Seq[string]) int {
	n := 0
	for id := range ids {
		if tx, err := svc.GetTransaction(id); err == nil {
			if _, _, ok := tx.Refunded(); ok {
				n++
			}
		}
	}
	return n
}

// acceptable reports whether err is an ordinary refusal (typed market error)
// rather than a bug.
func acceptable(err error) bool {
	var me *market.Error
	return err == nil || errors.As(err, &me)
}

// checkInvariants compares an audit with the initial one, net of what the
// issuance account says came in or went out between them.
func checkInvariants(t testing.TB, svc *market.Service, want market.Audit, where string) market.Audit {
	t.Helper()
	a, err := svc.Audit()
	if err != nil {
		t.Fatalf("%s: audit: %v", where, err)
	}
	if len(a.Problems) > 0 {
		t.Fatalf("%s: %v", where, a.Problems)
	}
	// What the market holds beyond what came in from outside and went out:
	// no operation changes it.
	money := func(a market.Audit) market.Money { return a.Money - a.Issued.MoneyIn + a.Issued.MoneyOut }
	items := func(a market.Audit) int64 { return a.Items - a.Issued.ItemsIn + a.Issued.ItemsOut }
	if money(a) != money(want) {
		t.Fatalf("%s: money %d (issued %v), want %d (created or destroyed %d)", where, a.Money, a.Issued, want.Money, money(a)-money(want))
	}
	if items(a) != items(want) {
		t.Fatalf("%s: items %d (issued %v), want %d", where, a.Items, a.Issued, want.Items)
	}
	return a
}

func maxInt(xs []int) int {
	if len(xs) == 0 {
		return 0
	}
	return slices.Max(xs)
}

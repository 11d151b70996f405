package seed

import (
	"fmt"
	"math"
	"math/rand/v2"
	"time"

	"github.com/rynek/rynek/market"
)

// history adds the finished transactions of the past Days days: first each
// player's own (a sale their buyer rated, a recent purchase still in their
// inventory and not rated yet, a part in a refunded purchase), then the
// staples that trade every day (staples), then the market's other
// business, Zipf-like by seller, many of its sales rated.
// Every purchase keeps within the rules' purchase cap: a sale the cap
// leaves no buyer for (its seller has sold to everyone as often as it
// allows) is left out, and the history has fewer sales than asked.
func (l *load) history() error {
	o := l.o
	total := o.Days * o.SalesPerDay
	if total == 0 {
		return nil
	}
	nowMs := o.Now.UnixMilli()
	hw := newWarp(nowMs-int64(o.Days)*24*time.Hour.Milliseconds(), nowMs-time.Minute.Milliseconds(), nowMs)
	h := &historian{load: l, hw: hw, nowMs: nowMs, cap: newCapper(o.rules.PurchaseCap)}
	own, err := h.own()
	if err != nil {
		return err
	}
	staples, err := h.staples(max(total-own, 0) * stapleShare / 100)
	if err != nil {
		return err
	}
	rh := newRand(o.Rand, streamHistory)
	for i := own + staples; i < total; i++ {
		at := hw.at(rh.Float64())
		si := l.g.sellers.pick(rh)
		bi, ok := h.buyer(rh, si, at)
		if !ok {
			h.pr.add(1) // the cap leaves the seller no buyer then: one sale fewer
			continue
		}
		m := l.g.pickMaterial(rh)
		st := l.g.item(rh, m, 0.04, 0.02)
		price := l.g.price(m, &st, at, math.Exp(0.12*rh.NormFloat64()), 0.75, 1.35)
		s := h.sale(rh, bi, si, st, price, at)
		switch x := rh.IntN(100); {
		case x < 94:
			h.rate(rh, &s)
		case x < 98:
			s.State = market.StateFailed
			s.ErrorCode = failedCodes[rh.IntN(len(failedCodes))]
		default:
			s.State = market.StateRolledBack
			s.ErrorCode = rolledBackCodes[rh.IntN(len(rolledBackCodes))]
		}
		if err := h.add(s, bi, si); err != nil {
			return fmt.Errorf("transaction %d: %w", i+1, err)
		}
	}
	return nil
}

// stapleShare is the percentage of the history, after the players' own
// transactions, that the staples take: on a real server a few materials
// are most of the trade, and the rest of the catalogue sells now and then.
const stapleShare = 60

// staples are the materials a server's players trade every day, with
// their share of the staples' trade: diamonds and netherite, enchanted
// books, food, building blocks, and a few more. Each item page and chart
// of theirs has sales every day; a material missing from the market (the
// rules' blacklist) is left out.
var staples = []struct {
	key    string
	weight float64
}{
	{"DIAMOND", 6}, {"NETHERITE_INGOT", 3}, {"NETHERITE_SCRAP", 2}, {"ENCHANTED_BOOK", 5},
	{"IRON_INGOT", 4}, {"GOLD_INGOT", 3}, {"EMERALD", 3}, {"REDSTONE", 2}, {"ENDER_PEARL", 2},
	{"COOKED_BEEF", 4}, {"BREAD", 3}, {"GOLDEN_CARROT", 3}, {"COOKED_PORKCHOP", 2}, {"GOLDEN_APPLE", 2},
	{"OAK_LOG", 4}, {"COBBLESTONE", 4}, {"STONE", 3}, {"GLASS", 3}, {"OBSIDIAN", 2},
	{"OAK_PLANKS", 2}, {"STONE_BRICKS", 2}, {"SPRUCE_LOG", 2}, {"DEEPSLATE", 2},
	{"DIAMOND_PICKAXE", 2}, {"DIAMOND_SWORD", 2}, {"EXPERIENCE_BOTTLE", 2},
}

// staples adds about n sales of the staples, spread over the days as the
// day's activity goes: a staple expected to sell once a day or more sells
// on every day, and one expected twice or more in every half of it, so
// that each day of its chart has a bar whichever hour the day starts at.
// It returns how many it added.
func (h *historian) staples(n int) (int, error) {
	o := h.o
	if n == 0 || o.Days == 0 {
		return 0, nil
	}
	byKey := make(map[string]*mat, len(h.g.mats))
	for i := range h.g.mats {
		byKey[h.g.mats[i].key] = &h.g.mats[i]
	}
	var sum float64
	for _, s := range staples {
		if byKey[s.key] != nil {
			sum += s.weight
		}
	}
	r := newRand(o.Rand, streamStaples)
	added := h.res.Transactions
	const halfMs = dayMs / 2
	today := make([]int, len(staples)) // each staple's sales of the day so far
	for half := range 2 * o.Days {
		// Half a day of the history, the oldest first.
		from := h.hw.start + int64(half)*halfMs
		to := min(from+halfMs, h.hw.end)
		w := newWarp(from, to, h.nowMs)
		if half%2 == 0 {
			clear(today)
		}
		for i, s := range staples {
			m := byKey[s.key]
			if m == nil {
				continue
			}
			perDay := float64(n) / float64(o.Days) * s.weight / sum
			k := poisson(r, perDay/2)
			switch {
			case perDay >= 2:
				k = max(k, 1)
			case perDay >= 1 && half%2 == 1 && today[i] == 0:
				k = 1
			}
			for range k {
				at := w.at(r.Float64())
				si := h.g.sellers.pick(r)
				bi, ok := h.buyer(r, si, at)
				if !ok {
					continue
				}
				st := h.g.item(r, m, 0.04, 0.02)
				price := h.g.price(m, &st, at, math.Exp(0.12*r.NormFloat64()), 0.75, 1.35)
				sale := h.sale(r, bi, si, st, price, at)
				h.rate(r, &sale)
				if err := h.add(sale, bi, si); err != nil {
					return 0, fmt.Errorf("a sale of %s: %w", m.key, err)
				}
				today[i]++
			}
		}
	}
	return h.res.Transactions - added, nil
}

// poisson draws how many of events expected mean times happen.
func poisson(r *rand.Rand, mean float64) int {
	if mean > 30 {
		return max(0, int(math.Round(mean+math.Sqrt(mean)*r.NormFloat64())))
	}
	limit, k, p := math.Exp(-mean), 0, r.Float64()
	for p > limit {
		k++
		p *= r.Float64()
	}
	return k
}

// rateAfter is how long a buyer takes to rate a purchase: the sales of the
// last hour are not rated yet, so the newest purchases wait for a rating.
const rateAfter = hourMs

// rate gives s the rating its buyer may have given: two buyers in five
// rate, once rateAfter has passed.
func (h *historian) rate(r *rand.Rand, s *market.HistoricSale) {
	if r.IntN(100) < 40 {
		if rating := stars(r); h.nowMs-s.At.UnixMilli() >= rateAfter {
			s.Rating = rating
		}
	}
}

// historian adds transactions and keeps their count.
type historian struct {
	*load
	hw    *warp
	nowMs int64
	cap   *capper
}

// sale is a COMPLETED sale of st by seller si to buyer bi at unix ms at,
// with the market's fee.
func (h *historian) sale(r *rand.Rand, bi, si int, st market.ItemStack, price market.Money, at int64) market.HistoricSale {
	return market.HistoricSale{Buyer: h.g.ids[bi], Seller: h.g.ids[si], Item: st, Price: price,
		Fee: feeOf(h.o.rules, price), At: time.UnixMilli(at), ID: txID(r, at), State: market.StateCompleted}
}

// capTries is how many random picks buyer and seller make before they
// look at every player in turn: the purchase cap may leave few of them,
// or none.
const capTries = 64

// buyer picks a buyer for seller si at time at, other than the seller and
// within the purchase cap; false when the cap leaves si no buyer then
// (every player bought from si as often as it allows around at).
func (h *historian) buyer(r *rand.Rand, si int, at int64) (int, bool) {
	n := len(h.g.ids)
	for range capTries {
		bi := r.IntN(n - 1)
		if bi >= si {
			bi++
		}
		if h.cap.allows(bi, si, at) {
			return bi, true
		}
	}
	first := r.IntN(n)
	for k := range n {
		if bi := (first + k) % n; bi != si && h.cap.allows(bi, si, at) {
			return bi, true
		}
	}
	return 0, false
}

// add adds s, a transaction of buyer bi and seller si.
func (h *historian) add(s market.HistoricSale, bi, si int) error {
	if _, err := h.b.AddTransaction(s); err != nil {
		return err
	}
	res := &h.res
	res.Transactions++
	switch {
	case s.State == market.StateCompleted:
		res.Completed++
		h.fees += s.Fee
		h.cap.add(bi, si, s.At.UnixMilli())
		if s.Rating > 0 {
			res.Rated++
		}
	case s.State == market.StateFailed:
		res.Failed++
	default:
		res.RolledBack++
		if !s.Refunded.IsZero() {
			res.Refunded++
		}
	}
	h.pr.add(1)
	return nil
}

// own adds every player's own transactions and returns how many.
func (h *historian) own() (int, error) {
	o, g := h.o, h.g
	r := newRand(o.Rand, streamOwn)
	item := func() (market.ItemStack, market.Money, int64) {
		m := g.pickMaterial(r)
		st := g.item(r, m, 0.04, 0.02)
		at := h.hw.at(r.Float64())
		return st, g.price(m, &st, at, math.Exp(0.12*r.NormFloat64()), 0.75, 1.35), at
	}
	n := h.res.Transactions
	for p := range o.Players {
		// A sale of theirs, which its buyer rated.
		// (Either is left out when the purchase cap allows it no
		// buyer, or no seller.)
		st, price, at := item()
		at = min(at, h.nowMs-rateAfter) // rated: not in the last hour
		if bi, ok := h.buyer(r, p, at); ok {
			s := h.sale(r, bi, p, st, price, at)
			s.Rating = stars(r)
			if err := h.add(s, bi, p); err != nil {
				return 0, fmt.Errorf("a sale of %q: %w", h.names[p], err)
			}
		}
		// A purchase of the last two days, still in their inventory,
		// waiting for their rating.
		st, price, _ = item()
		at = h.nowMs - int64((10*60_000)+r.Float64()*float64(min(2*dayMs, h.nowMs-h.hw.start-10*60_000)))
		seller, ok := h.seller(r, p, at)
		if !ok {
			continue
		}
		if slot := h.freeSlot(p); slot >= 0 {
			if err := h.give(p, slot, st); err != nil {
				return 0, err
			}
		}
		if err := h.add(h.sale(r, p, seller, st, price, at), p, seller); err != nil {
			return 0, fmt.Errorf("a purchase of %q: %w", h.names[p], err)
		}
	}
	// Refunds, each player in one: the buyer got the money back and, half
	// the time, the seller the item, into their inventory.
	order := r.Perm(o.Players)
	for k := 0; k < len(order); k += 2 {
		bi, si := order[k], order[(k+1)%len(order)]
		if bi == si {
			break // a market of one player
		}
		st, price, at := item()
		at = min(at, h.nowMs-2*hourMs)
		s := h.sale(r, bi, si, st, price, at)
		s.State, s.ItemReturned = market.StateRolledBack, r.IntN(2) == 0
		s.Refunded = time.UnixMilli(at + int64((0.1+0.5*r.Float64())*float64(h.nowMs-at)))
		if slot := h.freeSlot(si); s.ItemReturned && slot >= 0 {
			if err := h.give(si, slot, st); err != nil {
				return 0, err
			}
		} else {
			s.ItemReturned = false
		}
		if err := h.add(s, bi, si); err != nil {
			return 0, fmt.Errorf("a refund of %q's purchase: %w", h.names[bi], err)
		}
	}
	return h.res.Transactions - n, nil
}

// seller picks a seller for buyer bi at time at, Zipf-like, other than the
// buyer and within the purchase cap; false when the cap leaves bi no
// seller then.
func (h *historian) seller(r *rand.Rand, bi int, at int64) (int, bool) {
	for range capTries {
		if si := h.g.sellers.pick(r); si != bi && h.cap.allows(bi, si, at) {
			return si, true
		}
	}
	n := len(h.g.ids)
	first := r.IntN(n)
	for k := range n {
		if si := (first + k) % n; si != bi && h.cap.allows(bi, si, at) {
			return si, true
		}
	}
	return 0, false
}

// stars is a buyer's rating: mostly content, sometimes not.
func stars(r *rand.Rand) int {
	switch x := r.IntN(100); {
	case x < 52:
		return 5
	case x < 80:
		return 4
	case x < 90:
		return 3
	case x < 95:
		return 2
	}
	return 1
}

// feeOf is the sale fee the rules take from price: their percentage,
// rounded half up to the cent, within their minimum and maximum.
func feeOf(rules market.Config, price market.Money) market.Money {
	bp := rules.SaleFeeBasisPoints
	if bp <= 0 && rules.MinFee <= 0 {
		return 0
	}
	f := (price*market.Money(bp) + 5000) / 10000
	f = max(f, rules.MinFee)
	if rules.MaxFee > 0 {
		f = min(f, rules.MaxFee)
	}
	return min(f, price)
}

// capper keeps the history within the rules' cap on one buyer's purchases
// from one seller: no window of its length holds more of them than the cap.
type capper struct {
	max    int
	window int64
	times  map[[2]int][]int64 // the completed purchases of each buyer and seller
}

func newCapper(pc market.PurchaseCap) *capper {
	if pc.Max <= 0 {
		return nil
	}
	return &capper{max: pc.Max, window: pc.Window.Milliseconds(), times: map[[2]int][]int64{}}
}

// allows reports whether buyer bi may have bought from seller si at unix
// ms at: with the pair's purchases within a window either side, one more
// stays within the cap.
func (c *capper) allows(bi, si int, at int64) bool {
	if c == nil {
		return true
	}
	n := 1
	for _, t := range c.times[[2]int{bi, si}] {
		if t > at-c.window && t < at+c.window {
			n++
		}
	}
	return n <= c.max
}

func (c *capper) add(bi, si int, at int64) {
	if c != nil {
		c.times[[2]int{bi, si}] = append(c.times[[2]int{bi, si}], at)
	}
}

// Error codes as the live saga writes them for the paths market.Bulk
// records: FAILED stops right after CREATED (the reservation failed or the
// first write was injected to fail), ROLLED_BACK after MONEY_WITHDRAWN (paying
// the seller failed).
var (
	failedCodes = []string{
		"LISTING_RESERVED_FAILED:LISTING_RESERVED", "LISTING_RESERVED_FAILED:LISTING_RESERVED",
		"LISTING_RESERVED_FAILED:UNKNOWN_LISTING", "INJECTED:CREATED",
	}
	rolledBackCodes = []string{"INJECTED:SELLER_PAID", "INJECTED:SELLER_PAID", "SELLER_PAID_FAILED:STORE"}
)

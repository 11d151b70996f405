// Package seed generates a plausible, deterministic market for demos, tests
// and benchmarks: a few hundred Polish and English players with balances and
// inventories, any number of active listings (a million loads in seconds) and
// some weeks of completed-transaction history whose prices drift per material.
//
// The market obeys its rules (Options.Rules): no seller holds more listings
// than their limit allows (the big sellers have a market.limit.<n> tier),
// nothing blacklisted is sold, every price is in range. And it shows every
// feature at once: every player has a listing to take back, an expired item
// waiting in the mailbox, favourites, price alerts and what they found,
// sales rated by their buyers, a recent purchase to rate, and a part in a
// refunded purchase; so every player can sell, buy, remove, claim, rate and
// add an alert from the first minute. Resting buy orders wait below each
// material's cheapest listing (orders.go), some a cent below it, so that a
// sale a little cheaper fills one at once.
//
// Everything is derived from Options.Rand (and Options.Now): the same Options
// give the same players, item ids, listings, transaction ids and prices.
// Each part of the world draws from a stream of its own, so a new part (an
// auction house, resting orders) adds a stream and leaves the rest alone.
package seed

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"time"

	"github.com/google/uuid"
	"github.com/rynek/rynek/market"
)

// Options controls generation. Everything is deterministic from Rand.
type Options struct {
	Players     int   // default 300; at least 2
	Listings    int   // active listings, default 3000; negative = none
	Days        int   // days of completed-transaction history, default 30; negative = none
	SalesPerDay int   // default max(50, Listings/20) capped at 20_000; negative = none
	Rand        int64 // generator seed, default 1
	// Auctions makes one listing in so many an auction, default 40;
	// negative: none (a market of fixed prices only).
	Auctions int
	// Orders is how many resting buy orders players have, default one
	// for every 50 listings (at least 12 where anything is listed);
	// negative: none. Each is for a material on sale as plain stacks,
	// below its cheapest such listing (orders.go).
	Orders     int
	Now        time.Time     // "now" of the generated market; default time.Now()
	ListingTTL time.Duration // default the rules' (7 days); active listings get created in (now-TTL+1h, now] and expire created+TTL
	// Rules are the market's rules the generated market obeys: zero
	// values are the defaults, as market.New reads them.
	Rules market.Config
	// Progress, when set, is told how much of the work is done; it is called
	// at most about 100 times, the last time with done == total.
	Progress func(done, total int)

	rules market.Config // Rules with the defaults
}

// Result describes what was generated.
type Result struct {
	Players, Listings, Transactions, Completed, Failed, RolledBack int
	// Auctions of Listings are sold by auction.
	Auctions int
	// Orders are the resting buy orders.
	Orders int
	// Refunded of RolledBack are refunds; Rated of Completed have the
	// buyer's rating.
	Refunded, Rated int
	// Tiers is how many players have a market.limit.<n> permission.
	Tiers int
	// Mail, Favorites, Alerts and AlertHits count the players' own data.
	Mail, Favorites, Alerts, AlertHits int
	// Money is all the money of the world after the load: every balance plus
	// the fee account (which holds the fees of the completed history) and
	// the auctions' leading bids and the buy orders' escrow.
	Money market.Money
	Took  time.Duration
}

// Streams of the generator: each part of the world has its own PCG stream, so
// that changing one part's generation does not reshuffle the others.
const (
	streamPlayers   = 0x9e3779b97f4a7c15
	streamMarket    = 0xbf58476d1ce4e5b9
	streamInventory = 0x94d049bb133111eb
	streamListings  = 0x2545f4914f6cdd1d
	streamHistory   = 0x6a09e667f3bcc909
	streamSellers   = 0xbb67ae8584caa73b
	streamOwn       = 0x3c6ef372fe94f82b // each player's own sales, purchase and refund
	streamMail      = 0xa54ff53a5f1d36f1
	streamFavorites = 0x510e527fade682d1
	streamAlerts    = 0x9b05688c2b3e6c1f
	streamAuctions  = 0x1f83d9abfb41bd6b
	streamOrders    = 0x5be0cd19137e2179
	streamStaples   = 0xcbbb9d5dc1059ed8
)

func newRand(seed int64, stream uint64) *rand.Rand {
	return rand.New(rand.NewPCG(uint64(seed), stream))
}

func (o Options) withDefaults() (Options, error) {
	if o.Players == 0 {
		o.Players = 300
	}
	if o.Players < 2 {
		return o, fmt.Errorf("seed: need at least 2 players, got %d", o.Players)
	}
	switch {
	case o.Listings == 0:
		o.Listings = 3000
	case o.Listings < 0:
		o.Listings = 0
	}
	switch {
	case o.Days == 0:
		o.Days = 30
	case o.Days < 0:
		o.Days = 0
	}
	switch {
	case o.SalesPerDay == 0:
		o.SalesPerDay = min(max(50, o.Listings/20), 20_000)
	case o.SalesPerDay < 0:
		o.SalesPerDay = 0
	}
	if o.Auctions == 0 {
		o.Auctions = 40
	}
	switch {
	case o.Orders == 0 && o.Listings > 0:
		o.Orders = max(12, o.Listings/50)
	case o.Orders < 0:
		o.Orders = 0
	}
	if o.Rand == 0 {
		o.Rand = 1
	}
	if o.Now.IsZero() {
		o.Now = time.Now()
	}
	o.rules = o.Rules.WithDefaults()
	if o.ListingTTL == 0 {
		o.ListingTTL = o.rules.ListingTTL
	}
	if o.ListingTTL <= time.Hour {
		return o, fmt.Errorf("seed: ListingTTL %v must be longer than 1h", o.ListingTTL)
	}
	if int64(o.Listings)+int64(o.Days)*int64(o.SalesPerDay) >= math.MaxInt32 {
		return o, errors.New("seed: too many listings and transactions for 31-bit listing ids")
	}
	return o, nil
}

// Names returns the player names Load generates for opts (only Players and
// Rand matter). The first is always "Admin", the holder of market.admin.
func Names(opts Options) []string {
	n := opts.Players
	if n == 0 {
		n = 300
	}
	seed := opts.Rand
	if seed == 0 {
		seed = 1
	}
	return makeNames(newRand(seed, streamPlayers), max(n, 0))
}

// txID is a deterministic version 7 UUID: the sale's unix ms, then bits from r.
func txID(r *rand.Rand, ms int64) uuid.UUID {
	u := randUUID(r)
	for i := 0; i < 6; i++ {
		u[i] = byte(uint64(ms) >> (40 - 8*i))
	}
	u[6] = 0x70 | u[6]&0x0f
	return u
}

// randUUID is a version 4 UUID from r.
func randUUID(r *rand.Rand) uuid.UUID {
	var u uuid.UUID
	binary.LittleEndian.PutUint64(u[0:8], r.Uint64())
	binary.LittleEndian.PutUint64(u[8:16], r.Uint64())
	u[6] = u[6]&0x0f | 0x40
	u[8] = u[8]&0x3f | 0x80
	return u
}

// progress reports to Options.Progress about every 1% of the work.
type progress struct {
	fn          func(done, total int)
	done, total int
	next, step  int
}

func newProgress(fn func(int, int), total int) *progress {
	step := max(total/100, 1)
	return &progress{fn: fn, total: total, next: step, step: step}
}

func (p *progress) add(n int) {
	p.done += n
	if p.fn != nil && p.done >= p.next && p.done < p.total {
		p.fn(p.done, p.total)
		for p.next <= p.done {
			p.next += p.step
		}
	}
}

func (p *progress) finish() {
	if p.fn != nil {
		p.fn(p.total, p.total)
	}
}

// load is one Load under way: what the phases share.
type load struct {
	o     Options
	g     *gen
	plan  *plan
	b     *market.Bulk
	pr    *progress
	res   Result
	names []string
	// used marks each player's filled inventory slots (bit s: slot s), so
	// that the items a purchase or a refund brings find a free one.
	used []uint64
	fees market.Money
	// The players' own data, given them when the listings are out.
	favorites [][]int
	alerts    *alertPlans
	// The commodity listings of each material (by mat.idx), in the
	// order the listings showed them, that the buy orders bid below.
	books     map[int]*commodityBook
	bookOrder []int
}

// Load generates a market into an EMPTY store via market.NewBulk and returns
// what it did. The store is not closed.
func Load(store market.Store, opts Options) (Result, error) {
	start := time.Now()
	o, err := opts.withDefaults()
	if err != nil {
		return Result{}, err
	}
	g := newGen(o)
	b, err := market.NewBulk(store)
	if err != nil {
		return Result{}, err
	}
	l := &load{o: o, g: g, plan: newPlan(o, g), b: b, used: make([]uint64, o.Players), favorites: make([][]int, o.Players)}
	l.pr = newProgress(o.Progress, o.Players+o.Listings+o.Days*o.SalesPerDay)
	for _, phase := range []func() error{l.players, l.listings, l.history, l.mail, l.playerData, l.orders} {
		if err := phase(); err != nil {
			return l.res, fmt.Errorf("seed: %w", err)
		}
	}
	b.Fees(l.fees)
	l.res.Money += l.fees
	if err := b.Finish(); err != nil {
		return l.res, fmt.Errorf("seed: %w", err)
	}
	l.pr.finish()
	l.res.Took = time.Since(start)
	return l.res, nil
}

// players adds the players with their balances, permissions (a listing
// tier for the big sellers) and inventories.
func (l *load) players() error {
	o, g := l.o, l.g
	rp := newRand(o.Rand, streamPlayers)
	l.names = makeNames(rp, o.Players)
	ri := newRand(o.Rand, streamInventory)
	var slots [market.InventorySize]int
	for i, name := range l.names {
		p := market.Player{ID: randUUID(rp), Name: name}
		g.ids[i] = p.ID
		var bal market.Money
		if i == 0 {
			p.Permissions = []string{market.PermAdmin}
			bal = 100_000_00
		} else {
			if rp.Float64() < 0.03 {
				p.Permissions = []string{market.PermAdmin}
			}
			// Log-uniform 100.00 .. 100,000.00.
			bal = market.Money(math.Round(math.Exp(math.Log(100_00) + rp.Float64()*math.Log(1000))))
		}
		if tier := tierPermission(l.plan.count[i], o.rules.MaxListingsPerPlayer); tier != "" {
			p.Permissions = append(p.Permissions, tier)
			l.res.Tiers++
		}
		l.res.Money += bal
		if err := l.b.AddPlayer(p, bal); err != nil {
			return fmt.Errorf("player %q: %w", name, err)
		}
		// 10..30 filled slots, at least 6 of the 36 free.
		for s := range slots {
			slots[s] = s
		}
		n := 10 + ri.IntN(21)
		for s := 0; s < n; s++ {
			j := s + ri.IntN(len(slots)-s)
			slots[s], slots[j] = slots[j], slots[s]
		}
		slices.Sort(slots[:n])
		for _, s := range slots[:n] {
			st := g.item(ri, g.pickMaterial(ri), 0.03, 0.02)
			if err := l.give(i, s, st); err != nil {
				return fmt.Errorf("slot %d of %q: %w", s, name, err)
			}
		}
		l.pr.add(1)
	}
	l.res.Players = len(l.names)
	return nil
}

// give puts st into player i's inventory slot s.
func (l *load) give(i, s int, st market.ItemStack) error {
	l.used[i] |= 1 << s
	return l.b.SetSlot(l.g.ids[i], s, st)
}

// freeSlot is player i's first free inventory slot, -1 for none.
func (l *load) freeSlot(i int) int {
	for s := range market.InventorySize {
		if l.used[i]&(1<<s) == 0 {
			return s
		}
	}
	return -1
}

// listings adds the active listings, created in ascending time so that
// ids grow with time as they do on a live market, each by the seller the
// plan gives it. The price alerts watch them as they appear.
func (l *load) listings() error {
	o, g := l.o, l.g
	favs := l.planFavorites()
	l.alerts = l.planAlerts()
	rl := newRand(o.Rand, streamListings)
	ra := newRand(o.Rand, streamAuctions)
	auctions := 0
	nowMs := o.Now.UnixMilli()
	ttl := o.ListingTTL.Milliseconds()
	lw := newWarp(nowMs-ttl+time.Hour.Milliseconds()+1, nowMs, nowMs)
	for i := 0; i < o.Listings; i++ {
		created := min(lw.at((float64(i)+rl.Float64())/float64(o.Listings)), nowMs)
		seller := int(l.plan.sellerOf[i])
		m := g.pickMaterial(rl)
		st := g.item(rl, m, 0.08, 0.05)
		price := g.price(m, &st, created, math.Exp(0.05+0.25*rl.NormFloat64()), 0.6, 1.8)
		var id int
		var err error
		// An auction's seller has other listings too: each player can take
		// one back, and an auction with bids runs to its end.
		if every := o.Auctions; every > 0 && i%every == every/2 && l.plan.count[seller] > 1 {
			id, err = l.auction(ra, auctions, seller, st, price, created)
			auctions++
		} else {
			id, err = l.b.AddListing(g.ids[seller], st, price, time.UnixMilli(created), time.UnixMilli(created+ttl))
			l.listedCommodity(m, st, price)
		}
		if err != nil {
			return fmt.Errorf("listing %d (%s): %w", i+1, st.Material, err)
		}
		for ; len(favs) > 0 && favs[0].index == i; favs = favs[1:] {
			l.favorites[favs[0].player] = append(l.favorites[favs[0].player], id)
		}
		l.alerts.listed(i, id, seller, m, st.Amount, price, created)
		l.pr.add(1)
	}
	l.res.Listings = o.Listings
	l.res.Auctions = auctions
	return nil
}

// auction adds the n-th auction of the seed: the stack sold by seller from
// a starting bid below its price, ending over the next twelve hours (the
// first three within two minutes, for a demo to watch), half of them with a
// buy-now price and most with a few bids by other players. The leading
// bid's money is the world's too: it counts in Result.Money.
func (l *load) auction(r *rand.Rand, n, seller int, st market.ItemStack, price market.Money, created int64) (int, error) {
	o, g := l.o, l.g
	rules := o.rules.Auctions
	start := max(price*6/10/100*100, o.rules.MinPrice)
	a := market.BulkAuction{Seller: g.ids[seller], Item: st, StartingBid: start, Created: time.UnixMilli(created), Rules: rules}
	ends := o.Now.Add(time.Duration(45+r.IntN(75)) * time.Second)
	if n >= 3 {
		ends = o.Now.Add(time.Duration(2+r.IntN(12*60)) * time.Minute)
	}
	// Within the rules' durations from its start (a week at most: the
	// oldest listings are a week old, so every auction still runs).
	first, last := a.Created.Add(rules.MinDuration), a.Created.Add(rules.MaxDuration)
	a.Ends = ends
	if a.Ends.Before(first) {
		a.Ends = first
	}
	if a.Ends.After(last) {
		a.Ends = last
	}
	if r.IntN(2) == 0 {
		a.BuyNow = min(max(price*3/2, start+100), o.rules.MaxPrice)
		if a.BuyNow <= start {
			a.BuyNow = 0
		}
	}
	bid, at := start, created
	for range r.IntN(6) {
		bidder := r.IntN(len(g.ids))
		if bidder == seller || len(a.Bids) > 0 && g.ids[bidder] == a.Bids[len(a.Bids)-1].Bidder {
			continue
		}
		if len(a.Bids) > 0 {
			bid += max(rules.MinIncrement, (bid*market.Money(rules.IncrementBasisPoints)+9_999)/10_000, 1)
		}
		if a.BuyNow > 0 && bid >= a.BuyNow || bid > o.rules.MaxPrice {
			break
		}
		at += r.Int64N(max(o.Now.UnixMilli()-at, 1))
		a.Bids = append(a.Bids, market.BulkBid{Bidder: g.ids[bidder], Amount: bid, At: time.UnixMilli(at)})
	}
	if len(a.Bids) > 0 {
		l.res.Money += a.Bids[len(a.Bids)-1].Amount
	}
	return l.b.AddAuction(a)
}

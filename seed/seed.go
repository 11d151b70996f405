// Package seed generates a plausible, deterministic market for demos, tests
// and benchmarks: a few hundred Polish and English players with balances and
// inventories, any number of active listings (a million loads in seconds) and
// some weeks of completed-transaction history whose prices drift per material.
//
// Everything is derived from Options.Rand (and Options.Now): the same Options
// give the same players, item ids, listings and prices. The one exception is
// the transaction ids, which market.Bulk assigns itself (UUIDv7).
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
	Players     int           // default 300; at least 2
	Listings    int           // active listings, default 3000; negative = none
	Days        int           // days of completed-transaction history, default 30; negative = none
	SalesPerDay int           // default max(50, Listings/20) capped at 20_000; negative = none
	Rand        int64         // generator seed, default 1
	Now         time.Time     // "now" of the generated market; default time.Now()
	ListingTTL  time.Duration // default 7 days; active listings get created in (now-TTL+1h, now] and expire created+TTL
	// Progress, when set, is told how much of the work is done; it is called
	// at most about 100 times, the last time with done == total.
	Progress func(done, total int)
}

// Result describes what was generated.
type Result struct {
	Players, Listings, Transactions, Completed, Failed, RolledBack int
	// Money is all the money of the world after the load: every balance plus
	// the fee account (which holds the fees of the completed history).
	Money market.Money
	Took  time.Duration
}

// Price bounds of the default market configuration, in cents
// (100 .. 100,000,000).
var (
	minPrice = market.DefaultConfig().MinPrice
	maxPrice = market.DefaultConfig().MaxPrice
)

// Streams of the generator: each part of the world has its own PCG stream, so
// that changing one part's generation does not reshuffle the others.
const (
	streamPlayers   = 0x9e3779b97f4a7c15
	streamMarket    = 0xbf58476d1ce4e5b9
	streamInventory = 0x94d049bb133111eb
	streamListings  = 0x2545f4914f6cdd1d
	streamHistory   = 0x6a09e667f3bcc909
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
	if o.Rand == 0 {
		o.Rand = 1
	}
	if o.Now.IsZero() {
		o.Now = time.Now()
	}
	if o.ListingTTL == 0 {
		o.ListingTTL = 7 * 24 * time.Hour
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

// Load generates a market into an EMPTY store via market.NewBulk and returns
// what it did. The store is not closed.
func Load(store market.Store, opts Options) (Result, error) {
	start := time.Now()
	o, err := opts.withDefaults()
	if err != nil {
		return Result{}, err
	}
	g := newGen(o)
	nTx := o.Days * o.SalesPerDay
	pr := newProgress(o.Progress, o.Players+o.Listings+nTx)
	b, err := market.NewBulk(store)
	if err != nil {
		return Result{}, err
	}
	var res Result

	// Players, balances and inventories.
	rp := newRand(o.Rand, streamPlayers)
	names := makeNames(rp, o.Players)
	ri := newRand(o.Rand, streamInventory)
	var slots [market.InventorySize]int
	for i, name := range names {
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
		res.Money += bal
		if err := b.AddPlayer(p, bal); err != nil {
			return res, fmt.Errorf("seed: player %q: %w", name, err)
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
			if err := b.SetSlot(p.ID, s, st); err != nil {
				return res, fmt.Errorf("seed: slot %d of %q: %w", s, name, err)
			}
		}
		pr.add(1)
	}
	res.Players = len(names)

	// Active listings, created in ascending time so that ids grow with time
	// as they do on a live market.
	rl := newRand(o.Rand, streamListings)
	nowMs := o.Now.UnixMilli()
	ttl := o.ListingTTL.Milliseconds()
	lw := newWarp(nowMs-ttl+time.Hour.Milliseconds()+1, nowMs)
	for i := 0; i < o.Listings; i++ {
		created := min(lw.at((float64(i)+rl.Float64())/float64(o.Listings)), nowMs)
		seller := g.ids[g.sellers.pick(rl)]
		m := g.pickMaterial(rl)
		st := g.item(rl, m, 0.08, 0.05)
		price := g.price(m, &st, created, math.Exp(0.05+0.25*rl.NormFloat64()), 0.6, 1.8)
		if _, err := b.AddListing(seller, st, price, time.UnixMilli(created), time.UnixMilli(created+ttl)); err != nil {
			return res, fmt.Errorf("seed: listing %d (%s): %w", i+1, st.Material, err)
		}
		pr.add(1)
	}
	res.Listings = o.Listings

	// History: terminal transactions over the past Days days.
	rh := newRand(o.Rand, streamHistory)
	hw := newWarp(nowMs-int64(o.Days)*24*time.Hour.Milliseconds(), nowMs-time.Minute.Milliseconds())
	var fees market.Money
	for i := 0; i < nTx; i++ {
		at := hw.at(rh.Float64())
		si := g.sellers.pick(rh)
		bi := rh.IntN(len(g.ids) - 1)
		if bi >= si {
			bi++
		}
		m := g.pickMaterial(rh)
		st := g.item(rh, m, 0.04, 0.02)
		price := g.price(m, &st, at, math.Exp(0.12*rh.NormFloat64()), 0.75, 1.35)
		h := market.HistoricSale{Buyer: g.ids[bi], Seller: g.ids[si], Item: st, Price: price,
			Fee: (price*500 + 5000) / 10000, At: time.UnixMilli(at), ID: txID(rh, at)}
		switch x := rh.IntN(100); {
		case x < 94:
			h.State = market.StateCompleted
			fees += h.Fee
			res.Completed++
		case x < 98:
			h.State = market.StateFailed
			h.ErrorCode = failedCodes[rh.IntN(len(failedCodes))]
			res.Failed++
		default:
			h.State = market.StateRolledBack
			h.ErrorCode = rolledBackCodes[rh.IntN(len(rolledBackCodes))]
			res.RolledBack++
		}
		if _, err := b.AddTransaction(h); err != nil {
			return res, fmt.Errorf("seed: transaction %d: %w", i+1, err)
		}
		pr.add(1)
	}
	b.Fees(fees)
	res.Money += fees
	res.Transactions = nTx
	if err := b.Finish(); err != nil {
		return res, fmt.Errorf("seed: %w", err)
	}
	pr.finish()
	res.Took = time.Since(start)
	return res, nil
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

package traffic

import (
	"math"
	"math/rand/v2"
	"slices"
	"time"

	"github.com/google/uuid"
	"github.com/rynek/rynek/market"
	"github.com/rynek/rynek/market/catalog"
)

// The economy's constants.
const (
	// gain is how hard the mix of actions leans against the distance from
	// the target: 3% below it, 86% of the turns offer something.
	gain = 12.0
	// perPlayer is the least target a player: a market the bots start
	// nearly empty fills up to a few listings each.
	perPlayer = 5
	// tries is how many players a turn asks before it waits: at a high
	// rate most of them are in their listing cooldown.
	tries = 8
	// rich is the balance above which a player spends in the game, down to
	// keep: a fortune leaves the market, and what left is paid out again as
	// wages to those who are short (earn).
	rich, keep = 250_000.00, 100_000.00
	// wage is the most a player earns in the game on top of what they
	// lack for something they want.
	wage = 100.00
	// fewStacks is when a seller gathers more in the game before selling.
	fewStacks = 3
	// browse is how many of the newest offers of a kind a buyer compares.
	browse = 16
	// auctionShare of the offers are auctions, from startShare of the
	// stack's worth, for a few minutes to a few hours.
	auctionShare, startShare = 0.1, 0.7
)

// turn is one bot's turn: below the target count of listings it is more
// likely an offer (a sale or a relist), above it more likely a purchase or
// taking a listing back to price it again. It acts through b, which makes
// its changes (on the main thread) and picks the players it acts as.
func (g *Generator) turn(b *bot, players []market.Player) {
	active, err := b.svc.GetActiveListingsCount()
	if err != nil {
		b.r.record(Waited, 0, err)
		return
	}
	if err := g.begin(b.svc, active, players); err != nil {
		b.r.record(Waited, 0, err)
		return
	}
	target := g.Target()
	offer := 0.5 + gain*float64(target-active)/float64(target)
	offer = min(max(offer, 0.05), 0.95)
	if b.rng.Float64() < orderShare {
		b.trade(players)
		return
	}
	switch x := b.rng.Float64(); {
	case x < offer:
		b.offer(players)
	case x < offer+(1-offer)*0.75:
		if p, ok := b.pick(players); ok {
			b.buy(p, active)
		}
	default:
		b.takeBack(players)
	}
}

// begin sets the economy's target and the fee account it starts from when
// the bots first act; an error leaves them unset.
func (g *Generator) begin(svc *market.Service, active int, players []market.Player) error {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.target != 0 {
		return nil
	}
	fees, err := svc.FeeBalance()
	if err != nil {
		return err
	}
	g.target, g.fees = max(active, perPlayer*len(players)), fees
	return nil
}

// bot is one turn's view of the market, and how it acts: act makes a
// change (at once, or on the main thread while the turn waits: Crowd),
// and claims, when set, keeps two turns in flight from acting as the same
// player or on the same listing or order.
type bot struct {
	g      *Generator
	svc    *market.Service
	r      *Result
	now    time.Time
	cfg    market.Config
	rng    *rand.Rand
	act    func(change func() error) error
	claims *claims
	as     uuid.UUID // the player this turn acts as, claimed (uuid.Nil: none)
	held   []any     // the listings and orders it claimed
}

// newBot is a turn's bot, with a random source of its own drawn from g's
// (a turn may run beside others; the same seed still gives the same turns
// one after another).
func (g *Generator) newBot(svc *market.Service, r *Result, act func(func() error) error, c *claims) *bot {
	return &bot{g: g, svc: svc, r: r, now: svc.Now(), cfg: svc.Config(), rng: rand.New(rand.NewPCG(g.rng.Uint64(), g.rng.Uint64())), act: act, claims: c}
}

// state reads p's balance, inventory and mailbox, and does what a player
// does between trades: spends a fortune in the game, uses up a stack when
// the inventory is nearly full, takes an unlisted mailbox entry in.
func (b *bot) state(p market.Player) (market.PlayerState, bool) {
	st, err := b.svc.GetPlayer(p.ID)
	if err != nil {
		b.r.record(Waited, 0, err)
		return st, false
	}
	if st.Balance > rich {
		spent := math.Floor(st.Balance - keep)
		err := b.act(func() error { _, err := b.svc.Withdraw(p.ID, spent); return err })
		b.r.record(Spent, 1, err)
		if err == nil {
			b.g.pay(-spent)
		}
	}
	free := countFree(st)
	if free < 2 {
		var filled []int
		for i, s := range st.Inventory {
			if s != nil {
				filled = append(filled, i)
			}
		}
		slot := filled[b.rng.IntN(len(filled))] + 1
		b.r.record(UsedUp, 1, b.act(func() error { _, err := b.svc.TakeItem(p.ID, slot); return err }))
	} else if i := slices.IndexFunc(st.Mailbox, func(m market.MailboxEntry) bool { return m.PreviousPrice == 0 }); i >= 0 {
		id := st.Mailbox[i].ID
		b.r.record(Claimed, 1, b.act(func() error { return b.svc.ClaimMail(p.ID, id) }))
	}
	st, err = b.svc.GetPlayer(p.ID)
	if err != nil {
		b.r.record(Waited, 0, err)
		return st, false
	}
	return st, true
}

func countFree(st market.PlayerState) int {
	n := 0
	for _, s := range st.Inventory {
		if s == nil {
			n++
		}
	}
	return n
}

// offer lists something as a player who may: an expired listing waiting
// in the mailbox again at its price, or a stack of the inventory near its
// worth, after gathering one when the inventory has little to sell.
func (b *bot) offer(players []market.Player) {
	p, ok := b.someone(players, func(room market.ListingRoom) bool { return room.Free(b.now) })
	if !ok {
		return
	}
	st, ok := b.state(p)
	if !ok {
		return
	}
	if i := slices.IndexFunc(st.Mailbox, func(m market.MailboxEntry) bool { return m.PreviousPrice > 0 }); i >= 0 {
		if !b.afford(p, st, st.Mailbox[i].PreviousPrice) {
			b.r.record(Waited, 0, nil)
			return
		}
		id := st.Mailbox[i].ID
		if !b.hold(materialClaim(st.Mailbox[i].Item.Material), always) {
			return
		}
		b.r.record(Relisted, 1, b.act(func() error { _, err := b.svc.RelistMail(p.ID, id); return err }))
		return
	}
	if len(stacks(st)) < fewStacks {
		if !b.gather(p) {
			return
		}
		if st, ok = b.state(p); !ok {
			return
		}
	}
	stack, price, ok := b.ask(st)
	if !ok || !b.afford(p, st, price) {
		b.r.record(Waited, 0, nil) // nothing the rules let them sell, or the fee
		return
	}
	if !b.hold(materialClaim(stack.Material), always) {
		return
	}
	if b.rng.Float64() < auctionShare {
		start := b.price(price * startShare)
		if market.NewListingRules(b.cfg).Check(stack, market.Money(math.Round(start*100))) == nil {
			d := time.Duration(5+b.rng.IntN(6*60)) * time.Minute
			d = min(max(d, b.cfg.Auctions.MinDuration), b.cfg.Auctions.MaxDuration)
			b.r.record(Auctioned, 1, b.act(func() error { _, err := b.svc.StartAuction(p, stack, start, 0, d); return err }))
			return
		}
	}
	b.r.record(Sold, 1, b.act(func() error { _, err := b.svc.SellItem(p, stack, price); return err }))
}

// someone picks, among up to tries random players, the first whose room
// for listings passes want. When none does, or the room cannot be read,
// the turn is recorded as waited and ok is false.
func (b *bot) someone(players []market.Player, want func(market.ListingRoom) bool) (p market.Player, ok bool) {
	for range tries {
		p, ok := b.pick(players)
		if !ok {
			return p, false
		}
		room, err := b.svc.ListingRoom(p.ID)
		if err != nil {
			b.r.record(Waited, 0, err)
			return p, false
		}
		if want(room) {
			return p, true
		}
	}
	b.r.record(Waited, 0, nil)
	return market.Player{}, false
}

// ask picks a stack of the inventory to sell and its price, near its
// worth: one the market's listing rules accept at that price. Whole
// stacks: a part would leave two, and inventories would fill with ever
// smaller stacks the game then uses up.
func (b *bot) ask(st market.PlayerState) (market.ItemStack, float64, bool) {
	rules := market.NewListingRules(b.cfg)
	all := stacks(st)
	for _, i := range b.rng.Perm(len(all)) {
		price := b.price(value(all[i]) * min(max(math.Exp(0.05+0.2*b.rng.NormFloat64()), 0.6), 1.8))
		if rules.Check(all[i], market.Money(math.Round(price*100))) == nil {
			return all[i], price, true
		}
	}
	return market.ItemStack{}, 0, false
}

// stacks is the inventory's stacks.
func stacks(st market.PlayerState) []market.ItemStack {
	var out []market.ItemStack
	for _, s := range st.Inventory {
		if s != nil {
			out = append(out, *s)
		}
	}
	return out
}

// afford makes sure p can pay the listing fee of a listing at price,
// earning in the game what is missing.
func (b *bot) afford(p market.Player, st market.PlayerState, price float64) bool {
	bp := b.cfg.ListingFeeBasisPoints
	if bp <= 0 && b.cfg.MinFee <= 0 {
		return true
	}
	// At most this: the fee is rounded to the cent, and capped.
	fee := price*float64(bp)/10_000 + b.cfg.MinFee.Float() + 0.01
	return st.Balance >= fee || b.earn(p, fee-st.Balance)
}

// earn pays p what they lack and a little more from the game, as far as
// the fees the market took since the bots started have not been paid out
// already: the money the players hold stays what it was, and what the
// fee account takes in comes back to those who are short.
func (b *bot) earn(p market.Player, lack float64) bool {
	fees, err := b.svc.FeeBalance()
	if err != nil {
		b.r.record(Waited, 0, err)
		return false
	}
	amount := math.Ceil(lack) + math.Round(wage*b.rng.Float64())
	if !b.g.budget(fees, amount) {
		return false // saving up
	}
	err = b.act(func() error { _, err := b.svc.Deposit(p.ID, amount); return err })
	b.r.record(Earned, 1, err)
	if err != nil {
		b.g.pay(-amount)
		return false
	}
	return true
}

// budget takes amount from what the fee account took in since the bots
// started (fees now) and was not paid out yet, and reports whether it was
// there: a turn beside others pays out only what no other took.
func (g *Generator) budget(fees, amount float64) bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	if fees-g.fees-g.paid < amount {
		return false
	}
	g.paid += amount
	return true
}

// pay counts amount as paid to the players in the game (spent: less).
func (g *Generator) pay(amount float64) {
	g.mu.Lock()
	g.paid += amount
	g.mu.Unlock()
}

// gather gives p a stack from the game of something the market trades: a
// full stack of a random listing's material.
func (b *bot) gather(p market.Player) bool {
	stack := market.ItemStack{Material: "OAK_LOG", Amount: 64}
	if active, err := b.svc.GetActiveListingsCount(); err == nil && active > 0 {
		page, err := b.svc.Query(market.Query{Offset: b.rng.IntN(active), Limit: 1})
		if err == nil && len(page.Listings) > 0 {
			m := page.Listings[0].Item.Material
			if info, ok := catalog.LookupMaterial(m); ok {
				stack = market.ItemStack{Material: m, Amount: info.MaxStack}
			}
		}
	}
	err := b.act(func() error { _, _, err := b.svc.GiveItem(p.ID, stack); return err })
	b.r.record(Gathered, 1, err)
	return err == nil
}

// price rounds a price to the cent within the rules' range.
func (b *bot) price(p float64) float64 {
	hi := b.cfg.MaxPrice
	if v := b.cfg.MaxTransactionValue; v > 0 {
		hi = min(hi, v)
	}
	return min(max(math.Round(p*100)/100, b.cfg.MinPrice.Float()), hi.Float())
}

// value is what a stack is worth on the market: its material's price a
// unit, 30% more for each enchantment level.
func value(s market.ItemStack) float64 {
	unit := 0.10
	if info, ok := catalog.LookupMaterial(s.Material); ok && info.BasePrice > 0 {
		unit = float64(info.BasePrice) / 100
	}
	levels := 0
	for _, e := range s.Enchantments {
		levels += e.Level
	}
	return unit * float64(s.Amount) * (1 + 0.3*float64(levels))
}

// buy is p shopping: they see a random listing, look through the newest
// offers of its kind for the cheapest a unit, and buy it if it is worth
// its price to them and they can pay, or earn what they lack in the game
// (earn).
func (b *bot) buy(p market.Player, active int) {
	if active == 0 {
		b.r.record(Waited, 0, nil)
		return
	}
	seen, err := b.svc.Query(market.Query{Offset: b.rng.IntN(active), Limit: 1})
	if err != nil || len(seen.Listings) == 0 {
		b.r.record(Waited, 0, err)
		return
	}
	if a := seen.Listings[0].Auction; a != nil {
		b.bid(p, seen.Listings[0])
		return
	}
	// The newest offers of the kind: a page in id order costs the main
	// thread little at any size, where the whole market's unit-price
	// order, filtered to one material, is walked up to the first match.
	page, err := b.svc.Query(market.Query{Material: seen.Listings[0].Item.Material, Limit: browse})
	if err != nil {
		b.r.record(Waited, 0, err)
		return
	}
	willing := math.Exp(0.25 + 0.2*b.rng.NormFloat64())
	best := -1
	for i, l := range page.Listings {
		if l.Auction == nil && l.Seller != p.ID && l.Price <= value(l.Item)*willing && (best < 0 || unit(l) < unit(page.Listings[best])) {
			best = i
		}
	}
	if best < 0 {
		b.r.record(Waited, 0, nil)
		return
	}
	l := page.Listings[best]
	if !b.hold(materialClaim(l.Item.Material), always) || !b.hold(listingClaim(l.ID), b.listed(l.ID)) {
		return
	}
	st, ok := b.state(p)
	if !ok {
		return
	}
	if st.Balance < l.Price && !b.earn(p, l.Price-st.Balance) {
		b.r.record(Waited, 0, nil) // saving up
		return
	}
	b.r.record(Bought, 1, b.act(func() error { _, err := b.svc.Buy(p, l.ID); return err }))
}

// bid is p bidding on auction l: its minimum, when that is worth it to
// them and they can pay (or earn what they lack). The leader does not
// outbid themselves.
func (b *bot) bid(p market.Player, l market.Listing) {
	if !b.hold(listingClaim(l.ID), func() bool {
		now, err := b.svc.GetListing(l.ID)
		l = now
		return err == nil && now.Auction != nil && b.lasts(now)
	}) {
		return
	}
	a := l.Auction
	willing := math.Exp(0.25 + 0.2*b.rng.NormFloat64())
	if l.Seller == p.ID || a.Leader == p.ID || a.MinimumBid > value(l.Item)*willing || !l.ExpiresAt.After(b.now) {
		b.r.record(Waited, 0, nil)
		return
	}
	st, ok := b.state(p)
	if !ok {
		return
	}
	if st.Balance < a.MinimumBid && !b.earn(p, a.MinimumBid-st.Balance) {
		b.r.record(Waited, 0, nil) // saving up
		return
	}
	b.r.record(Bid, 1, b.act(func() error { _, err := b.svc.Bid(p, l.ID, a.MinimumBid); return err }))
}

// unit is a listing's price an item.
func unit(l market.Listing) float64 { return l.Price / float64(l.Item.Amount) }

// takeBack is a seller taking their oldest listing back, to offer it again
// at another price.
func (b *bot) takeBack(players []market.Player) {
	p, ok := b.someone(players, func(room market.ListingRoom) bool { return room.Listings > 0 })
	if !ok {
		return
	}
	page, err := b.svc.Query(market.Query{Seller: p.ID, Sort: market.SortOldest, Kind: "fixed", Limit: 1})
	if err != nil || len(page.Listings) == 0 {
		b.r.record(Waited, 0, err) // an auction runs to its end
		return
	}
	id := page.Listings[0].ID
	if !b.hold(listingClaim(id), b.listed(id)) {
		return
	}
	b.r.record(Removed, 1, b.act(func() error { return b.svc.RemoveListing(id, p) }))
}

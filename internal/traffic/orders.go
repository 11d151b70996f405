package traffic

import (
	"math"
	"time"

	"github.com/rynek/rynek/market"
	"github.com/rynek/rynek/market/catalog"
)

// The bots' buy orders: a buyer who wants a commodity places an order a
// little below its cheapest listing (now and then at or above it, and the
// order buys at once), for minutes to hours, so orders also expire; an
// owner cancels one now and then; a seller with a plain stack that an
// order wants sells into it, or lists the stack at the order's price, and
// the order buys the new listing at once.

// The orders' constants.
const (
	// orderShare of the turns trade through buy orders.
	orderShare = 0.15
	// crossShare of the orders bid at or above the cheapest listing.
	crossShare = 0.2
)

// trade is a turn that goes through buy orders: placing one, cancelling
// one, or filling one.
func (b *bot) trade(players []market.Player) {
	switch x := b.rng.Float64(); {
	case x < 0.4:
		if p, ok := b.pick(players); ok {
			b.placeOrder(p)
		}
	case x < 0.55:
		b.cancelOrder(players)
	default:
		if p, ok := b.pick(players); ok {
			b.fillOrder(p)
		}
	}
}

// commodityStack reports whether s is a plain stack of a stackable
// material, which buy orders buy.
func commodityStack(s market.ItemStack) bool {
	info, ok := catalog.LookupMaterial(s.Material)
	return ok && info.MaxStack > 1 && s.DisplayName == "" && len(s.Lore) == 0 && len(s.Enchantments) == 0 && s.MaxStack == 0
}

// placeOrder is p wanting more of a commodity they saw on sale: an order
// for one to five stacks, below its cheapest listing but for one in five
// (those buy at once), as much as they can pay.
func (b *bot) placeOrder(p market.Player) {
	active, err := b.svc.GetActiveListingsCount()
	if err != nil || active == 0 {
		b.r.record(Waited, 0, err)
		return
	}
	seen, err := b.svc.Query(market.Query{Offset: b.rng.IntN(active), Limit: 1})
	if err != nil || len(seen.Listings) == 0 || seen.Listings[0].Auction != nil || !commodityStack(seen.Listings[0].Item) {
		b.r.record(Waited, 0, err)
		return
	}
	l := seen.Listings[0]
	if !b.hold(materialClaim(l.Item.Material), always) {
		return
	}
	rules := b.cfg.Orders
	mine, err := b.svc.Orders(market.OrderQuery{Buyer: p.ID, Limit: 1})
	if err != nil || mine.Total >= rules.MaxPerPlayer {
		b.r.record(Waited, 0, err) // their orders are as many as they may have
		return
	}
	book, err := b.svc.GetOrderBook(l.Item.Material, 1)
	if err != nil {
		b.r.record(Waited, 0, err)
		return
	}
	cheapest := unit(l)
	if len(book.Sell) > 0 {
		cheapest = book.Sell[0].UnitPrice
	}
	factor := 0.85 + 0.14*b.rng.Float64()
	if b.rng.Float64() < crossShare {
		factor = 1 + 0.05*b.rng.Float64()
	}
	limit := min(max(math.Floor(cheapest*factor*100)/100, 0.01), b.cfg.MaxPrice.Float())
	info, _ := catalog.LookupMaterial(l.Item.Material)
	amount := min(info.MaxStack*(1+b.rng.IntN(5)), rules.MaxAmount)
	st, ok := b.state(p)
	if !ok {
		return
	}
	// What they can pay: the escrow and the placement fee, rounded up, and
	// at least the fees' minimum when there is a fee.
	each, least := limit*(1+float64(rules.FeeBasisPoints)/10_000), 0.01
	if rules.FeeBasisPoints > 0 {
		least += b.cfg.MinFee.Float()
	}
	amount = min(amount, int(math.Floor((st.Balance-least)/each)))
	if amount < 1 {
		b.r.record(Waited, 0, nil) // saving up
		return
	}
	d := time.Duration(5+b.rng.IntN(3*60)) * time.Minute
	d = min(max(d, rules.MinDuration), rules.MaxDuration)
	b.r.record(Ordered, 1, b.act(func() error { _, err := b.svc.PlaceOrder(p, l.Item.Material, amount, limit, d); return err }))
}

// cancelOrder is an owner of open orders taking one back.
func (b *bot) cancelOrder(players []market.Player) {
	for range tries {
		p, ok := b.pick(players)
		if !ok {
			return
		}
		mine, err := b.svc.Orders(market.OrderQuery{Buyer: p.ID})
		if err != nil {
			b.r.record(Waited, 0, err)
			return
		}
		if len(mine.Orders) > 0 {
			o := mine.Orders[b.rng.IntN(len(mine.Orders))]
			if !b.hold(orderClaim(o.ID), b.open(&o)) {
				return
			}
			b.r.record(CancelledOrder, 1, b.act(func() error { return b.svc.CancelOrder(o.ID, p) }))
			return
		}
	}
	b.r.record(Waited, 0, nil)
}

// fillOrder is p with a plain stack that another player's order wants:
// they sell into the order, or list the stack at the order's unit price,
// which the order buys at once.
func (b *bot) fillOrder(p market.Player) {
	st, ok := b.state(p)
	if !ok {
		return
	}
	all := stacks(st)
	for _, i := range b.rng.Perm(len(all)) {
		s := all[i]
		if !commodityStack(s) {
			continue
		}
		if !b.hold(materialClaim(s.Material), always) {
			return
		}
		page, err := b.svc.Orders(market.OrderQuery{Material: s.Material, Limit: 8})
		if err != nil {
			b.r.record(Waited, 0, err)
			return
		}
		for _, o := range page.Orders {
			if o.Buyer == p.ID {
				continue
			}
			if !b.hold(orderClaim(o.ID), b.open(&o)) {
				return
			}
			if b.rng.IntN(2) == 0 {
				b.listInto(p, st, s, o)
			} else {
				b.sellInto(p, s, o)
			}
			return
		}
	}
	b.r.record(Waited, 0, nil) // nothing an order wants
}

// open reports whether order *o is still open, and reads it again into
// *o: another turn may have filled some of it since.
func (b *bot) open(o *market.Order) func() bool {
	return func() bool {
		now, err := b.svc.GetOrder(o.ID)
		*o = now
		return err == nil && now.Open()
	}
}

// sellInto sells s into order o, when the sale is within the maximum
// transaction value.
func (b *bot) sellInto(p market.Player, s market.ItemStack, o market.Order) {
	k := min(o.Amount-o.Filled, s.Amount)
	if v := b.cfg.MaxTransactionValue; v > 0 && market.Money(math.Round(o.UnitPrice*100))*market.Money(k) > v {
		b.r.record(Waited, 0, nil)
		return
	}
	b.r.record(SoldToOrder, 1, b.act(func() error { _, err := b.svc.SellToOrder(p, s, o.ID); return err }))
}

// listInto lists s at o's unit price, when p may list now and the rules
// take that price (and p can pay the fee): the best orders buy it as it is
// listed.
func (b *bot) listInto(p market.Player, st market.PlayerState, s market.ItemStack, o market.Order) {
	price := math.Round(o.UnitPrice*100) * float64(s.Amount) / 100
	room, err := b.svc.ListingRoom(p.ID)
	if err != nil || !room.Free(b.now) || market.NewListingRules(b.cfg).Check(s, market.Money(math.Round(price*100))) != nil ||
		!b.afford(p, st, price) {
		b.r.record(Waited, 0, err)
		return
	}
	b.r.record(ListedToOrder, 1, b.act(func() error { _, err := b.svc.SellItem(p, s, price); return err }))
}

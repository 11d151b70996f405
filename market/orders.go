package market

import (
	"fmt"
	"time"

	"github.com/google/uuid"
	"github.com/rynek/rynek/market/catalog"
	"github.com/rynek/rynek/market/internal/item"
	"github.com/rynek/rynek/market/internal/record"
)

// Buy orders.
//
// A buy order is a player's wish to buy an amount of a commodity (a plain
// stack of a material: no name, lore or enchantments) at up to a unit
// price. Placing it moves the money for the whole amount into the order's
// escrow, an account of its own (accountsLocked) that the audit and the
// integrity check count: the order pays its fills from it, and what is left
// goes back to the buyer when it closes (filled, cancelled or expired).
//
// The book is never crossed: an order fills at once from the cheapest
// listings it would pay for (order_fill.go), and a new listing that an order
// would pay for is bought by the best orders as soon as it is listed. Each
// fill is a purchase through the saga, paid from the escrow, that may take
// part of a listing's stack; the listing stays on sale with the rest.

// Order is a buy order as reads and events see it.
type Order struct {
	ID        int
	Buyer     uuid.UUID
	BuyerName string
	Material  string // the catalogue's key, e.g. "OAK_LOG"
	Amount    int    // items wanted in all
	Filled    int    // items bought so far
	UnitPrice float64
	// Escrow is the money the order holds for what it still buys (0 once
	// closed); Fee the placement fee paid.
	Escrow, Fee float64
	CreatedAt   time.Time
	ExpiresAt   time.Time
	// State is "open", or why it closed: "filled", "cancelled", "expired";
	// ClosedAt is when (zero while open).
	State    string
	ClosedAt time.Time
}

// Open reports whether the order still buys.
func (o Order) Open() bool { return o.State == orderStateName(record.OrderStateOpen) }

// orderRecord is an order in memory. Like a listing's record it is
// replaced, not changed in place, once the store holds it: the stored form
// is the condition of the next write.
type orderRecord struct {
	id             uint32
	buyer          int32
	mat            uint16
	amount, filled uint32
	limit          Money // the most it pays for one item
	escrow         Money
	fee            Money
	created        int64
	expires        int64
	state          uint8
	closed         int64
}

func (o *orderRecord) open() bool        { return o.state == record.OrderStateOpen }
func (o *orderRecord) remaining() uint32 { return o.amount - o.filled }

func (o *orderRecord) stored(buyer uuid.UUID) *record.Order {
	return &record.Order{ID: o.id, Buyer: buyer, Material: o.mat, Amount: o.amount, Filled: o.filled, Limit: int64(o.limit),
		Escrow: int64(o.escrow), Fee: int64(o.fee), Created: o.created, Expires: o.expires, State: o.state, Closed: o.closed}
}

func (s *Service) orderRow(o *orderRecord) *OrderRow {
	return &OrderRow{ID: int64(o.id), Rec: record.EncodeOrder(nil, o.stored(s.players[o.buyer].id))}
}

func orderStateName(st uint8) string { return record.OrderStateNames[st] }

// orderOf is the public form of o. Callers hold s.mu (or are the main
// thread).
func (s *Service) orderOf(o *orderRecord) Order {
	p := s.players[o.buyer]
	return publicOrder(o, p.person())
}

func publicOrder(o *orderRecord, buyer person) Order {
	out := Order{ID: int(o.id), Buyer: buyer.id, BuyerName: buyer.name, Material: catalog.Material(o.mat).Key,
		Amount: int(o.amount), Filled: int(o.filled), UnitPrice: o.limit.Float(), Escrow: o.escrow.Float(), Fee: o.fee.Float(),
		CreatedAt: unixMilli(o.created), ExpiresAt: unixMilli(o.expires), State: orderStateName(o.state)}
	if !o.open() {
		out.ClosedAt = unixMilli(o.closed)
	}
	return out
}

// storedOrder is the public form of an order the log recorded.
func storedOrder(o *record.Order, buyerName string) Order {
	r := orderFromStored(o)
	return publicOrder(r, person{o.Buyer, buyerName})
}

func orderFromStored(o *record.Order) *orderRecord {
	return &orderRecord{id: o.ID, mat: o.Material, amount: o.Amount, filled: o.Filled, limit: Money(o.Limit),
		escrow: Money(o.Escrow), fee: Money(o.Fee), created: o.Created, expires: o.Expires, state: o.State, closed: o.Closed}
}

// PermOrderLimit prefixes the permissions that give a player an order
// limit of their own: market.orders.20 allows 20 open buy orders.
const PermOrderLimit = "market.orders."

// orderLimit is how many open orders p may have.
func (s *Service) orderLimit(p *playerRecord) int {
	return permTier(p, PermOrderLimit, s.cfg.Orders.MaxPerPlayer)
}

// PlaceOrder places buyer's order for amount items of material at up to
// unitPrice each, for duration (0: the rules' default). The money for the
// whole amount, and the placement fee the rules may set, leave the buyer's
// balance at once; the order then buys from every listing it would pay for,
// cheapest first, before it rests. Returns the order after those fills.
// Main thread.
func (s *Service) PlaceOrder(buyer Player, material string, amount int, unitPrice float64, duration time.Duration) (Order, error) {
	if err := s.mutGuard(); err != nil {
		return Order{}, err
	}
	p, err := s.actor(buyer)
	if err != nil {
		return Order{}, err
	}
	rules := s.cfg.Orders
	mat, err := materialOf(material, CodeInvalidItem)
	if err != nil {
		return Order{}, err
	}
	key := catalog.Material(mat).Key
	if s.listingRules.refuses(mat) {
		return Order{}, blacklisted(key) // nobody may list it, so no order could fill
	}
	if amount < 1 || amount > rules.MaxAmount {
		return Order{}, errf(CodeInvalidItem, "an order buys 1 to %d items, not %d", rules.MaxAmount, amount)
	}
	if duration == 0 {
		duration = rules.DefaultDuration
	}
	if duration < rules.MinDuration || duration > rules.MaxDuration {
		return Order{}, errf(CodeInvalidQuery, "an order lasts %s to %s, not %s", formatLength(rules.MinDuration), formatLength(rules.MaxDuration), formatLength(duration))
	}
	limit, err := toMoney("unit price", unitPrice, 1, s.cfg.MaxPrice)
	if err != nil {
		return Order{}, err
	}
	if n, most := len(s.orders.mine[p.idx]), s.orderLimit(p); n >= most {
		return Order{}, errf(CodeOrderLimit, "%s already has %d open buy orders; the limit is %d", p.name, n, most)
	}
	value := limit * Money(amount)
	fee := Money(0)
	if rules.FeeBasisPoints > 0 {
		fee = s.cfg.fee(value, rules.FeeBasisPoints)
	}
	if p.balance < value+fee {
		return Order{}, errf(CodeInsufficientFunds, "%d × %s is %s (and a fee of %s) but %s has %s", amount, FormatMoney(limit),
			FormatMoney(value), FormatMoney(fee), p.name, FormatMoney(p.balance))
	}
	id, err := s.takeListingID()
	if err != nil {
		return Order{}, err
	}
	now := s.nowMs()
	o := &orderRecord{id: uint32(id), buyer: p.idx, mat: mat, amount: uint32(amount), limit: limit, escrow: value, fee: fee,
		created: now, expires: now + duration.Milliseconds()}
	b := &s.batch
	b.Reset()
	b.add(s.playerOp(p, p.balance-value-fee, p.lastSell, nil))
	b.add(Op{Kind: OpAddOrder, Order: s.orderRow(o)})
	if fee != 0 {
		m := s.meta()
		m.FeeBalance += fee
		b.add(s.countersOp(m))
	}
	b.log(EventRow{Kind: KindOrderPlaced, At: now, Body: record.EncodeOrderPlaced(nil, &record.OrderPlaced{
		Order: *o.stored(p.id), BuyerName: p.name})})
	if err := s.submit(b, func() {
		p.balance -= value + fee
		s.feeBalance += fee
		s.nextID++
		s.setOrderLocked(o)
	}, nil); err != nil {
		return Order{}, err
	}
	s.fillOrder(s.orders.byID[o.id])
	return s.GetOrder(int(o.id))
}

// CancelOrder closes an open order: its owner may, and a player with
// market.admin may close anyone's. The escrow it still holds goes back to
// the buyer; the placement fee does not. Main thread.
func (s *Service) CancelOrder(id int, actor Player) error {
	if err := s.mutGuard(); err != nil {
		return err
	}
	a, err := s.actor(actor)
	if err != nil {
		return err
	}
	o, err := s.lookupOrder(id)
	if err != nil {
		return err
	}
	if o.buyer != a.idx && !a.has(PermAdmin) {
		return errf(CodeNotOrderOwner, "%s did not place order #%d and lacks %s", a.name, id, PermAdmin)
	}
	err = s.closeOrder(o, record.OrderStateCancelled)
	if e, ok := err.(*Error); ok && e.Code == CodeConflict {
		// A fill on another server came first and the commit caught up
		// with it: cancel what is left, or say the order is closed.
		if o, err = s.lookupOrder(id); err != nil {
			return err
		}
		err = s.closeOrder(o, record.OrderStateCancelled)
	}
	return err
}

// lookupOrder is the open order id, or why there is none.
func (s *Service) lookupOrder(id int) (*orderRecord, error) {
	o := s.orders.byID[uint32(max(0, min(id, 1<<31-1)))]
	switch {
	case o == nil || id <= 0:
		return nil, errf(CodeUnknownOrder, "there is no buy order #%d", id)
	case !o.open():
		return nil, errf(CodeOrderClosed, "buy order #%d is closed (%s)", id, orderStateName(o.state))
	}
	return o, nil
}

// closeOrder closes o for the reason state, its escrow back to the buyer,
// in one commit.
func (s *Service) closeOrder(o *orderRecord, state uint8) error {
	p := s.players[o.buyer]
	now := s.nowMs()
	closed := *o
	closed.state, closed.closed, closed.escrow = state, now, 0
	b := &s.batch
	b.Reset()
	b.add(s.playerOp(p, p.balance+o.escrow, p.lastSell, nil))
	b.add(Op{Kind: OpOrderState, Order: s.orderRow(&closed), Expect: s.orderRow(o).Rec})
	b.log(EventRow{Kind: KindOrderClosed, At: now, Body: record.EncodeOrderClosed(nil, &record.OrderClosed{
		Order: *closed.stored(p.id), BuyerName: p.name, Refund: int64(o.escrow)})})
	if err := s.submit(b, func() {
		p.balance += o.escrow
		s.setOrderLocked(&closed)
	}, nil); err != nil {
		return err
	}
	return nil
}

// expireOrders closes the open orders whose time is up, at most limit of
// them (the sweep spreads them over ticks), and reports how many it closed
// and whether more are due.
func (s *Service) expireOrders(now int64, limit int) (closed int, more bool, err error) {
	due, more := s.orders.due(now, limit)
	for _, o := range due {
		if err := s.closeOrder(o, record.OrderStateExpired); err != nil {
			return closed, true, err
		}
		closed++
	}
	return closed, more, nil
}

// GetOrder returns an order, open or closed. Any goroutine.
func (s *Service) GetOrder(id int) (Order, error) {
	if err := s.readGuard(); err != nil {
		return Order{}, err
	}
	s.mu.RLock()
	defer s.mu.RUnlock()
	o := s.orders.byID[uint32(max(0, min(id, 1<<31-1)))]
	if o == nil || id <= 0 {
		return Order{}, errf(CodeUnknownOrder, "there is no buy order #%d", id)
	}
	return s.orderOf(o), nil
}

// commodity reports whether it is a plain stack of its material, which
// orders buy: no name, lore, enchantments or stack size of its own.
func commodity(it item.Item) bool { return it.X == nil && it.StackMax == 0 }

// escrowOrdersLocked is the money open orders hold.
func (s *Service) escrowOrdersLocked() Account {
	acc := Account{Name: orderEscrowAccount}
	s.orders.eachOpen(func(o *orderRecord) {
		acc.Money += o.escrow
		acc.Rows++
	})
	return acc
}

// orderEscrowAccount names the money buy orders hold.
const orderEscrowAccount = "held by buy orders"

// loadOrderLocked files an order the store holds (a load, or a row another
// instance changed).
func (s *Service) loadOrderLocked(row OrderRow) error {
	if row.ID <= 0 || row.ID > 1<<31-1 {
		return fmt.Errorf("order id %d out of range", row.ID)
	}
	o, err := record.DecodeOrder(row.Rec)
	if err != nil {
		return fmt.Errorf("order #%d: %w", row.ID, err)
	}
	p := s.playerByID[o.Buyer]
	if p == nil {
		return fmt.Errorf("order #%d of unknown player %s", row.ID, o.Buyer)
	}
	r := orderFromStored(&o)
	r.id, r.buyer = uint32(row.ID), p.idx
	s.setOrderLocked(r)
	return nil
}

// orderOfEntry is the order a placing, fill or closing entry records.
func orderOfEntry(e EventRow) (record.Order, error) {
	switch e.Kind {
	case KindOrderPlaced:
		x, err := record.DecodeOrderPlaced(e.Body)
		return x.Order, err
	case KindOrderFilled:
		x, err := record.DecodeOrderFilled(e.Body)
		return x.Order, err
	case KindOrderClosed:
		x, err := record.DecodeOrderClosed(e.Body)
		return x.Order, err
	}
	return record.Order{}, fmt.Errorf("no order in a %s entry", e.Kind)
}

package wire

import (
	"github.com/rynek/rynek/market"
)

// The shapes of buy orders: an order, a page of them, a material's order
// book, and what the order events add to an Event.

// Order is a buy order: a player's wish for an amount of a commodity at up
// to a unit price. Amount is what it wants in all, Filled what it has
// bought so far; State is "open" or why it closed ("filled", "cancelled",
// "expired"), ClosedAt when (absent while open).
type Order struct {
	ID        int    `json:"id"`
	Material  string `json:"material"` // vanilla key, "OAK_LOG"
	Name      string `json:"name"`     // the material's readable name, "Oak Log"
	Amount    int    `json:"amount"`
	Filled    int    `json:"filled"`
	UnitPrice string `json:"unitPrice"` // the most it pays an item
	Buyer     string `json:"buyer"`     // the buyer's UUID
	BuyerName string `json:"buyerName"`
	State     string `json:"state"`
	CreatedAt Time   `json:"createdAt"`
	ExpiresAt Time   `json:"expiresAt"`
	ClosedAt  Time   `json:"closedAt,omitzero"`
}

// NewOrder is the wire form of a buy order.
func NewOrder(o market.Order) Order {
	out := Order{ID: o.ID, Material: o.Material, Name: materialName(o.Material), Amount: o.Amount, Filled: o.Filled,
		UnitPrice: Money(o.UnitPrice), Buyer: o.Buyer.String(), BuyerName: o.BuyerName, State: o.State,
		CreatedAt: At(o.CreatedAt), ExpiresAt: At(o.ExpiresAt)}
	if !o.ClosedAt.IsZero() {
		out.ClosedAt = At(o.ClosedAt)
	}
	return out
}

// OrderPage is a page of open buy orders, the best first: the highest unit
// price, then the oldest.
type OrderPage struct {
	Items      []Order `json:"items"`
	Total      int     `json:"total"` // orders matching the filters, on all pages
	NextCursor string  `json:"nextCursor,omitempty"`
	Version    uint64  `json:"version"`
}

// BuyLevel is one price of an order book's buy side: the items the open
// orders at that unit price still want, and how many orders they are.
type BuyLevel struct {
	UnitPrice string `json:"unitPrice"`
	Amount    int    `json:"amount"`
	Orders    int    `json:"orders"`
}

// SellLevel is one price of an order book's sell side: the items the
// matching listings at that unit price (to the cent) offer, and how many
// listings they are.
type SellLevel struct {
	UnitPrice string `json:"unitPrice"`
	Amount    int    `json:"amount"`
	Listings  int    `json:"listings"`
}

// OrderBook is a commodity's depth: the buy orders' prices, highest first,
// and the prices of the listings orders may buy (plain stacks at a fixed
// price), cheapest first. The best buy is always below the best sell.
type OrderBook struct {
	Material string      `json:"material"`
	Name     string      `json:"name"`
	Buy      []BuyLevel  `json:"buy"`
	Sell     []SellLevel `json:"sell"`
	Version  uint64      `json:"version"`
}

// NewOrderBook is the wire form of an order book.
func NewOrderBook(b market.OrderBook, version uint64) OrderBook {
	out := OrderBook{Material: b.Material, Name: materialName(b.Material), Buy: make([]BuyLevel, len(b.Buy)),
		Sell: make([]SellLevel, len(b.Sell)), Version: version}
	for i, l := range b.Buy {
		out.Buy[i] = BuyLevel{UnitPrice: Money(l.UnitPrice), Amount: l.Amount, Orders: l.Count}
	}
	for i, l := range b.Sell {
		out.Sell[i] = SellLevel{UnitPrice: Money(l.UnitPrice), Amount: l.Amount, Listings: l.Count}
	}
	return out
}

// OrderFill is what a BuyOrderFilledEvent adds to its order: who sold, how
// many items for how much, the purchase it was, and the listing it bought
// from with the items left on sale there (0: the listing is gone); both
// null when the seller sold into the order from their inventory.
type OrderFill struct {
	Seller        Player `json:"seller"`
	Amount        int    `json:"amount"`
	UnitPrice     string `json:"unitPrice"`
	Price         string `json:"price"`
	TransactionID string `json:"transactionId"`
	ListingID     *int   `json:"listingId"`
	ListingLeft   *int   `json:"listingLeft"`
}

// orderEvent fills out's order fields from an order event; false when e
// is none.
func orderEvent(out *Event, e market.Event) bool {
	switch e := e.(type) {
	case market.BuyOrderPlacedEvent:
		o := NewOrder(e.Order())
		out.Order = &o
	case market.BuyOrderFilledEvent:
		o := NewOrder(e.Order())
		out.Order = &o
		out.Fill = &OrderFill{Seller: NewPlayer(market.Player{ID: e.Seller(), Name: e.SellerName()}), Amount: e.Amount(),
			UnitPrice: Money(e.UnitPrice()), Price: Money(e.Price()), TransactionID: e.TransactionID()}
		if id := e.ListingID(); id != 0 {
			left := e.ListingLeft()
			out.Fill.ListingID, out.Fill.ListingLeft = &id, &left
		}
	case market.BuyOrderClosedEvent:
		o := NewOrder(e.Order())
		out.Order, out.Reason, out.Refund = &o, e.Reason(), Money(e.Refund())
	default:
		return false
	}
	return true
}

package market

import (
	"github.com/google/uuid"
	"github.com/rynek/rynek/market/internal/record"
)

// BuyOrderPlacedEvent is published after PlaceOrder, before the order's
// first fills.
type BuyOrderPlacedEvent struct {
	eventBase
	order Order
}

// EventName returns "BuyOrderPlacedEvent".
func (BuyOrderPlacedEvent) EventName() string { return "BuyOrderPlacedEvent" }

func (e BuyOrderPlacedEvent) clone() Event { return e }

// Order is the order as placed.
func (e BuyOrderPlacedEvent) Order() Order { return e.order }

// BuyOrderFilledEvent is published for each fill of an order: items
// bought from a listing, or sold into the order from a seller's inventory.
type BuyOrderFilledEvent struct {
	eventBase
	order       Order
	seller      person
	amount      int
	price       Money
	transaction uuid.UUID
	listing     int
	listingLeft int
}

// EventName returns "BuyOrderFilledEvent".
func (BuyOrderFilledEvent) EventName() string { return "BuyOrderFilledEvent" }

func (e BuyOrderFilledEvent) clone() Event { return e }

// Order is the order after the fill (closed "filled" when it was the last).
func (e BuyOrderFilledEvent) Order() Order { return e.order }

// Seller is who sold; SellerName their name.
func (e BuyOrderFilledEvent) Seller() uuid.UUID  { return e.seller.id }
func (e BuyOrderFilledEvent) SellerName() string { return e.seller.name }

// Amount is the items the fill bought.
func (e BuyOrderFilledEvent) Amount() int { return e.amount }

// Price is what the fill paid in all; UnitPrice is Price / Amount.
func (e BuyOrderFilledEvent) Price() float64     { return e.price.Float() }
func (e BuyOrderFilledEvent) UnitPrice() float64 { return e.price.Float() / float64(e.amount) }

// TransactionID is the purchase the fill was.
func (e BuyOrderFilledEvent) TransactionID() string { return e.transaction.String() }

// ListingID is the listing the fill bought from, 0 when the seller sold
// into the order from their inventory; ListingLeft the items the listing
// has left on sale (0: it is gone).
func (e BuyOrderFilledEvent) ListingID() int   { return e.listing }
func (e BuyOrderFilledEvent) ListingLeft() int { return e.listingLeft }

// BuyOrderClosedEvent is published when an order closes: filled,
// cancelled or expired.
type BuyOrderClosedEvent struct {
	eventBase
	order  Order
	refund Money
}

// EventName returns "BuyOrderClosedEvent".
func (BuyOrderClosedEvent) EventName() string { return "BuyOrderClosedEvent" }

func (e BuyOrderClosedEvent) clone() Event { return e }

// Order is the closed order.
func (e BuyOrderClosedEvent) Order() Order { return e.order }

// Reason is "filled", "cancelled" or "expired".
func (e BuyOrderClosedEvent) Reason() string { return e.order.State }

// Refund is the escrow that went back to the buyer.
func (e BuyOrderClosedEvent) Refund() float64 { return e.refund.Float() }

// decodeOrderEvent is the event of an order's log entry.
func decodeOrderEvent(base eventBase, row EventRow) (Event, error) {
	switch row.Kind {
	case KindOrderPlaced:
		e, err := record.DecodeOrderPlaced(row.Body)
		if err != nil {
			return nil, err
		}
		return BuyOrderPlacedEvent{eventBase: base, order: storedOrder(&e.Order, e.BuyerName)}, nil
	case KindOrderFilled:
		e, err := record.DecodeOrderFilled(row.Body)
		if err != nil {
			return nil, err
		}
		return BuyOrderFilledEvent{eventBase: base, order: storedOrder(&e.Order, e.BuyerName), seller: person{e.Seller, e.SellerName},
			amount: int(e.Amount), price: Money(e.Price), transaction: e.Transaction, listing: int(e.Listing),
			listingLeft: int(e.ListingLeft)}, nil
	default:
		e, err := record.DecodeOrderClosed(row.Body)
		if err != nil {
			return nil, err
		}
		return BuyOrderClosedEvent{eventBase: base, order: storedOrder(&e.Order, e.BuyerName), refund: Money(e.Refund)}, nil
	}
}

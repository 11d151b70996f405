package record

import (
	"encoding/binary"

	"github.com/google/uuid"

	"github.com/rynek/rynek/market/internal/item"
)

// Order is a buy order as its record holds it: a player's wish to buy
// Amount items of a material at up to Limit cents each, with the money it
// may still spend held in Escrow. ID is the store's key, not part of the
// record (the log's entries carry it beside the record), as with a listing.
type Order struct {
	ID       uint32
	Buyer    uuid.UUID
	Material uint16
	Amount   uint32 // items wanted in all
	Filled   uint32 // items bought so far, below Amount while the order rests
	Limit    int64  // cents: the most the order pays for one item
	// Escrow is the money the order holds: what it was placed with less
	// what its fills paid. It is never below Limit × (Amount - Filled),
	// because no fill pays more than Limit an item.
	Escrow  int64
	Fee     int64 // the placement fee paid, which no cancellation returns
	Created int64 // unix ms
	Expires int64 // unix ms
	// State is OrderStateOpen while the order rests, else why it closed; a
	// closed order holds no escrow (it went back to the buyer) and says
	// when it closed. Closed orders stay, as finished transactions do.
	State  uint8
	Closed int64 // unix ms, 0 while open
}

// The states of an order (Order.State), named by OrderStateNames; the closed
// ones' names are the reasons BuyOrderClosedEvent publishes.
const (
	OrderStateOpen uint8 = iota
	OrderStateFilled
	OrderStateCancelled
	OrderStateExpired
	orderStateCount
)

// OrderStateNames names the states, by index.
var OrderStateNames = [...]string{"open", "filled", "cancelled", "expired"}

// Remaining is how many items the order still buys.
func (o *Order) Remaining() uint32 { return o.Amount - o.Filled }

// EncodeOrder appends o's record, version 1:
//
//	byte     version
//	[16]     buyer
//	uvarint  material, amount, filled
//	varint   limit, escrow, fee (cents), created, expires (unix ms)
//	byte     state
//	varint   closed (unix ms), only when the state is not open
func EncodeOrder(dst []byte, o *Order) []byte {
	dst = append(dst, Version)
	dst = append(dst, o.Buyer[:]...)
	dst = binary.AppendUvarint(dst, uint64(o.Material))
	dst = binary.AppendUvarint(dst, uint64(o.Amount))
	dst = binary.AppendUvarint(dst, uint64(o.Filled))
	for _, v := range [...]int64{o.Limit, o.Escrow, o.Fee, o.Created, o.Expires} {
		dst = binary.AppendVarint(dst, v)
	}
	dst = append(dst, o.State)
	if o.State != OrderStateOpen {
		dst = binary.AppendVarint(dst, o.Closed)
	}
	return dst
}

// DecodeOrder reads an order record. It accepts exactly what EncodeOrder
// writes, of a sound order: an open one wants some items still, at a
// positive limit, with escrow enough for them; a closed one holds no
// escrow, and is filled exactly when every item was bought.
func DecodeOrder(b []byte) (Order, error) {
	r := item.Reader{B: b}
	if r.Byte() != Version {
		return Order{}, item.ErrMalformed
	}
	o, err := readOrder(&r)
	if err != nil || len(r.B) != 0 {
		return Order{}, item.ErrMalformed
	}
	return o, nil
}

// readOrder reads the record's fields after the version byte.
func readOrder(r *item.Reader) (Order, error) {
	var o Order
	r.Fixed(o.Buyer[:])
	mat, amount, filled := r.Uvarint(), r.Uvarint(), r.Uvarint()
	o.Limit, o.Escrow, o.Fee, o.Created, o.Expires = r.Varint(), r.Varint(), r.Varint(), r.Varint(), r.Varint()
	if r.Err != nil || mat == 0 || mat > 0xFFFF || amount == 0 || amount > MaxOrderAmount || filled > amount {
		return Order{}, item.ErrMalformed
	}
	o.Material, o.Amount, o.Filled = uint16(mat), uint32(amount), uint32(filled)
	if o.State = r.Byte(); o.State != OrderStateOpen {
		o.Closed = r.Varint()
	}
	open := o.State == OrderStateOpen
	if r.Err != nil || o.Buyer == uuid.Nil || o.Limit <= 0 || o.Fee < 0 || o.State >= orderStateCount ||
		open && (o.Filled == o.Amount || o.Escrow < o.Limit*int64(o.Remaining())) ||
		!open && (o.Escrow != 0 || (o.State == OrderStateFilled) != (o.Filled == o.Amount)) {
		return Order{}, item.ErrMalformed
	}
	return o, nil
}

// MaxOrderAmount bounds the items one order may want: far above any
// rules' maximum (36 stacks of 64 by default), so that the decoder only
// refuses what no market wrote.
const MaxOrderAmount = 1 << 20

// OrderPlaced records a placed order: its record, with its ID, and the
// buyer's name as it was.
type OrderPlaced struct {
	Order     Order
	BuyerName string
}

// EncodeOrderPlaced appends e's body.
func EncodeOrderPlaced(dst []byte, e *OrderPlaced) []byte {
	dst = append(dst, EntryVersion)
	dst = binary.AppendUvarint(dst, uint64(e.Order.ID))
	dst = item.AppendString(dst, e.BuyerName)
	return EncodeOrder(dst, &e.Order)
}

// DecodeOrderPlaced reads a body EncodeOrderPlaced wrote.
func DecodeOrderPlaced(b []byte) (OrderPlaced, error) {
	r := entryReader(b)
	id := r.ListingID()
	name := r.Bytes(256)
	o, err := readOrderOf(id, &r)
	if err != nil || len(r.B) != 0 {
		return OrderPlaced{}, item.ErrMalformed
	}
	return OrderPlaced{Order: o, BuyerName: string(name)}, nil
}

// readOrderOf reads a whole record with its version byte, as the order
// with id.
func readOrderOf(id uint32, r *item.Reader) (Order, error) {
	if r.Byte() != Version || id == 0 {
		return Order{}, item.ErrMalformed
	}
	o, err := readOrder(r)
	o.ID = id
	return o, err
}

// OrderFilled records a fill of an order: Amount items bought from Seller
// for Price cents in all through the purchase Transaction, from the listing
// Listing (which has ListingLeft items left on sale after it) or, when
// Listing is 0, sold into the order from the seller's inventory. Order is
// the order after the fill (Filled counts it); a fill that completes the
// order is followed by an OrderClosed entry.
type OrderFilled struct {
	Order       Order
	BuyerName   string
	Seller      uuid.UUID
	SellerName  string
	Amount      uint32
	Price       int64
	Transaction uuid.UUID
	Listing     uint32
	ListingLeft uint32
}

// EncodeOrderFilled appends e's body.
func EncodeOrderFilled(dst []byte, e *OrderFilled) []byte {
	dst = append(dst, EntryVersion)
	dst = binary.AppendUvarint(dst, uint64(e.Order.ID))
	dst = item.AppendString(dst, e.BuyerName)
	dst = append(dst, e.Seller[:]...)
	dst = item.AppendString(dst, e.SellerName)
	dst = binary.AppendUvarint(dst, uint64(e.Amount))
	dst = binary.AppendVarint(dst, e.Price)
	dst = append(dst, e.Transaction[:]...)
	dst = binary.AppendUvarint(dst, uint64(e.Listing))
	dst = binary.AppendUvarint(dst, uint64(e.ListingLeft))
	return EncodeOrder(dst, &e.Order)
}

// DecodeOrderFilled reads a body EncodeOrderFilled wrote.
func DecodeOrderFilled(b []byte) (OrderFilled, error) {
	r := entryReader(b)
	var e OrderFilled
	id := r.ListingID()
	e.BuyerName = string(r.Bytes(256))
	e.Seller = r.UUID()
	e.SellerName = string(r.Bytes(256))
	amount := r.Uvarint()
	e.Price = r.Varint()
	e.Transaction = r.UUID()
	listing := r.Uvarint()
	left := r.Uvarint()
	o, err := readOrderOf(id, &r)
	if err != nil || len(r.B) != 0 || amount == 0 || amount > uint64(o.Filled) || listing > 1<<31-1 ||
		left > 0xFF || e.Price <= 0 || e.Seller == uuid.Nil || e.Transaction == uuid.Nil || listing == 0 && left != 0 {
		return OrderFilled{}, item.ErrMalformed
	}
	e.Order, e.Amount, e.Listing, e.ListingLeft = o, uint32(amount), uint32(listing), uint32(left)
	return e, nil
}

// OrderClosed records an order that closed: the order as it is now
// (closed, its State saying why), with Refund cents of escrow back to the
// buyer.
type OrderClosed struct {
	Order     Order
	BuyerName string
	Refund    int64
}

// EncodeOrderClosed appends e's body.
func EncodeOrderClosed(dst []byte, e *OrderClosed) []byte {
	dst = append(dst, EntryVersion)
	dst = binary.AppendUvarint(dst, uint64(e.Order.ID))
	dst = item.AppendString(dst, e.BuyerName)
	dst = binary.AppendVarint(dst, e.Refund)
	return EncodeOrder(dst, &e.Order)
}

// DecodeOrderClosed reads a body EncodeOrderClosed wrote.
func DecodeOrderClosed(b []byte) (OrderClosed, error) {
	r := entryReader(b)
	var e OrderClosed
	id := r.ListingID()
	e.BuyerName = string(r.Bytes(256))
	e.Refund = r.Varint()
	o, err := readOrderOf(id, &r)
	if err != nil || len(r.B) != 0 || e.Refund < 0 || o.State == OrderStateOpen {
		return OrderClosed{}, item.ErrMalformed
	}
	e.Order = o
	return e, nil
}

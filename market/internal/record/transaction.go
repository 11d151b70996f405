package record

import (
	"encoding/binary"
	"slices"

	"github.com/google/uuid"

	"github.com/rynek/rynek/market/internal/item"
)

// StateCount is the number of transaction states (market.States()); a
// state is stored as its index, below StateCount.
const StateCount = 8

// Timeline is the compact state history of a transaction, oldest first.
type Timeline []Stamp

// Stamp is one entry of a timeline: a state and when it was entered.
type Stamp struct {
	State uint8 // index into market.States()
	At    int64 // unix ms
}

// EncodeTimeline appends tl: per stamp, the state byte and a varint time.
func EncodeTimeline(dst []byte, tl Timeline) []byte {
	for _, s := range tl {
		dst = append(dst, s.State)
		dst = binary.AppendVarint(dst, s.At)
	}
	return dst
}

// DecodeTimeline accepts exactly what EncodeTimeline writes.
func DecodeTimeline(b []byte) (Timeline, error) {
	var tl Timeline
	r := item.Reader{B: b}
	for len(r.B) > 0 {
		st := r.Byte()
		at := r.Varint()
		if r.Err != nil || int(st) >= StateCount {
			return nil, item.ErrMalformed
		}
		tl = append(tl, Stamp{State: st, At: at})
	}
	return tl, nil
}

// Transaction is a transaction as its record holds it. ID and the state are
// the store's columns, not part of the record: the state is the last stamp
// of the timeline the record was written with.
type Transaction struct {
	Listing   uint32
	Buyer     uuid.UUID
	Seller    uuid.UUID
	Price     int64 // cents, > 0
	Fee       int64 // 0..Price
	Net       int64 // Price - Fee, what the seller gets
	ErrCode   string
	ToMailbox bool  // the item was delivered to the buyer's mailbox
	Rating    uint8 // the buyer's stars, 1-5; 0 not rated
	// Auction: the purchase ends an auction (its settlement with the
	// winner, or a buy-now). Escrowed: the price was held by the auction's
	// or the buy order's escrow, not taken from the buyer's balance (the
	// settlement, a fill).
	Auction, Escrowed bool
	// Order is the buy order that made the purchase (a fill), 0 for none.
	Order    uint32
	Timeline Timeline
	Item     item.Item
}

// EncodeTransaction appends t's record, version 1 (the state is a column of
// its own, for the store's conditional updates):
//
//	byte     version
//	uvarint  listing id
//	[16][16] buyer, seller
//	varint   price, fee, net (cents)
//	str      error code
//	byte     flags: bit 0 delivered to the mailbox, bits 1-3 the rating,
//	         bit 4 the price came from an escrow, bit 5 the purchase ends
//	         an auction, bit 6 a buy order made it
//	uvarint  the buy order, only with bit 6
//	str      timeline (EncodeTimeline)
//	...      item blob (the rest)
func EncodeTransaction(dst []byte, t *Transaction) []byte {
	dst = slices.Grow(dst, recordRoom)
	dst = append(dst, Version)
	dst = binary.AppendUvarint(dst, uint64(t.Listing))
	dst = append(dst, t.Buyer[:]...)
	dst = append(dst, t.Seller[:]...)
	dst = binary.AppendVarint(dst, t.Price)
	dst = binary.AppendVarint(dst, t.Fee)
	dst = binary.AppendVarint(dst, t.Net)
	dst = item.AppendString(dst, t.ErrCode)
	// One byte of flags: bit 0 the delivery to the mailbox, bits 1-3 the
	// buyer's rating (0 none, 1-5), which records from before ratings
	// leave 0.
	flags := t.Rating << 1
	if t.ToMailbox {
		flags |= 1
	}
	if t.Escrowed {
		flags |= 1 << 4
	}
	if t.Auction {
		flags |= 1 << 5
	}
	if t.Order != 0 {
		flags |= 1 << 6
	}
	dst = append(dst, flags)
	if t.Order != 0 {
		dst = binary.AppendUvarint(dst, uint64(t.Order))
	}
	var buf [8 * 12]byte
	dst = item.AppendString(dst, EncodeTimeline(buf[:0], t.Timeline))
	return item.Encode(dst, t.Item)
}

// DecodeTransaction reads a transaction record. It accepts exactly what
// EncodeTransaction writes, with a timeline of at least one stamp.
func DecodeTransaction(b []byte) (Transaction, error) {
	var t Transaction
	r := item.Reader{B: b}
	if r.Byte() != Version {
		return Transaction{}, item.ErrMalformed
	}
	t.Listing = r.ListingID()
	r.Fixed(t.Buyer[:])
	r.Fixed(t.Seller[:])
	t.Price, t.Fee, t.Net = r.Varint(), r.Varint(), r.Varint()
	code := r.Bytes(256)
	flags := r.Byte()
	if flags&(1<<6) != 0 {
		t.Order = r.ListingID()
	}
	tlb := r.Bytes(1024)
	// An escrow pays for an auction's end or an order's fill, and never
	// for both: an auction is no commodity an order buys.
	auction, order := flags&(1<<5) != 0, flags&(1<<6) != 0
	if r.Err != nil || flags>>1&7 > 5 || flags>>7 != 0 || flags&(1<<4) != 0 && !auction && !order || auction && order ||
		order && (flags&(1<<4) == 0 || t.Order == 0) {
		return Transaction{}, item.ErrMalformed
	}
	if t.Price <= 0 || t.Fee < 0 || t.Fee > t.Price || t.Net != t.Price-t.Fee {
		return Transaction{}, item.ErrMalformed // no sale is free, and the seller gets the price less the fee
	}
	tl, err := DecodeTimeline(tlb)
	if err != nil || len(tl) == 0 {
		return Transaction{}, item.ErrMalformed
	}
	it, err := item.Decode(r.B)
	if err != nil {
		return Transaction{}, err
	}
	t.ErrCode, t.ToMailbox, t.Rating, t.Timeline, t.Item = string(code), flags&1 == 1, flags>>1&7, tl, it
	t.Escrowed, t.Auction = flags&(1<<4) != 0, flags&(1<<5) != 0
	return t, nil
}

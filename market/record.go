package market

import (
	"encoding/binary"

	"github.com/google/uuid"
	"github.com/rynek/rynek/market/internal/item"
)

// Listing and transaction records are encoded here, not spread over SQL
// columns: the store keeps a listing as (id, record) and a transaction as
// (id, state, record). Reading a row costs per column (the driver locks
// around every column access), so a million listings load several times
// faster from two columns than from seven; and the service never queries
// listings with SQL, it reads them from memory.

const recordVersion = 1

// Listing record, version 1:
//
//	byte     version
//	[16]     seller
//	varint   price (cents), created, expires (unix ms)
//	byte     1 if reserved, then [16] transaction id
//	...      item blob (the rest)
func encodeListing(dst []byte, seller uuid.UUID, r *listingRecord) []byte {
	dst = append(dst, recordVersion)
	dst = append(dst, seller[:]...)
	dst = binary.AppendVarint(dst, int64(r.price))
	dst = binary.AppendVarint(dst, r.created)
	dst = binary.AppendVarint(dst, r.expires)
	// Flags: bit 0 a reservation follows, bit 1 the listing fee paid (for
	// its refund when the listing leaves unsold); records from before the
	// fee have neither bit 1 nor the fee.
	var flags byte
	if r.reserved != uuid.Nil {
		flags |= 1
	}
	if r.fee > 0 {
		flags |= 2
	}
	dst = append(dst, flags)
	if r.reserved != uuid.Nil {
		dst = append(dst, r.reserved[:]...)
	}
	if r.fee > 0 {
		dst = binary.AppendVarint(dst, int64(r.fee))
	}
	return item.Encode(dst, r.it)
}

// decodeListing fills r (all but id and seller index) and returns the seller.
// It accepts exactly what encodeListing writes.
func decodeListing(b []byte, r *listingRecord) (uuid.UUID, error) {
	var seller uuid.UUID
	rd := item.Reader{B: b}
	if rd.Byte() != recordVersion {
		return seller, item.ErrMalformed
	}
	rd.Fixed(seller[:])
	price, created, expires := rd.Varint(), rd.Varint(), rd.Varint()
	var reserved uuid.UUID
	var fee int64
	flags := rd.Byte()
	if flags > 3 {
		return seller, item.ErrMalformed
	}
	if flags&1 != 0 {
		rd.Fixed(reserved[:])
		if reserved == uuid.Nil {
			return seller, item.ErrMalformed // encodeListing writes no reservation for that
		}
	}
	if flags&2 != 0 {
		if fee = rd.Varint(); fee <= 0 {
			return seller, item.ErrMalformed // encodeListing writes no fee for that
		}
	}
	if rd.Err != nil || price <= 0 || fee > price {
		return seller, item.ErrMalformed
	}
	it, err := item.Decode(rd.B)
	if err != nil {
		return seller, err
	}
	r.price, r.created, r.expires, r.reserved, r.it, r.fee = Money(price), created, expires, reserved, it, Money(fee)
	return seller, nil
}

// listingRow is r as the store keeps it.
func (s *Service) listingRow(r *listingRecord) *ListingRow {
	return &ListingRow{ID: int64(r.id), Rec: encodeListing(nil, s.players[r.seller].id, r)}
}

// Transaction record, version 1 (the state is a column of its own, for the
// store's conditional updates):
//
//	byte     version
//	uvarint  listing id
//	[16][16] buyer, seller
//	varint   price, fee, net (cents)
//	str      error code
//	byte     1 if delivered to the mailbox
//	str      timeline (encodeTimeline)
//	...      item blob (the rest)
func encodeTx(dst []byte, buyer, seller uuid.UUID, t *transactionRecord, tl timeline, errCode string, toMailbox bool) []byte {
	dst = append(dst, recordVersion)
	dst = binary.AppendUvarint(dst, uint64(t.listing))
	dst = append(dst, buyer[:]...)
	dst = append(dst, seller[:]...)
	dst = binary.AppendVarint(dst, int64(t.price))
	dst = binary.AppendVarint(dst, int64(t.fee))
	dst = binary.AppendVarint(dst, int64(t.net))
	dst = item.AppendString(dst, errCode)
	// One byte of flags: bit 0 the delivery to the mailbox, bits 1-3 the
	// buyer's rating (0 none, 1-5), which records from before ratings
	// leave 0.
	flags := t.rating << 1
	if toMailbox {
		flags |= 1
	}
	dst = append(dst, flags)
	var buf [8 * 12]byte
	dst = item.AppendString(dst, string(encodeTimeline(buf[:0], tl)))
	return item.Encode(dst, t.it)
}

// decodeTx fills t (all but id, state and player indexes) and returns the
// buyer and seller. It accepts exactly what encodeTx writes.
func decodeTx(b []byte, t *transactionRecord) (buyer, seller uuid.UUID, err error) {
	r := item.Reader{B: b}
	if r.Byte() != recordVersion {
		return buyer, seller, item.ErrMalformed
	}
	lid := r.ListingID()
	r.Fixed(buyer[:])
	r.Fixed(seller[:])
	price, fee, net := r.Varint(), r.Varint(), r.Varint()
	code := r.Bytes(256)
	flags := r.Byte()
	tlb := r.Bytes(1024)
	if r.Err != nil || flags>>1 > 5 {
		return buyer, seller, item.ErrMalformed
	}
	if price <= 0 || fee < 0 || fee > price || net != price-fee {
		return buyer, seller, item.ErrMalformed // no sale is free, and the seller gets the price less the fee
	}
	tl, err := decodeTimeline(tlb)
	if err != nil || len(tl) == 0 {
		return buyer, seller, item.ErrMalformed
	}
	it, err := item.Decode(r.B)
	if err != nil {
		return buyer, seller, err
	}
	t.listing, t.price, t.fee, t.net = lid, Money(price), Money(fee), Money(net)
	t.errCode, t.toMailbox, t.rating, t.tl, t.it = string(code), flags&1 == 1, flags>>1, tl, it
	t.created = tl[0].at
	return buyer, seller, nil
}

// txRow is t as the store keeps it, in state st with timeline tl.
func (s *Service) txRow(t *transactionRecord, st State, tl timeline, errCode string, toMailbox bool) *TxRow {
	return &TxRow{ID: t.id, State: st,
		Rec: encodeTx(nil, s.players[t.buyer].id, s.players[t.seller].id, t, tl, errCode, toMailbox)}
}

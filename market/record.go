package market

import (
	"encoding/binary"

	"github.com/google/uuid"
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
	return encodeItem(dst, r.it)
}

// decodeListing fills r (all but id and seller index) and returns the seller.
// It accepts exactly what encodeListing writes.
func decodeListing(b []byte, r *listingRecord) (uuid.UUID, error) {
	var seller uuid.UUID
	rd := blobReader{b: b}
	if rd.byte() != recordVersion {
		return seller, errBlob
	}
	rd.fixed(seller[:])
	price, created, expires := rd.varint(), rd.varint(), rd.varint()
	var reserved uuid.UUID
	var fee int64
	flags := rd.byte()
	if flags > 3 {
		return seller, errBlob
	}
	if flags&1 != 0 {
		rd.fixed(reserved[:])
		if reserved == uuid.Nil {
			return seller, errBlob // encodeListing writes no reservation for that
		}
	}
	if flags&2 != 0 {
		if fee = rd.varint(); fee <= 0 {
			return seller, errBlob // encodeListing writes no fee for that
		}
	}
	if rd.err != nil || price <= 0 || fee > price {
		return seller, errBlob
	}
	it, err := decodeItem(rd.b)
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
	dst = appendStr(dst, errCode)
	// One byte of flags: bit 0 the delivery to the mailbox, bits 1-3 the
	// buyer's rating (0 none, 1-5), which records from before ratings
	// leave 0.
	flags := t.rating << 1
	if toMailbox {
		flags |= 1
	}
	dst = append(dst, flags)
	var buf [8 * 12]byte
	dst = appendStr(dst, string(encodeTimeline(buf[:0], tl)))
	return encodeItem(dst, t.it)
}

// decodeTx fills t (all but id, state and player indexes) and returns the
// buyer and seller. It accepts exactly what encodeTx writes.
func decodeTx(b []byte, t *transactionRecord) (buyer, seller uuid.UUID, err error) {
	r := blobReader{b: b}
	if r.byte() != recordVersion {
		return buyer, seller, errBlob
	}
	lid := r.listingID()
	r.fixed(buyer[:])
	r.fixed(seller[:])
	price, fee, net := r.varint(), r.varint(), r.varint()
	code := r.bytes(256)
	flags := r.byte()
	tlb := r.bytes(1024)
	if r.err != nil || flags>>1 > 5 {
		return buyer, seller, errBlob
	}
	if price <= 0 || fee < 0 || fee > price || net != price-fee {
		return buyer, seller, errBlob // no sale is free, and the seller gets the price less the fee
	}
	tl, err := decodeTimeline(tlb)
	if err != nil || len(tl) == 0 {
		return buyer, seller, errBlob
	}
	it, err := decodeItem(r.b)
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

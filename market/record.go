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
	if r.reserved != uuid.Nil {
		dst = append(dst, 1)
		dst = append(dst, r.reserved[:]...)
	} else {
		dst = append(dst, 0)
	}
	return encodeItem(dst, r.it)
}

// decodeListing fills r (all but id and seller index) and returns the seller.
func decodeListing(b []byte, r *listingRecord) (uuid.UUID, error) {
	var seller uuid.UUID
	if len(b) < 17 || b[0] != recordVersion {
		return seller, errBlob
	}
	copy(seller[:], b[1:17])
	b = b[17:]
	vals := [3]int64{}
	for i := range vals {
		v, n := binary.Varint(b)
		if n <= 0 {
			return seller, errBlob
		}
		vals[i] = v
		b = b[n:]
	}
	r.price, r.created, r.expires = Money(vals[0]), vals[1], vals[2]
	if len(b) < 1 {
		return seller, errBlob
	}
	if b[0] == 1 {
		if len(b) < 17 {
			return seller, errBlob
		}
		copy(r.reserved[:], b[1:17])
		b = b[17:]
	} else if b[0] == 0 {
		b = b[1:]
	} else {
		return seller, errBlob
	}
	it, err := decodeItem(b)
	if err != nil {
		return seller, err
	}
	if r.price <= 0 {
		return seller, errBlob
	}
	r.it = it
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
	if toMailbox {
		dst = append(dst, 1)
	} else {
		dst = append(dst, 0)
	}
	var buf [8 * 12]byte
	dst = appendStr(dst, string(encodeTimeline(buf[:0], tl)))
	return encodeItem(dst, t.it)
}

// decodeTx fills t (all but id, state and player indexes) and returns the
// buyer and seller.
func decodeTx(b []byte, t *transactionRecord) (buyer, seller uuid.UUID, err error) {
	if len(b) < 1 || b[0] != recordVersion {
		return buyer, seller, errBlob
	}
	r := blobReader{b: b[1:]}
	lid := r.uvarint()
	if r.err != nil || len(r.b) < 32 || lid > 1<<31-1 {
		return buyer, seller, errBlob
	}
	copy(buyer[:], r.b[:16])
	copy(seller[:], r.b[16:32])
	r.b = r.b[32:]
	var money [3]int64
	for i := range money {
		v, n := binary.Varint(r.b)
		if n <= 0 {
			return buyer, seller, errBlob
		}
		money[i] = v
		r.b = r.b[n:]
	}
	code := r.bytes(256)
	if r.err != nil || len(r.b) < 1 || r.b[0] > 1 {
		return buyer, seller, errBlob
	}
	t.toMailbox = r.b[0] == 1
	r.b = r.b[1:]
	tlb := r.bytes(1024)
	if r.err != nil {
		return buyer, seller, errBlob
	}
	tl, err := decodeTimeline(tlb)
	if err != nil || len(tl) == 0 {
		return buyer, seller, errBlob
	}
	it, err := decodeItem(r.b)
	if err != nil {
		return buyer, seller, err
	}
	t.listing, t.price, t.fee, t.net = uint32(lid), Money(money[0]), Money(money[1]), Money(money[2])
	t.errCode, t.tl, t.it = string(code), tl, it
	return buyer, seller, nil
}

// txRow is t as the store keeps it, in state st with timeline tl.
func (s *Service) txRow(t *transactionRecord, st State, tl timeline, errCode string, toMailbox bool) *TxRow {
	return &TxRow{ID: t.id, State: st,
		Rec: encodeTx(nil, s.players[t.buyer].id, s.players[t.seller].id, t, tl, errCode, toMailbox)}
}

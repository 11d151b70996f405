package record

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

// Listing is a listing as its record holds it. ID is the store's key, not
// part of the record: EncodeListing does not write it and DecodeListing
// leaves it 0 (the log's entries carry it beside the record).
type Listing struct {
	ID       uint32
	Seller   uuid.UUID
	Price    int64 // cents, > 0
	Fee      int64 // the listing fee paid, 0..Price
	Created  int64 // unix ms
	Expires  int64 // unix ms
	Reserved uuid.UUID
	Item     item.Item
}

// EncodeListing appends l's record, version 1:
//
//	byte     version
//	[16]     seller
//	varint   price (cents), created, expires (unix ms)
//	byte     flags: bit 0 a reservation follows, bit 1 a fee follows
//	[16]     the reserving transaction's id, if flagged
//	varint   the listing fee (cents), if flagged
//	...      item blob (the rest)
func EncodeListing(dst []byte, l *Listing) []byte {
	dst = append(dst, Version)
	dst = append(dst, l.Seller[:]...)
	dst = binary.AppendVarint(dst, l.Price)
	dst = binary.AppendVarint(dst, l.Created)
	dst = binary.AppendVarint(dst, l.Expires)
	// Flags: bit 0 a reservation follows, bit 1 the listing fee paid (for
	// its refund when the listing leaves unsold); records from before the
	// fee have neither bit 1 nor the fee.
	var flags byte
	if l.Reserved != uuid.Nil {
		flags |= 1
	}
	if l.Fee > 0 {
		flags |= 2
	}
	dst = append(dst, flags)
	if l.Reserved != uuid.Nil {
		dst = append(dst, l.Reserved[:]...)
	}
	if l.Fee > 0 {
		dst = binary.AppendVarint(dst, l.Fee)
	}
	return item.Encode(dst, l.Item)
}

// DecodeListing reads a listing record (all but its ID). It accepts exactly
// what EncodeListing writes.
func DecodeListing(b []byte) (Listing, error) {
	var l Listing
	rd := item.Reader{B: b}
	if rd.Byte() != Version {
		return Listing{}, item.ErrMalformed
	}
	rd.Fixed(l.Seller[:])
	l.Price, l.Created, l.Expires = rd.Varint(), rd.Varint(), rd.Varint()
	flags := rd.Byte()
	if flags > 3 {
		return Listing{}, item.ErrMalformed
	}
	if flags&1 != 0 {
		rd.Fixed(l.Reserved[:])
		if l.Reserved == uuid.Nil {
			return Listing{}, item.ErrMalformed // EncodeListing writes no reservation for that
		}
	}
	if flags&2 != 0 {
		if l.Fee = rd.Varint(); l.Fee <= 0 {
			return Listing{}, item.ErrMalformed // EncodeListing writes no fee for that
		}
	}
	if rd.Err != nil || l.Price <= 0 || l.Fee > l.Price {
		return Listing{}, item.ErrMalformed
	}
	it, err := item.Decode(rd.B)
	if err != nil {
		return Listing{}, err
	}
	l.Item = it
	return l, nil
}

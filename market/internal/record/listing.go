package record

import (
	"encoding/binary"
	"slices"

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
	// Auction is the bidding of a listing sold by auction, nil for a
	// fixed-price one. Price is then the starting bid and Expires the end.
	Auction *Auction
}

// Auction is what a listing sold by auction holds besides a fixed-price
// listing's fields: the increments and the anti-snipe window it was started
// under (a rules reload does not change a running auction), the buy-now
// price, and the leading bid, whose money the listing holds in escrow.
type Auction struct {
	BuyNow       int64 // cents; 0: none, else above the starting bid
	IncrementAbs int64 // cents a next bid adds at least
	IncrementBP  int64 // basis points of the leading bid a next bid adds at least
	AntiSnipe    int64 // ms: a bid closer than this to the end moves it to now + AntiSnipe
	Bids         int64 // bids placed; the leader and Bid are set from the first
	Leader       uuid.UUID
	Bid          int64 // cents, the leader's bid, held in escrow
	// History is the newest bids, oldest first, at most MaxBidHistory:
	// the last is the leader's. The record keeps it, not the leader and
	// the bid apart, which DecodeListing sets from it.
	History []Bid
}

// Bid is one bid of an auction's history.
type Bid struct {
	Bidder uuid.UUID
	Amount int64 // cents
	At     int64 // unix ms
}

// MaxBidHistory bounds the bids an auction's record keeps: a bidding war
// rewrites the record with every bid, so its size must not grow with it.
const MaxBidHistory = 100

// MaxIncrementBP bounds an auction's percent increment (1,000%), which
// keeps the next bid's arithmetic far from overflowing.
const MaxIncrementBP = 100_000

// EncodeListing appends l's record, version 1:
//
//	byte     version
//	[16]     seller
//	varint   price (cents), created, expires (unix ms)
//	byte     flags: bit 0 a reservation follows, bit 1 a fee follows,
//	         bit 2 an auction follows
//	[16]     the reserving transaction's id, if flagged
//	varint   the listing fee (cents), if flagged
//	varint   the auction's buy-now, increments, anti-snipe and bids,
//	uvarint  after a bid: the bids kept, then each bid's [16] bidder,
//	         varint amount and time, oldest first, if flagged
//	...      item blob (the rest)
func EncodeListing(dst []byte, l *Listing) []byte {
	dst = slices.Grow(dst, recordRoom)
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
	if l.Auction != nil {
		flags |= 4
	}
	dst = append(dst, flags)
	if l.Reserved != uuid.Nil {
		dst = append(dst, l.Reserved[:]...)
	}
	if l.Fee > 0 {
		dst = binary.AppendVarint(dst, l.Fee)
	}
	if a := l.Auction; a != nil {
		dst = binary.AppendVarint(dst, a.BuyNow)
		dst = binary.AppendVarint(dst, a.IncrementAbs)
		dst = binary.AppendVarint(dst, a.IncrementBP)
		dst = binary.AppendVarint(dst, a.AntiSnipe)
		dst = binary.AppendVarint(dst, a.Bids)
		if a.Bids > 0 {
			dst = binary.AppendUvarint(dst, uint64(len(a.History)))
			for _, b := range a.History {
				dst = append(dst, b.Bidder[:]...)
				dst = binary.AppendVarint(dst, b.Amount)
				dst = binary.AppendVarint(dst, b.At)
			}
		}
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
	if flags > 7 {
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
	if flags&4 != 0 {
		a := &Auction{BuyNow: rd.Varint(), IncrementAbs: rd.Varint(), IncrementBP: rd.Varint(), AntiSnipe: rd.Varint(), Bids: rd.Varint()}
		if a.Bids > 0 {
			n := rd.Uvarint()
			if n != uint64(min(a.Bids, MaxBidHistory)) {
				return Listing{}, item.ErrMalformed // the newest bids, as many as kept
			}
			a.History = make([]Bid, n)
			for i := range a.History {
				b := &a.History[i]
				rd.Fixed(b.Bidder[:])
				b.Amount, b.At = rd.Varint(), rd.Varint()
			}
			if rd.Err == nil {
				last := a.History[n-1]
				a.Leader, a.Bid = last.Bidder, last.Amount
			}
		}
		if !a.sound(l.Price) {
			return Listing{}, item.ErrMalformed
		}
		l.Auction = a
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

// sound reports whether a is an auction EncodeListing writes, starting at
// startingBid: a buy-now above the starting bid or none, increments and the
// anti-snipe window not negative, and a leader with a bid of at least the
// starting bid exactly when there were bids.
func (a *Auction) sound(startingBid int64) bool {
	switch {
	case a.BuyNow < 0 || a.BuyNow != 0 && a.BuyNow <= startingBid:
		return false
	case a.IncrementAbs < 0 || a.IncrementBP < 0 || a.IncrementBP > MaxIncrementBP || a.AntiSnipe < 0 || a.Bids < 0:
		return false
	case a.Bids == 0:
		return len(a.History) == 0
	}
	for i, b := range a.History {
		switch {
		case b.Bidder == uuid.Nil || b.Amount < startingBid:
			return false
		case i > 0 && b.Amount <= a.History[i-1].Amount:
			return false // each bid beats the one before (their times are each server's clock's, which may disagree)
		}
	}
	return a.Leader != uuid.Nil && a.Bid >= startingBid
}

// MinimumBid is the least the next bid on a may be, started at
// startingBid: the starting bid before the first bid, then the leading bid
// plus the larger of the absolute and the percent increment (the percent
// rounded up to a cent), and always at least a cent more.
func (a *Auction) MinimumBid(startingBid int64) int64 {
	if a.Bids == 0 {
		return startingBid
	}
	step := max(a.IncrementAbs, (a.Bid*a.IncrementBP+9_999)/10_000, 1)
	return a.Bid + step
}

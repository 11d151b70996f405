package record

import (
	"encoding/binary"
	"math"
	"slices"

	"github.com/google/uuid"

	"github.com/rynek/rynek/market/internal/item"
)

// The event log's entries, as the service writes them into each Batch.
//
// Every change of the market is one store transaction that holds its rows and
// the log entries that record it. The three contract events are entries of
// their own kind; the other kinds are internal changes that someone following
// the log needs to keep a copy of the market right (the expiry timer, saga
// steps, mailbox claims). Internal entries are never published as contract
// events: timer expiry, in particular, still publishes nothing.
//
// Each body starts with EntryVersion; the rest depends on the kind. Listing
// and transaction records inside a body are EncodeListing's and
// EncodeTransaction's. The decoders read what the log's readers need (the
// follower, the contract events, the check) and hold the rest to its form
// only as far as they read it.

// noSlot marks a destination that is the mailbox, not an inventory slot.
const noSlot = 0xFF

// A Destination is where an item went (or came back from): an inventory
// slot, or the mailbox entry with the given id.
type Destination struct {
	Slot int // -1: the mailbox
	Mail uuid.UUID
}

func appendDestination(dst []byte, d Destination) []byte {
	if d.Slot >= 0 {
		return append(dst, byte(d.Slot))
	}
	dst = append(dst, noSlot)
	return append(dst, d.Mail[:]...)
}

// readDestination reads what appendDestination wrote.
func readDestination(r *item.Reader) Destination {
	if r.Err != nil || len(r.B) < 1 {
		r.Err = item.ErrMalformed
		return Destination{}
	}
	slot := r.B[0]
	r.B = r.B[1:]
	switch {
	case slot == noSlot:
		return Destination{Slot: -1, Mail: r.UUID()}
	case int(slot) < item.InventorySize:
		return Destination{Slot: int(slot)}
	}
	r.Err = item.ErrMalformed
	return Destination{}
}

// entryReader is a reader of body b past its version byte; a body of
// another version leaves the reader failed.
func entryReader(b []byte) item.Reader {
	if len(b) < 1 || b[0] != EntryVersion {
		return item.Reader{Err: item.ErrMalformed}
	}
	return item.Reader{B: b[1:]}
}

// ListingCreated records a sell: the listing, where its stack came from
// (the seller's slot, and what was left in it) and the listing fee paid.
type ListingCreated struct {
	Listing    Listing // with its ID
	SellerName string
	Slot       int
	// Rest is what was left in the slot (Mat 0: nothing). No reader needs
	// it: DecodeListingCreated skips it and leaves Rest zero.
	Rest item.Item
	Fee  int64
}

// EncodeListingCreated appends e's body.
func EncodeListingCreated(dst []byte, e *ListingCreated) []byte {
	dst = slices.Grow(dst, entryRoom)
	dst = append(dst, EntryVersion)
	dst = binary.AppendUvarint(dst, uint64(e.Listing.ID))
	dst = item.AppendString(dst, e.SellerName)
	dst = append(dst, byte(e.Slot))
	var rest []byte
	if e.Rest.Mat != 0 {
		rest = item.Encode(nil, e.Rest)
	}
	dst = item.AppendString(dst, rest)
	dst = binary.AppendVarint(dst, e.Fee)
	return EncodeListing(dst, &e.Listing)
}

// DecodeListingCreated reads a body EncodeListingCreated wrote.
func DecodeListingCreated(b []byte) (ListingCreated, error) {
	var e ListingCreated
	r := entryReader(b)
	id := r.Uvarint()
	name := r.Bytes(256)
	e.Slot = int(r.Byte())
	r.Bytes(1 << 16) // what was left in the slot
	e.Fee = r.Varint()
	l, err := decodeListingOf(id, &r)
	if err != nil {
		return ListingCreated{}, err
	}
	e.Listing, e.SellerName = l, string(name)
	return e, nil
}

// ListingRemoved records a removal with a reason: the listing as it was
// and where its item went.
type ListingRemoved struct {
	Listing    Listing // with its ID
	SellerName string
	Reason     string
	To         Destination
}

// EncodeListingRemoved appends e's body.
func EncodeListingRemoved(dst []byte, e *ListingRemoved) []byte {
	dst = slices.Grow(dst, entryRoom)
	dst = append(dst, EntryVersion)
	dst = binary.AppendUvarint(dst, uint64(e.Listing.ID))
	dst = item.AppendString(dst, e.SellerName)
	dst = item.AppendString(dst, e.Reason)
	dst = appendDestination(dst, e.To)
	return EncodeListing(dst, &e.Listing)
}

// DecodeListingRemoved reads a body EncodeListingRemoved wrote.
func DecodeListingRemoved(b []byte) (ListingRemoved, error) {
	var e ListingRemoved
	r := entryReader(b)
	id := r.Uvarint()
	name := r.Bytes(256)
	reason := r.Bytes(64)
	e.To = readDestination(&r)
	l, err := decodeListingOf(id, &r)
	if err != nil {
		return ListingRemoved{}, err
	}
	e.Listing, e.SellerName, e.Reason = l, string(name), string(reason)
	return e, nil
}

// decodeListingOf reads the listing record that ends a listing entry, the
// listing with the given id.
func decodeListingOf(id uint64, r *item.Reader) (Listing, error) {
	if r.Err != nil || id == 0 || id > math.MaxInt32 {
		return Listing{}, item.ErrMalformed
	}
	l, err := DecodeListing(r.B)
	if err != nil {
		return Listing{}, err
	}
	l.ID = uint32(id)
	return l, nil
}

// ListingExpired records a removal by the expiry timer: the item went to
// the seller's mailbox entry Mail.
type ListingExpired struct {
	ID   uint32
	Mail uuid.UUID
}

// EncodeListingExpired appends e's body.
func EncodeListingExpired(dst []byte, e ListingExpired) []byte {
	dst = append(dst, EntryVersion)
	dst = binary.AppendUvarint(dst, uint64(e.ID))
	return append(dst, e.Mail[:]...)
}

// DecodeListingExpired reads a body EncodeListingExpired wrote.
func DecodeListingExpired(b []byte) (ListingExpired, error) {
	r := entryReader(b)
	e := ListingExpired{ID: r.ListingID(), Mail: r.UUID()}
	if r.Err != nil {
		return ListingExpired{}, r.Err
	}
	return e, nil
}

// BidPlaced records a bid: the auction's listing after it (its leader and
// leading bid are the bidder and the bid), and the leader it outbid with
// their bid, whose escrow went back to them (Previous uuid.Nil: none, the
// first bid or the leader raising their own).
type BidPlaced struct {
	Listing     Listing // with its ID and Auction
	SellerName  string
	BidderName  string
	Previous    uuid.UUID
	PrevName    string // the outbid leader's name
	PreviousBid int64
}

// EncodeBidPlaced appends e's body.
func EncodeBidPlaced(dst []byte, e *BidPlaced) []byte {
	dst = append(dst, EntryVersion)
	dst = binary.AppendUvarint(dst, uint64(e.Listing.ID))
	dst = item.AppendString(dst, e.SellerName)
	dst = item.AppendString(dst, e.BidderName)
	dst = append(dst, e.Previous[:]...)
	dst = item.AppendString(dst, e.PrevName)
	dst = binary.AppendVarint(dst, e.PreviousBid)
	return EncodeListing(dst, &e.Listing)
}

// DecodeBidPlaced reads a body EncodeBidPlaced wrote: of an auction with
// a leader, and an outbid leader with a bid exactly when one is named.
func DecodeBidPlaced(b []byte) (BidPlaced, error) {
	var e BidPlaced
	r := entryReader(b)
	id := r.Uvarint()
	seller := r.Bytes(256)
	bidder := r.Bytes(256)
	r.Fixed(e.Previous[:])
	prev := r.Bytes(256)
	e.PreviousBid = r.Varint()
	l, err := decodeListingOf(id, &r)
	if err != nil {
		return BidPlaced{}, err
	}
	if l.Auction == nil || l.Auction.Bids == 0 || (e.Previous == uuid.Nil) != (e.PreviousBid == 0) || e.PreviousBid < 0 ||
		e.Previous == uuid.Nil && len(prev) > 0 {
		return BidPlaced{}, item.ErrMalformed
	}
	e.Listing, e.SellerName, e.BidderName, e.PrevName = l, string(seller), string(bidder), string(prev)
	return e, nil
}

// AuctionEnded records an auction's end: sold to Winner at Price through
// Transaction, or, with no bid, its stack into the seller's mailbox entry
// Mail (the other fields zero).
type AuctionEnded struct {
	ID          uint32
	Winner      uuid.UUID
	WinnerName  string
	Price       int64
	Transaction uuid.UUID
	Mail        uuid.UUID
}

// EncodeAuctionEnded appends e's body.
func EncodeAuctionEnded(dst []byte, e AuctionEnded) []byte {
	dst = append(dst, EntryVersion)
	dst = binary.AppendUvarint(dst, uint64(e.ID))
	if e.Winner == uuid.Nil {
		dst = append(dst, 0)
		return append(dst, e.Mail[:]...)
	}
	dst = append(dst, 1)
	dst = append(dst, e.Winner[:]...)
	dst = item.AppendString(dst, e.WinnerName)
	dst = binary.AppendVarint(dst, e.Price)
	return append(dst, e.Transaction[:]...)
}

// DecodeAuctionEnded reads a body EncodeAuctionEnded wrote.
func DecodeAuctionEnded(b []byte) (AuctionEnded, error) {
	r := entryReader(b)
	e := AuctionEnded{ID: r.ListingID()}
	switch r.Byte() {
	case 0:
		e.Mail = r.UUID()
	case 1:
		e.Winner = r.UUID()
		e.WinnerName = string(r.Bytes(256))
		e.Price = r.Varint()
		e.Transaction = r.UUID()
		if e.Winner == uuid.Nil || e.Price <= 0 || e.Transaction == uuid.Nil {
			return AuctionEnded{}, item.ErrMalformed
		}
	default:
		return AuctionEnded{}, item.ErrMalformed
	}
	if r.Err != nil || len(r.B) != 0 {
		return AuctionEnded{}, item.ErrMalformed
	}
	return e, nil
}

// TransactionEntry records a transaction entering its state: the whole
// record in that state, with the names of both sides as they were. For a
// delivery (or its undoing) To says where the item went (or came back
// from), and a listing put back by a compensation is recorded whole.
type TransactionEntry struct {
	ID          uuid.UUID
	Transaction Transaction // its timeline ends in the entry's state
	State       uint8       // the timeline's last state; set by the decoder
	BuyerName   string
	SellerName  string
	To          *Destination
	// Restored is the listing a compensation put back, nil for none. Of
	// it DecodeTransactionEntry reads only the ID: the rows carry the rest.
	Restored *Listing
	// Refunded is the auction's leader whose bid went back to them with
	// this step (a buy-now's reservation), uuid.Nil for none: a follower
	// reads their row again.
	Refunded uuid.UUID
}

// EncodeTransactionEntry appends e's body.
func EncodeTransactionEntry(dst []byte, e *TransactionEntry) []byte {
	t := &e.Transaction
	dst = slices.Grow(dst, entryRoom)
	dst = append(dst, EntryVersion)
	dst = append(dst, e.ID[:]...)
	dst = append(dst, t.Timeline[len(t.Timeline)-1].State)
	dst = item.AppendString(dst, e.BuyerName)
	dst = item.AppendString(dst, e.SellerName)
	// One byte of flags: bit 0 a destination follows, bit 1 a refunded
	// leader (entries from before auctions have only bit 0).
	var flags byte
	if e.To != nil {
		flags |= 1
	}
	if e.Refunded != uuid.Nil {
		flags |= 2
	}
	dst = append(dst, flags)
	if e.To != nil {
		dst = appendDestination(dst, *e.To)
	}
	if e.Refunded != uuid.Nil {
		dst = append(dst, e.Refunded[:]...)
	}
	var rec []byte
	if e.Restored != nil {
		rec = binary.AppendUvarint(rec, uint64(e.Restored.ID))
		rec = EncodeListing(rec, e.Restored)
	}
	dst = item.AppendString(dst, rec)
	return EncodeTransaction(dst, t)
}

// DecodeTransactionEntry reads a body EncodeTransactionEntry wrote.
func DecodeTransactionEntry(b []byte) (TransactionEntry, error) {
	var e TransactionEntry
	r := entryReader(b)
	e.ID = r.UUID()
	if r.Err != nil || len(r.B) < 1 || int(r.B[0]) >= StateCount {
		return TransactionEntry{}, item.ErrMalformed
	}
	e.State = r.B[0]
	r.B = r.B[1:]
	buyerName := r.Bytes(256)
	sellerName := r.Bytes(256)
	if r.Err != nil || len(r.B) < 1 {
		return TransactionEntry{}, item.ErrMalformed
	}
	flags := r.B[0]
	r.B = r.B[1:]
	if flags > 3 {
		return TransactionEntry{}, item.ErrMalformed
	}
	if flags&1 != 0 {
		to := readDestination(&r)
		e.To = &to
	}
	if flags&2 != 0 {
		if e.Refunded = r.UUID(); e.Refunded == uuid.Nil {
			return TransactionEntry{}, item.ErrMalformed
		}
	}
	if back := r.Bytes(1 << 16); len(back) > 0 { // a listing put back: its id, then its record
		rb := item.Reader{B: back}
		id := rb.ListingID()
		if rb.Err != nil {
			return TransactionEntry{}, item.ErrMalformed
		}
		e.Restored = &Listing{ID: id}
	}
	if r.Err != nil {
		return TransactionEntry{}, item.ErrMalformed
	}
	t, err := DecodeTransaction(r.B)
	if err != nil {
		return TransactionEntry{}, err
	}
	e.Transaction, e.BuyerName, e.SellerName = t, string(buyerName), string(sellerName)
	return e, nil
}

// MailClaimed records mailbox entries moved into inventory slots.
type MailClaimed struct {
	Player uuid.UUID
	Moves  []MailMove
}

// MailMove is one claimed mailbox entry and the slot it went to.
type MailMove struct {
	Mail uuid.UUID
	Slot int
}

// EncodeMailClaimed appends e's body.
func EncodeMailClaimed(dst []byte, e *MailClaimed) []byte {
	dst = append(dst, EntryVersion)
	dst = append(dst, e.Player[:]...)
	dst = binary.AppendUvarint(dst, uint64(len(e.Moves)))
	for _, m := range e.Moves {
		dst = append(dst, m.Mail[:]...)
		dst = append(dst, byte(m.Slot))
	}
	return dst
}

// DecodeMailClaimed reads a body EncodeMailClaimed wrote. On an error it
// returns the moves read before it.
func DecodeMailClaimed(b []byte) (MailClaimed, error) {
	var e MailClaimed
	r := entryReader(b)
	e.Player = r.UUID()
	n := r.Uvarint()
	for i := uint64(0); i < n && r.Err == nil; i++ {
		m := MailMove{Mail: r.UUID()}
		m.Slot = int(r.Byte())
		if r.Err == nil {
			e.Moves = append(e.Moves, m)
		}
	}
	return e, r.Err
}

// PlayerAdded records a join: the player's row as it was inserted.
type PlayerAdded struct {
	ID        uuid.UUID
	Name      string
	Perms     string
	Balance   int64
	Inventory []byte // EncodeInventory's
}

// EncodePlayerAdded appends e's body.
func EncodePlayerAdded(dst []byte, e *PlayerAdded) []byte {
	dst = append(dst, EntryVersion)
	dst = append(dst, e.ID[:]...)
	dst = item.AppendString(dst, e.Name)
	dst = item.AppendString(dst, e.Perms)
	dst = binary.AppendVarint(dst, e.Balance)
	return item.AppendString(dst, e.Inventory)
}

// PlayerChanged records a profile change: the player's new name and
// permissions.
type PlayerChanged struct {
	ID    uuid.UUID
	Name  string
	Perms string
}

// EncodePlayerChanged appends e's body.
func EncodePlayerChanged(dst []byte, e *PlayerChanged) []byte {
	dst = append(dst, EntryVersion)
	dst = append(dst, e.ID[:]...)
	dst = item.AppendString(dst, e.Name)
	return item.AppendString(dst, e.Perms)
}

// Issued records an issue: the player, the money moved (cents, negative
// out), and the item (Mat 0: none) with its direction.
type Issued struct {
	Player uuid.UUID
	Money  int64
	Item   item.Item
	Out    bool
}

// EncodeIssued appends e's body.
func EncodeIssued(dst []byte, e *Issued) []byte {
	dst = append(dst, EntryVersion)
	dst = append(dst, e.Player[:]...)
	dst = binary.AppendVarint(dst, e.Money)
	var stack []byte
	if e.Item.Mat != 0 {
		stack = item.Encode(nil, e.Item)
	}
	dst = item.AppendString(dst, stack)
	if e.Out {
		return append(dst, 1)
	}
	return append(dst, 0)
}

// EncodePlayerDataChanged appends the body that records that a player's
// own data changed: the player.
func EncodePlayerDataChanged(dst []byte, player uuid.UUID) []byte {
	dst = append(dst, EntryVersion)
	return append(dst, player[:]...)
}

// DecodeEntryPlayer reads the player that a body of EncodeMailClaimed,
// EncodePlayerAdded, EncodePlayerChanged, EncodeIssued or
// EncodePlayerDataChanged begins with; the rest it leaves unread.
func DecodeEntryPlayer(b []byte) (uuid.UUID, error) {
	r := entryReader(b)
	id := r.UUID()
	return id, r.Err
}

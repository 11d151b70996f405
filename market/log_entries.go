package market

import (
	"encoding/binary"
	"fmt"

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
// Each body starts with a format version byte; the rest depends on the kind.
// Listing and transaction records inside a body use record.go's formats.

const eventBodyVersion = 1

// noSlot marks a destination that is the mailbox, not an inventory slot.
const noSlot = 0xFF

// A destination is where an item went (or came back from): an inventory slot,
// or the mailbox entry with the given id.
type destination struct {
	slot int // -1: the mailbox
	mail uuid.UUID
}

func appendDestination(dst []byte, d destination) []byte {
	if d.slot >= 0 {
		return append(dst, byte(d.slot))
	}
	dst = append(dst, noSlot)
	return append(dst, d.mail[:]...)
}

// readDestination reads what appendDestination wrote.
func readDestination(r *item.Reader) destination {
	if r.Err != nil || len(r.B) < 1 {
		r.Err = item.ErrMalformed
		return destination{}
	}
	slot := r.B[0]
	r.B = r.B[1:]
	switch {
	case slot == noSlot:
		return destination{slot: -1, mail: r.UUID()}
	case int(slot) < InventorySize:
		return destination{slot: int(slot)}
	}
	r.Err = item.ErrMalformed
	return destination{}
}

// listingCreatedBody records a sell: the listing, where its stack came from
// (the seller's slot, and what was left in it: an empty blob for nothing) and
// the listing fee paid.
func listingCreatedBody(r *listingRecord, seller *playerRecord, slot int, rest item.Item, fee Money) []byte {
	b := []byte{eventBodyVersion}
	b = binary.AppendUvarint(b, uint64(r.id))
	b = item.AppendString(b, seller.name)
	b = append(b, byte(slot))
	var restBlob []byte
	if rest.Mat != 0 {
		restBlob = item.Encode(nil, rest)
	}
	b = item.AppendString(b, string(restBlob))
	b = binary.AppendVarint(b, int64(fee))
	return encodeListing(b, seller.id, r)
}

// listingRemovedBody records a removal with a reason: the listing as it was
// and where its item went.
func listingRemovedBody(r *listingRecord, seller *playerRecord, reason string, to destination) []byte {
	b := []byte{eventBodyVersion}
	b = binary.AppendUvarint(b, uint64(r.id))
	b = item.AppendString(b, seller.name)
	b = item.AppendString(b, reason)
	b = appendDestination(b, to)
	return encodeListing(b, seller.id, r)
}

// listingExpiredBody records a removal by the expiry timer: the item went to
// the seller's mailbox entry mail.
func listingExpiredBody(id uint32, mail uuid.UUID) []byte {
	b := []byte{eventBodyVersion}
	b = binary.AppendUvarint(b, uint64(id))
	return append(b, mail[:]...)
}

// transactionBody records a transaction entering its state: the whole record
// in that state, with the names of both sides as they were. For a delivery
// (or its undoing) to says where the item went (or came back from), and a
// listing put back by a compensation is recorded whole.
func transactionBody(t *transactionRecord, buyer, seller *playerRecord, tl timeline, errCode string, toMailbox bool, to *destination, restored *listingRecord) []byte {
	b := []byte{eventBodyVersion}
	b = append(b, t.id[:]...)
	b = append(b, tl[len(tl)-1].state)
	b = item.AppendString(b, buyer.name)
	b = item.AppendString(b, seller.name)
	if to != nil {
		b = append(b, 1)
		b = appendDestination(b, *to)
	} else {
		b = append(b, 0)
	}
	var rec []byte
	if restored != nil {
		rec = binary.AppendUvarint(rec, uint64(restored.id))
		rec = encodeListing(rec, seller.id, restored)
	}
	b = item.AppendString(b, string(rec))
	return encodeTx(b, buyer.id, seller.id, t, tl, errCode, toMailbox)
}

// mailClaimedBody records mailbox entries moved into inventory slots.
func mailClaimedBody(player uuid.UUID, moved []mailMove) []byte {
	b := []byte{eventBodyVersion}
	b = append(b, player[:]...)
	b = binary.AppendUvarint(b, uint64(len(moved)))
	for _, m := range moved {
		b = append(b, m.mail[:]...)
		b = append(b, byte(m.slot))
	}
	return b
}

// mailMove is one claimed mailbox entry and the slot it went to.
type mailMove struct {
	mail uuid.UUID
	slot int
}

// decodeEvent turns a contract entry of the log back into the event that was
// published for it. Internal kinds have no contract event: (nil, nil).
func decodeEvent(row EventRow) (Event, error) {
	if !row.Kind.Contract() {
		return nil, nil
	}
	base := eventBase{seq: row.Seq, at: unixMilli(row.At), origin: row.Origin}
	r := item.Reader{B: row.Body}
	if len(r.B) < 1 || r.B[0] != eventBodyVersion {
		return nil, fmt.Errorf("log entry %d (%s): unknown body version", row.Seq, row.Kind)
	}
	r.B = r.B[1:]
	var ev Event
	switch row.Kind {
	case KindListingCreated:
		id := r.Uvarint()
		name := r.Bytes(256)
		if r.Err == nil && len(r.B) < 1 {
			r.Err = item.ErrMalformed
		}
		if r.Err == nil {
			r.B = r.B[1:] // the source slot
		}
		r.Bytes(1 << 16) // what was left in it
		r.Varint()       // the listing fee
		l, err := decodeListingBody(id, string(name), &r)
		if err != nil {
			return nil, fmt.Errorf("log entry %d (%s): %w", row.Seq, row.Kind, err)
		}
		ev = ListingCreatedEvent{eventBase: base, listing: l}
	case KindListingRemoved:
		id := r.Uvarint()
		name := r.Bytes(256)
		reason := r.Bytes(64)
		readDestination(&r)
		l, err := decodeListingBody(id, string(name), &r)
		if err != nil {
			return nil, fmt.Errorf("log entry %d (%s): %w", row.Seq, row.Kind, err)
		}
		ev = ListingRemovedEvent{eventBase: base, listing: l, reason: string(reason)}
	case KindTransactionCompleted:
		tx, err := decodeTransactionBody(&r)
		if err != nil {
			return nil, fmt.Errorf("log entry %d (%s): %w", row.Seq, row.Kind, err)
		}
		ev = TransactionCompletedEvent{eventBase: base, tx: tx}
	}
	return ev, nil
}

// decodeListingBody reads the listing record that ends a listing entry.
func decodeListingBody(id uint64, sellerName string, r *item.Reader) (Listing, error) {
	if r.Err != nil || id == 0 || id > 1<<31-1 {
		return Listing{}, item.ErrMalformed
	}
	rec := listingRecord{id: uint32(id)}
	seller, err := decodeListing(r.B, &rec)
	if err != nil {
		return Listing{}, err
	}
	return publicListing(&rec, person{seller, sellerName}), nil
}

// decodeTransactionBody reads a transaction entry (transactionBody).
func decodeTransactionBody(r *item.Reader) (Transaction, error) {
	t, _, err := decodeTransactionEntry(r)
	return t, err
}

// decodeTransactionEntry reads a transaction entry (transactionBody): the
// transaction, and the id of the listing a compensation put back (0: none).
func decodeTransactionEntry(r *item.Reader) (Transaction, uint32, error) {
	id := r.UUID()
	if r.Err != nil || len(r.B) < 1 || int(r.B[0]) >= len(States()) {
		return Transaction{}, 0, item.ErrMalformed
	}
	state := r.B[0]
	r.B = r.B[1:]
	buyerName := r.Bytes(256)
	sellerName := r.Bytes(256)
	if r.Err != nil || len(r.B) < 1 {
		return Transaction{}, 0, item.ErrMalformed
	}
	if r.B[0] == 1 {
		r.B = r.B[1:]
		readDestination(r)
	} else {
		r.B = r.B[1:]
	}
	var restored uint32
	if back := r.Bytes(1 << 16); len(back) > 0 { // a listing put back: its id, then its record
		rb := item.Reader{B: back}
		if restored = rb.ListingID(); rb.Err != nil {
			return Transaction{}, 0, item.ErrMalformed
		}
	}
	if r.Err != nil {
		return Transaction{}, 0, item.ErrMalformed
	}
	t := transactionRecord{id: id, state: state}
	buyer, seller, err := decodeTx(r.B, &t)
	if err != nil {
		return Transaction{}, 0, err
	}
	return publicTransaction(&t, person{buyer, string(buyerName)}, person{seller, string(sellerName)}), restored, nil
}

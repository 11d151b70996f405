package market

import (
	"errors"

	"github.com/google/uuid"
)

// Store is the durable side of the service. The service never reads from it
// after Load: reads are served from memory. Every mutation becomes one Batch
// that Commit writes atomically (all or nothing) before the service changes
// memory or publishes an event, so what a caller or a listener sees has
// always been made durable first.
//
// Item blobs are opaque to the store: the service encodes and decodes them
// (see codec.go), which keeps all SQL in the store package and all item
// knowledge here.
type Store interface {
	// Load streams the persisted state to l: meta first, then players (with
	// their inventories), mail, listings and the transactions that are not
	// finished (not COMPLETED, FAILED or ROLLED_BACK). Byte slices passed to l
	// are only valid during the call.
	Load(l Loader) error
	// LoadHistory streams up to limit finished transactions with ids above
	// after, in id order, and reports how many it read. It may run on another
	// goroutine while Commit is used: the store serializes them.
	LoadHistory(after [16]byte, limit int, fn func(TxRow) error) (int, error)
	// Commit applies b atomically and durably. A conditional op that does not
	// match (OpTxState whose ExpectState differs) fails the whole batch with
	// ErrConflict and nothing is written.
	Commit(b *Batch) error
	// BulkLoad writes b in one transaction with the fastest settings the store
	// has; it is for seeding an empty store, not for live mutations.
	BulkLoad(b *Batch) error
	// Close releases the store.
	Close() error
}

// ErrConflict is returned by Commit when a conditional update matched no row.
var ErrConflict = errors.New("store: conditional update matched no row")

// Loader receives the rows of Store.Load.
type Loader interface {
	Meta(m MetaRow) error
	Player(p PlayerRow) error
	Mail(m MailRow) error
	Listing(l ListingRow) error
	Transaction(t TxRow) error
}

// MetaRow holds the service-wide counters that cannot be derived from rows.
// Listings and Transactions are row counts the store reports on Load (so the
// service can size its tables); they are not written.
type MetaRow struct {
	Listings, Transactions int
	// NextListingID is the next id to assign; ids are never reused, even when
	// the listing that had the highest id is gone.
	NextListingID int64
	// FeeBalance is the fee account: every fee the market has taken.
	FeeBalance Money
	// Volume and Sales are the lifetime sum of completed prices and their
	// count, persisted so that they are exact before the history is loaded.
	Volume Money
	Sales  int64
	// HasCounters is set on Load when the store holds Volume and Sales (a
	// store written before they existed has to load its history first).
	HasCounters bool
}

// PlayerRow is a player of the embedded world. The inventory is one blob
// (encodeInventory): a mutation that touches a player writes the player's
// row once, which keeps a sell or a purchase step to a few statements.
type PlayerRow struct {
	ID        uuid.UUID
	Name      string
	Perms     string // comma-separated
	Balance   Money
	LastSell  int64  // unix ms of the last successful listing, for the cooldown
	Inventory []byte // encodeInventory
}

// MailRow is one mailbox entry.
type MailRow struct {
	ID        uuid.UUID
	Player    uuid.UUID
	Item      []byte
	Reason    string
	Created   int64 // unix ms
	PrevPrice Money
}

// ListingRow is one active listing: its id and its record (record.go).
type ListingRow struct {
	ID  int64
	Rec []byte
}

// TxRow is one transaction: its id, its state (a column of its own, for
// conditional updates) and its record (record.go).
type TxRow struct {
	ID    uuid.UUID
	State State
	Rec   []byte
}

// OpKind says what one Op of a Batch does.
type OpKind uint8

// The operations a Batch can hold.
const (
	OpPutPlayer   OpKind = iota + 1 // upsert Player (every column)
	OpPlayerState                   // Player.ID's balance, last sell and inventory
	OpPutMail                       // insert Mail
	OpDelMail                       // delete mail Mail.ID
	OpPutListing                    // insert or replace Listing
	OpDelListing                    // delete listing Int
	OpPutTx                         // insert Tx
	OpTxState                       // update Tx's state and record WHERE state = ExpectState
	OpMeta                          // write Meta
)

// Op is one change of a Batch.
type Op struct {
	Kind        OpKind
	Int         int64
	Player      *PlayerRow
	Mail        *MailRow
	Listing     *ListingRow
	Tx          *TxRow
	ExpectState State
	Meta        MetaRow
}

// Batch is the set of changes of one mutation, committed atomically.
type Batch struct {
	Ops []Op
}

func (b *Batch) add(op Op) { b.Ops = append(b.Ops, op) }

// Reset empties b for reuse.
func (b *Batch) Reset() { b.Ops = b.Ops[:0] }

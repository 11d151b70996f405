package market

import (
	"context"

	"github.com/google/uuid"
)

// Store is the durable side of the service. The service never reads market
// state from it after Load: reads are served from memory. Every mutation
// becomes one Batch that Commit writes atomically (all or nothing) before the
// service changes memory or publishes an event, so what a caller or a
// listener sees has always been made durable first.
//
// The store also keeps the event log: every Batch carries the log entries of
// its change, written in the same transaction as its rows, numbered by a
// gap-free sequence that is never reused. The log is the one record of what
// happened, in order: listeners are fed from it, the HTTP event stream and
// other servers follow it.
//
// Item blobs and log bodies are opaque to the store: the service encodes
// and decodes them, which keeps all SQL in the store packages and all item
// knowledge here.
type Store interface {
	// Load streams the persisted state to l: meta first, then players (with
	// their inventories), mail, listings and the transactions that are not
	// finished (not COMPLETED, FAILED or ROLLED_BACK). Byte slices passed to l
	// are only valid during the call.
	Load(l Loader) error
	// LoadHistory streams up to limit finished transactions with ids above
	// after, in id order, and reports how many it read. It may run on another
	// goroutine while Commit is used.
	LoadHistory(after [16]byte, limit int, fn func(TxRow) error) (int, error)
	// Commit applies b atomically and durably: its ops, its log entries and
	// its publication mark, or nothing. The entries get consecutive seqs
	// after the newest one in the log, which Commit writes into b.Events. A
	// conditional op that does not match (OpTxState whose ExpectState
	// differs, an update of a missing row) fails the whole batch with
	// ErrConflict and nothing is written.
	Commit(b *Batch) error
	// BeginBulk opens the one store transaction of a data load (seeding,
	// importing, merging): the load writes its rows into it chunk by chunk,
	// so that they never all sit in memory, and they become part of the
	// market together (BulkTx.Commit) or not at all (Rollback, a failed
	// write, Close, or the process dying half-way). While it is open the
	// store refuses every other write. A load is not market activity: it
	// writes no log entries.
	BeginBulk() (BulkTx, error)
	// ReadEvents streams up to limit log entries with seq above after, in
	// seq order, and reports how many it read. It is safe from any goroutine
	// and does not hold up Commit. Byte slices passed to fn are only valid
	// during the call.
	ReadEvents(after uint64, limit int, fn func(EventRow) error) (int, error)
	// ReserveListingIDs takes a block of n listing ids that no other
	// instance will use and returns the first.
	ReserveListingIDs(n int) (first int64, err error)
	// TrimEvents deletes the oldest log entries that t allows (retention)
	// and returns the seq of the oldest entry left. Seqs are never reused
	// or renumbered, and the newest entry is never deleted. It records the
	// newest seq and time it deleted (MetaRow.Trimmed) in a store that
	// keeps an opening account.
	TrimEvents(t EventTrim) (first uint64, err error)
	// HoldBookmark takes, renews or gives up a named reader's lease on its
	// stored position in the log, and raises the position, in one
	// conditional write: only while the lease is h.Holder's or has ended
	// (another holder's live lease changes nothing). It returns the bookmark
	// as stored afterwards; Held says whether h.Holder holds it. The lease
	// is measured by the store's clock (the database server's, in a
	// network), so that servers whose clocks differ agree on it. It is
	// safe from any goroutine and does not hold up Commit for long.
	HoldBookmark(h BookmarkHold) (Bookmark, error)
	// Close releases the store.
	Close() error
}

// EventTrim says which of the oldest log entries TrimEvents may delete: a
// prefix of the log, at most Limit entries, each below Below (entries not yet
// published are kept) and either at or under ThroughSeq (the count limit) or
// older than OlderThan (unix ms; the age limit).
//
// Entries a named reader has not taken yet (above its stored position,
// HoldBookmark) are kept too, except those at or under UnreadCap (the
// retention's cap on what a lagging reader holds back; 0: no cap).
type EventTrim struct {
	Below      uint64
	ThroughSeq uint64
	OlderThan  int64
	Limit      int
	UnreadCap  uint64
}

// Reader reads a whole market: a Store, or a Snapshot of one.
type Reader interface {
	// Load is Store.Load.
	Load(l Loader) error
	// LoadHistory is Store.LoadHistory.
	LoadHistory(after [16]byte, limit int, fn func(TxRow) error) (int, error)
}

// Snapshot is a market opened to be read and never changed: every read
// sees the same instant of it, whatever other processes commit meanwhile,
// and nothing is written, not even to open it (an integrity check, an
// export, a market on read-only media).
type Snapshot interface {
	Reader
	// ReadEvents is Store.ReadEvents.
	ReadEvents(after uint64, limit int, fn func(EventRow) error) (int, error)
	// Describe names the market and its store for messages: the file or
	// the server and database, without a password.
	Describe() string
	// Close ends the snapshot.
	Close() error
}

// BulkTx is a data load's open store transaction (Store.BeginBulk).
type BulkTx interface {
	// Write writes b's ops, which carry no log entries, into the load's
	// transaction. A failed write ends the transaction: nothing of the
	// load is written, and every later call fails.
	Write(b *Batch) error
	// Commit makes everything written durable, at once.
	Commit() error
	// Rollback drops everything written. After Commit, or once the
	// transaction has ended, it does nothing.
	Rollback() error
}

// Loader receives the rows of Store.Load.
type Loader interface {
	Meta(m MetaRow) error
	Player(p PlayerRow) error
	Mail(m MailRow) error
	Listing(l ListingRow) error
	Transaction(t TxRow) error
	// Order receives a buy order, open or closed, after the listings.
	Order(o OrderRow) error
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
	// Issuance is the issuance account (a store from before it starts at
	// zero: Audit.Opening then holds what the market had).
	Issuance Issuance
	// HasCounters is set on Load when the store holds Volume and Sales (a
	// store written before they existed has to load its history first).
	HasCounters bool
	// The event log, as Load found it: the newest seq (0 when the log is
	// empty and nothing was ever logged), the oldest seq still kept, and how
	// far publishing to listeners got (Batch.Published). Commit keeps them.
	LastSeq, FirstSeq, PublishedSeq uint64
	// Opening is what bulk loads put into the market, which the check
	// counts the market's money and items against. Trimmed and TrimmedAt
	// are the newest seq and the newest time (unix ms) among the entries
	// that trimming deleted from the log (0: none), so that the check tells
	// a trimmed entry from one deleted by hand. HasOpening is set on Load
	// when the store keeps them: a market from before they were kept has
	// none until the service records them (OpRecordOpening).
	Opening    Opening
	Trimmed    uint64
	TrimmedAt  int64
	HasOpening bool
}

// Opening is the market's opening account: the money and items that bulk
// loads (a seed, an import) put into the market, which no live operation
// changes. What the market holds is always the opening plus what the
// issuance account says came in, less what it says went out.
type Opening struct {
	Money Money
	Items int64 // items, counted by stack amounts
	// LoadedThrough is the newest creation time (unix ms) of a listing or
	// transaction a bulk load wrote: one created later was made by the
	// market, which logged it.
	LoadedThrough int64
}

// EventRow is one entry of the event log.
type EventRow struct {
	Seq  uint64 // assigned by Commit
	Kind EventKind
	At   int64  // unix ms, the service clock's time of the change
	Body []byte // encoded by the service (eventlog.go)
	// Origin is the instance that wrote the entry (SharedStore.Instance),
	// as ReadEvents reports it; empty in a store only one instance uses.
	Origin string
	// event is the entry decoded by the committer once the store took it
	// (decodeEvents), so that the main thread does not decode what it
	// logs; nil when nobody has.
	event Event
}

// A Reacher is a store whose database is reached over a link that can break
// (market/postgres): its writes fail with ErrUnreachable while the link is
// down, and Reach tells when it is back.
type Reacher interface {
	// Reach connects to the database again and learns the outcome of a
	// commit that the broken link left unknown; nil once the store takes
	// writes again. It may wait as long as ctx allows, so it runs off the
	// main thread (the service's probe calls it).
	Reach(ctx context.Context) (Landed, error)
}

// Landed is what Reach found of a commit in doubt: a commit Commit
// reported refused (ErrUnreachable) that the database nevertheless saved.
// Its log entries are this instance's own, seqs After+1 to After+Entries;
// the service reads their rows back as it reads another instance's, so that
// memory and the listeners learn of it. Zero when nothing landed.
type Landed struct {
	After   uint64
	Entries int
}

// SharedStore is a store several instances use at once (a network of
// servers on one market). Each instance follows the log: it reads the
// entries the others wrote and the rows they changed, so that its memory
// and its listeners keep up with the whole market.
type SharedStore interface {
	Store
	// Instance is this instance's name, which Commit writes as the origin
	// of its log entries.
	Instance() string
	// ReadRows reads, in one snapshot, the counters (as Meta, with LastSeq:
	// the newest entry the snapshot includes) and the current rows of the
	// players q names with their mail, of its listings (a listing not
	// passed to l is gone) and of its transactions.
	ReadRows(q RowQuery, l Loader) error
	// WaitEvents returns when entries may have been committed since it was
	// called, after a short while anyway (a wake-up can be lost), or when
	// ctx ends.
	WaitEvents(ctx context.Context)
	// Duty reports whether this instance holds the network's duty: at any
	// time one instance does, and only it runs the expiry timer and takes
	// over purchases that others left unfinished. It passes to another
	// instance when its holder dies or loses the server.
	Duty() bool
}

// RowQuery names the rows SharedStore.ReadRows reads.
type RowQuery struct {
	Players      []uuid.UUID
	Listings     []int64
	Transactions []uuid.UUID
	Orders       []int64
}

// PlayerRow is a player of the embedded world. The inventory is one blob
// (encodeInventory): a mutation that touches a player writes the player's
// row once, which keeps a sell or a purchase step to a few statements.
type PlayerRow struct {
	ID      uuid.UUID
	Name    string
	Perms   string // comma-separated
	Balance Money
	// Booked is the balance as Rynek booked it: OpAddPlayer sets it to
	// Balance and OpPlayerState moves it by the same Delta, in the same
	// statement, so only an edit outside Rynek makes the two differ, and
	// the integrity check names the player whose do. Load reports it; the
	// ops ignore the field.
	Booked    Money
	LastSell  int64  // unix ms of the last successful listing, for the cooldown
	Inventory []byte // encodeInventory
	// Extra is the player's own market data, one blob (record.EncodePlayerData):
	// favourites, price alerts, alert hits, what they have read.
	Extra []byte
	// Version counts the row's changes: every write adds one. An instance
	// that reads the row again keeps what it read only when it is newer
	// than what it has (its own commits report the version they made).
	Version int64
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

// ListingRow is one active listing: its id and its record (market/internal/record).
type ListingRow struct {
	ID  int64
	Rec []byte
}

// OrderRow is one buy order: its id (drawn from the listings' ids, so that
// "#3001" names one thing) and its record (market/internal/record). A
// closed order's row stays, closed, as a finished transaction's does.
type OrderRow struct {
	ID  int64
	Rec []byte
}

// TxRow is one transaction: its id, its state (a column of its own, for
// conditional updates) and its record (market/internal/record).
type TxRow struct {
	ID    uuid.UUID
	State State
	Rec   []byte
}

// OpKind says what one Op of a Batch does.
type OpKind uint8

// The operations a Batch can hold. Every op that changes a row another
// instance may change too is conditional or a delta: a market shared by
// several instances has no blind write. A conditional op that matches no row
// fails its batch with ErrConflict.
const (
	// OpAddPlayer inserts Player, its Balance booked (PlayerRow.Booked);
	// the id must be new.
	OpAddPlayer OpKind = iota + 1
	// OpPlayerState changes player Player.ID: the balance and the booked
	// balance by Delta, refused (ErrConflict) when the balance would go
	// below zero; the last sell time raised to
	// Player.LastSell; the inventory set to Player.Inventory unless that is
	// nil, only while it still is Expect (another instance may have changed
	// it); the extra blob set to Player.Extra unless that is nil, only while
	// it still is ExpectExtra. Commit writes the row's new Balance and
	// Version into Player.
	OpPlayerState
	// OpPutMail inserts Mail.
	OpPutMail
	// OpDelMail deletes mail Mail.ID, which must exist. Mail.Player names
	// its owner, whose mailbox memory puts back if the batch is refused.
	OpDelMail
	// OpAddListing inserts Listing; the id must be new.
	OpAddListing
	// OpListingState sets listing Listing.ID's record to Listing.Rec while
	// it still is Expect. The record says which purchase holds the listing,
	// so this reserves a listing only while it is free and releases it only
	// while the purchase holds it.
	OpListingState
	// OpDelListing deletes listing Int while its record still is Expect.
	OpDelListing
	// OpPutTx inserts Tx.
	OpPutTx
	// OpTxState updates Tx's state and record WHERE state = ExpectState
	// and, unless Expect is nil, the record still is Expect.
	OpTxState
	// OpCounters adds Meta's FeeBalance, Volume and Sales to the counters.
	// Commit writes the counters' new values into Meta.
	OpCounters
	// OpListingIDs moves the next listing id from Int to
	// Meta.NextListingID, if it still is Int (else nothing happens: another
	// instance took ids since). It gives back the unused end of a block.
	OpListingIDs
	// OpIssuance adds Meta.Issuance to the issuance account; Commit writes
	// the account's new totals into Meta.Issuance.
	OpIssuance
	// OpPlayerProfile sets player Player.ID's name and permissions to
	// Player.Name and Player.Perms while the row's version still is Int,
	// and raises the version; Commit writes the new Version into Player.
	OpPlayerProfile
	// OpLoaded adds a bulk load's Meta.Opening money and items to the
	// opening account and raises its LoadedThrough to Meta.Opening's, in a
	// store that keeps the account; in one that does not (a market from
	// before it was kept) it changes nothing: the service records the whole
	// account when it next opens the market.
	OpLoaded
	// OpRecordOpening records Meta.Opening, Meta.Trimmed and
	// Meta.TrimmedAt where the store keeps no opening account yet; a store
	// that keeps one is left as it is.
	OpRecordOpening
	// OpAddOrder inserts Order; the id must be new.
	OpAddOrder
	// OpOrderState sets order Order.ID's record to Order.Rec while it
	// still is Expect: two fills of one order never both count.
	OpOrderState
)

// Op is one change of a Batch.
type Op struct {
	Kind        OpKind
	Int         int64
	Player      *PlayerRow
	Mail        *MailRow
	Listing     *ListingRow
	Tx          *TxRow
	Order       *OrderRow
	ExpectState State
	Meta        MetaRow
	Delta       Money  // OpPlayerState: the balance change
	Expect      []byte // the inventory, listing, transaction or order record being replaced
	ExpectExtra []byte // OpPlayerState: the extra blob being replaced

	// data and expect are the player's data blobs Player.Extra and
	// ExpectExtra stand for, and inv and invExpect the inventories
	// Player.Inventory and Expect stand for, until Batch.encodeData encodes
	// them, off the main thread.
	data, expect   *dataBlob
	inv, invExpect *dataBlob
}

// Batch is the set of changes of one mutation, committed atomically: the
// rows it writes and the log entries that record it.
type Batch struct {
	Ops    []Op
	Events []EventRow
	// Published, when above the store's mark, raises it in the same
	// transaction: every log entry up to it has been delivered to the
	// listeners. It rides along with the next change instead of costing a
	// commit of its own.
	Published uint64
}

func (b *Batch) add(op Op) { b.Ops = append(b.Ops, op) }

func (b *Batch) log(e EventRow) { b.Events = append(b.Events, e) }

// Reset empties b for reuse.
func (b *Batch) Reset() {
	b.Ops = b.Ops[:0]
	b.Events = b.Events[:0]
	b.Published = 0
}

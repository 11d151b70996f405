package market

import (
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/google/uuid"
	"github.com/rynek/rynek/market/internal/record"
)

// Event is one of the events the market publishes: the contract's three and
// the auctions' two (BidPlacedEvent, AuctionEndedEvent) and the buy orders'
// three (order_events.go). Events are values: a listener
// receives a copy and cannot change the market through it, and there is no
// way to cancel one (the contract's events are non-cancellable).
type Event interface {
	// EventName is the contract's type name, e.g. "ListingCreatedEvent".
	EventName() string
	// Seq is the event's position in the market's event log: unique, never
	// reused, and increasing in publication order across restarts. The log
	// also holds internal changes (timer expiry, saga steps, claims) that
	// are not published, so consecutive events may skip seqs; EventsSince
	// tells whether anything was missed.
	Seq() uint64
	// At is when the change happened (service clock).
	At() time.Time
	// Origin is the instance whose change it was, in a market several
	// instances share (each gets every event of the network, once, in the
	// same order); empty when the store is not shared.
	Origin() string
	// clone returns a deep copy, so that every listener (and the caller of
	// the mutation) gets slices of its own: one listener writing to an
	// event's lore cannot change what the next one sees.
	clone() Event
}

type eventBase struct {
	seq    uint64
	at     time.Time
	origin string
}

func (e eventBase) Seq() uint64    { return e.seq }
func (e eventBase) At() time.Time  { return e.at }
func (e eventBase) Origin() string { return e.origin }

// ListingCreatedEvent is published after a successful SellItem.
type ListingCreatedEvent struct {
	eventBase
	listing Listing
}

// EventName returns "ListingCreatedEvent".
func (ListingCreatedEvent) EventName() string { return "ListingCreatedEvent" }

func (e ListingCreatedEvent) clone() Event { e.listing = e.listing.Clone(); return e }

// Listing is the contract's getListing(): the new listing.
func (e ListingCreatedEvent) Listing() Listing { return e.listing }

// Reasons of ListingRemovedEvent, verbatim from the contract.
const (
	ReasonRemoved      = "removed"
	ReasonAdminRemoved = "admin-removed"
	ReasonForceExpire  = "force-expire"
)

// ListingRemovedEvent is published when a listing is removed by its owner, by
// an admin, or by a forced expiry. Expiry through the timer publishes nothing
// (contract: "Expiry of a listing through the timer publishes no event").
type ListingRemovedEvent struct {
	eventBase
	listing Listing
	reason  string
}

// EventName returns "ListingRemovedEvent".
func (ListingRemovedEvent) EventName() string { return "ListingRemovedEvent" }

func (e ListingRemovedEvent) clone() Event { e.listing = e.listing.Clone(); return e }

// Listing is the contract's getListing(): the listing as it was removed.
func (e ListingRemovedEvent) Listing() Listing { return e.listing }

// Reason is the contract's getReason(): "removed", "admin-removed" or "force-expire".
func (e ListingRemovedEvent) Reason() string { return e.reason }

// TransactionCompletedEvent is published once per transaction, only when it
// reaches COMPLETED (also when recovery completes it after a crash).
type TransactionCompletedEvent struct {
	eventBase
	tx Transaction
}

// EventName returns "TransactionCompletedEvent".
func (TransactionCompletedEvent) EventName() string { return "TransactionCompletedEvent" }

func (e TransactionCompletedEvent) clone() Event { e.tx = e.tx.Clone(); return e }

// Transaction is the contract's getTransaction().
func (e TransactionCompletedEvent) Transaction() Transaction { return e.tx }

// BidPlacedEvent is published after a bid (Bid).
type BidPlacedEvent struct {
	eventBase
	listing  Listing
	bidder   uuid.UUID
	amount   Money
	previous person
}

// EventName returns "BidPlacedEvent".
func (BidPlacedEvent) EventName() string { return "BidPlacedEvent" }

func (e BidPlacedEvent) clone() Event { e.listing = e.listing.Clone(); return e }

// Listing is the auction after the bid.
func (e BidPlacedEvent) Listing() Listing { return e.listing }

// Bidder is who bid.
func (e BidPlacedEvent) Bidder() uuid.UUID { return e.bidder }

// Amount is the bid.
func (e BidPlacedEvent) Amount() float64 { return e.amount.Float() }

// PreviousLeader is the leader the bid outbid, whose bid went back to
// them; uuid.Nil for the first bid or a leader raising their own.
func (e BidPlacedEvent) PreviousLeader() uuid.UUID { return e.previous.id }

// PreviousLeaderName is the outbid leader's name, "" when none.
func (e BidPlacedEvent) PreviousLeaderName() string { return e.previous.name }

// EndsAt is the auction's end after the bid (a late bid moves it).
func (e BidPlacedEvent) EndsAt() time.Time { return e.listing.ExpiresAt }

// bidPlacedEvent is the event of the log's entry e.
func bidPlacedEvent(base eventBase, e *record.BidPlaced) BidPlacedEvent {
	r := listingRecord{id: e.Listing.ID}
	r.fromStored(&e.Listing)
	a := e.Listing.Auction
	return BidPlacedEvent{eventBase: base, listing: publicListing(&r, person{e.Listing.Seller, e.SellerName}, e.BidderName),
		bidder: a.Leader, amount: Money(a.Bid), previous: person{e.Previous, e.PrevName}}
}

// AuctionEndedEvent is published once an auction has ended: sold to its
// winner (the transaction COMPLETED), or, without a bid, its stack back in
// the seller's mailbox.
type AuctionEndedEvent struct {
	eventBase
	listing     int
	winner      person
	price       Money
	transaction uuid.UUID
}

// EventName returns "AuctionEndedEvent".
func (AuctionEndedEvent) EventName() string { return "AuctionEndedEvent" }

func (e AuctionEndedEvent) clone() Event { return e }

// ListingID is the auction's listing.
func (e AuctionEndedEvent) ListingID() int { return e.listing }

// Winner is who won it; uuid.Nil when nobody bid.
func (e AuctionEndedEvent) Winner() uuid.UUID { return e.winner.id }

// WinnerName is the winner's name, "" when nobody bid.
func (e AuctionEndedEvent) WinnerName() string { return e.winner.name }

// Price is what the winner paid; 0 when nobody bid.
func (e AuctionEndedEvent) Price() float64 { return e.price.Float() }

// TransactionID is the winner's purchase, empty when nobody bid.
func (e AuctionEndedEvent) TransactionID() string {
	if e.transaction == uuid.Nil {
		return ""
	}
	return e.transaction.String()
}

// Listener receives events on the main thread, synchronously, after the
// change is durable, in log order. It must be quick: a slow listener slows
// the server. A listener that panics is recovered and reported to the
// service's panic handler; the service and the other listeners carry on. A
// listener may call the service, mutations included: events those cause are
// delivered after the current one has reached every listener.
type Listener func(Event)

// bus holds the listeners. subs is copy-on-write, so delivery can go on from
// a snapshot while a listener unsubscribes.
type bus struct {
	mu      sync.Mutex
	subs    []subscription
	next    int
	onPanic func(recovered any)
}

type subscription struct {
	id int
	l  Listener
}

// Subscribe registers l and returns a function that unregisters it.
// Listeners are called in registration order.
func (s *Service) Subscribe(l Listener) (unsubscribe func()) {
	s.bus.mu.Lock()
	defer s.bus.mu.Unlock()
	id := s.bus.next
	s.bus.next++
	s.bus.subs = append(slices.Clip(s.bus.subs), subscription{id: id, l: l})
	return func() {
		s.bus.mu.Lock()
		defer s.bus.mu.Unlock()
		s.bus.subs = slices.DeleteFunc(slices.Clone(s.bus.subs), func(x subscription) bool { return x.id == id })
	}
}

// OnListenerPanic sets what happens with a listener's panic (default: ignored
// after recovery). The console shows it in its footer.
func (s *Service) OnListenerPanic(f func(recovered any)) {
	s.bus.mu.Lock()
	s.bus.onPanic = f
	s.bus.mu.Unlock()
}

func (s *Service) reportPanic(msg string) {
	s.bus.mu.Lock()
	onPanic := s.bus.onPanic
	s.bus.mu.Unlock()
	if onPanic != nil {
		onPanic(msg)
	}
}

func deliver(l Listener, ev Event, onPanic func(any)) {
	defer func() {
		if r := recover(); r != nil && onPanic != nil {
			onPanic(fmt.Sprintf("listener panicked on %s: %v", ev.EventName(), r))
		}
	}()
	l(ev)
}

// EventKind names the kind of a log entry.
type EventKind string

// The kinds of log entries. The first three are the contract's events, named
// as the contract names them.
const (
	KindListingCreated       EventKind = "ListingCreatedEvent"
	KindListingRemoved       EventKind = "ListingRemovedEvent"
	KindTransactionCompleted EventKind = "TransactionCompletedEvent"
	// KindListingExpired: the expiry timer removed a listing; its item went
	// to the seller's mailbox. No contract event, by contract.
	KindListingExpired EventKind = "ListingExpired"
	// KindTransactionStep: a purchase entered a state other than COMPLETED
	// (CREATED, a middle step, FAILED or ROLLED_BACK).
	KindTransactionStep EventKind = "TransactionStep"
	// KindMailClaimed: mailbox entries moved into a player's inventory.
	KindMailClaimed EventKind = "MailClaimed"
	// KindPlayerAdded: a player joined the embedded world (AddPlayer).
	KindPlayerAdded EventKind = "PlayerAdded"
	// KindPlayerChanged: a known player joined with another name or other
	// permissions (Join).
	KindPlayerChanged EventKind = "PlayerChanged"
	// KindIssued: money or an item entered or left the market (Deposit,
	// Withdraw, GiveItem, TakeItem).
	KindIssued EventKind = "Issued"
	// KindPlayerData: a player's own data changed (favourites, price
	// alerts, what they have read).
	KindPlayerData EventKind = "PlayerData"
	// KindTransactionRated: a buyer rated a purchase (Rate); the body is
	// the transaction's record with the rating, as a step's is.
	KindTransactionRated EventKind = "TransactionRated"
	// KindBidPlaced and KindAuctionEnded are the auctions' events, named
	// as they are published.
	KindBidPlaced    EventKind = "BidPlacedEvent"
	KindAuctionEnded EventKind = "AuctionEndedEvent"
	// KindOrderPlaced, KindOrderFilled and KindOrderClosed are the buy
	// orders' events, named as they are published.
	KindOrderPlaced EventKind = "BuyOrderPlacedEvent"
	KindOrderFilled EventKind = "BuyOrderFilledEvent"
	KindOrderClosed EventKind = "BuyOrderClosedEvent"
)

// Published reports whether entries of kind k are published to listeners:
// the contract's three events, the auctions' two and the buy orders' three.
func (k EventKind) Published() bool {
	switch k {
	case KindListingCreated, KindListingRemoved, KindTransactionCompleted, KindBidPlaced, KindAuctionEnded,
		KindOrderPlaced, KindOrderFilled, KindOrderClosed:
		return true
	}
	return false
}

// decodeEvent turns a published entry of the log back into the event that
// was published for it. Internal kinds have no event: (nil, nil).
// eventDecoded, when set (by tests), runs as a log entry's event is
// decoded.
var eventDecoded func()

func decodeEvent(row EventRow) (Event, error) {
	if !row.Kind.Published() {
		return nil, nil
	}
	if eventDecoded != nil {
		eventDecoded()
	}
	base := eventBase{seq: row.Seq, at: unixMilli(row.At), origin: row.Origin}
	if len(row.Body) < 1 || row.Body[0] != record.EntryVersion {
		return nil, fmt.Errorf("log entry %d (%s): unknown body version", row.Seq, row.Kind)
	}
	var ev Event
	var err error
	switch row.Kind {
	case KindListingCreated:
		var e record.ListingCreated
		if e, err = record.DecodeListingCreated(row.Body); err == nil {
			ev = ListingCreatedEvent{eventBase: base, listing: storedListing(&e.Listing, e.SellerName)}
		}
	case KindListingRemoved:
		var e record.ListingRemoved
		if e, err = record.DecodeListingRemoved(row.Body); err == nil {
			ev = ListingRemovedEvent{eventBase: base, listing: storedListing(&e.Listing, e.SellerName), reason: e.Reason}
		}
	case KindTransactionCompleted:
		var e record.TransactionEntry
		if e, err = record.DecodeTransactionEntry(row.Body); err == nil {
			ev = TransactionCompletedEvent{eventBase: base, tx: storedTransaction(&e)}
		}
	case KindBidPlaced:
		var e record.BidPlaced
		if e, err = record.DecodeBidPlaced(row.Body); err == nil {
			ev = bidPlacedEvent(base, &e)
		}
	case KindAuctionEnded:
		var e record.AuctionEnded
		if e, err = record.DecodeAuctionEnded(row.Body); err == nil {
			ev = AuctionEndedEvent{eventBase: base, listing: int(e.ID), winner: person{e.Winner, e.WinnerName}, price: Money(e.Price), transaction: e.Transaction}
		}
	case KindOrderPlaced, KindOrderFilled, KindOrderClosed:
		ev, err = decodeOrderEvent(base, row)
	}
	if err != nil {
		return nil, fmt.Errorf("log entry %d (%s): %w", row.Seq, row.Kind, err)
	}
	return ev, nil
}

// storedListing is the public form of a listing the log recorded.
func storedListing(l *record.Listing, sellerName string) Listing {
	r := listingRecord{id: l.ID}
	r.fromStored(l)
	return publicListing(&r, person{l.Seller, sellerName}, "")
}

// storedTransaction is the public form of a transaction the log recorded.
func storedTransaction(e *record.TransactionEntry) Transaction {
	t := transactionRecord{id: e.ID, state: e.State}
	t.fromStored(&e.Transaction)
	return publicTransaction(&t, person{e.Transaction.Buyer, e.BuyerName}, person{e.Transaction.Seller, e.SellerName})
}

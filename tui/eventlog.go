package tui

import (
	"slices"

	"github.com/rynek/rynek/market"
)

// eventLog keeps every event the service published, in order. The service's
// listener appends to pending (it runs on the main thread, inside Update, so
// it never blocks and never races); each tick moves pending into all, so a
// burst of thousands of events costs one redraw, not thousands. Nothing is
// ever dropped, and the market's event log lets anyone check: seqs skip the
// log's internal entries, so a jump is checked against it (next).
type eventLog struct {
	all     []market.Event
	byKind  [kinds][]int32 // indexes into all, per kind
	pending []market.Event
	lastSeq uint64
	gaps    int // contract events the market logged but the console missed (must stay 0)
	// start is the log's head when the console subscribed: the events up
	// to it come from the log (the Events pane's Start), the later ones
	// from the listener.
	start uint64
	// next returns the seq of the first contract event after a seq, from
	// the market's log (Service.EventsSince).
	next func(after uint64) (uint64, bool)
}

const (
	kindCreated = iota
	kindRemoved
	kindCompleted
	kindBid
	kindEnded
	kindOrderPlaced
	kindOrderFilled
	kindOrderClosed
	kinds
)

var kindNames = [kinds]string{"ListingCreatedEvent", "ListingRemovedEvent", "TransactionCompletedEvent", "BidPlacedEvent", "AuctionEndedEvent",
	"BuyOrderPlacedEvent", "BuyOrderFilledEvent", "BuyOrderClosedEvent"}

func kindOf(e market.Event) int {
	switch e.(type) {
	case market.ListingCreatedEvent:
		return kindCreated
	case market.ListingRemovedEvent:
		return kindRemoved
	case market.BidPlacedEvent:
		return kindBid
	case market.AuctionEndedEvent:
		return kindEnded
	case market.BuyOrderPlacedEvent:
		return kindOrderPlaced
	case market.BuyOrderFilledEvent:
		return kindOrderFilled
	case market.BuyOrderClosedEvent:
		return kindOrderClosed
	default:
		return kindCompleted
	}
}

// push is the service listener.
func (l *eventLog) push(e market.Event) { l.pending = append(l.pending, e) }

// drain moves pending events into the log and returns how many arrived.
func (l *eventLog) drain() int {
	n := len(l.pending)
	for _, e := range l.pending {
		if l.lastSeq != 0 && e.Seq() != l.lastSeq+1 && l.next != nil {
			if seq, ok := l.next(l.lastSeq); ok && seq != e.Seq() {
				l.gaps++
			}
		}
		l.lastSeq = e.Seq()
		k := kindOf(e)
		l.byKind[k] = append(l.byKind[k], int32(len(l.all)))
		l.all = append(l.all, e)
	}
	clear(l.pending)
	l.pending = l.pending[:0]
	return n
}

// prepend puts events from before the start in front of the log, and
// returns how many it took: none it holds already (a live event with the
// same or an older seq).
func (l *eventLog) prepend(events []market.Event) int {
	if len(l.all) > 0 {
		first := l.all[0].Seq()
		events = slices.DeleteFunc(slices.Clone(events), func(e market.Event) bool { return e.Seq() >= first })
	}
	n := len(events)
	if n == 0 {
		return 0
	}
	l.all = append(slices.Clip(events), l.all...)
	var byKind [kinds][]int32
	for i, e := range events {
		k := kindOf(e)
		byKind[k] = append(byKind[k], int32(i))
	}
	for k := range l.byKind {
		for _, i := range l.byKind[k] {
			byKind[k] = append(byKind[k], i+int32(n))
		}
	}
	l.byKind = byKind
	return n
}

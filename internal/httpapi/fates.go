package httpapi

import (
	"context"
	"errors"
	"fmt"
	"math"
	"net/http"
	"sync"
	"time"

	"github.com/google/uuid"
	"github.com/rynek/rynek/internal/wire"
	"github.com/rynek/rynek/market"
)

// Fates: how listings left the market, for the page of a listing no
// longer on it (sold, to whom and for how much; won at auction; withdrawn;
// removed or expired by an admin; expired by the timer) and to tell such
// an id from one the market never gave (404). The market keeps no record
// of a listing once it is gone, so the server keeps one: from the events
// it reads for the stream (hub.pull), and, when it starts, from the
// newest events the log still holds and the newest purchases of the
// history. A listing expired by the timer publishes no event: one seen
// listed, and gone without an event, expired when it was due to.
//
// What it keeps is bounded (fatesKept listings, the newest it heard of);
// a listing older than that, or gone before the log's oldest event and
// not sold, is "gone, how is not known". An id above every id it saw was
// never given. (In a network of servers, ids are handed out in blocks; an
// id of a block no listing took reads as gone, not as never given.)

// fatesKept bounds the listings whose fate is kept: 65,536, about 6 MiB.
const fatesKept = 1 << 16

// fatesBackfill is how many of the newest log events and purchases are
// read when the server starts.
const fatesBackfill = 1 << 16

// How a listing went, as the API says it.
const (
	goneSold         = "sold"    // bought whole
	goneWon          = "won"     // an auction's winner bought it
	goneUnsold       = "unsold"  // an auction ended without a bid
	goneExpired      = "expired" // its time ran out (the timer)
	goneRemoved      = market.ReasonRemoved
	goneAdminRemoved = market.ReasonAdminRemoved
	goneForceExpire  = market.ReasonForceExpire
	goneUnknown      = "unknown" // gone, but this server did not see how
)

// fate is what is known of one listing: how it went ("" while it is on
// the market), when, and for a purchase its price, buyer and transaction.
type fate struct {
	how       string
	at        int64 // Unix ms
	expires   int64 // Unix ms: when it was due to expire, as last seen
	price     market.Money
	buyer     uuid.UUID
	buyerName string
	tx        string
}

type fates struct {
	mu      sync.Mutex
	byID    map[int]*fate
	order   []int // ids in the order first heard of, a ring of fatesKept
	next    int   // the ring's oldest
	highest int   // the highest listing id heard of

	filled chan struct{} // closed when backfill has ended
}

func newFates() *fates { return &fates{byID: map[int]*fate{}, filled: make(chan struct{})} }

// wait waits for the backfill (a moment after the server starts), so that
// a listing gone before then is not taken for one never given.
func (f *fates) wait(ctx context.Context) error {
	select {
	case <-f.filled:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// get returns listing id's record, making it (and forgetting the oldest)
// when it has none. Under f.mu.
func (f *fates) get(id int) *fate {
	f.highest = max(f.highest, id)
	if r := f.byID[id]; r != nil {
		return r
	}
	r := &fate{}
	if len(f.order) < fatesKept {
		f.order = append(f.order, id)
	} else {
		delete(f.byID, f.order[f.next])
		f.order[f.next] = id
		f.next = (f.next + 1) % fatesKept
	}
	f.byID[id] = r
	return r
}

// see takes one event of the market's log.
func (f *fates) see(e market.Event) {
	at := e.At().UnixMilli()
	f.mu.Lock()
	defer f.mu.Unlock()
	switch e := e.(type) {
	case market.ListingCreatedEvent:
		if r := f.get(e.Listing().ID); r.how == "" { // (the backfill may bring it after its end)
			r.expires = e.Listing().ExpiresAt.UnixMilli()
		}
	case market.BidPlacedEvent:
		if r := f.get(e.Listing().ID); r.how == "" {
			r.expires = e.Listing().ExpiresAt.UnixMilli()
		}
	case market.ListingRemovedEvent:
		*f.get(e.Listing().ID) = fate{how: e.Reason(), at: at}
	case market.TransactionCompletedEvent:
		if t := e.Transaction(); t.ListingID > 0 {
			if r := f.get(t.ListingID); r.how != goneWon {
				*r = fate{how: goneSold, at: at, price: market.Money(math.Round(t.Price * 100)), buyer: t.Buyer, buyerName: t.BuyerName, tx: t.ID}
			}
		}
	case market.BuyOrderFilledEvent:
		// A fill that bought part of a stack: the rest is still on sale.
		if e.ListingID() > 0 && e.ListingLeft() > 0 {
			if r := f.get(e.ListingID()); r.how == goneSold && r.tx == e.TransactionID() {
				r.how = ""
			}
		}
	case market.AuctionEndedEvent:
		r := f.get(e.ListingID())
		if e.Winner() == uuid.Nil {
			*r = fate{how: goneUnsold, at: at}
		} else {
			*r = fate{how: goneWon, at: at, price: market.Money(math.Round(e.Price() * 100)), buyer: e.Winner(), buyerName: e.WinnerName(), tx: e.TransactionID()}
		}
	}
}

// sold takes a purchase of the history (the backfill): it says nothing
// over what the events said.
func (f *fates) sold(t market.Transaction) {
	if t.ListingID <= 0 || t.State != market.StateCompleted {
		return
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if r := f.get(t.ListingID); r.how == "" {
		at := time.Time{}
		if n := len(t.Timeline); n > 0 {
			at = t.Timeline[n-1].At
		}
		*r = fate{how: goneSold, at: at.UnixMilli(), price: market.Money(math.Round(t.Price * 100)), buyer: t.Buyer, buyerName: t.BuyerName, tx: t.ID}
	}
}

// listed notes that listing id was given (the newest on the market when
// the server starts).
func (f *fates) listed(id int) {
	f.mu.Lock()
	f.highest = max(f.highest, id)
	f.mu.Unlock()
}

// gone says how listing id, not on the market now, went; given is false
// for an id the market never gave.
func (f *fates) gone(id int, now time.Time) (g *wire.ListingGone, given bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if id > f.highest {
		return nil, false
	}
	r := f.byID[id]
	switch {
	case r == nil || r.how == "" && r.expires > now.UnixMilli():
		// Unheard of, or gone early without an event this server read.
		return &wire.ListingGone{How: goneUnknown}, true
	case r.how == "":
		return &wire.ListingGone{How: goneExpired, At: wire.At(time.UnixMilli(r.expires))}, true
	}
	g = &wire.ListingGone{How: r.how, At: wire.At(time.UnixMilli(r.at))}
	if r.tx != "" {
		g.Price = wire.Money(r.price.Float())
		g.Buyer = &wire.Player{UUID: r.buyer.String(), Name: r.buyerName}
		g.Transaction = r.tx
	}
	return g, true
}

// backfill reads what the market still holds of listings gone before the
// server started: the newest events of its log (up to head, from where
// the hub reads on) and, once the history has loaded, the newest
// purchases. It runs once, in the background.
func (f *fates) backfill(svc *market.Service, head uint64) {
	defer close(f.filled)
	if p, err := svc.Query(market.Query{Limit: 1}); err == nil && len(p.Listings) > 0 {
		f.listed(p.Listings[0].ID)
	}
	after := uint64(0)
	if head > fatesBackfill {
		after = head - fatesBackfill
	}
	if first := svc.OldestKept(); first > 0 {
		after = max(after, first-1)
	}
	for after < head {
		page, err := svc.EventsSince(after, hubBatch)
		if err != nil || page.Through <= after {
			break // trimmed or not ready: what the log no longer holds is not known
		}
		for _, e := range page.Events {
			if e.Seq() <= head {
				f.see(e)
			}
		}
		after = page.Through
	}
	if svc.WaitHistory() != nil {
		return
	}
	page, err := svc.Transactions(market.TxQuery{Limit: fatesBackfill})
	if err != nil {
		return
	}
	for _, t := range page.Transactions {
		f.sold(t)
	}
}

// listingGone is the API's 404 for listing id, not on the market: how it
// went, when known, or that it never was.
func (s *Server) listingGone(r *http.Request, id int) error {
	if err := s.fates.wait(r.Context()); err != nil {
		return err
	}
	g, given := s.fates.gone(id, s.svc.Now())
	if !given {
		return notFound(CodeListingNotFound, fmt.Sprintf("listing %d was never on the market", id))
	}
	return &problemError{status: http.StatusNotFound, code: CodeListingNotFound,
		detail: fmt.Sprintf("listing %d is not on the market", id), gone: g}
}

// listingPageStatus is the status of listing id's page: 404 for an id
// the market never gave, 200 for one on it or gone (the page says how).
func (s *Server) listingPageStatus(r *http.Request) bool {
	id, err := parseID(r.PathValue("id"))
	if err != nil {
		return false
	}
	if _, err := s.svc.GetListing(id); err == nil || errors.Is(err, market.ErrListingExpired) || errors.Is(err, market.ErrNotReady) {
		return true // (a market not ready: the page says so)
	}
	if s.fates.wait(r.Context()) != nil {
		return true
	}
	_, given := s.fates.gone(id, s.svc.Now())
	return given
}

package market

import (
	"fmt"
	"strconv"

	"github.com/google/uuid"
	"github.com/rynek/rynek/market/internal/record"
)

// The integrity check's side of the event log: is the log whole, and do the
// tables hold what it says happened?
//
// Exactly checked, both ways:
//   - the log's seqs are consecutive, from just after the horizon that
//     retention recorded to the newest seq the store's counter gave;
//   - the log's last word on each listing it names (created or put back: on
//     the market; removed, expired or delivered: gone) is what the listings
//     table holds, since every change of a listing's presence is logged in
//     its commit and ids are never reused;
//   - the last state the log gives each transaction it names is the state
//     the transactions table holds;
//   - every player an entry names exists (no operation deletes a player);
//   - a mailbox entry the log says was claimed is gone.
//
// The other way, from the tables to the log: a listing or transaction
// created after the horizon, and after everything bulk loads wrote (which
// logs nothing), has its creation in the log, and a purchase completed
// after it its TransactionCompletedEvent (logged).
//
// Not checked: balances against the log (a bulk-loaded balance has no
// entry, so the log cannot rebuild one; the accounts are held against the
// opening and issuance accounts instead, and each balance against the
// booked one beside it in its row), and mailbox entries other than
// claimed ones (a refund or a compensation deletes the buyer's entry
// without naming it).

// logFacts is what the log says the tables must hold: its last word on each
// listing, transaction, player and mailbox entry it names.
type logFacts struct {
	listings map[uint32]listingWord
	txs      map[uuid.UUID]*txWord
	players  map[uuid.UUID]uint64 // the seq of an entry naming the player
	claimed  map[uuid.UUID]uint64 // mailbox entries claimed, with the seq
}

// listingWord is the log's last word on a listing.
type listingWord struct {
	seq     uint64
	present bool
	how     string // what the entry did: "created", "removed", …
}

// txWord is the log's last word on a transaction.
type txWord struct {
	seq       uint64
	state     uint8
	completed bool // a TransactionCompletedEvent of it was read
	seen      bool // the tables hold it
}

// readLog reads every entry of the log, in seq order.
func (c *checker) readLog() error {
	f := &c.log
	f.listings, f.txs = map[uint32]listingWord{}, map[uuid.UUID]*txWord{}
	f.players, f.claimed = map[uuid.UUID]uint64{}, map[uuid.UUID]uint64{}
	l := &c.r.Log
	var after uint64
	for {
		n, err := c.snap.ReadEvents(after, checkChunk, func(e EventRow) error {
			after = e.Seq
			switch {
			case l.Entries == 0:
				l.First = e.Seq
			case e.Seq != l.Last+1:
				c.problem("log-gap", []any{"seq", seqRange(l.Last+1, e.Seq-1)}, "the log goes from %d to %d: entries in between were deleted (retention only deletes the oldest)", l.Last, e.Seq)
			}
			l.Last = e.Seq
			l.Entries++
			c.readEntry(e)
			return nil
		})
		if err != nil {
			return err
		}
		if n < checkChunk {
			return nil
		}
	}
}

// seqRange renders the seqs from a to b.
func seqRange(a, b uint64) string {
	if a == b {
		return strconv.FormatUint(a, 10)
	}
	return strconv.FormatUint(a, 10) + "-" + strconv.FormatUint(b, 10)
}

// readEntry takes from one entry what it says the tables must hold.
func (c *checker) readEntry(e EventRow) {
	f := &c.log
	player := func(id uuid.UUID) {
		if id != uuid.Nil {
			f.players[id] = e.Seq
		}
	}
	if len(e.Body) < 1 || e.Body[0] != record.EntryVersion {
		c.problem("log-entry-unreadable", []any{"seq", e.Seq}, "the %s entry's body has an unknown version", e.Kind)
		return
	}
	var err error
	switch e.Kind {
	case KindListingCreated, KindListingRemoved:
		ev, err := decodeEvent(e)
		if err != nil {
			c.problem("log-entry-unreadable", []any{"seq", e.Seq}, "the %s entry cannot be read (%v)", e.Kind, err)
			return
		}
		var l Listing
		word := listingWord{seq: e.Seq}
		switch ev := ev.(type) {
		case ListingCreatedEvent:
			l, word.present, word.how = ev.listing, true, "created it"
		case ListingRemovedEvent:
			l, word.how = ev.listing, "removed it ("+ev.reason+")"
		}
		f.listings[uint32(l.ID)] = word
		player(l.Seller)
	case KindBidPlaced:
		var x record.BidPlaced
		if x, err = record.DecodeBidPlaced(e.Body); err == nil {
			f.listings[x.Listing.ID] = listingWord{seq: e.Seq, present: true, how: "took a bid on it"}
			player(x.Listing.Auction.Leader)
			player(x.Previous)
		}
	case KindAuctionEnded:
		var x record.AuctionEnded
		if x, err = record.DecodeAuctionEnded(e.Body); err == nil && x.Winner == uuid.Nil {
			f.listings[x.ID] = listingWord{seq: e.Seq, how: "ended it without a bid"}
		}
	case KindListingExpired:
		var x record.ListingExpired
		if x, err = record.DecodeListingExpired(e.Body); err == nil {
			f.listings[x.ID] = listingWord{seq: e.Seq, how: "expired it"}
		}
	case KindTransactionStep, KindTransactionCompleted, KindTransactionRated:
		x, err := record.DecodeTransactionEntry(e.Body)
		if err != nil {
			c.problem("log-entry-unreadable", []any{"seq", e.Seq}, "the %s entry cannot be read (%v)", e.Kind, err)
			return
		}
		t := storedTransaction(&x)
		id := uuid.MustParse(t.ID)
		w := f.txs[id]
		if w == nil {
			w = &txWord{}
			f.txs[id] = w
		}
		w.seq, w.state = e.Seq, uint8(stateIndex(t.State))
		w.completed = w.completed || e.Kind == KindTransactionCompleted
		if t.State == StateItemDelivered && e.Kind == KindTransactionStep {
			f.listings[uint32(t.ListingID)] = listingWord{seq: e.Seq, how: "delivered its item to transaction " + t.ID}
		}
		if x.Restored != nil {
			f.listings[x.Restored.ID] = listingWord{seq: e.Seq, present: true, how: "put it back (transaction " + t.ID + " rolled back)"}
		}
		player(t.Buyer)
		player(t.Seller)
		player(x.Refunded)
	case KindOrderPlaced, KindOrderClosed:
		var o record.Order
		if o, err = orderOfEntry(e); err == nil {
			player(o.Buyer)
		}
	case KindOrderFilled:
		var x record.OrderFilled
		if x, err = record.DecodeOrderFilled(e.Body); err == nil {
			player(x.Order.Buyer)
			player(x.Seller)
			if x.ListingLeft > 0 { // the fill took part of the stack: the rest stays on sale
				f.listings[x.Listing] = listingWord{seq: e.Seq, present: true,
					how: fmt.Sprintf("sold %d of its items to buy order #%d", x.Amount, x.Order.ID)}
			}
		}
	case KindMailClaimed:
		var x record.MailClaimed
		x, err = record.DecodeMailClaimed(e.Body)
		player(x.Player)
		for _, m := range x.Moves {
			f.claimed[m.Mail] = e.Seq
		}
	case KindPlayerAdded, KindPlayerChanged, KindIssued, KindPlayerData:
		var id uuid.UUID
		id, err = record.DecodeEntryPlayer(e.Body)
		player(id)
	default:
		c.problem("log-entry-unknown", []any{"seq", e.Seq}, "the entry's kind %q is not one Rynek writes", e.Kind)
		return
	}
	if err != nil {
		c.problem("log-entry-unreadable", []any{"seq", e.Seq}, "the %s entry cannot be read (%v)", e.Kind, err)
	}
}

// logged reports whether a listing or transaction created (or completed) at
// ms must have its entry in the log: the market made it after everything
// bulk loads wrote (which logs nothing) and after the newest entry that
// retention deleted. Creation times and entries come from one clock call,
// so a row whose entry was trimmed is never later than the horizon's time,
// however the clock went.
func (c *checker) logged(ms int64) bool {
	return c.meta.HasOpening && ms > c.meta.Opening.LoadedThrough && ms > c.meta.TrimmedAt
}

// heldAgainstLog holds a transaction row against the log's last word on
// it.
func (c *checker) heldAgainstLog(t *transactionRecord) {
	w := c.log.txs[t.id]
	if w == nil {
		if c.logged(t.created) {
			c.problem("transaction-not-logged", []any{"transaction", t.id}, "the purchase was made at %s, after the log's horizon and every bulk load, but the log has no entry of it",
				at(t.created))
		}
		return
	}
	w.seen = true
	if w.state != t.state {
		c.problem("log-transaction-disagrees", []any{"transaction", t.id, "seq", w.seq},
			"the log's entry %d leaves the purchase %s, the transactions table holds it %s", w.seq, States()[w.state], t.State())
	}
	if done := t.tl[len(t.tl)-1].At; t.State() == StateCompleted && !w.completed && c.logged(done) {
		c.problem("transaction-not-logged", []any{"transaction", t.id}, "the purchase was completed at %s, after the log's horizon, but the log has no TransactionCompletedEvent of it",
			at(done))
	}
}

// checkAgainstLog checks that the log is whole and holds the tables against
// it (see the comment at the top of this file).
func (c *checker) checkAgainstLog() {
	s, f, l := c.svc, &c.log, c.r.Log
	switch {
	case l.Entries == 0 && c.meta.LastSeq > 0:
		c.problem("log-end-missing", []any{"seq", seqRange(1, c.meta.LastSeq)}, "the log is empty, but its counter says entries up to %d were written: the newest is never trimmed", c.meta.LastSeq)
	case c.meta.LastSeq > l.Last:
		c.problem("log-end-missing", []any{"seq", seqRange(l.Last+1, c.meta.LastSeq)}, "the log ends at %d, but its counter says entries up to %d were written: the newest is never trimmed", l.Last, c.meta.LastSeq)
	}
	if c.meta.HasOpening && l.Entries > 0 && l.First > c.meta.Trimmed+1 {
		c.problem("log-start-missing", []any{"seq", seqRange(c.meta.Trimmed+1, l.First-1)}, "the log starts at %d, but retention trimmed it only through %d: the entries in between were deleted by hand",
			l.First, c.meta.Trimmed)
	}
	if c.meta.PublishedSeq > max(l.Last, c.meta.LastSeq) {
		c.problem("log-publication-ahead", nil, "delivery to listeners is marked at %d, past the newest entry, %d: the store refuses to open such a market", c.meta.PublishedSeq, l.Last)
	}
	for id, w := range f.listings {
		onMarket := s.listings.Get(id) != nil || c.badListings[int64(id)]
		switch {
		case w.present && !onMarket:
			c.problem("log-listing-missing", []any{"listing", id, "seq", w.seq}, "the log's entry %d %s, and no later entry took it off the market, but it is not in the listings table", w.seq, w.how)
		case !w.present && onMarket:
			c.problem("log-listing-not-removed", []any{"listing", id, "seq", w.seq}, "the log's entry %d %s, but it is still in the listings table", w.seq, w.how)
		}
	}
	s.listings.Each(func(r *listingRecord) {
		if _, ok := f.listings[r.id]; !ok && c.logged(r.created) {
			c.problem("listing-not-logged", []any{"listing", r.id}, "listing #%d was created at %s, after the log's horizon and every bulk load, but the log has no entry of its creation",
				r.id, at(r.created))
		}
	})
	for id, w := range f.txs {
		if !w.seen && !c.badTx[id] {
			c.problem("log-transaction-missing", []any{"transaction", id, "seq", w.seq}, "the log's entry %d leaves the purchase %s, but it is not in the transactions table", w.seq, States()[w.state])
		}
	}
	for id, seq := range f.players {
		if !c.players[id] {
			c.problem("log-player-missing", []any{"player", id, "seq", seq}, "the log's entry %d names the player, who is not in the players table (no operation deletes a player)", seq)
		}
	}
	for _, p := range s.players {
		for _, m := range p.mail {
			if seq, ok := f.claimed[m.id]; ok {
				c.problem("log-mail-not-claimed", []any{"mail", m.id, "seq", seq}, "the log's entry %d moved the mailbox entry into %s's inventory, but it is still in the mailbox", seq, p.name)
			}
		}
	}
	if !c.meta.HasOpening {
		c.note("listings and transactions are not held against the log's entries of their creation: without an opening account the check cannot tell what bulk loads wrote")
	}
}

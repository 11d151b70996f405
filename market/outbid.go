package market

import (
	"slices"

	"github.com/rynek/rynek/market/catalog"
	"github.com/rynek/rynek/market/internal/record"
)

// Outbid notices. A bid that beats another bidder's gives them their bid
// back and, in the same commit, a notice in their own stored data; so do
// a buy-now that takes the auction from its leader and an admin's
// takedown of an auction with a leader (the
// extra blob of their player row, written on the condition that it still is
// what this instance read): a bidder who is offline, or on another server
// of a network, finds it in Notifications when they come back. The notice
// is stored, not derived from the event log, so that it outlives the log's
// trimming and reaches the other servers as the row they read again.

// outbidNotice is a bid of the player's that another bidder beat.
type outbidNotice struct {
	listing   uint32
	at        int64 // unix ms of the bid that beat it
	bid       Money // the new leading bid, or the buy-now price
	refunded  Money // the player's bid, back in their balance
	boughtNow bool  // another player bought the auction at its buy-now price
	takenDown bool  // an admin took the auction down; bid is the player's own
	amount    uint8
	material  string // the auction's material key, as it was then
}

// MaxOutbidNotices bounds the outbid notices a player keeps; the oldest go
// first.
const MaxOutbidNotices = record.MaxOutbids

// withOutbid is x with notice o appended (the oldest dropped past
// MaxOutbidNotices), as a new value: x itself is left as it is, for a
// commit that may fail. The alerts are x's own slice, not a copy, so that
// the alert index's pointers into them stay good once the new value
// replaces x (setNoticesLocked). The favourites are copied: the current
// value's lose a listing in place as it leaves (forgetFavoritesLocked), and
// an undo that put x back would have found its list shifted.
func (x *playerExtra) withOutbid(o outbidNotice) *playerExtra {
	var c playerExtra
	if x != nil {
		c = *x
		c.favorites = slices.Clone(x.favorites)
	}
	keep := c.outbids[max(0, len(c.outbids)-(MaxOutbidNotices-1)):]
	c.outbids = append(slices.Clip(keep), o)
	return &c
}

// outbidOp adds to op, the previous leader prev's (their refund), the
// write of their data with the notice of why their bid came back: the bid
// that beat theirs (reason ""), the buy-now at that price
// (OutbidBoughtNow), or an admin's takedown (OutbidTakenDown); it returns
// the data, for setNoticesLocked once the batch commits. The write holds
// only while prev's stored data is still what this instance read: another
// server's change of it meanwhile makes the commit a conflict (Bid then
// tries again on the data as it is).
func (s *Service) outbidOp(op *Op, prev *playerRecord, r *listingRecord, bid, refunded Money, reason string, now int64) (*playerExtra, *dataBlob) {
	x := prev.extra.withOutbid(outbidNotice{listing: r.id, at: now, bid: bid, refunded: refunded,
		boughtNow: reason == OutbidBoughtNow, takenDown: reason == OutbidTakenDown,
		amount: r.it.Amount, material: catalog.Material(r.it.Mat).Key})
	blob := s.blobOf(x)
	op.data, op.expect = blob, prev.storedExtra
	return x, blob
}

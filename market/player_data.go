package market

import (
	"slices"

	"github.com/google/uuid"

	"github.com/rynek/rynek/market/internal/record"
)

// A player's own market data: favourite listings, price alerts and what
// they fired, the auctions where they were outbid, and how far the player
// has read their notifications. It is
// one blob in the player's row (PlayerRow.Extra), written by a conditional
// update like the inventory.

// playerExtra is a player's own market data, decoded.
type playerExtra struct {
	favorites []uint32 // listing ids, in the order added; gone listings are dropped on the next write
	alerts    []alertRecord
	hits      []alertHit     // oldest first, at most MaxAlertHits
	hitsTail  *hitTail       // the array hits is in, when withHit made it (nil: hits is its own)
	readAt    int64          // unix ms: notifications up to this time are read
	outbids   []outbidNotice // oldest first, at most MaxOutbidNotices
}

// alertRecord is one price alert: listings whose text matches query, at a
// unit price of at most maxUnit.
type alertRecord struct {
	id      uuid.UUID
	query   string
	maxUnit Money
	created int64
	words   []string // query's words (search.ParseText), not stored
}

// alertHit is an alert that fired: what it found, as it was then. It is
// the stored record's own type, so that encoding a player's data, which an
// alert firing does on the main thread for each owner, does not copy the
// hits (up to MaxAlertHits a player) into another list first.
type alertHit = record.Hit

// MaxAlertHits bounds the alert notifications (what a player's price
// alerts found) that a player keeps; the oldest go first. A generator of
// demo data keeps as many.
const MaxAlertHits = record.MaxHits

// maxFavorites bounds a player's favourites.
const maxFavorites = record.MaxFavorites

// clone copies x deeply enough that changing the copy's lists leaves x's
// alone.
func (x *playerExtra) clone() *playerExtra {
	if x == nil {
		return &playerExtra{}
	}
	c := *x
	c.favorites = slices.Clone(x.favorites)
	c.alerts = slices.Clone(x.alerts)
	c.hits, c.hitsTail = slices.Clone(x.hits), nil
	c.outbids = slices.Clone(x.outbids)
	return &c
}

// withHit is a copy of x with hit added after its hits (the oldest going
// past MaxAlertHits): what an alert firing changes, for setNoticesLocked.
// The outbid notices and the alerts are x's, which nothing changes in
// place (a change of them makes a new list), not copies: the alert index
// keeps the addresses of the alerts, and a copy had to be filed in it
// again for each owner of an alert a new listing fires. The favourites are
// copied, as forgetFavoritesLocked changes the current value's in place.
//
// The hits are not copied either: the new hit goes after x's in the array
// they share (hitTail), which x's readers never read past their own end.
// Copying them, up to MaxAlertHits of some 64 bytes for each owner of an
// alert a new listing fired, into memory the heap had not touched yet,
// was half of a new listing's alerts on the main thread (perf of the
// serve loop: the copy and its page faults, 7% of a tick's CPU).
func (x *playerExtra) withHit(h alertHit) *playerExtra {
	c := &playerExtra{}
	if x != nil {
		*c = *x
		c.favorites = slices.Clone(x.favorites)
	}
	c.hits, c.hitsTail = c.hitsTail.append(c.hits[max(0, len(c.hits)+1-MaxAlertHits):], h)
	return c
}

// hitTail is an array of alert hits that versions of a player's data share,
// each a stretch of it (playerExtra.hits), and how far it is written. A hit
// is only ever written past the end, once: what a version's stretch holds
// never changes, so its readers need no lock against the main thread adding
// to the array.
type hitTail struct {
	buf  []alertHit
	used int // buf[:used] is written
}

// append returns hits with h after them, and the array that holds the
// result: t's, written past hits in place when hits end where t is written
// to (no other version has added after them) and it has room, a new one
// otherwise, with room for as many again (at most MaxAlertHits more).
func (t *hitTail) append(hits []alertHit, h alertHit) ([]alertHit, *hitTail) {
	n := len(hits)
	if t != nil && n > 0 && t.used < len(t.buf) && &t.buf[t.used-1] == &hits[n-1] {
		t.buf[t.used] = h
		t.used++
		return t.buf[t.used-n-1 : t.used], t
	}
	t = &hitTail{buf: make([]alertHit, n+1+min(max(n+1, 8), MaxAlertHits))}
	copy(t.buf, hits)
	t.buf[n] = h
	t.used = n + 1
	return t.buf[:n+1], t
}

// extraOp is the op that writes x as p's data, while the store still holds
// what memory has.
func (s *Service) extraOp(p *playerRecord, blob *dataBlob) Op {
	return Op{Kind: OpPlayerState, Player: &PlayerRow{ID: p.id}, data: blob, expect: p.storedExtra}
}

func nonNilBlob(b []byte) []byte {
	if b == nil {
		return []byte{}
	}
	return b
}

// liveListing reports whether listing id is on the market, for blobOf.
func (s *Service) liveListing(id uint32) bool { return s.listings.Get(id) != nil }

// setExtraLocked gives p new data, keeping the indexes of favourites and
// alerts in step.
func (s *Service) setExtraLocked(p *playerRecord, x *playerExtra, stored *dataBlob) {
	if old := p.extra; old != nil {
		for _, id := range old.favorites {
			s.unfavorLocked(id, p.idx)
		}
		for i := range old.alerts {
			s.alerts.Remove(&old.alerts[i], old.alerts[i].words)
		}
	}
	p.extra, p.storedExtra = x, stored
	if x == nil {
		return
	}
	for _, id := range x.favorites {
		s.favoredBy[id] = append(s.favoredBy[id], p.idx)
	}
	for i := range x.alerts {
		s.alerts.Add(p.idx, &x.alerts[i], x.alerts[i].words, int64(x.alerts[i].maxUnit))
	}
}

// setNoticesLocked gives p data x that differs from its own only in its
// notices (outbid notices, alert hits): unlike setExtraLocked it re-files
// no favourite and no alert, which x shares with the data it replaces
// (withOutbid, withHit).
func (s *Service) setNoticesLocked(p *playerRecord, x *playerExtra, stored *dataBlob) {
	p.extra, p.storedExtra = x, stored
}

// writeExtra commits x as p's data with a PlayerData log entry, and puts it
// in memory.
func (s *Service) writeExtra(p *playerRecord, x *playerExtra) error {
	blob := s.blobOf(x)
	b := &s.batch
	b.Reset()
	b.add(s.extraOp(p, blob))
	b.log(EventRow{Kind: KindPlayerData, At: s.nowMs(), Body: record.EncodePlayerDataChanged(nil, p.id)})
	if err := s.submit(b, func() { s.setExtraLocked(p, x, blob) }, nil); err != nil {
		return err
	}
	return nil
}

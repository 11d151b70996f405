package market

import (
	"encoding/binary"
	"fmt"
	"slices"

	"github.com/google/uuid"
	"github.com/rynek/rynek/market/internal/item"
)

// A player's own market data: favourite listings, price alerts and what
// they fired, and how far the player has read their notifications. It is
// one blob in the player's row (PlayerRow.Extra), written by a conditional
// update like the inventory.

// playerExtra is a player's own market data, decoded.
type playerExtra struct {
	favorites []uint32 // listing ids, in the order added; gone listings are dropped on the next write
	alerts    []alertRecord
	hits      []alertHit // oldest first, at most MaxAlertHits
	readAt    int64      // unix ms: notifications up to this time are read
}

// alertRecord is one price alert: listings whose text matches query, at a
// unit price of at most maxUnit.
type alertRecord struct {
	id      uuid.UUID
	query   string
	maxUnit Money
	created int64
	words   []string // query's words (parseQueryText), not stored
	seen    uint32   // alertIndex.gen when a listing last checked it, not stored
}

// alertHit is an alert that fired: what it found, as it was then.
type alertHit struct {
	alert    uuid.UUID
	listing  uint32
	at       int64
	price    Money
	amount   uint8
	material string
}

// MaxAlertHits bounds the alert notifications (what a player's price
// alerts found) that a player keeps; the oldest go first. A generator of
// demo data keeps as many.
const MaxAlertHits = 200

// maxFavorites bounds a player's favourites.
const maxFavorites = 500

const extraVersion = 1

// encodeExtra encodes x; listing ids that are not live (live == nil keeps
// all) are left out, which is how a gone listing leaves the stored list.
func encodeExtra(x *playerExtra, live func(uint32) bool) []byte {
	if x == nil {
		return []byte{}
	}
	b := []byte{extraVersion}
	var favs []uint32
	for _, id := range x.favorites {
		if live == nil || live(id) {
			favs = append(favs, id)
		}
	}
	b = binary.AppendUvarint(b, uint64(len(favs)))
	for _, id := range favs {
		b = binary.AppendUvarint(b, uint64(id))
	}
	b = binary.AppendUvarint(b, uint64(len(x.alerts)))
	for _, a := range x.alerts {
		b = append(b, a.id[:]...)
		b = item.AppendString(b, a.query)
		b = binary.AppendVarint(b, int64(a.maxUnit))
		b = binary.AppendVarint(b, a.created)
	}
	b = binary.AppendUvarint(b, uint64(len(x.hits)))
	for _, h := range x.hits {
		b = append(b, h.alert[:]...)
		b = binary.AppendUvarint(b, uint64(h.listing))
		b = binary.AppendVarint(b, h.at)
		b = binary.AppendVarint(b, int64(h.price))
		b = append(b, h.amount)
		b = item.AppendString(b, h.material)
	}
	return binary.AppendVarint(b, x.readAt)
}

// decodeExtra decodes what encodeExtra wrote; an empty blob is no data.
func decodeExtra(b []byte) (*playerExtra, error) {
	if len(b) == 0 {
		return nil, nil
	}
	r := item.Reader{B: b}
	if r.Byte() != extraVersion {
		return nil, fmt.Errorf("player data: unknown version")
	}
	x := &playerExtra{}
	n := r.Uvarint()
	if n > maxFavorites {
		return nil, item.ErrMalformed
	}
	for range n {
		x.favorites = append(x.favorites, r.ListingID())
	}
	n = r.Uvarint()
	if n > 1000 {
		return nil, item.ErrMalformed
	}
	for range n {
		var a alertRecord
		r.Fixed(a.id[:])
		a.query = string(r.Bytes(MaxAlertQueryBytes))
		a.maxUnit = Money(r.Varint())
		a.created = r.Varint()
		a.words = parseQueryText(a.query).words
		x.alerts = append(x.alerts, a)
	}
	n = r.Uvarint()
	if n > MaxAlertHits {
		return nil, item.ErrMalformed
	}
	for range n {
		var h alertHit
		r.Fixed(h.alert[:])
		h.listing = r.ListingID()
		h.at = r.Varint()
		h.price = Money(r.Varint())
		h.amount = r.Byte()
		h.material = string(r.Bytes(256))
		x.hits = append(x.hits, h)
	}
	x.readAt = r.Varint()
	if r.Err != nil || len(r.B) != 0 {
		return nil, item.ErrMalformed
	}
	return x, nil
}

// clone copies x deeply enough that changing the copy's lists leaves x's
// alone.
func (x *playerExtra) clone() *playerExtra {
	if x == nil {
		return &playerExtra{}
	}
	c := *x
	c.favorites = slices.Clone(x.favorites)
	c.alerts = slices.Clone(x.alerts)
	c.hits = slices.Clone(x.hits)
	return &c
}

// extraOp is the op that writes x as p's data, while the store still holds
// what memory has.
func (s *Service) extraOp(p *playerRecord, blob []byte) Op {
	return Op{Kind: OpPlayerState, Player: &PlayerRow{ID: p.id, Extra: blob}, ExpectExtra: nonNilBlob(p.storedExtra)}
}

func nonNilBlob(b []byte) []byte {
	if b == nil {
		return []byte{}
	}
	return b
}

// liveListing reports whether listing id is on the market, for encodeExtra.
func (s *Service) liveListing(id uint32) bool { return s.listings.get(id) != nil }

// setExtraLocked gives p new data, keeping the indexes of favourites and
// alerts in step.
func (s *Service) setExtraLocked(p *playerRecord, x *playerExtra, stored []byte) {
	if old := p.extra; old != nil {
		for _, id := range old.favorites {
			s.unfavorLocked(id, p.idx)
		}
		for i := range old.alerts {
			s.alerts.remove(p.idx, &old.alerts[i])
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
		s.alerts.add(p.idx, &x.alerts[i])
	}
}

// writeExtra commits x as p's data with a PlayerData log entry, and puts it
// in memory.
func (s *Service) writeExtra(p *playerRecord, x *playerExtra) error {
	blob := encodeExtra(x, s.liveListing)
	b := &s.batch
	b.Reset()
	b.add(s.extraOp(p, blob))
	b.log(EventRow{Kind: KindPlayerData, At: s.nowMs(), Body: playerDataBody(p.id)})
	if err := s.commit(b); err != nil {
		return err
	}
	s.applied(func() { s.setExtraLocked(p, x, blob) })
	return nil
}

// playerDataBody records that a player's own data changed.
func playerDataBody(id uuid.UUID) []byte {
	return append([]byte{eventBodyVersion}, id[:]...)
}

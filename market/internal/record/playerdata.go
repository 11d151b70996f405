package record

import (
	"encoding/binary"
	"fmt"

	"github.com/google/uuid"

	"github.com/rynek/rynek/market/internal/item"
)

// A player's own market data: favourite listings, price alerts and what
// they fired, the auctions where they were outbid, and how far the player
// has read their notifications. It is one blob in the player's row
// (PlayerRow.Extra), written by a conditional update like the inventory.
//
// Two versions: a blob without outbid notices is version 1, byte for byte
// what was written before auctions, so an older binary still reads it; one
// with them is PlayerDataVersionOutbids, version 1's fields followed by the
// notices.

// Limits of a player's data, which the decoder holds a blob to.
const (
	MaxFavorites      = 500 // favourite listings
	MaxAlerts         = 1000
	MaxHits           = 200 // alert notifications kept, the oldest go first
	MaxOutbids        = 200 // outbid notifications kept, the oldest go first
	MaxAlertQueryText = 100 // bytes of an alert's search text
	maxMaterialText   = 256
)

// PlayerData is a player's own market data.
type PlayerData struct {
	Favorites []uint32 // listing ids, in the order added
	Alerts    []Alert
	Hits      []Hit    // oldest first, at most MaxHits
	ReadAt    int64    // unix ms: notifications up to this time are read
	Outbids   []Outbid // oldest first, at most MaxOutbids
}

// PlayerDataVersionOutbids is the version of a player's data blob that
// carries outbid notices.
const PlayerDataVersionOutbids = 2

// Outbid is the notice of a leading bid that another player beat: the
// auction, the new leading bid (or the buy-now price another player bought
// it at), the player's bid that came back to them, and what the auction
// sells, as it was then (the auction may be gone when it is read).
type Outbid struct {
	Listing   uint32
	At        int64
	Bid       int64 // the new leading bid, or the buy-now price (cents)
	Refunded  int64 // the player's bid, back in their balance (cents)
	BoughtNow bool  // another player bought the auction at its buy-now price
	TakenDown bool  // an admin took the auction down (Bid is the player's own)
	Amount    uint8
	Material  string
}

// Alert is one price alert: listings whose text matches Query, at a unit
// price of at most MaxUnit cents.
type Alert struct {
	ID      uuid.UUID
	Query   string
	MaxUnit int64
	Created int64
}

// Hit is an alert that fired: what it found, as it was then.
type Hit struct {
	Alert    uuid.UUID
	Listing  uint32
	At       int64
	Price    int64
	Amount   uint8
	Material string
}

// EncodePlayerData encodes d: version 1 without outbid notices,
// PlayerDataVersionOutbids with them; nil is the empty blob (no data).
//
//	byte     version
//	uvarint  favourites, then each listing id
//	uvarint  alerts, then each [16] id, query, varint unit price, created
//	uvarint  hits, then each [16] alert, uvarint listing, varint time and
//	         price, byte amount, material
//	varint   read up to (unix ms)
//	uvarint  outbid notices (at least 1), then each uvarint listing,
//	         varint time, leading bid and refunded bid, byte 1 when
//	         bought now (else 0), byte amount, material; version 2 only
func EncodePlayerData(d *PlayerData) []byte {
	if d == nil {
		return []byte{}
	}
	v := byte(Version)
	if len(d.Outbids) > 0 {
		v = PlayerDataVersionOutbids
	}
	// Sized once: a player's data is encoded again at each change of it
	// (each alert that fires), on the main thread; a hit takes some 40
	// bytes, an alert its query and some 40.
	size := 16 + 5*len(d.Favorites) + 48*len(d.Hits) + 48*len(d.Outbids)
	for _, a := range d.Alerts {
		size += 40 + len(a.Query)
	}
	b := make([]byte, 1, size)
	b[0] = v
	b = binary.AppendUvarint(b, uint64(len(d.Favorites)))
	for _, id := range d.Favorites {
		b = binary.AppendUvarint(b, uint64(id))
	}
	b = binary.AppendUvarint(b, uint64(len(d.Alerts)))
	for _, a := range d.Alerts {
		b = append(b, a.ID[:]...)
		b = item.AppendString(b, a.Query)
		b = binary.AppendVarint(b, a.MaxUnit)
		b = binary.AppendVarint(b, a.Created)
	}
	b = binary.AppendUvarint(b, uint64(len(d.Hits)))
	for _, h := range d.Hits {
		b = append(b, h.Alert[:]...)
		b = binary.AppendUvarint(b, uint64(h.Listing))
		b = binary.AppendVarint(b, h.At)
		b = binary.AppendVarint(b, h.Price)
		b = append(b, h.Amount)
		b = item.AppendString(b, h.Material)
	}
	b = binary.AppendVarint(b, d.ReadAt)
	if v == PlayerDataVersionOutbids {
		b = binary.AppendUvarint(b, uint64(len(d.Outbids)))
		for _, o := range d.Outbids {
			b = binary.AppendUvarint(b, uint64(o.Listing))
			b = binary.AppendVarint(b, o.At)
			b = binary.AppendVarint(b, o.Bid)
			b = binary.AppendVarint(b, o.Refunded)
			var why byte // 0 outbid, 1 bought now, 2 taken down
			switch {
			case o.BoughtNow:
				why = 1
			case o.TakenDown:
				why = 2
			}
			b = append(b, why, o.Amount)
			b = item.AppendString(b, o.Material)
		}
	}
	return b
}

// DecodePlayerData decodes what EncodePlayerData wrote; the empty blob is
// no data (nil, nil).
func DecodePlayerData(b []byte) (*PlayerData, error) {
	if len(b) == 0 {
		return nil, nil
	}
	r := item.Reader{B: b}
	v := r.Byte()
	if v != Version && v != PlayerDataVersionOutbids {
		return nil, fmt.Errorf("player data: unknown version")
	}
	d := &PlayerData{}
	n := r.Uvarint()
	if n > MaxFavorites {
		return nil, item.ErrMalformed
	}
	for range n {
		d.Favorites = append(d.Favorites, r.ListingID())
	}
	n = r.Uvarint()
	if n > MaxAlerts {
		return nil, item.ErrMalformed
	}
	for range n {
		var a Alert
		r.Fixed(a.ID[:])
		a.Query = string(r.Bytes(MaxAlertQueryText))
		a.MaxUnit = r.Varint()
		a.Created = r.Varint()
		d.Alerts = append(d.Alerts, a)
	}
	n = r.Uvarint()
	if n > MaxHits {
		return nil, item.ErrMalformed
	}
	for range n {
		var h Hit
		r.Fixed(h.Alert[:])
		h.Listing = r.ListingID()
		h.At = r.Varint()
		h.Price = r.Varint()
		h.Amount = r.Byte()
		h.Material = string(r.Bytes(maxMaterialText))
		d.Hits = append(d.Hits, h)
	}
	d.ReadAt = r.Varint()
	if v == PlayerDataVersionOutbids {
		n = r.Uvarint()
		if n == 0 || n > MaxOutbids {
			return nil, item.ErrMalformed // version 1 is the blob without them
		}
		for range n {
			var o Outbid
			o.Listing = r.ListingID()
			o.At = r.Varint()
			o.Bid = r.Varint()
			o.Refunded = r.Varint()
			switch r.Byte() {
			case 0:
			case 1:
				o.BoughtNow = true
			case 2:
				o.TakenDown = true
			default:
				return nil, item.ErrMalformed
			}
			o.Amount = r.Byte()
			o.Material = string(r.Bytes(maxMaterialText))
			d.Outbids = append(d.Outbids, o)
		}
	}
	if r.Err != nil || len(r.B) != 0 {
		return nil, item.ErrMalformed
	}
	return d, nil
}

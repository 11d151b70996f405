package record

import (
	"encoding/binary"
	"fmt"

	"github.com/google/uuid"

	"github.com/rynek/rynek/market/internal/item"
)

// A player's own market data: favourite listings, price alerts and what
// they fired, and how far the player has read their notifications. It is
// one blob in the player's row (PlayerRow.Extra), written by a conditional
// update like the inventory.

// Limits of a player's data, which the decoder holds a blob to.
const (
	MaxFavorites      = 500 // favourite listings
	MaxAlerts         = 1000
	MaxHits           = 200 // alert notifications kept, the oldest go first
	MaxAlertQueryText = 100 // bytes of an alert's search text
	maxMaterialText   = 256
)

// PlayerData is a player's own market data.
type PlayerData struct {
	Favorites []uint32 // listing ids, in the order added
	Alerts    []Alert
	Hits      []Hit // oldest first, at most MaxHits
	ReadAt    int64 // unix ms: notifications up to this time are read
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

// EncodePlayerData encodes d, version 1; nil is the empty blob (no data).
func EncodePlayerData(d *PlayerData) []byte {
	if d == nil {
		return []byte{}
	}
	b := []byte{Version}
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
	return binary.AppendVarint(b, d.ReadAt)
}

// DecodePlayerData decodes what EncodePlayerData wrote; the empty blob is
// no data (nil, nil).
func DecodePlayerData(b []byte) (*PlayerData, error) {
	if len(b) == 0 {
		return nil, nil
	}
	r := item.Reader{B: b}
	if r.Byte() != Version {
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
	if r.Err != nil || len(r.B) != 0 {
		return nil, item.ErrMalformed
	}
	return d, nil
}

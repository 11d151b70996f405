package record

import (
	"bytes"
	"testing"

	"github.com/google/uuid"

	"github.com/rynek/rynek/market/catalog"
	"github.com/rynek/rynek/market/internal/item"
)

// stack is an item of the catalogue's material key, for seeds and tests.
func stack(t testing.TB, key string, amount uint8, name string) item.Item {
	t.Helper()
	mat, ok := catalog.MaterialID(key)
	if !ok {
		t.Fatalf("no material %s", key)
	}
	it := item.Item{UID: uuid.New(), Mat: mat, Amount: amount}
	if name != "" {
		it.X = &item.Extra{Name: name}
	}
	return it
}

// FuzzDecodeTimeline: what DecodeTimeline accepts re-encodes to the same
// bytes.
func FuzzDecodeTimeline(f *testing.F) {
	f.Add(EncodeTimeline(nil, Timeline{{State: 0, At: 1_790_000_000_000}, {State: 5, At: -1}}))
	f.Add([]byte{})
	f.Add([]byte{0, 0x80, 0})
	f.Fuzz(func(t *testing.T, b []byte) {
		tl, err := DecodeTimeline(b)
		if err != nil {
			return
		}
		if !bytes.Equal(EncodeTimeline(nil, tl), b) {
			t.Fatal("decoder accepted a non-canonical timeline")
		}
	})
}

// FuzzDecodeListing: what DecodeListing accepts re-encodes to the same bytes.
func FuzzDecodeListing(f *testing.F) {
	it := stack(f, "DIAMOND", 3, "")
	f.Add(EncodeListing(nil, &Listing{Seller: uuid.New(), Price: 12_345, Created: 1_790_000_000_000, Expires: 1_790_600_000_000, Item: it}))
	f.Add(EncodeListing(nil, &Listing{Seller: uuid.New(), Price: 1, Reserved: uuid.New(), Item: it}))
	f.Add([]byte{1})
	f.Fuzz(func(t *testing.T, b []byte) {
		l, err := DecodeListing(b)
		if err != nil {
			return
		}
		if l.Price <= 0 {
			t.Fatalf("accepted price %d", l.Price)
		}
		if !bytes.Equal(EncodeListing(nil, &l), b) {
			t.Fatal("decoder accepted a non-canonical listing")
		}
	})
}

// FuzzDecodeTransaction: what DecodeTransaction accepts re-encodes to the
// same bytes.
func FuzzDecodeTransaction(f *testing.F) {
	tx := Transaction{Listing: 42, Buyer: uuid.New(), Seller: uuid.New(), Price: 10_000, Fee: 500, Net: 9_500,
		Item:     stack(f, "DIAMOND_SWORD", 1, "§bMiecz"),
		Timeline: Timeline{{State: 0, At: 1_790_000_000_000}, {State: 1, At: 1_790_000_000_001}}}
	f.Add(EncodeTransaction(nil, &tx))
	tx.ErrCode, tx.ToMailbox = "INJECTED:SELLER_PAID", true
	f.Add(EncodeTransaction(nil, &tx))
	f.Add([]byte{1})
	f.Fuzz(func(t *testing.T, b []byte) {
		tx, err := DecodeTransaction(b)
		if err != nil {
			return
		}
		if !bytes.Equal(EncodeTransaction(nil, &tx), b) {
			t.Fatal("decoder accepted a non-canonical transaction")
		}
	})
}

// FuzzDecodePlayerData checks that a player's data blob from the store
// never panics the decoder, and that what it accepts encodes back to the
// same bytes (nothing is lost or invented on the next write).
func FuzzDecodePlayerData(f *testing.F) {
	d := &PlayerData{Favorites: []uint32{3, 9}, ReadAt: 1_700_000_000_000,
		Alerts: []Alert{{ID: uuid.New(), Query: "miecz łódź", MaxUnit: 250, Created: 5}},
		Hits:   []Hit{{Alert: uuid.New(), Listing: 7, At: 9, Price: 1200, Amount: 16, Material: "DIAMOND"}}}
	f.Add(EncodePlayerData(d))
	d.Outbids = []Outbid{{Listing: 42, At: 3, Bid: 15_000, Refunded: 12_000, Amount: 16, Material: "DIAMOND"},
		{Listing: 43, At: 4, Bid: 1, Refunded: 1, BoughtNow: true, Amount: 1, Material: "ŁÓDŹ"}}
	f.Add(EncodePlayerData(d))
	f.Add([]byte{})
	f.Add([]byte{Version, 0, 0, 0, 0})
	f.Add([]byte{PlayerDataVersionOutbids, 0, 0, 0, 0, 1, 1, 0, 0, 0, 0, 0, 0})
	f.Fuzz(func(t *testing.T, b []byte) {
		d, err := DecodePlayerData(b)
		if err != nil || d == nil {
			return
		}
		if again := EncodePlayerData(d); !bytes.Equal(again, b) {
			t.Fatalf("decoded %x, encoded back as %x", b, again)
		}
	})
}

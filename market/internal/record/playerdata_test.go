package record

import (
	"bytes"
	"reflect"
	"testing"

	"github.com/google/uuid"
)

// TestPlayerDataOutbids: outbid notices (by a bid or a buy-now) make a
// version-2 blob that decodes to what was encoded; data without them stays version 1, byte for byte the
// blob written before auctions (an older binary reads it), and a version-1
// blob from before decodes as it did.
func TestPlayerDataOutbids(t *testing.T) {
	alert := uuid.MustParse("6f1c0a9e-0000-4000-8000-000000000001")
	// A blob version 1 wrote: a favourite (7), an alert, no hits, read at 1.
	old := []byte{1, 1, 7, 1}
	old = append(old, alert[:]...)
	old = append(old, 4, 'w', 'o', 'o', 'l', 0xc8, 0x01, 0x0a, 0, 0x02)
	d, err := DecodePlayerData(old)
	if err != nil {
		t.Fatalf("the old blob: %v", err)
	}
	want := &PlayerData{Favorites: []uint32{7}, Alerts: []Alert{{ID: alert, Query: "wool", MaxUnit: 100, Created: 5}}, ReadAt: 1}
	if !reflect.DeepEqual(d, want) {
		t.Fatalf("the old blob decoded as %+v, want %+v", d, want)
	}
	if again := EncodePlayerData(d); !bytes.Equal(again, old) {
		t.Fatalf("data without outbids encoded as %x, want the old blob %x", again, old)
	}

	d.Outbids = []Outbid{{Listing: 42, At: 3, Bid: 15_000, Refunded: 12_000, Amount: 16, Material: "DIAMOND"}}
	b := EncodePlayerData(d)
	if b[0] != PlayerDataVersionOutbids {
		t.Fatalf("version %d, want %d", b[0], PlayerDataVersionOutbids)
	}
	wantTail := []byte{1, 42, 6, 0xb0, 0xea, 0x01, 0xc0, 0xbb, 0x01, 0, 16, 7, 'D', 'I', 'A', 'M', 'O', 'N', 'D'}
	if !bytes.Equal(b[:len(old)][1:], old[1:]) || !bytes.Equal(b[len(old):], wantTail) {
		t.Fatalf("version 2: %x, want version 1's fields then %x", b, wantTail)
	}
	back, err := DecodePlayerData(b)
	if err != nil || !reflect.DeepEqual(back, d) {
		t.Fatalf("version 2 decoded as %+v (%v), want %+v", back, err, d)
	}

	empty := append([]byte{PlayerDataVersionOutbids}, old[1:]...)
	empty = append(empty, 0)
	if _, err := DecodePlayerData(empty); err == nil {
		t.Error("decoded version 2 with no outbid notices, which version 1 writes")
	}
	over := append(append([]byte{PlayerDataVersionOutbids}, old[1:]...), 0xc9, 0x01) // 201 notices
	for range MaxOutbids + 1 {
		over = append(over, 1, 0, 0, 0, 0, 1, 0)
	}
	if _, err := DecodePlayerData(over); err == nil {
		t.Error("decoded more than MaxOutbids outbid notices")
	}
	d.Outbids[0].BoughtNow = true
	b = EncodePlayerData(d)
	if back, err := DecodePlayerData(b); err != nil || !reflect.DeepEqual(back, d) || b[len(old)+9] != 1 {
		t.Fatalf("bought now: %x decoded as %+v (%v), want %+v", b, back, err, d)
	}
	d.Outbids[0].BoughtNow, d.Outbids[0].TakenDown = false, true
	b = EncodePlayerData(d)
	if back, err := DecodePlayerData(b); err != nil || !reflect.DeepEqual(back, d) || b[len(old)+9] != 2 {
		t.Fatalf("taken down: %x decoded as %+v (%v), want %+v", b, back, err, d)
	}
	b[len(old)+9] = 3
	if _, err := DecodePlayerData(b); err == nil {
		t.Error("decoded a why byte of 3")
	}
	if _, err := DecodePlayerData([]byte{3, 0, 0, 0, 0}); err == nil {
		t.Error("decoded version 3")
	}
}

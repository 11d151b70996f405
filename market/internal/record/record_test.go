package record

import (
	"testing"

	"github.com/google/uuid"
)

// TestDecodersRefuseNonCanonical holds the timeline and listing decoders to
// the one encoding of each value: a blob they accept re-encodes to itself.
func TestDecodersRefuseNonCanonical(t *testing.T) {
	for name, blob := range map[string]string{
		"padded time": "\x00\x80\x00",
		"bad state":   "\x09\x00",
		"cut short":   "\x00",
	} {
		if _, err := DecodeTimeline([]byte(blob)); err == nil {
			t.Errorf("timeline, %s: decoded", name)
		}
	}

	good := EncodeListing(nil, &Listing{Seller: uuid.New(), Price: 100, Created: 1, Expires: 2, Item: stack(t, "DIAMOND", 1, "")})
	if _, err := DecodeListing(good); err != nil {
		t.Fatalf("valid listing: %v", err)
	}
	flagAt := 1 + 16 + 4 // version, seller, price (2 bytes), created and expires (1 each)
	reservedNil := append(append(append([]byte{}, good[:flagAt]...), 1), make([]byte, 16)...)
	reservedNil = append(reservedNil, good[flagAt+1:]...)
	paddedPrice := append(append(append([]byte{}, good[:17]...), 0xc8|0x80, 0x81, 0x00), good[19:]...)
	for name, blob := range map[string][]byte{"reserved by the nil id": reservedNil, "padded price": paddedPrice} {
		if _, err := DecodeListing(blob); err == nil {
			t.Errorf("listing, %s: decoded", name)
		}
	}
}

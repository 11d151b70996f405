package item

import (
	"bytes"
	"testing"

	"github.com/google/uuid"

	"github.com/rynek/rynek/market/catalog"
)

// FuzzDecodeInventory: what DecodeInventory accepts re-encodes to the same
// bytes.
func FuzzDecodeInventory(f *testing.F) {
	diamond, _ := catalog.MaterialID("DIAMOND")
	ruby, err := catalog.AddMaterial("nexo:ruby")
	if err != nil {
		f.Fatal(err)
	}
	var inv Inventory
	inv[0] = Item{UID: uuid.New(), Mat: diamond, Amount: 64}
	inv[35] = Item{UID: uuid.New(), Mat: ruby, Amount: 1, StackMax: 1, X: &Extra{Name: "r"}}
	f.Add(EncodeInventory(nil, &inv))
	f.Add([]byte{})
	f.Add([]byte{36, 0})
	f.Fuzz(func(t *testing.T, b []byte) {
		inv, err := DecodeInventory(b)
		if err != nil {
			return
		}
		if !bytes.Equal(EncodeInventory(nil, &inv), b) {
			t.Fatal("decoder accepted a non-canonical inventory")
		}
	})
}

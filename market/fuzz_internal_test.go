package market

import (
	"bytes"
	"errors"
	"math"
	"testing"
	"unicode/utf8"

	"github.com/google/uuid"
)

// FuzzPrice checks that price validation never panics, accepts exactly the
// valid prices, and that every accepted price converts to cents exactly.
func FuzzPrice(f *testing.F) {
	for _, p := range []float64{1, 19.99, 0.3, 0.1 + 0.2, 1e6, 1e6 + 0.01, -1, 0, math.NaN(), math.Inf(1), 1.005, 123456.78, 5e-324} {
		f.Add(p)
	}
	f.Fuzz(func(t *testing.T, p float64) {
		m, err := PriceToMoney(p, 100, 100_000_000)
		if err != nil {
			var e *Error
			if !errors.As(err, &e) || e.Code != CodeInvalidPrice {
				t.Fatalf("PriceToMoney(%v): untyped error %v", p, err)
			}
			return
		}
		if m < 100 || m > 100_000_000 {
			t.Fatalf("PriceToMoney(%v) = %d out of bounds", p, m)
		}
		if float64(m)/100 != p {
			t.Fatalf("PriceToMoney(%v) = %d cents: not exact", p, m)
		}
	})
}

// FuzzParsePrice checks typed input: never a panic, only typed errors, and
// accepted text round-trips through FormatMoney.
func FuzzParsePrice(f *testing.F) {
	for _, s := range []string{"12", "12,50", "1 000,00", "1_000.5", "", "abc", "1e5", "-3", "0.001", "٣", "9999999999999999999999"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		m, err := ParsePrice(s, 100, 100_000_000)
		if err != nil {
			var e *Error
			if !errors.As(err, &e) || e.Code != CodeInvalidPrice {
				t.Fatalf("ParsePrice(%q): untyped error %v", s, err)
			}
			if !utf8.ValidString(err.Error()) && utf8.ValidString(s) {
				t.Fatalf("error text broke UTF-8: %q", err.Error())
			}
			return
		}
		back, err := ParsePrice(FormatMoney(m), 100, 100_000_000)
		if err != nil || back != m {
			t.Fatalf("ParsePrice(%q) = %d, FormatMoney -> %q -> %d, %v", s, m, FormatMoney(m), back, err)
		}
	})
}

// FuzzItemInput feeds arbitrary item fields through validation and, when
// accepted, through the blob codec: the result must round-trip exactly.
func FuzzItemInput(f *testing.F) {
	f.Add("DIAMOND_SWORD", 1, 0, "§bMiecz", "lore", "sharpness", 5)
	f.Add("DIAMOND", 64, 0, "", "", "", 0)
	f.Add("diamond", 0, 0, "\x00", "\xff", "nope", 300)
	f.Add("OAK_LOG", 65, 0, "\x1b]52;c;evil\x07", "\u202e", "mending", 1)
	f.Add("nexo:ruby_sword", 99, 99, "", "", "nexo:lifesteal", 2)
	f.Add("minecraft:diamond_sword", 1, 1, "", "", "minecraft:sharpness", 5)
	f.Add("AIR", 1, 100, "", "", "", 0)
	f.Fuzz(func(t *testing.T, mat string, amount, maxStack int, name, lore, ench string, level int) {
		s := ItemStack{ID: uuid.New(), Material: mat, Amount: amount, MaxStack: maxStack, DisplayName: name}
		if lore != "" {
			s.Lore = []string{lore, lore}
		}
		if ench != "" {
			s.Enchantments = []Enchantment{{Key: ench, Level: level}}
		}
		it, err := toItem(s)
		if err != nil {
			var e *Error
			if !errors.As(err, &e) || e.Code != CodeInvalidItem {
				t.Fatalf("untyped error %v", err)
			}
			return
		}
		blob := encodeItem(nil, it)
		back, err := decodeItem(blob)
		if err != nil {
			t.Fatalf("accepted item does not decode: %v", err)
		}
		if !bytes.Equal(encodeItem(nil, back), blob) {
			t.Fatal("round trip changed the item")
		}
		got := back.stack()
		canon, _ := CanonicalMaterialKey(mat)
		if got.ID != s.ID || got.Material != canon || got.Amount != s.Amount || got.DisplayName != s.DisplayName ||
			maxStack != 0 && back.maxStack() != maxStack {
			t.Fatalf("round trip %+v -> %+v", s, got)
		}
	})
}

// FuzzDecodeItem feeds arbitrary bytes to the blob decoder, as a hand-edited
// or corrupt database would: it must never panic, and what it accepts must
// be a valid item that re-encodes to the same bytes.
func FuzzDecodeItem(f *testing.F) {
	good, _ := toItem(ItemStack{ID: uuid.New(), Material: "DIAMOND_SWORD", Amount: 1, DisplayName: "x",
		Lore: []string{"a"}, Enchantments: []Enchantment{{Key: "sharpness", Level: 5}}})
	f.Add(encodeItem(nil, good))
	foreign, _ := toItem(ItemStack{ID: uuid.New(), Material: "nexo:ruby_sword", Amount: 7, MaxStack: 99,
		Enchantments: []Enchantment{{Key: "nexo:lifesteal", Level: 2}}})
	foreign.x.original = original{format: originalBukkitYAML, data: "id: nexo:ruby_sword\n"}
	f.Add(encodeItem(nil, foreign))
	f.Add([]byte{})
	f.Add([]byte{1})
	f.Add(append([]byte{1}, make([]byte, 40)...))
	f.Add(append([]byte{2}, make([]byte, 40)...))
	f.Fuzz(func(t *testing.T, b []byte) {
		it, err := decodeItem(b)
		if err != nil {
			return
		}
		if it.mat == 0 || it.amount == 0 || int(it.amount) > it.maxStack() {
			t.Fatalf("decoded an invalid item %+v", it)
		}
		if _, err := toItem(it.stack()); err != nil {
			t.Fatalf("decoded item fails validation: %v", err)
		}
		if !bytes.Equal(encodeItem(nil, it), b) {
			t.Fatal("decoder accepted a non-canonical blob")
		}
	})
}

// FuzzDecodeInventory: what decodeInventory accepts re-encodes to the same
// bytes.
func FuzzDecodeInventory(f *testing.F) {
	var inv inventory
	inv[0], _ = toItem(ItemStack{ID: uuid.New(), Material: "DIAMOND", Amount: 64})
	inv[35], _ = toItem(ItemStack{ID: uuid.New(), Material: "nexo:ruby", Amount: 1, MaxStack: 1, DisplayName: "r"})
	f.Add(encodeInventory(nil, &inv))
	f.Add([]byte{})
	f.Add([]byte{36, 0})
	f.Fuzz(func(t *testing.T, b []byte) {
		inv, err := decodeInventory(b)
		if err != nil {
			return
		}
		if !bytes.Equal(encodeInventory(nil, &inv), b) {
			t.Fatal("decoder accepted a non-canonical inventory")
		}
	})
}

// FuzzDecodeTimeline: what decodeTimeline accepts re-encodes to the same
// bytes.
func FuzzDecodeTimeline(f *testing.F) {
	f.Add(encodeTimeline(nil, timeline{{state: 0, at: 1_790_000_000_000}, {state: 5, at: -1}}))
	f.Add([]byte{})
	f.Add([]byte{0, 0x80, 0})
	f.Fuzz(func(t *testing.T, b []byte) {
		tl, err := decodeTimeline(b)
		if err != nil {
			return
		}
		if !bytes.Equal(encodeTimeline(nil, tl), b) {
			t.Fatal("decoder accepted a non-canonical timeline")
		}
	})
}

// FuzzDecodeListing: what decodeListing accepts re-encodes to the same bytes.
func FuzzDecodeListing(f *testing.F) {
	it, _ := toItem(ItemStack{ID: uuid.New(), Material: "DIAMOND", Amount: 3})
	f.Add(encodeListing(nil, uuid.New(), &listingRecord{price: 12_345, created: 1_790_000_000_000, expires: 1_790_600_000_000, it: it}))
	f.Add(encodeListing(nil, uuid.New(), &listingRecord{price: 1, reserved: uuid.New(), it: it}))
	f.Add([]byte{1})
	f.Fuzz(func(t *testing.T, b []byte) {
		var r listingRecord
		seller, err := decodeListing(b, &r)
		if err != nil {
			return
		}
		if r.price <= 0 {
			t.Fatalf("accepted price %d", r.price)
		}
		if !bytes.Equal(encodeListing(nil, seller, &r), b) {
			t.Fatal("decoder accepted a non-canonical listing")
		}
	})
}

// FuzzDecodeTx: what decodeTx accepts re-encodes to the same bytes.
func FuzzDecodeTx(f *testing.F) {
	it, _ := toItem(ItemStack{ID: uuid.New(), Material: "DIAMOND_SWORD", Amount: 1, DisplayName: "§bMiecz"})
	tx := &transactionRecord{listing: 42, price: 10_000, fee: 500, net: 9_500, it: it}
	tl := timeline{{state: 0, at: 1_790_000_000_000}, {state: 1, at: 1_790_000_000_001}}
	f.Add(encodeTx(nil, uuid.New(), uuid.New(), tx, tl, "", false))
	f.Add(encodeTx(nil, uuid.New(), uuid.New(), tx, tl, "INJECTED:SELLER_PAID", true))
	f.Add([]byte{1})
	f.Fuzz(func(t *testing.T, b []byte) {
		var tx transactionRecord
		buyer, seller, err := decodeTx(b, &tx)
		if err != nil {
			return
		}
		if !bytes.Equal(encodeTx(nil, buyer, seller, &tx, tx.tl, tx.errCode, tx.toMailbox), b) {
			t.Fatal("decoder accepted a non-canonical transaction")
		}
	})
}

// FuzzQueryText parses arbitrary search text: no panic, words are folded
// word runes only.
func FuzzQueryText(f *testing.F) {
	for _, s := range []string{"diamond sword", "#12", "#", "##1", "łódź", "§b§l", "\x1b[2J", "a b c d e", "#4294967296"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		pq := parseQueryText(s)
		for _, w := range pq.words {
			if w == "" || Fold(w) != w {
				t.Fatalf("word %q of %q is not folded", w, s)
			}
			for _, r := range w {
				if !isWordRune(r) {
					t.Fatalf("word %q of %q has non-word rune %q", w, s, r)
				}
			}
		}
	})
}

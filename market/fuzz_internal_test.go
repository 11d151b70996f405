package market

import (
	"bytes"
	"errors"
	"math"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/google/uuid"
	"github.com/rynek/rynek/market/catalog"
	"github.com/rynek/rynek/market/internal/item"
	"github.com/rynek/rynek/market/internal/record"
	"github.com/rynek/rynek/market/internal/search"
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
		blob := item.Encode(nil, it)
		back, err := item.Decode(blob)
		if err != nil {
			t.Fatalf("accepted item does not decode: %v", err)
		}
		if !bytes.Equal(item.Encode(nil, back), blob) {
			t.Fatal("round trip changed the item")
		}
		got := stackOf(back)
		canon, _ := catalog.CanonicalMaterialKey(mat)
		if got.ID != s.ID || got.Material != canon || got.Amount != s.Amount || got.DisplayName != s.DisplayName ||
			maxStack != 0 && back.MaxStack() != maxStack {
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
	f.Add(item.Encode(nil, good))
	foreign, _ := toItem(ItemStack{ID: uuid.New(), Material: "nexo:ruby_sword", Amount: 7, MaxStack: 99,
		Enchantments: []Enchantment{{Key: "nexo:lifesteal", Level: 2}}})
	foreign.X.Original = item.Original{Format: item.OriginalBukkitYAML, Data: "id: nexo:ruby_sword\n"}
	f.Add(item.Encode(nil, foreign))
	f.Add([]byte{})
	f.Add([]byte{1})
	f.Add(append([]byte{1}, make([]byte, 40)...))
	f.Add(append([]byte{2}, make([]byte, 40)...))
	f.Fuzz(func(t *testing.T, b []byte) {
		it, err := item.Decode(b)
		if err != nil {
			return
		}
		if it.Mat == 0 || it.Amount == 0 || int(it.Amount) > it.MaxStack() {
			t.Fatalf("decoded an invalid item %+v", it)
		}
		if _, err := toItem(stackOf(it)); err != nil {
			t.Fatalf("decoded item fails validation: %v", err)
		}
		if !bytes.Equal(item.Encode(nil, it), b) {
			t.Fatal("decoder accepted a non-canonical blob")
		}
	})
}

// FuzzDecodeEvent feeds the event log's decoder, which reads every contract
// entry a follower or a restarted process takes from the store, with any
// kind and body: it never panics, refuses what is not a body with an error,
// and what it accepts is a well-formed event of the entry's kind and seq.
func FuzzDecodeEvent(f *testing.F) {
	sword, _ := toItem(ItemStack{ID: uuid.New(), Material: "DIAMOND_SWORD", Amount: 1, DisplayName: "§bMiecz",
		Lore: []string{"Łódź"}, Enchantments: []Enchantment{{Key: "sharpness", Level: 5}}})
	seller, buyer := uuid.New(), uuid.New()
	l := &record.Listing{ID: 42, Seller: seller, Price: 12_345, Created: 1_790_000_000_000, Expires: 1_790_600_000_000, Item: sword}
	completed := uint8(stateIndex(StateCompleted))
	tx := record.Transaction{Listing: 42, Buyer: buyer, Seller: seller, Price: 12_345, Fee: 617, Net: 11_728, Item: sword,
		Timeline: record.Timeline{{State: 0, At: 1_790_000_000_000}, {State: completed, At: 1_790_000_000_001}}}
	stepped := tx
	stepped.ErrCode, stepped.ToMailbox = "INJECTED:SELLER_PAID", true
	f.Add(string(KindListingCreated), record.EncodeListingCreated(nil, &record.ListingCreated{Listing: *l, SellerName: "Alice", Slot: 3, Fee: 100}))
	f.Add(string(KindListingRemoved), record.EncodeListingRemoved(nil, &record.ListingRemoved{Listing: *l, SellerName: "Alice",
		Reason: "admin-removed", To: record.Destination{Slot: -1, Mail: uuid.New()}}))
	f.Add(string(KindTransactionCompleted), record.EncodeTransactionEntry(nil, &record.TransactionEntry{ID: uuid.New(), Transaction: tx,
		BuyerName: "Bob", SellerName: "Alice", To: &record.Destination{Slot: 4}}))
	f.Add(string(KindTransactionStep), record.EncodeTransactionEntry(nil, &record.TransactionEntry{ID: uuid.New(), Transaction: stepped,
		BuyerName: "Bob", SellerName: "Alice", Restored: l}))
	f.Add(string(KindMailClaimed), record.EncodeMailClaimed(nil, &record.MailClaimed{Player: buyer, Moves: []record.MailMove{{Mail: uuid.New(), Slot: 2}}}))
	f.Add(string(KindListingCreated), []byte{record.EntryVersion})
	f.Fuzz(func(t *testing.T, kind string, body []byte) {
		row := EventRow{Seq: 7, Kind: EventKind(kind), At: 1_790_000_000_000, Body: body}
		ev, err := decodeEvent(row)
		switch {
		case err != nil:
			if ev != nil {
				t.Fatalf("an error and an event: %v", err)
			}
			return
		case !row.Kind.Published():
			if ev != nil {
				t.Fatalf("internal kind %q decoded to %T", kind, ev)
			}
			return
		case ev == nil:
			t.Fatalf("contract kind %q decoded to nothing without an error", kind)
		}
		if ev.Seq() != 7 || ev.EventName() != kind {
			t.Fatalf("event %T seq %d name %q from an entry of seq 7 kind %q", ev, ev.Seq(), ev.EventName(), kind)
		}
		switch e := ev.(type) {
		case ListingCreatedEvent:
			checkDecodedListing(t, e.Listing())
		case ListingRemovedEvent:
			checkDecodedListing(t, e.Listing())
		case TransactionCompletedEvent:
			tx := e.Transaction()
			if tx.ID == "" || tx.Price <= 0 || len(tx.Timeline) == 0 {
				t.Fatalf("accepted transaction %+v", tx)
			}
		}
	})
}

func checkDecodedListing(t *testing.T, l Listing) {
	t.Helper()
	if l.ID <= 0 || l.Price <= 0 || l.Item.Amount <= 0 || l.Item.Material == "" {
		t.Fatalf("accepted listing %+v", l)
	}
}

// FuzzAlertQuery checks that any alert text is either refused or matches a
// listing made of its own words (an alert must be able to fire).
func FuzzAlertQuery(f *testing.F) {
	for _, q := range []string{"diamond", "miecz łódź", "#5", "", "§b", "a b c", strings.Repeat("x", 30)} {
		f.Add(q)
	}
	diamond, _ := catalog.MaterialID("DIAMOND")
	f.Fuzz(func(t *testing.T, q string) {
		pq := search.ParseText(q)
		if len(pq.Words) == 0 || len(pq.IDs) > 0 || pq.Bad || len(q) > MaxAlertQueryBytes || !utf8.ValidString(q) {
			return
		}
		a := &alertRecord{query: q, maxUnit: 1, words: pq.Words}
		var ai search.Alerts[*alertRecord]
		ai.Add(1, a, a.words, int64(a.maxUnit))
		it := item.Item{Mat: diamond, Amount: 1, X: &item.Extra{Name: strings.Join(pq.Words, " ")}}
		if got := ai.Fired(it, 1, 2, "Someone"); len(got) != 1 {
			t.Fatalf("alert %q did not fire for a listing named with its own words %q", q, pq.Words)
		}
		ai.Remove(a, a.words)
		if ai.Len() != 0 {
			t.Fatalf("alert %q left the index non-empty", q)
		}
	})
}

package wire

import (
	"encoding/json"
	"path/filepath"
	"testing"
	"time"

	"github.com/charmbracelet/x/exp/golden"
	"github.com/google/uuid"
	"github.com/rynek/rynek/market"
	"github.com/rynek/rynek/market/catalog"
	"github.com/rynek/rynek/market/sqlite"
)

var (
	at     = time.Date(2026, 11, 22, 3, 12, 5, 0, time.UTC)
	seller = uuid.MustParse("0190a1b2-0000-7000-8000-000000000001")
	buyer  = uuid.MustParse("0190a1b2-0000-7000-8000-000000000002")
	stack  = uuid.MustParse("0190a1b2-0000-7000-8000-0000000000aa")
)

func sampleItem() market.ItemStack {
	return market.ItemStack{ID: stack, Material: "DIAMOND_AXE", Amount: 1, DisplayName: "§6Topór §lKowala",
		Lore: []string{"ostry"}, Enchantments: []market.Enchantment{{Key: "efficiency", Level: 5}}}
}

func indent(t *testing.T, v any) []byte {
	t.Helper()
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	return append(b, '\n')
}

// TestGoldenShapes pins the JSON of a listing and of a transaction: the
// HTTP interface will serve these bytes, so a change here is a change of
// the public API. Regenerate with: go test ./internal/wire -update
func TestGoldenShapes(t *testing.T) {
	l := market.Listing{ID: 3000, Seller: seller, SellerName: "Kowalski", Item: sampleItem(), Price: 703.2,
		CreatedAt: at.In(time.FixedZone("CET", 3600)), ExpiresAt: at.Add(7 * 24 * time.Hour),
		Categories: []catalog.Category{catalog.CategoryTools}}
	t.Run("Listing", func(t *testing.T) { golden.RequireEqual(t, indent(t, NewListing(l))) })
	before := l
	before.Price, before.Auction = 100, &market.AuctionState{StartingBid: 100, MinimumBid: 100}
	t.Run("AuctionBeforeABid", func(t *testing.T) { golden.RequireEqual(t, indent(t, NewListing(before))) })
	after := l
	after.Auction = &market.AuctionState{StartingBid: 100, CurrentBid: 703.2, Leader: buyer, LeaderName: "Nowak", Bids: 7,
		MinimumBid: 738.36, BuyNow: 1000}
	t.Run("AuctionAfterBids", func(t *testing.T) { golden.RequireEqual(t, indent(t, NewListing(after))) })
	tx := market.Transaction{ID: "0190a1b2-0000-7000-8000-0000000000ff", ListingID: 2999, Buyer: buyer, BuyerName: "Nowak",
		Seller: seller, SellerName: "Kowalski", Item: sampleItem(), Price: 1234567.5, Fee: 61728.38, SellerNet: 1172839.12,
		State: market.StateRolledBack, ErrorCode: "INJECTED:SELLER_PAID",
		Timeline: []market.StateTime{{State: market.StateCreated, At: at}, {State: market.StateRolledBack, At: at.Add(3 * time.Millisecond)}}}
	t.Run("Transaction", func(t *testing.T) { golden.RequireEqual(t, indent(t, NewTransaction(tx))) })
}

func TestMoneyIsCentsWithoutSeparators(t *testing.T) {
	for v, want := range map[float64]string{703.2: "703.20", 0.1 + 0.2: "0.30", 1e6: "1000000.00", 19.99: "19.99"} {
		if got := Money(v); got != want {
			t.Errorf("Money(%v) = %q, want %q", v, got, want)
		}
	}
}

// TestEventsFromARealMarket publishes the three events on a real market and
// checks their wire form: seq, event, at, and the listing (with the reason)
// or the transaction, in camelCase.
func TestEventsFromARealMarket(t *testing.T) {
	st, err := sqlite.Open(filepath.Join(t.TempDir(), "m.db"), sqlite.Options{})
	if err != nil {
		t.Fatal(err)
	}
	b, err := market.NewBulk(st)
	must(t, err)
	must(t, b.AddPlayer(market.Player{ID: seller, Name: "Kowalski"}, 100_00))
	must(t, b.AddPlayer(market.Player{ID: buyer, Name: "Nowak"}, 1_000_000_00))
	must(t, b.SetSlot(seller, 0, sampleItem()))
	must(t, b.SetSlot(seller, 1, market.ItemStack{ID: uuid.New(), Material: "DIAMOND", Amount: 64}))
	must(t, b.Finish())
	svc := market.New(st, market.Config{Clock: market.NewManualClock(at), ListingCooldown: -1})
	must(t, svc.BindMainThread())
	must(t, svc.Enable())
	defer svc.Close()
	var events []market.Event
	svc.Subscribe(func(e market.Event) { events = append(events, e) })
	p := market.Player{ID: seller}
	l1, err := svc.SellItem(p, sampleItem(), 703.2)
	must(t, err)
	must(t, svc.RemoveListing(l1.ID, p))
	ps, _ := svc.GetPlayer(seller)
	l2, err := svc.SellItem(p, *ps.Inventory[1], 20)
	must(t, err)
	_, err = svc.Buy(market.Player{ID: buyer}, l2.ID)
	must(t, err)
	if len(events) != 4 {
		t.Fatalf("%d events", len(events))
	}
	// The seqs are the event log's: the purchase's five inner steps are
	// entries 4 to 8 of the log, not events.
	want := []struct {
		name, reason string
		seq          uint64
		keys         []string
	}{
		{"ListingCreatedEvent", "", 1, []string{"seq", "event", "at", "origin", "listing"}},
		{"ListingRemovedEvent", "removed", 2, []string{"seq", "event", "at", "origin", "listing", "reason"}},
		{"ListingCreatedEvent", "", 3, []string{"seq", "event", "at", "origin", "listing"}},
		{"TransactionCompletedEvent", "", 9, []string{"seq", "event", "at", "origin", "transaction"}},
	}
	for i, e := range events {
		var m map[string]json.RawMessage
		must(t, json.Unmarshal(indent(t, NewEvent(e)), &m))
		if len(m) != len(want[i].keys) {
			t.Errorf("event %d has keys %v, want %v", i, keysOf(m), want[i].keys)
		}
		for _, k := range want[i].keys {
			if _, ok := m[k]; !ok {
				t.Errorf("event %d lacks %q", i, k)
			}
		}
		var got Event
		must(t, json.Unmarshal(m["event"], &got.Event))
		must(t, json.Unmarshal(m["seq"], &got.Seq))
		if got.Event != want[i].name || got.Seq != want[i].seq {
			t.Errorf("event %d: %s seq %d", i, got.Event, got.Seq)
		}
		if r := string(m["reason"]); want[i].reason != "" && r != `"`+want[i].reason+`"` {
			t.Errorf("event %d reason %s", i, r)
		}
	}
	tx := NewEvent(events[3]).Transaction
	if tx.State != "COMPLETED" || tx.Price != "20.00" || tx.Fee != "1.00" || tx.SellerNet != "19.00" ||
		tx.Seller.UUID != seller.String() || tx.Buyer.Name != "Nowak" || tx.UpdatedAt.Before(tx.CreatedAt.Time) {
		t.Errorf("transaction %+v", tx)
	}
}

func keysOf(m map[string]json.RawMessage) []string {
	var ks []string
	for k := range m {
		ks = append(ks, k)
	}
	return ks
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

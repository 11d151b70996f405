package market_test

import (
	"path/filepath"
	"slices"
	"testing"

	"github.com/rynek/rynek/market"
	"github.com/rynek/rynek/market/catalog"
	"github.com/rynek/rynek/market/sqlite"
)

// TestUnknownItemsThroughTheService: items outside the catalogue are kept
// through inventory, listing, search, purchase and a restart, with their own
// stack size.
func TestUnknownItemsThroughTheService(t *testing.T) {
	path := filepath.Join(t.TempDir(), "market.db")
	st, err := sqlite.Open(path, sqlite.Options{})
	must(t, err)
	alice := market.Player{ID: uid(1), Name: "Alice"}
	bob := market.Player{ID: uid(2), Name: "Bob"}
	b, err := market.NewBulk(st)
	must(t, err)
	must(t, b.AddPlayer(alice, 0))
	must(t, b.AddPlayer(bob, 1000_00))
	ruby := market.ItemStack{ID: uid(10), Material: "Nexo:Ruby_Sword", Amount: 99, MaxStack: 99,
		Enchantments: []market.Enchantment{{Key: "nexo:lifesteal", Level: 2}}}
	must(t, b.SetSlot(alice.ID, 0, ruby))
	must(t, b.SetSlot(alice.ID, 1, market.ItemStack{ID: uid(11), Material: "minecraft:some_future_block", Amount: 64}))
	must(t, b.Finish())
	open := func(st market.Store) *market.Service {
		svc := market.New(st, market.Config{Clock: market.NewManualClock(t0), ListingCooldown: -1})
		svc.BindMainThread()
		must(t, svc.Enable())
		return svc
	}
	svc := open(st)
	p, err := svc.GetPlayer(alice.ID)
	must(t, err)
	got := *p.Inventory[0]
	if got.Material != "nexo:ruby_sword" || got.Amount != 99 || got.MaxStack != 99 || got.Enchantments[0].Key != "nexo:lifesteal" {
		t.Fatalf("stack %+v", got)
	}
	sold, err := svc.SellItem(alice, market.ItemStack{ID: got.ID, Material: "nexo:ruby_sword", Amount: 40, MaxStack: 99,
		Enchantments: got.Enchantments}, 400)
	must(t, err)
	if !slices.Equal(sold.Categories, []catalog.Category{catalog.CategoryAll, catalog.CategoryOther}) {
		t.Errorf("categories %v", sold.Categories)
	}
	future := *p.Inventory[1]
	if future.Material != "SOME_FUTURE_BLOCK" {
		t.Errorf("future item stored as %q", future.Material)
	}
	for _, q := range []string{"ruby sword", "nexo", "lifesteal"} {
		r, err := svc.Search(q)
		must(t, err)
		if len(r) != 1 || r[0].ID != sold.ID {
			t.Errorf("Search(%q) = %d listings", q, len(r))
		}
	}
	if info, ok := catalog.LookupMaterial("NEXO:RUBY_SWORD"); !ok || info.Name != "Ruby Sword" {
		t.Errorf("LookupMaterial = %+v, %v", info, ok)
	}
	_, err = svc.Buy(bob, sold.ID)
	must(t, err)
	must(t, svc.Close())

	st, err = sqlite.Open(path, sqlite.Options{})
	must(t, err)
	svc = open(st)
	defer svc.Close()
	p, err = svc.GetPlayer(bob.ID)
	must(t, err)
	if s := p.Inventory[0]; s == nil || s.Material != "nexo:ruby_sword" || s.Amount != 40 || s.MaxStack != 99 {
		t.Fatalf("Bob's stack after a restart: %+v", s)
	}
	p, err = svc.GetPlayer(alice.ID)
	must(t, err)
	if s := p.Inventory[0]; s == nil || s.Amount != 59 {
		t.Fatalf("Alice's rest after a restart: %+v", s)
	}
}

package market_test

import (
	"errors"
	"fmt"
	"math"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/rynek/rynek/market"
)

const (
	notReadyRynek = "Rynek API nie jest gotowe"
	threadText    = "MarketAPI mutacje muszą być wywoływane z głównego wątku serwera"
)

func TestNotReadyEveryOperation(t *testing.T) {
	for _, name := range []string{"", "Bazar"} {
		w := newWorld(t, func(c *market.Config) { c.Name = name })
		want := notReadyRynek
		if name != "" {
			want = name + " API nie jest gotowe"
		}
		l := w.sell(w.alice, 0, 10)
		w.svc.Disable()
		if w.svc.IsReady() {
			t.Fatal("IsReady after Disable")
		}
		if got := len(w.svc.GetCategories()); got != 12 {
			t.Fatalf("GetCategories while not ready: %d categories", got)
		}
		ops := map[string]func() error{
			"GetListings":              func() error { _, err := w.svc.GetListings(); return err },
			"GetListing":               func() error { _, err := w.svc.GetListing(l.ID); return err },
			"GetListingsBySeller":      func() error { _, err := w.svc.GetListingsBySeller(w.alice.ID); return err },
			"Search":                   func() error { _, err := w.svc.Search("diamond"); return err },
			"RemoveListing":            func() error { return w.svc.RemoveListing(l.ID, w.alice) },
			"SellItem":                 func() error { _, err := w.svc.SellItem(w.alice, market.ItemStack{}, 1); return err },
			"GetCompletedTransactions": func() error { _, err := w.svc.GetCompletedTransactions(); return err },
			"GetTransaction":           func() error { _, err := w.svc.GetTransaction("x"); return err },
			"GetActiveListingsCount":   func() error { _, err := w.svc.GetActiveListingsCount(); return err },
			"GetMarketVolume":          func() error { _, err := w.svc.GetMarketVolume(); return err },
			"Buy":                      func() error { _, err := w.svc.Buy(w.bob, l.ID); return err },
			"ForceExpire":              func() error { return w.svc.ForceExpire(l.ID, w.admin) },
			"SweepExpired":             func() error { _, _, err := w.svc.SweepExpired(); return err },
			"ClaimAll":                 func() error { _, err := w.svc.ClaimAll(w.alice.ID); return err },
			"Query":                    func() error { _, err := w.svc.Query(market.Query{}); return err },
			"Stats":                    func() error { _, err := w.svc.Stats(5); return err },
			"Audit":                    func() error { _, err := w.svc.Audit(); return err },
		}
		for op, f := range ops {
			err := f()
			if !errors.Is(err, market.ErrNotReady) {
				t.Errorf("%s: %v is not ErrNotReady", op, err)
			}
			if err == nil || err.Error() != want {
				t.Errorf("%s: got %v, want %q", op, err, want)
			}
		}
		// Not-ready is checked before the thread.
		errc := make(chan error)
		go func() { _, err := w.svc.SellItem(w.alice, market.ItemStack{}, 1); errc <- err }()
		errText(t, <-errc, want)
		must(t, w.svc.Enable())
		if _, err := w.svc.GetListing(l.ID); err != nil {
			t.Fatalf("after Enable: %v", err)
		}
	}
}

func TestMainThreadOnly(t *testing.T) {
	w := newWorld(t)
	l := w.sell(w.alice, 0, 10)
	before := w.audit()
	stack := w.stack(w.bob, 2)
	var wg sync.WaitGroup
	errs := make([]error, 5)
	wg.Add(1)
	go func() {
		defer wg.Done()
		_, errs[0] = w.svc.SellItem(w.bob, stack, 5)
		errs[1] = w.svc.RemoveListing(l.ID, w.alice)
		_, errs[2] = w.svc.Buy(w.bob, l.ID)
		errs[3] = w.svc.ForceExpire(l.ID, w.admin)
		_, _, errs[4] = w.svc.SweepExpired()
		// Reads are fine from any goroutine.
		if _, err := w.svc.GetListing(l.ID); err != nil {
			t.Errorf("read from another goroutine: %v", err)
		}
	}()
	wg.Wait()
	for i, err := range errs {
		if !errors.Is(err, market.ErrNotMainThread) {
			t.Errorf("op %d: %v", i, err)
		}
		errText(t, err, threadText)
	}
	after := w.audit()
	if before.Money != after.Money || before.Stacks != after.Stacks || before.Listings != after.Listings {
		t.Fatalf("state changed by refused mutations: %+v -> %+v", before, after)
	}
	if len(w.events) != 1 {
		t.Fatalf("events: %d, want 1 (the first sell)", len(w.events))
	}
	// The same goroutine that is bound succeeds.
	if err := w.svc.RemoveListing(l.ID, w.alice); err != nil {
		t.Fatal(err)
	}
	// Another goroutine cannot take the main thread over: its binding is
	// refused and it still may not mutate.
	done := make(chan error)
	go func() {
		if err := w.svc.BindMainThread(); !errors.Is(err, market.ErrMainThreadBound) {
			done <- fmt.Errorf("second binding from another goroutine: %v, want ErrMainThreadBound", err)
			return
		}
		if err := w.svc.ReleaseMainThread(); !errors.Is(err, market.ErrMainThreadNotHeld) {
			done <- fmt.Errorf("release from a goroutine that does not hold it: %v", err)
			return
		}
		_, err := w.svc.SellItem(w.bob, stack, 5)
		done <- err
	}()
	errText(t, <-done, threadText)
	must(t, w.svc.BindMainThread()) // the holder binding again changes nothing
	// Moving it deliberately: the holder releases, the new goroutine binds.
	must(t, w.svc.ReleaseMainThread())
	go func() {
		if err := w.svc.BindMainThread(); err != nil {
			done <- err
			return
		}
		_, err := w.svc.SellItem(w.bob, stack, 5)
		done <- err
	}()
	if err := <-done; err != nil {
		t.Fatalf("after a deliberate move: %v", err)
	}
	_, err := w.svc.SellItem(w.alice, w.stack(w.alice, 2), 5)
	errText(t, err, threadText)
}

func TestSellCreatesListingAndEvent(t *testing.T) {
	w := newWorld(t)
	sword := w.stack(w.alice, 1)
	l, err := w.svc.SellItem(w.alice, sword, 1499.99)
	must(t, err)
	if l.ID != 1 || l.Price != 1499.99 || l.Seller != w.alice.ID || l.SellerName != "Alice" || l.Item.ID != sword.ID {
		t.Fatalf("listing %+v", l)
	}
	if !l.ExpiresAt.Equal(t0.Add(7 * 24 * time.Hour)) {
		t.Fatalf("expires %v", l.ExpiresAt)
	}
	if len(w.events) != 1 {
		t.Fatalf("%d events", len(w.events))
	}
	ev, ok := w.events[0].(market.ListingCreatedEvent)
	if !ok || ev.EventName() != "ListingCreatedEvent" || ev.Listing().ID != l.ID || ev.Seq() != 1 {
		t.Fatalf("event %#v", w.events[0])
	}
	st, _ := w.svc.GetPlayer(w.alice.ID)
	if st.Inventory[1] != nil {
		t.Fatal("sold stack still in inventory")
	}
	got, err := w.svc.GetListing(l.ID)
	must(t, err)
	if got.Item.DisplayName != "§bMiecz Łódź" || len(got.Item.Enchantments) != 2 || got.Item.Enchantments[0].Key != "sharpness" {
		t.Fatalf("round trip %+v", got.Item)
	}
	if n, _ := w.svc.GetActiveListingsCount(); n != 1 {
		t.Fatalf("count %d", n)
	}
	// Partial stack: selling 10 of 64 diamonds splits the stack.
	d := w.stack(w.alice, 0)
	d.Amount = 10
	l2, err := w.svc.SellItem(w.alice, d, 100)
	must(t, err)
	if l2.Item.Amount != 10 || l2.Item.ID == d.ID || l2.ID != 2 {
		t.Fatalf("split listing %+v", l2)
	}
	if rest := w.stack(w.alice, 0); rest.Amount != 54 || rest.ID != d.ID {
		t.Fatalf("rest %+v", rest)
	}
	// Survives a restart with the same ids and contents.
	w.reopen()
	got2, err := w.svc.GetListing(l2.ID)
	must(t, err)
	if got2.Item.ID != l2.Item.ID || got2.Price != 100 {
		t.Fatalf("after reopen %+v", got2)
	}
	l3 := w.sell(w.bob, 2, 3)
	if l3.ID != 3 {
		t.Fatalf("id after reopen %d, want 3", l3.ID)
	}
}

func TestSellErrors(t *testing.T) {
	w := newWorld(t, func(c *market.Config) { c.MaxListingsPerPlayer = 2 })
	diamonds := w.stack(w.alice, 0)
	cases := []struct {
		name  string
		item  market.ItemStack
		price float64
		code  market.Code
		text  string
	}{
		{"NaN", diamonds, math.NaN(), market.CodeInvalidPrice, "price is not a number"},
		{"+Inf", diamonds, math.Inf(1), market.CodeInvalidPrice, "price is infinite"},
		{"-Inf", diamonds, math.Inf(-1), market.CodeInvalidPrice, "price is infinite"},
		{"zero", diamonds, 0, market.CodeInvalidPrice, "price must be greater than 0, got 0"},
		{"negative", diamonds, -5, market.CodeInvalidPrice, "price must be greater than 0, got -5"},
		{"3 decimals", diamonds, 1.005, market.CodeInvalidPrice, "price 1.005 has more than 2 decimals"},
		{"float noise", diamonds, runtimeSum(10.1, 0.2), market.CodeInvalidPrice, "price 10.299999999999999 has more than 2 decimals"},
		{"below min", diamonds, 0.5, market.CodeInvalidPrice, "price 0.5 is outside 1.00..1000000.00"},
		{"above max", diamonds, 1_000_000.01, market.CodeInvalidPrice, "price 1000000.01 is outside 1.00..1000000.00"},
		{"bad material key", market.ItemStack{ID: diamonds.ID, Material: "diamond sword", Amount: 1}, 5, market.CodeInvalidItem, `material key "diamond sword" has ' ', which keys may not hold (allowed: a-z 0-9 _ . - and, in the path, /)`},
		{"air", market.ItemStack{ID: diamonds.ID, Material: "minecraft:air", Amount: 1}, 5, market.CodeInvalidItem, "material AIR is empty space, not an item"},
		{"unknown material, too many", market.ItemStack{ID: diamonds.ID, Material: "nexo:ruby", Amount: 65}, 5, market.CodeInvalidItem, "amount 65 of nexo:ruby is outside 1..64"},
		{"own max stack", market.ItemStack{ID: diamonds.ID, Material: "DIAMOND", Amount: 17, MaxStack: 16}, 5, market.CodeInvalidItem, "amount 17 of DIAMOND is outside 1..16"},
		{"max stack 100", market.ItemStack{ID: diamonds.ID, Material: "DIAMOND", Amount: 1, MaxStack: 100}, 5, market.CodeInvalidItem, "max stack size 100 of DIAMOND is outside 1..99"},
		{"bad enchant key", market.ItemStack{ID: diamonds.ID, Material: "DIAMOND", Amount: 1, Enchantments: []market.Enchantment{{Key: "Ostrość!", Level: 1}}}, 5, market.CodeInvalidItem, `enchantment key "Ostrość!" has 'ś', which keys may not hold (allowed: a-z 0-9 _ . - and, in the path, /)`},
		{"amount 0", market.ItemStack{ID: diamonds.ID, Material: "DIAMOND", Amount: 0}, 5, market.CodeInvalidItem, "amount 0 of DIAMOND is outside 1..64"},
		{"amount 65", market.ItemStack{ID: diamonds.ID, Material: "DIAMOND", Amount: 65}, 5, market.CodeInvalidItem, "amount 65 of DIAMOND is outside 1..64"},
		{"too many", market.ItemStack{ID: diamonds.ID, Material: "DIAMOND_SWORD", Amount: 2}, 5, market.CodeInvalidItem, "amount 2 of DIAMOND_SWORD is outside 1..1"},
		{"not in inventory", market.ItemStack{ID: uuid.New(), Material: "DIAMOND", Amount: 1}, 5, market.CodeItemNotInInventory, "Alice does not have that DIAMOND stack in their inventory"},
		{"other kind", market.ItemStack{ID: diamonds.ID, Material: "EMERALD", Amount: 1}, 5, market.CodeItemNotInInventory, "the stack in slot 1 is not the item offered"},
		{"blacklisted", market.ItemStack{ID: diamonds.ID, Material: "BEDROCK", Amount: 1}, 5, market.CodeBlacklisted, "BEDROCK may not be sold on the market"},
		{"bad enchant", market.ItemStack{ID: diamonds.ID, Material: "DIAMOND", Amount: 1, Enchantments: []market.Enchantment{{Key: "sharpness", Level: 0}}}, 5, market.CodeInvalidItem, "enchantment sharpness level 0 is outside 1..255"},
		{"bad utf8", market.ItemStack{ID: diamonds.ID, Material: "DIAMOND", Amount: 1, DisplayName: "\xff"}, 5, market.CodeInvalidItem, "display name is not valid UTF-8"},
	}
	before := w.audit()
	for _, c := range cases {
		_, err := w.svc.SellItem(w.alice, c.item, c.price)
		var me *market.Error
		if !errors.As(err, &me) || me.Code != c.code {
			t.Errorf("%s: got %v, want code %s", c.name, err, c.code)
			continue
		}
		if err.Error() != c.text {
			t.Errorf("%s: text %q, want %q", c.name, err.Error(), c.text)
		}
	}
	if _, err := w.svc.SellItem(market.Player{ID: uuid.New(), Name: "Ghost"}, diamonds, 5); !errors.Is(err, market.ErrUnknownPlayer) {
		t.Errorf("unknown player: %v", err)
	}
	after := w.audit()
	if before.Money != after.Money || before.Stacks != after.Stacks || len(w.events) != 0 {
		t.Fatal("a refused sell changed state")
	}
	// Limit.
	w.sell(w.alice, 1, 10)
	w.sell(w.alice, 2, 10)
	_, err := w.svc.SellItem(w.alice, diamonds, 5)
	errText(t, err, "Alice already has 2 active listings; the limit is 2")
	if !errors.Is(err, market.ErrListingLimit) {
		t.Fatal("limit error is not ErrListingLimit")
	}
}

func TestCooldown(t *testing.T) {
	w := newWorld(t, func(c *market.Config) { c.ListingCooldown = 5 * time.Second })
	w.reopen(func(c *market.Config) { c.ListingCooldown = 5 * time.Second })
	w.sell(w.alice, 0, 10)
	w.clock.Advance(1500 * time.Millisecond)
	_, err := w.svc.SellItem(w.alice, w.stack(w.alice, 1), 10)
	errText(t, err, "Alice must wait 4s before listing again")
	if !errors.Is(err, market.ErrCooldown) {
		t.Fatal("not ErrCooldown")
	}
	// The cooldown is persisted: a restart does not reset it.
	w.reopen(func(c *market.Config) { c.ListingCooldown = 5 * time.Second })
	_, err = w.svc.SellItem(w.alice, w.stack(w.alice, 1), 10)
	errText(t, err, "Alice must wait 4s before listing again")
	w.clock.Advance(3500 * time.Millisecond)
	w.sell(w.alice, 1, 10)
}

func TestRemoveAuthorization(t *testing.T) {
	w := newWorld(t)
	a1 := w.sell(w.alice, 0, 10)
	a2 := w.sell(w.alice, 1, 20)
	a3 := w.sell(w.alice, 2, 30)
	w.events = nil

	err := w.svc.RemoveListing(a1.ID, w.bob)
	errText(t, err, "Bob does not own listing #1 and lacks market.admin")
	if !errors.Is(err, market.ErrNotOwner) {
		t.Fatal("not ErrNotOwner")
	}
	errText(t, w.svc.RemoveListing(99, w.alice), "listing #99 does not exist")
	errText(t, w.svc.ForceExpire(a1.ID, w.alice), "Alice lacks market.admin, which force-expire needs")

	must(t, w.svc.RemoveListing(a1.ID, w.alice))
	must(t, w.svc.RemoveListing(a2.ID, w.admin))
	must(t, w.svc.ForceExpire(a3.ID, w.admin))
	want := []string{market.ReasonRemoved, market.ReasonAdminRemoved, market.ReasonForceExpire}
	if len(w.events) != 3 {
		t.Fatalf("%d events", len(w.events))
	}
	for i, e := range w.events {
		re, ok := e.(market.ListingRemovedEvent)
		if !ok || re.EventName() != "ListingRemovedEvent" || re.Reason() != want[i] {
			t.Fatalf("event %d: %#v", i, e)
		}
	}
	if want[0] != "removed" || want[1] != "admin-removed" || want[2] != "force-expire" {
		t.Fatal("reason constants drifted from the contract")
	}
	// Items went back to Alice's inventory (slots 0..2 were free again).
	st, _ := w.svc.GetPlayer(w.alice.ID)
	for i := 0; i < 3; i++ {
		if st.Inventory[i] == nil {
			t.Fatalf("slot %d empty after removals", i)
		}
	}
	errText(t, w.svc.RemoveListing(a1.ID, w.alice), "listing #1 does not exist")
}

func TestRemoveOverflowGoesToMailbox(t *testing.T) {
	w := newWorld(t)
	l := w.sell(w.alice, 2, 10)
	// Fill Alice's inventory by buying... simpler: fill with Bob's listings bought by Alice.
	for i := 0; i < 34; i++ {
		// Bob lists one diamond at a time; Alice buys each.
		d := w.stack(w.bob, 0)
		d.Amount = 1
		bl, err := w.svc.SellItem(w.bob, d, 1)
		must(t, err)
		_, err = w.svc.Buy(w.alice, bl.ID)
		must(t, err)
	}
	st, _ := w.svc.GetPlayer(w.alice.ID)
	free := 0
	for _, s := range st.Inventory {
		if s == nil {
			free++
		}
	}
	if free != 0 {
		t.Fatalf("%d free slots, want 0", free)
	}
	must(t, w.svc.RemoveListing(l.ID, w.alice))
	st, _ = w.svc.GetPlayer(w.alice.ID)
	if len(st.Mailbox) != 1 || st.Mailbox[0].Reason != "removed" || st.Mailbox[0].PreviousPrice != 10 {
		t.Fatalf("mailbox %+v", st.Mailbox)
	}
	_, err := w.svc.ClaimAll(w.alice.ID)
	errText(t, err, "Alice's inventory is full")
	w.audit()
}

func TestBuyCompletes(t *testing.T) {
	w := newWorld(t)
	l := w.sell(w.alice, 1, 200)
	w.events = nil
	before := w.audit()
	tx, err := w.svc.Buy(w.bob, l.ID)
	must(t, err)
	if tx.State != market.StateCompleted || tx.Price != 200 || tx.Fee != 10 || tx.SellerNet != 190 {
		t.Fatalf("tx %+v", tx)
	}
	var states []market.State
	for _, st := range tx.Timeline {
		states = append(states, st.State)
	}
	want := []market.State{"CREATED", "LISTING_RESERVED", "MONEY_WITHDRAWN", "SELLER_PAID", "ITEM_DELIVERED", "COMPLETED"}
	if len(states) != len(want) {
		t.Fatalf("timeline %v", states)
	}
	for i := range want {
		if states[i] != want[i] {
			t.Fatalf("timeline %v", states)
		}
	}
	if len(w.events) != 1 {
		t.Fatalf("%d events", len(w.events))
	}
	ce, ok := w.events[0].(market.TransactionCompletedEvent)
	if !ok || ce.EventName() != "TransactionCompletedEvent" || ce.Transaction().ID != tx.ID || ce.Transaction().State != market.StateCompleted {
		t.Fatalf("event %#v", w.events[0])
	}
	alice, _ := w.svc.GetPlayer(w.alice.ID)
	bob, _ := w.svc.GetPlayer(w.bob.ID)
	if alice.Balance != 1190 || bob.Balance != 800 {
		t.Fatalf("balances alice %v bob %v", alice.Balance, bob.Balance)
	}
	if bob.Inventory[1] == nil || bob.Inventory[1].ID != l.Item.ID {
		// Bob's slot 1 held his own sword; the bought one lands in the first free slot.
		found := false
		for _, s := range bob.Inventory {
			if s != nil && s.ID == l.Item.ID {
				found = true
			}
		}
		if !found {
			t.Fatal("bought item not in Bob's inventory")
		}
	}
	if fb, _ := w.svc.FeeBalance(); fb != 10 {
		t.Fatalf("fee balance %v", fb)
	}
	after := w.audit()
	if after.Money != before.Money || after.Stacks != before.Stacks {
		t.Fatalf("conservation: %+v -> %+v", before, after)
	}
	if v, _ := w.svc.GetMarketVolume(); v != 200 {
		t.Fatalf("volume %v", v)
	}
	done, _ := w.svc.GetCompletedTransactions()
	if len(done) != 1 || done[0].ID != tx.ID {
		t.Fatalf("completed %v", done)
	}
	got, err := w.svc.GetTransaction(tx.ID)
	must(t, err)
	if got.State != market.StateCompleted {
		t.Fatal(got.State)
	}
	if _, err := w.svc.GetListing(l.ID); !errors.Is(err, market.ErrUnknownListing) {
		t.Fatalf("sold listing still there: %v", err)
	}
	// Survives restart, and no event is re-published for a finished transaction.
	w.reopen()
	if v, _ := w.svc.GetMarketVolume(); v != 200 {
		t.Fatalf("volume after reopen %v", v)
	}
	if len(w.events) != 0 {
		t.Fatalf("reopen published %d events", len(w.events))
	}
}

func TestBuyRefusals(t *testing.T) {
	w := newWorld(t)
	l := w.sell(w.alice, 1, 2000)
	cheap := w.sell(w.alice, 0, 10)
	cases := []struct {
		name  string
		buyer market.Player
		id    int
		text  string
		is    error
	}{
		{"own", w.alice, cheap.ID, "Alice cannot buy their own listing #2", market.ErrOwnListing},
		{"unknown", w.bob, 77, "listing #77 does not exist", market.ErrUnknownListing},
		{"funds", w.bob, l.ID, "listing #1 costs 2000.00 but Bob has 1000.00", market.ErrInsufficientFunds},
	}
	for _, c := range cases {
		_, err := w.svc.Buy(c.buyer, c.id)
		errText(t, err, c.text)
		if !errors.Is(err, c.is) {
			t.Errorf("%s: not %v", c.name, c.is)
		}
	}
	w.clock.Advance(8 * 24 * time.Hour)
	_, err := w.svc.Buy(w.bob, cheap.ID)
	errText(t, err, "listing #2 has expired")
	if !errors.Is(err, market.ErrListingExpired) {
		t.Fatal("not ErrListingExpired")
	}
}

func TestInjectedFailuresEveryStep(t *testing.T) {
	cases := []struct {
		at    market.State
		final market.State
		code  string
	}{
		{market.StateCreated, market.StateFailed, "INJECTED:CREATED"},
		{market.StateListingReserved, market.StateFailed, "INJECTED:LISTING_RESERVED"},
		{market.StateMoneyWithdrawn, market.StateRolledBack, "INJECTED:MONEY_WITHDRAWN"},
		{market.StateSellerPaid, market.StateRolledBack, "INJECTED:SELLER_PAID"},
		{market.StateItemDelivered, market.StateRolledBack, "INJECTED:ITEM_DELIVERED"},
		{market.StateCompleted, market.StateRolledBack, "INJECTED:COMPLETED"},
	}
	for _, c := range cases {
		t.Run(string(c.at), func(t *testing.T) {
			w := newWorld(t)
			l := w.sell(w.alice, 1, 200)
			w.events = nil
			before := w.audit()
			must(t, w.svc.ArmFailure(c.at))
			tx, err := w.svc.Buy(w.bob, l.ID)
			if err == nil {
				t.Fatal("no error")
			}
			var me *market.Error
			if !errors.As(err, &me) || me.Code != market.CodeInjectedFailure {
				t.Fatalf("error %v", err)
			}
			if tx.State != c.final || tx.ErrorCode != c.code {
				t.Fatalf("tx state %s code %s, want %s %s", tx.State, tx.ErrorCode, c.final, c.code)
			}
			if len(w.events) != 0 {
				t.Fatalf("failed purchase published %d events", len(w.events))
			}
			after := w.audit()
			if after.Money != before.Money || after.Stacks != before.Stacks || after.Listings != before.Listings {
				t.Fatalf("conservation: %+v -> %+v", before, after)
			}
			alice, _ := w.svc.GetPlayer(w.alice.ID)
			bob, _ := w.svc.GetPlayer(w.bob.ID)
			if alice.Balance != 1000 || bob.Balance != 1000 {
				t.Fatalf("balances %v %v", alice.Balance, bob.Balance)
			}
			back, err := w.svc.GetListing(l.ID)
			must(t, err)
			if back.Reserved || back.Item.ID != l.Item.ID {
				t.Fatalf("listing not restored: %+v", back)
			}
			if w.svc.ArmedFailure() != "" {
				t.Fatal("failure stays armed")
			}
			// The next purchase succeeds.
			tx2, err := w.svc.Buy(w.bob, l.ID)
			must(t, err)
			if tx2.State != market.StateCompleted {
				t.Fatal(tx2.State)
			}
			got, err := w.svc.GetTransaction(tx.ID)
			must(t, err)
			if got.State != c.final {
				t.Fatal(got.State)
			}
			// Failed transactions are not "completed".
			done, _ := w.svc.GetCompletedTransactions()
			if len(done) != 1 {
				t.Fatalf("%d completed", len(done))
			}
		})
	}
	w := newWorld(t)
	if err := w.svc.ArmFailure(market.StateFailed); err == nil {
		t.Fatal("arming FAILED accepted")
	}
}

func TestInventoryFullDeliversToMailbox(t *testing.T) {
	w := newWorld(t)
	l := w.sell(w.alice, 1, 5)
	// Fill Bob's inventory: he buys 33 single diamonds from Admin.
	for i := 0; i < 33; i++ {
		d := w.stack(w.admin, 0)
		d.Amount = 1
		al, err := w.svc.SellItem(w.admin, d, 1)
		must(t, err)
		_, err = w.svc.Buy(w.bob, al.ID)
		must(t, err)
	}
	tx, err := w.svc.Buy(w.bob, l.ID)
	must(t, err)
	if !tx.DeliveredToMailbox {
		t.Fatal("not delivered to mailbox")
	}
	bob, _ := w.svc.GetPlayer(w.bob.ID)
	if len(bob.Mailbox) != 1 || bob.Mailbox[0].Reason != "purchase-overflow" || bob.Mailbox[0].Item.ID != l.Item.ID {
		t.Fatalf("mailbox %+v", bob.Mailbox)
	}
	w.audit()
}

func TestTimerExpiryPublishesNothing(t *testing.T) {
	w := newWorld(t, func(c *market.Config) { c.ListingTTL = time.Hour })
	a := w.sell(w.alice, 0, 10)
	b := w.sell(w.alice, 1, 10)
	w.events = nil
	w.clock.Advance(59 * time.Minute)
	if n, _, _ := w.svc.SweepExpired(); n != 0 {
		t.Fatalf("swept %d early", n)
	}
	w.clock.Advance(time.Minute)
	// Expired but not yet swept: not on the market, and every lookup says
	// it expired.
	_, err := w.svc.GetListing(a.ID)
	errText(t, err, fmt.Sprintf("listing #%d has expired", a.ID))
	if n, _ := w.svc.GetActiveListingsCount(); n != 0 {
		t.Fatalf("count %d", n)
	}
	if ls, _ := w.svc.Search("diamond"); len(ls) != 0 {
		t.Fatalf("search found %d expired", len(ls))
	}
	n, more, err := w.svc.SweepExpired()
	must(t, err)
	if n != 2 || more {
		t.Fatalf("swept %d more %v", n, more)
	}
	if len(w.events) != 0 {
		t.Fatalf("timer expiry published %d events", len(w.events))
	}
	st, _ := w.svc.GetPlayer(w.alice.ID)
	if len(st.Mailbox) != 2 || st.Mailbox[0].Reason != "expired" {
		t.Fatalf("mailbox %+v", st.Mailbox)
	}
	_ = b
	// Changing the TTL does not rewrite old listings.
	c := w.sell(w.alice, 2, 10)
	w.reopen(func(cfg *market.Config) { cfg.ListingTTL = 24 * time.Hour })
	got, err := w.svc.GetListing(c.ID)
	must(t, err)
	if !got.ExpiresAt.Equal(c.ExpiresAt) {
		t.Fatal("expiry rewritten")
	}
	n2, err := w.svc.ClaimAll(w.alice.ID)
	must(t, err)
	if n2 != 2 {
		t.Fatalf("claimed %d", n2)
	}
	_, err = w.svc.ClaimAll(w.alice.ID)
	errText(t, err, "Alice's mailbox is empty")
	w.audit()
}

func TestListenerPanicDoesNotBreakService(t *testing.T) {
	w := newWorld(t)
	var got []any
	w.svc.OnListenerPanic(func(r any) { got = append(got, r) })
	w.svc.Subscribe(func(market.Event) { panic("boom") })
	var after []string
	w.svc.Subscribe(func(e market.Event) { after = append(after, e.EventName()) })
	w.sell(w.alice, 0, 10)
	if len(got) != 1 || len(after) != 1 || len(w.events) != 1 {
		t.Fatalf("panics %v, later listener %v, first %d", got, after, len(w.events))
	}
	if got[0] != "listener panicked on ListingCreatedEvent: boom" {
		t.Fatalf("panic report %q", got[0])
	}
	w.sell(w.bob, 0, 10)
}

func TestGetTransactionUnknown(t *testing.T) {
	w := newWorld(t)
	_, err := w.svc.GetTransaction("nope")
	errText(t, err, `transaction "nope" does not exist`)
	_, err = w.svc.GetTransaction(uuid.NewString())
	if !errors.Is(err, market.ErrUnknownTransaction) {
		t.Fatal(err)
	}
}

// runtimeSum adds at run time: constant expressions are exact in Go.
func runtimeSum(a, b float64) float64 { return a + b }

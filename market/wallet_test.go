package market_test

import (
	"errors"
	"math"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/rynek/rynek/market"
)

// TestIssuanceAccountsForMoneyAndItems: deposits, withdrawals, gifts and
// confiscations change what the market holds by exactly what the issuance
// account records, leave the opening figures alone, and survive a restart.
func TestIssuanceAccountsForMoneyAndItems(t *testing.T) {
	w := newWorld(t)
	start := w.audit()
	if start.Issued != (market.Issuance{}) || start.OpeningMoney != start.Money || start.OpeningItems != start.Items {
		t.Fatalf("a bulk-loaded market: issued %+v, opening %d/%d, holds %d/%d", start.Issued, start.OpeningMoney, start.OpeningItems, start.Money, start.Items)
	}
	version := w.svc.Version()

	balance, err := w.svc.Deposit(w.alice.ID, 250.25)
	must(t, err)
	if balance != 1250.25 {
		t.Fatalf("balance after a deposit of 250.25 on 1000.00: %v", balance)
	}
	balance, err = w.svc.Withdraw(w.bob.ID, 1000)
	must(t, err)
	if balance != 0 {
		t.Fatalf("balance after withdrawing everything: %v", balance)
	}
	given, inMailbox, err := w.svc.GiveItem(w.bob.ID, market.ItemStack{ID: uid(10), Material: "EMERALD", Amount: 5})
	must(t, err)
	if given.ID == uid(10) || given.ID == uuid.Nil || inMailbox || given.Amount != 5 {
		t.Fatalf("gift %+v (mailbox %v): want a new stack id, in the inventory", given, inMailbox)
	}
	if st := w.stack(w.bob, 3); st.ID != given.ID {
		t.Fatalf("Bob's first free slot holds %+v, want the gift", st)
	}
	taken, err := w.svc.TakeItem(w.alice.ID, 3) // slot 3: the oak logs
	must(t, err)
	if taken.Material != "OAK_LOG" || taken.Amount != 32 {
		t.Fatalf("took %+v", taken)
	}

	check := func(when string) {
		t.Helper()
		a := w.audit()
		want := market.Issuance{MoneyIn: 250_25, MoneyOut: 1000_00, ItemsIn: 5, ItemsOut: 32}
		if a.Issued != want {
			t.Fatalf("%s: issued %v, want %v", when, a.Issued, want)
		}
		if a.Money != start.Money+250_25-1000_00 || a.Items != start.Items+5-32 {
			t.Fatalf("%s: the market holds %d money and %d items, want %d and %d", when, a.Money, a.Items, start.Money+250_25-1000_00, start.Items+5-32)
		}
		if a.OpeningMoney != start.OpeningMoney || a.OpeningItems != start.OpeningItems {
			t.Fatalf("%s: opening %d/%d moved from %d/%d", when, a.OpeningMoney, a.OpeningItems, start.OpeningMoney, start.OpeningItems)
		}
	}
	check("live")
	var kinds []market.EventKind
	for _, r := range logRows(t, w.store) {
		if r.Seq > version {
			kinds = append(kinds, r.Kind)
		}
	}
	if len(kinds) != 4 || kinds[0] != market.KindIssued || kinds[3] != market.KindIssued {
		t.Fatalf("log: %v, want four Issued entries", kinds)
	}
	if len(w.events) != 0 {
		t.Fatalf("issuance published %d contract events", len(w.events))
	}
	w.reopen()
	check("after a restart")
}

// TestGiftToAFullInventoryGoesToTheMailbox: the mailbox takes what does not
// fit, and claiming it works as for any mail.
func TestGiftToAFullInventoryGoesToTheMailbox(t *testing.T) {
	w := newWorld(t)
	for range market.InventorySize - 3 {
		_, inMailbox, err := w.svc.GiveItem(w.alice.ID, market.ItemStack{Material: "STONE", Amount: 1})
		must(t, err)
		if inMailbox {
			t.Fatal("a gift went to the mailbox before the inventory was full")
		}
	}
	gift, inMailbox, err := w.svc.GiveItem(w.alice.ID, market.ItemStack{Material: "GOLD_INGOT", Amount: 7})
	must(t, err)
	if !inMailbox {
		t.Fatal("a gift to a full inventory did not go to the mailbox")
	}
	st, err := w.svc.GetPlayer(w.alice.ID)
	must(t, err)
	if len(st.Mailbox) != 1 || st.Mailbox[0].Item.ID != gift.ID || st.Mailbox[0].Reason != market.MailGiven {
		t.Fatalf("mailbox %+v", st.Mailbox)
	}
	if a := w.audit(); a.Issued.ItemsIn != market.InventorySize-3+7 {
		t.Fatalf("items in %d", a.Issued.ItemsIn)
	}
}

// TestIssuanceRefusals: bad input gets a clear error and changes nothing.
func TestIssuanceRefusals(t *testing.T) {
	w := newWorld(t)
	nobody := uid(99)
	for _, c := range []struct {
		name string
		run  func() error
		code market.Code
		msg  string
	}{
		{"deposit to nobody", func() error { _, err := w.svc.Deposit(nobody, 5); return err }, market.CodeUnknownPlayer, "player " + nobody.String() + " does not exist"},
		{"deposit of zero", func() error { _, err := w.svc.Deposit(w.alice.ID, 0); return err }, market.CodeInvalidPrice, "deposit must be greater than 0, got 0"},
		{"negative deposit", func() error { _, err := w.svc.Deposit(w.alice.ID, -3); return err }, market.CodeInvalidPrice, "deposit must be greater than 0, got -3"},
		{"deposit of a tenth of a cent", func() error { _, err := w.svc.Deposit(w.alice.ID, 0.001); return err }, market.CodeInvalidPrice, "deposit 0.001 has more than 2 decimals"},
		{"huge deposit", func() error { _, err := w.svc.Deposit(w.alice.ID, 2e9); return err }, market.CodeInvalidPrice, "deposit 2000000000 is outside 0.01..1000000000.00"},
		{"withdrawal of more than the balance", func() error { _, err := w.svc.Withdraw(w.alice.ID, 1000.01); return err }, market.CodeInsufficientFunds, "Alice has 1000.00, less than the withdrawal of 1000.01"},
		{"withdrawal of NaN", func() error { _, err := w.svc.Withdraw(w.alice.ID, math.NaN()); return err }, market.CodeInvalidPrice, "withdrawal is not a number"},
		{"gift to nobody", func() error {
			_, _, err := w.svc.GiveItem(nobody, market.ItemStack{Material: "STONE", Amount: 1})
			return err
		}, market.CodeUnknownPlayer, "player " + nobody.String() + " does not exist"},
		{"gift of 65 diamonds", func() error {
			_, _, err := w.svc.GiveItem(w.alice.ID, market.ItemStack{Material: "DIAMOND", Amount: 65})
			return err
		}, market.CodeInvalidItem, "amount 65 of DIAMOND is outside 1..64"},
		{"take from slot 0", func() error { _, err := w.svc.TakeItem(w.alice.ID, 0); return err }, market.CodeItemNotInInventory, "slot 0 is not an inventory slot (1 to 36)"},
		{"take from an empty slot", func() error { _, err := w.svc.TakeItem(w.alice.ID, 9); return err }, market.CodeItemNotInInventory, "Alice's slot 9 is empty"},
	} {
		before, version := w.audit(), w.svc.Version()
		err := c.run()
		var me *market.Error
		if !errors.As(err, &me) || me.Code != c.code || me.Msg != c.msg {
			t.Errorf("%s: got %v, want %s %q", c.name, err, c.code, c.msg)
		}
		if after := w.audit(); after.Money != before.Money || after.Items != before.Items || after.Issued != before.Issued || w.svc.Version() != version {
			t.Errorf("%s: a refusal changed the market", c.name)
		}
	}
}

// TestJoin: the game's join adds a new player, renames or re-ranks a known
// one (and finds their listings by the new name only), and writes nothing
// when nothing changed.
func TestJoin(t *testing.T) {
	w := newWorld(t)
	newcomer := uuid.MustParse("0b6c3f47-5d1e-4c1a-9a43-2a0e7d7e1f11")
	p, isNew, err := w.svc.Join(newcomer, "Zosia_K", []string{"market.use"})
	must(t, err)
	if !isNew || p.ID != newcomer || p.Name != "Zosia_K" || !p.HasPermission("market.use") {
		t.Fatalf("joined %+v (new %v)", p, isNew)
	}
	st, err := w.svc.GetPlayer(newcomer)
	must(t, err)
	if st.Balance != 0 || st.Inventory != [market.InventorySize]*market.ItemStack{} {
		t.Fatalf("a newcomer brings nothing: %+v", st)
	}

	l := w.sell(w.alice, 0, 10)
	version := w.svc.Version()
	if _, isNew, err := w.svc.Join(w.alice.ID, "Alice", nil); err != nil || isNew || w.svc.Version() != version {
		t.Fatalf("an unchanged join: new %v, %v, version %d → %d", isNew, err, version, w.svc.Version())
	}
	renamed, isNew, err := w.svc.Join(w.alice.ID, "Alicja", []string{"vip"})
	must(t, err)
	if isNew || renamed.Name != "Alicja" || !renamed.HasPermission("vip") {
		t.Fatalf("renamed %+v", renamed)
	}
	found := func(text string) int {
		t.Helper()
		page, err := w.svc.Query(market.Query{Text: text})
		must(t, err)
		return len(page.Listings)
	}
	check := func(when string) {
		t.Helper()
		if found("alicja") != 1 || found("alice") != 0 {
			t.Fatalf("%s: %d listings found by the new name, %d by the old", when, found("alicja"), found("alice"))
		}
		got, err := w.svc.GetListing(l.ID)
		must(t, err)
		if got.SellerName != "Alicja" {
			t.Fatalf("%s: the listing's seller is %q", when, got.SellerName)
		}
		if p, err := w.svc.PlayerByName("alicja"); err != nil || p.ID != w.alice.ID || !p.HasPermission("vip") {
			t.Fatalf("%s: by name %+v, %v", when, p, err)
		}
	}
	check("live")
	w.reopen()
	check("after a restart")

	for _, c := range []struct {
		name  string
		id    uuid.UUID
		pname string
		perms []string
		code  market.Code
		msg   string
	}{
		{"nil id", uuid.Nil, "Nobody", nil, market.CodeInvalidPlayer, "a joining player needs their game id, not the nil UUID"},
		{"another's name", w.alice.ID, "BOB", nil, market.CodePlayerExists, "the name Bob belongs to player " + w.bob.ID.String() + "; they join under their new name first"},
		{"bad name", w.alice.ID, "A l", nil, market.CodeInvalidPlayer, `a player name has only letters a–z, digits and underscores; "A l" has ' '`},
		{"bad permission", w.alice.ID, "Alicja", []string{"a b"}, market.CodeInvalidPlayer, `permission "a b" must be one word without commas`},
		{"new player, taken name", uid(77), "alicja", nil, market.CodePlayerExists, "a player called Alicja exists"},
	} {
		version := w.svc.Version()
		_, _, err := w.svc.Join(c.id, c.pname, c.perms)
		var me *market.Error
		if !errors.As(err, &me) || me.Code != c.code || me.Msg != c.msg {
			t.Errorf("%s: got %v, want %s %q", c.name, err, c.code, c.msg)
		}
		if w.svc.Version() != version {
			t.Errorf("%s: a refused join changed the log", c.name)
		}
	}
}

// TestPriceSummary: the last 7 days' unit prices of a material and its
// cheapest live listing, as a seller sees them before typing a price.
func TestPriceSummary(t *testing.T) {
	w := newWorld(t)
	sum, err := w.svc.PriceSummary("diamond")
	must(t, err)
	if sum.Material != "DIAMOND" || sum.Week.Sales != 0 || sum.Cheapest != nil {
		t.Fatalf("an untraded material: %+v", sum)
	}
	// Bob buys 8 diamonds at 2.00 each and 16 at 1.50; Alice lists 8 more at 2.50.
	for _, c := range []struct {
		amount int
		price  float64
	}{{8, 16}, {16, 24}} {
		st := w.stack(w.alice, 0)
		st.Amount = c.amount
		l, err := w.svc.SellItem(w.alice, st, c.price)
		must(t, err)
		_, err = w.svc.Buy(w.bob, l.ID)
		must(t, err)
	}
	st := w.stack(w.alice, 0)
	st.Amount = 8
	_, err = w.svc.SellItem(w.alice, st, 20) // expires before the summary
	must(t, err)
	w.clock.Advance(8 * 24 * time.Hour) // an old sale leaves the week
	st = w.stack(w.admin, 0)
	st.Amount = 4
	l, err := w.svc.SellItem(w.admin, st, 12)
	must(t, err)
	_, err = w.svc.Buy(w.bob, l.ID)
	must(t, err)
	if _, _, err := w.svc.SweepExpired(); err != nil {
		t.Fatal(err)
	}
	sum, err = w.svc.PriceSummary("minecraft:diamond")
	must(t, err)
	if sum.Week.Sales != 1 || sum.Week.Min != 3 || sum.Week.Median != 3 || sum.Week.Max != 3 {
		t.Fatalf("the week: %+v", sum.Week)
	}
	if sum.Cheapest != nil {
		t.Fatalf("the 8-day-old listing #%d is still the cheapest", sum.Cheapest.ID)
	}
	st = w.stack(w.admin, 0)
	st.Amount = 10
	cheap, err := w.svc.SellItem(w.admin, st, 15)
	must(t, err)
	st = w.stack(w.admin, 0)
	st.Amount = 2
	_, err = w.svc.SellItem(w.admin, st, 4) // 2.00 each: dearer by the unit
	must(t, err)
	sum, err = w.svc.PriceSummary("DIAMOND")
	must(t, err)
	if sum.Cheapest == nil || sum.Cheapest.ID != cheap.ID {
		t.Fatalf("cheapest %+v, want #%d at 1.50 each", sum.Cheapest, cheap.ID)
	}
	if _, err := w.svc.PriceSummary("NO_SUCH_THING"); err == nil || err.Error() != `unknown material "NO_SUCH_THING"` {
		t.Fatalf("an unknown material: %v", err)
	}
}

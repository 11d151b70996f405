package market_test

import (
	"errors"
	"math"
	"testing"

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

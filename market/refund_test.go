package market_test

import (
	"errors"
	"strconv"
	"strings"
	"testing"

	"github.com/rynek/rynek/market"
)

// buyOne has Bob buy Alice's oak logs for 100.00 (fee 5.00, net 95.00).
func buyOne(t *testing.T, w *world) market.Transaction {
	t.Helper()
	l := w.sell(w.alice, 2, 100)
	tx, err := w.svc.Buy(w.bob, l.ID)
	must(t, err)
	return tx
}

// TestRefundWithTheItem: the buyer gets the whole price back, the seller's
// net and the fee go back, the very stack returns to the seller, and the
// sale leaves the figures; a restart shows the same.
func TestRefundWithTheItem(t *testing.T) {
	w := newWorld(t)
	tx := buyOne(t, w)
	stats, err := w.svc.Stats(5)
	must(t, err)
	if stats.TotalSales != 1 || stats.MarketVolume != 100 {
		t.Fatalf("before: %d sales, volume %v", stats.TotalSales, stats.MarketVolume)
	}
	before := w.audit()
	w.clock.Advance(3600e9)

	refunded, err := w.svc.Refund(tx.ID, w.admin, market.RefundWithItem)
	must(t, err)
	check := func(when string) {
		t.Helper()
		got, err := w.svc.GetTransaction(tx.ID)
		must(t, err)
		at, returned, ok := got.Refunded()
		if got.State != market.StateRolledBack || !ok || !returned || !at.Equal(t0.Add(3600e9)) ||
			got.ErrorCode != "REFUND:"+strconv.FormatInt(t0.Add(3600e9).UnixMilli(), 10) {
			t.Fatalf("%s: %s %q (refunded %v %v %v)", when, got.State, got.ErrorCode, at, returned, ok)
		}
		alice, err := w.svc.GetPlayer(w.alice.ID)
		must(t, err)
		bob, err := w.svc.GetPlayer(w.bob.ID)
		must(t, err)
		if alice.Balance != 1000 || bob.Balance != 1000 {
			t.Fatalf("%s: balances Alice %v, Bob %v; want both back at 1000", when, alice.Balance, bob.Balance)
		}
		if alice.Inventory[2] == nil || alice.Inventory[2].ID != tx.Item.ID || alice.Inventory[2].Amount != 32 {
			t.Fatalf("%s: Alice's slot 3 %+v, want the stack she sold", when, alice.Inventory[2])
		}
		for _, it := range bob.Inventory {
			if it != nil && it.ID == tx.Item.ID {
				t.Fatalf("%s: Bob still has the stack", when)
			}
		}
		fees, err := w.svc.FeeBalance()
		must(t, err)
		st, err := w.svc.Stats(5)
		must(t, err)
		done, err := w.svc.GetCompletedTransactions()
		must(t, err)
		if fees != 0 || st.TotalSales != 0 || st.MarketVolume != 0 || len(st.TopSellers) != 0 || len(st.MostExpensive) != 0 || len(done) != 0 {
			t.Fatalf("%s: fees %v, sales %d, volume %v, top sellers %d, most expensive %d, completed %d", when, fees,
				st.TotalSales, st.MarketVolume, len(st.TopSellers), len(st.MostExpensive), len(done))
		}
		ph, err := w.svc.PriceHistory("OAK_LOG", 0, 0)
		must(t, err)
		for _, b := range ph.Points {
			if b.Sales != 0 {
				t.Fatalf("%s: price history still counts the sale: %+v", when, ph.Points)
			}
		}
		a := w.audit()
		if a.Money != before.Money || a.Items != before.Items || a.Stacks != before.Stacks {
			t.Fatalf("%s: money %d items %d stacks %d, were %d %d %d", when, a.Money, a.Items, a.Stacks, before.Money, before.Items, before.Stacks)
		}
	}
	if refunded.State != market.StateRolledBack {
		t.Fatalf("Refund returned %s", refunded.State)
	}
	check("live")
	for _, e := range w.events {
		if c, ok := e.(market.TransactionCompletedEvent); ok && c.Transaction().ID == tx.ID && c.Transaction().State != market.StateCompleted {
			t.Fatal("a refund published a TransactionCompletedEvent")
		}
	}
	w.reopen()
	check("after a restart")

	_, err = w.svc.Refund(tx.ID, w.admin, market.RefundMoneyOnly)
	var me *market.Error
	if !errors.As(err, &me) || me.Code != market.CodeNotRefundable || !strings.HasPrefix(me.Msg, "transaction "+tx.ID+" was refunded already (REFUND:") {
		t.Fatalf("a second refund: %v", err)
	}
}

// TestRefundFromTheMailboxIntoTheSellersMailbox: a stack the buyer holds in
// the mailbox is reclaimed from there, and a seller with a full inventory
// gets it in the mailbox.
func TestRefundFromTheMailboxIntoTheSellersMailbox(t *testing.T) {
	w := newWorld(t)
	fill := func(p market.Player) {
		for {
			if _, inMailbox, err := w.svc.GiveItem(p.ID, market.ItemStack{Material: "STONE", Amount: 1}); err != nil || inMailbox {
				must(t, err)
				return
			}
		}
	}
	l := w.sell(w.alice, 2, 100)
	fill(w.bob)
	tx, err := w.svc.Buy(w.bob, l.ID)
	must(t, err)
	if !tx.DeliveredToMailbox {
		t.Fatal("the purchase did not go to the full inventory's mailbox")
	}
	fill(w.alice)
	_, err = w.svc.Refund(tx.ID, w.admin, market.RefundWithItem)
	must(t, err)
	alice, _ := w.svc.GetPlayer(w.alice.ID)
	bob, _ := w.svc.GetPlayer(w.bob.ID)
	last := alice.Mailbox[len(alice.Mailbox)-1]
	if last.Item.ID != tx.Item.ID || last.Reason != market.MailAdminRefund || last.PreviousPrice != 100 {
		t.Fatalf("Alice's mailbox ends with %+v", last)
	}
	for _, m := range bob.Mailbox {
		if m.Item.ID == tx.Item.ID {
			t.Fatal("Bob's mailbox still holds the stack")
		}
	}
	w.audit()
}

// TestRefundWhenTheItemIsGone: a stack the buyer sold on is not copied; the
// admin chooses money only, and the record says so.
func TestRefundWhenTheItemIsGone(t *testing.T) {
	w := newWorld(t)
	tx := buyOne(t, w)
	w.sell(w.bob, 3, 50) // the logs, listed again
	before := w.audit()
	_, err := w.svc.Refund(tx.ID, w.admin, market.RefundWithItem)
	errText(t, err, "Bob no longer holds the Oak Log ×32 they bought (sold, split or used up); refund the money only, or not at all")
	if a := w.audit(); a.Money != before.Money || a.Stacks != before.Stacks {
		t.Fatal("a refused refund changed the market")
	}
	got, err := w.svc.Refund(tx.ID, w.admin, market.RefundMoneyOnly)
	must(t, err)
	if _, returned, ok := got.Refunded(); !ok || returned || !strings.HasSuffix(got.ErrorCode, ":MONEY_ONLY") {
		t.Fatalf("record %q (returned %v, refunded %v)", got.ErrorCode, returned, ok)
	}
	a := w.audit()
	if a.Money != before.Money || a.Items != before.Items || a.Stacks != before.Stacks {
		t.Fatal("a money-only refund created or destroyed something")
	}
	bob, _ := w.svc.GetPlayer(w.bob.ID)
	if bob.Balance != 1000 {
		t.Fatalf("Bob's balance %v, want the price back", bob.Balance)
	}
}

// TestRefundRefusals: exact errors, and nothing changes.
func TestRefundRefusals(t *testing.T) {
	w := newWorld(t)
	tx := buyOne(t, w)
	_, err := w.svc.Withdraw(w.alice.ID, 1000.01) // Alice spends some of what she earned
	must(t, err)
	for _, c := range []struct {
		name  string
		id    string
		actor market.Player
		code  market.Code
		msg   string
	}{
		{"not an admin", tx.ID, w.bob, market.CodeForbidden, "Bob may not refund purchases: that needs market.admin"},
		{"unknown transaction", "019a0000-0000-7000-8000-000000000000", w.admin, market.CodeUnknownTransaction, `transaction "019a0000-0000-7000-8000-000000000000" does not exist`},
		{"not an id", "nope", w.admin, market.CodeUnknownTransaction, `transaction "nope" does not exist`},
		{"the seller spent it", tx.ID, w.admin, market.CodeInsufficientFunds, "Alice has 94.99, less than the 95.00 of this sale the refund takes back"},
	} {
		before, version := w.audit(), w.svc.Version()
		_, err := w.svc.Refund(c.id, c.actor, market.RefundWithItem)
		var me *market.Error
		if !errors.As(err, &me) || me.Code != c.code || me.Msg != c.msg {
			t.Errorf("%s: got %v, want %s %q", c.name, err, c.code, c.msg)
		}
		if a := w.audit(); a.Money != before.Money || w.svc.Version() != version {
			t.Errorf("%s: a refusal changed the market", c.name)
		}
	}
}

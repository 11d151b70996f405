package tui

import (
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/rynek/rynek/market"
)

// orderEnv is a console over an empty market: the acting player
// Sprzedawca holds the stacks given and 1,000.00; Kupiec has 1,000.00 and
// nothing; Admin has market.admin and is the console's admin.
func orderEnv(t *testing.T, w, h int, items ...market.ItemStack) (e *testEnv, seller, buyer market.Player) {
	t.Helper()
	e = envWithSeller(t, w, h, items...)
	buyer, err := e.svc.AddPlayer(market.NewPlayer{Name: "Kupiec", Balance: 1000})
	must(t, err)
	admin, err := e.svc.AddPlayer(market.NewPlayer{Name: "Admin", Balance: 1, Permissions: []string{market.PermAdmin}})
	must(t, err)
	e.m.c.Admin = admin
	return e, e.m.c.Actor, buyer
}

func (e *testEnv) balance(p market.Player) float64 {
	e.t.Helper()
	st, err := e.svc.GetPlayer(p.ID)
	must(e.t, err)
	return st.Balance
}

// TestPlaceAnOrderFromTheOrdersPane: o opens the place dialog, which reads
// each field as the market will, shows the book it meets, the escrow and
// the balance after; enter places the order, and the pane shows it in the
// book's depth, among the resting orders and among the player's own. An
// order at the cheapest listing's price buys from it at once.
func TestPlaceAnOrderFromTheOrdersPane(t *testing.T) {
	e, seller, buyer := orderEnv(t, 160, 48, market.ItemStack{Material: "OAK_LOG", Amount: 64})
	st, err := e.svc.GetPlayer(seller.ID)
	must(t, err)
	l, err := e.svc.SellItem(seller, *st.Inventory[0], 32) // 0.50 each
	must(t, err)
	e.m.c.Actor = buyer
	e.key("7")
	e.mustContain("No open buy orders · o places one · c shows any material's book")
	e.mustContain("Kupiec's orders (0 open, newest closed after)")
	e.key("o")
	if _, ok := e.m.dialog.(*orderDialog); !ok {
		t.Fatalf("o opened %T (status %q)", e.m.dialog, e.status())
	}
	e.mustContain("Place a buy order as Kupiec  balance 1 000.00")
	e.mustContain("✗ type the material: a key like OAK_LOG or a name like Oak Log")
	e.typeText("oak log")
	e.mustContain("book: no buy order · cheapest listing 0.50 each (64 on sale)")
	e.mustContain("price    0.49") // just under the cheapest listing, proposed
	e.mustContain("escrow 31.36 · balance 1 000.00 → after 968.64")
	e.key("tab")
	e.typeText("3000")
	e.mustContain(`✗ the amount is a whole number from 1 to 2 304, not "3000"`)
	e.key("enter")
	if _, ok := e.m.dialog.(*orderDialog); !ok {
		t.Fatal("enter on a refused amount closed the dialog")
	}
	for range 4 {
		e.key("backspace")
	}
	e.typeText("100")
	e.key("tab")
	e.typeText("0.4")
	e.key("tab")
	e.typeText("2h")
	e.mustContain("escrow 40.00 · balance 1 000.00 → after 960.00")
	e.mustContain("the escrow pays the fills; what is left comes back when the order closes")
	e.key("enter")
	page, err := e.svc.Orders(market.OrderQuery{Buyer: buyer.ID})
	must(t, err)
	if e.m.dialog != nil || len(page.Orders) != 1 {
		t.Fatalf("dialog %T, orders %+v, status %q", e.m.dialog, page.Orders, e.status())
	}
	o := page.Orders[0]
	if want := "buy order #" + itoa(o.ID) + ": Oak Log ×100 at up to 0.40 each, ends in 2h 0m → BuyOrderPlacedEvent"; e.status() != want {
		t.Fatalf("status %q, want %q", e.status(), want)
	}
	if e.balance(buyer) != 960 || !o.ExpiresAt.Equal(fixedNow.Add(2*time.Hour)) {
		t.Fatalf("balance %.2f, order %+v", e.balance(buyer), o)
	}
	e.mustContain("Order book · Oak Log (OAK_LOG)")
	e.mustContain("        0.40     100  1 order")
	e.mustContain("│        0.50      64  1 listing")
	e.mustContain("▶ #" + itoa(o.ID) + "      Kupiec                0.40 each  wants   100 of 100    escrow      40.00  ends in 2h 0m")
	e.mustContain("Kupiec's orders (1 open, newest closed after)")
	e.mustContain("  #" + itoa(o.ID) + "      Oak Log               0.40 each      0/100  open       escrow      40.00  ends in 2h 0m")

	// At the listing's price the order buys from it at once.
	e.key("o") // the material is the book's; the amount has the cursor
	e.typeText("10")
	e.key("tab")
	e.typeText("0.5")
	e.mustContain("crosses the book: buys at once from the 64 on sale at 0.50 to 0.50 each")
	e.key("enter")
	if want := "; bought 10 at once in 1 fill, each BuyOrderFilledEvent, filled: BuyOrderClosedEvent"; !strings.HasSuffix(e.status(), want) {
		t.Fatalf("status %q, want the suffix %q", e.status(), want)
	}
	left, err := e.svc.GetListing(l.ID)
	must(t, err)
	if left.Item.Amount != 54 {
		t.Fatalf("the listing has %d left", left.Item.Amount)
	}
	e.mustContain("│        0.50      54  1 listing")
	e.mustContain("Oak Log               0.50 each      10/10  filled     closed 11-01 12:00")

	// Short of money: the dialog says so, and the market's refusal stays in it.
	e.key("o")
	e.key("backspace")
	e.typeText("2304")
	e.key("tab")
	e.typeText("1")
	e.mustContain("⚠ funds are short: the market will refuse (INSUFFICIENT_FUNDS)")
	e.key("enter")
	if _, ok := e.m.dialog.(*orderDialog); !ok {
		t.Fatalf("the market's refusal closed the dialog (status %q)", e.status())
	}
	e.mustContain("but Kupiec has 955.00 [INSUFFICIENT_FUNDS]")
}

// TestSellIntoAnOrderFromTheOrdersPane: f on a resting order opens the
// sell dialog on the acting player's stacks of its material, proposing
// what the order wants; it shows what the seller receives after the fee,
// and enter sells. Selling into one's own order is the market's refusal,
// shown in the dialog.
func TestSellIntoAnOrderFromTheOrdersPane(t *testing.T) {
	e, seller, buyer := orderEnv(t, 160, 48, market.ItemStack{Material: "OAK_LOG", Amount: 64},
		market.ItemStack{Material: "OAK_LOG", Amount: 20})
	o, err := e.svc.PlaceOrder(buyer, "OAK_LOG", 100, 2.5, 0)
	must(t, err)
	e.key("7")
	e.mustContain("Order book · Oak Log (OAK_LOG)")
	e.key("f")
	if _, ok := e.m.dialog.(*orderSellDialog); !ok {
		t.Fatalf("f opened %T (status %q)", e.m.dialog, e.status())
	}
	e.mustContain("Sell into buy order #" + itoa(o.ID) + " as Sprzedawca  balance 1 000.00")
	e.mustContain("order #" + itoa(o.ID) + ": Oak Log at 2.50 each by Kupiec · 0/100 filled · ends in 7d 0h")
	e.mustContain("ok · Sprzedawca receives 152.00 after the 8.00 fee (64 × 2.50 = 160.00)")
	e.mustContain("the order then wants 36 more")
	e.key("down")
	e.mustContain("ok · Sprzedawca receives 47.50 after the 2.50 fee (20 × 2.50 = 50.00)")
	e.mustContain("the order then wants 80 more")
	e.typeText("30")
	e.mustContain("✗ the stack holds 20: sell 1 to 20 of it, not 30")
	e.key("up")
	e.key("enter")
	if e.m.dialog != nil {
		t.Fatalf("the sale left %T open (status %q)", e.m.dialog, e.status())
	}
	if want := "sold Oak Log ×64 into buy order #" + itoa(o.ID) + ": received 152.00 after the 8.00 fee, items to the buyer's inventory → TransactionCompletedEvent, BuyOrderFilledEvent"; e.status() != want {
		t.Fatalf("status %q, want %q", e.status(), want)
	}
	if e.balance(seller) != 1152 {
		t.Fatalf("the seller's balance %.2f", e.balance(seller))
	}
	got, err := e.svc.GetPlayer(buyer.ID)
	must(t, err)
	if got.Inventory[0] == nil || got.Inventory[0].Material != "OAK_LOG" || got.Inventory[0].Amount != 64 {
		t.Fatalf("the buyer's inventory: %+v", got.Inventory[0])
	}
	e.mustContain("wants    36 of 100  ")
	e.mustContain("        2.50      36  1 order")

	// The buyer's own order: the dialog warns, the market refuses, the
	// dialog stays with the refusal.
	e.m.c.Actor = buyer
	e.m.refreshAll()
	e.key("f")
	e.send(tea.WindowSizeMsg{Width: 80, Height: 24}) // the warning fits the narrowest dialog
	e.mustContain("│ ⚠ their own order: the market will refuse (NO_MATCHING_ORDER)")
	e.key("enter")
	if _, ok := e.m.dialog.(*orderSellDialog); !ok {
		t.Fatalf("the market's refusal closed the dialog (status %q)", e.status())
	}
	e.mustContain("Kupiec cannot sell into their own buy order #" + itoa(o.ID) + " [NO_MATCHING_ORDER]")
}

// TestSellDialogShowsTheBestOrder: the sell dialog (s) names the best
// order for the chosen stack in the server's words, with what selling the
// amount typed into it pays; ctrl+o sells into it. A named stack, which
// orders do not buy, has no such line.
func TestSellDialogShowsTheBestOrder(t *testing.T) {
	e, seller, buyer := orderEnv(t, 160, 48, market.ItemStack{Material: "OAK_LOG", Amount: 64},
		market.ItemStack{Material: "OAK_LOG", Amount: 1, DisplayName: "Kłoda"})
	_, err := e.svc.PlaceOrder(buyer, "OAK_LOG", 100, 2, 0)
	must(t, err)
	best, err := e.svc.PlaceOrder(buyer, "OAK_LOG", 50, 2.5, 0)
	must(t, err)
	e.key("s")
	e.mustContain("best buy order: 2.50 each · order #" + itoa(best.ID) + " by Kupiec wants 50")
	e.mustContain("ctrl+o sells 50 into it: you receive 118.75 after the 6.25 fee")
	e.key("tab") // the amount
	e.typeText("10")
	e.mustContain("ctrl+o sells 10 into it: you receive 23.75 after the 1.25 fee")
	e.key("tab") // the price: at the order's, the order buys the listing at once
	e.typeText("25")
	e.mustContain("ok · on sale you receive 23.75 after the 5% fee; buy order #" + itoa(best.ID) + " buys up to 50 of it at once")
	e.key("backspace")
	e.typeText("5.01")
	if strings.Contains(e.view(), "buys up to") {
		t.Fatal("a price above the order's says the order buys it")
	}
	e.key("tab")
	e.key("down")
	if strings.Contains(e.view(), "best buy order") {
		t.Fatal("a named stack shows a buy order")
	}
	e.key("up") // the amount has the cursor still
	e.typeText("10")
	e.send(tea.KeyPressMsg{Code: 'o', Mod: tea.ModCtrl})
	if want := "sold Oak Log ×10 into buy order #" + itoa(best.ID) + ": received 23.75 after the 1.25 fee, items to the buyer's inventory → TransactionCompletedEvent, BuyOrderFilledEvent"; e.m.dialog != nil || e.status() != want {
		t.Fatalf("dialog %T, status %q, want %q", e.m.dialog, e.status(), want)
	}
	if e.balance(seller) != 1023.75 {
		t.Fatalf("the seller's balance %.2f", e.balance(seller))
	}
}

// TestCancelAnOrder: d asks before cancelling the selected order, saying
// what goes back; y cancels it and the player's list shows it cancelled.
// Another player's order is refused (NOT_ORDER_OWNER); ctrl+d cancels it
// as the console's admin.
func TestCancelAnOrder(t *testing.T) {
	e, seller, buyer := orderEnv(t, 160, 48)
	mine, err := e.svc.PlaceOrder(seller, "DIAMOND", 4, 100, 0)
	must(t, err)
	theirs, err := e.svc.PlaceOrder(buyer, "DIAMOND", 2, 50, 0)
	must(t, err)
	e.key("7")
	e.mustContain("Order book · Diamond (DIAMOND)")
	e.key("d") // the cursor is on the best order: Sprzedawca's own
	e.mustContain("Cancel buy order #" + itoa(mine.ID) + " as the acting player Sprzedawca?")
	e.mustContain("Sprzedawca gets the escrow back: 400.00")
	e.mustContain(`publishes BuyOrderClosedEvent, reason "cancelled"`)
	e.confirm()
	if want := "cancelled buy order #" + itoa(mine.ID) + " as Sprzedawca: 400.00 back to Sprzedawca (0 of 4 were bought) → BuyOrderClosedEvent reason \"cancelled\""; e.status() != want {
		t.Fatalf("status %q, want %q", e.status(), want)
	}
	if e.balance(seller) != 1000 {
		t.Fatalf("balance %.2f", e.balance(seller))
	}
	e.mustContain("Diamond             100.00 each        0/4  cancelled  closed 11-01 12:00")

	e.key("home") // Kupiec's order, the only one resting
	e.key("d")
	e.mustContain("⚠ not Sprzedawca's order: the market will refuse (NOT_ORDER_OWNER)")
	e.confirm()
	if want := "Sprzedawca did not place order #" + itoa(theirs.ID) + " and lacks market.admin [NOT_ORDER_OWNER]"; e.status() != want {
		t.Fatalf("status %q, want %q", e.status(), want)
	}
	e.send(tea.KeyPressMsg{Code: 'd', Mod: tea.ModCtrl})
	e.mustContain("Cancel buy order #" + itoa(theirs.ID) + " as admin Admin?")
	e.confirm()
	if got, _ := e.svc.GetOrder(theirs.ID); got.State != "cancelled" || e.balance(buyer) != 1000 {
		t.Fatalf("the order %+v, the buyer's balance %.2f, status %q", got, e.balance(buyer), e.status())
	}
	// The book stays on the material shown, empty now.
	e.mustContain("Resting orders of Diamond (0)")
	e.mustContain("  no buy order ")
}

// TestClockKeysExpireOrders: the QA clock keys run the timer, which closes
// the orders whose time is up, returns their escrow and says so.
func TestClockKeysExpireOrders(t *testing.T) {
	e, _, buyer := orderEnv(t, 160, 48)
	o, err := e.svc.PlaceOrder(buyer, "DIAMOND", 4, 100, time.Hour)
	must(t, err)
	e.key("]")
	if want := "clock +1h: 1 buy order expired, each BuyOrderClosedEvent (escrow back to the buyer)"; e.status() != want {
		t.Fatalf("status %q, want %q", e.status(), want)
	}
	if got, _ := e.svc.GetOrder(o.ID); got.State != "expired" || e.balance(buyer) != 1000 {
		t.Fatalf("the order %+v, balance %.2f", got, e.balance(buyer))
	}
	e.m.c.Actor = buyer
	e.m.refreshAll()
	e.key("7")
	e.mustContain("Diamond             100.00 each        0/4  expired    closed 11-01 13:00")
	e.tick()
	e.key("6")
	e.mustContain("reason=expired order #" + itoa(o.ID) + " Diamond 0 of 4 filled by Kupiec · refund 400.00")
}

// TestTabsFitWithTheOrdersPane: on a screen 80 cells wide the seven tabs
// fit whole, the Events count left out when it would push Orders off, and
// a click on "7 Orders" opens it.
func TestTabsFitWithTheOrdersPane(t *testing.T) {
	e, _, _ := orderEnv(t, 80, 24)
	e.m.log.all = make([]market.Event, 12) // "6 Events (12)" would not fit
	e.mustContain("1 Listings 2 Search 3 Seller 4 Stats 5 Transactions 6 Events 7 Orders 8 Webhooks")
	e.send(tea.MouseClickMsg{X: 64, Y: 1})
	if e.m.panes[e.m.active].Title() != "Orders" {
		t.Fatalf("the click opened %s", e.m.panes[e.m.active].Title())
	}
	e.send(tea.WindowSizeMsg{Width: 160, Height: 48})
	e.mustContain(" 6 Events (12)  7 Orders  8 Webhooks ")
}

// TestOrdersPaneScrollsAndClicks: on an 80×24 screen a book deeper than
// the pane shows the best levels, the lists scroll with the cursor, and a
// click on an order's row selects it.
func TestOrdersPaneScrollsAndClicks(t *testing.T) {
	e, _, _ := orderEnv(t, 80, 24)
	var ids []int
	for i := range 25 {
		p, err := e.svc.AddPlayer(market.NewPlayer{Name: "Kupiec" + itoa(i), Balance: 100})
		must(t, err)
		o, err := e.svc.PlaceOrder(p, "STONE", 10, float64(30-i)/10, 0) // 3.00 down to 0.60
		must(t, err)
		ids = append(ids, o.ID)
	}
	e.key("7")
	e.mustContain("Resting orders of Stone (25)")
	e.mustContain("        3.00      10  1 order")
	e.mustContain("        2.50      10  1 order") // six levels of the ten read fit a third of the pane
	if strings.Contains(e.view(), "        2.40      10  1 order") {
		t.Fatal("the book shows more levels than fit")
	}
	e.key("end")
	e.mustContain("▶ #" + itoa(ids[24]) + "     Kupiec24          0.60 each")
	e.mustContain("Sprzedawca's orders (0 open, newest closed after)") // the last order: what follows it shows
	if strings.Contains(e.view(), "Resting orders of") {
		t.Fatal("the list did not scroll to its end")
	}
	e.key("home")
	e.mustContain("▶ #" + itoa(ids[0]) + "      Kupiec0           3.00 each")
	e.mustContain("Resting orders of Stone (25)") // the first order: its heading shows
	// The pane starts on row 2; title, book header and six levels take 8;
	// the list's heading is the first of its lines, order 2 the fourth.
	e.send(tea.MouseClickMsg{X: 10, Y: 2 + 8 + 3})
	e.mustContain("▶ #" + itoa(ids[2]) + "      Kupiec2           2.80 each")
}

// TestOrderDetails: enter on an order shows everything about it and its
// fills; y copies its #id, which jump (:) opens, listings and orders
// sharing one sequence of numbers.
func TestOrderDetails(t *testing.T) {
	e, seller, buyer := orderEnv(t, 160, 48, market.ItemStack{Material: "OAK_LOG", Amount: 64})
	o, err := e.svc.PlaceOrder(buyer, "OAK_LOG", 100, 2.5, 0)
	must(t, err)
	st, err := e.svc.GetPlayer(seller.ID)
	must(t, err)
	stack := *st.Inventory[0]
	stack.Amount = 30
	tx, err := e.svc.SellToOrder(seller, stack, o.ID)
	must(t, err)
	e.tick()
	e.key("7")
	e.key("enter")
	e.mustContain("Buy order #" + itoa(o.ID))
	e.mustContain("amount      100, 30 bought, 70 wanted still")
	e.mustContain("escrow      175.00  placing fee 0.00")
	e.mustContain("state       open")
	e.mustContain("Fills in the event log (1)")
	e.mustContain("  11-01 12:00:00  Sprzedawca sold 30 at 2.50 each, from the inventory  " + shortID(tx.ID))
	e.key("esc")
	e.key("y")
	if !strings.HasPrefix(e.status(), "copied #"+itoa(o.ID)+" ") {
		t.Fatalf("y: %q", e.status())
	}
	e.key(":")
	e.typeText("#" + itoa(o.ID))
	e.key("enter")
	e.mustContain("Buy order #" + itoa(o.ID))
	e.key("esc")
	e.key(":")
	e.typeText("#999")
	e.key("enter")
	if !strings.Contains(e.status(), "[UNKNOWN_LISTING]") {
		t.Fatalf("jump to a number nothing has: %q", e.status())
	}
}

// TestSellerPaneNamesAFill: the buyer's notifications on the Seller pane
// say what a fill of their order bought, from whom and for how much.
func TestSellerPaneNamesAFill(t *testing.T) {
	e, seller, buyer := orderEnv(t, 160, 48, market.ItemStack{Material: "OAK_LOG", Amount: 64})
	o, err := e.svc.PlaceOrder(buyer, "OAK_LOG", 100, 2.5, 0)
	must(t, err)
	st, err := e.svc.GetPlayer(seller.ID)
	must(t, err)
	_, err = e.svc.SellToOrder(seller, *st.Inventory[0], o.ID)
	must(t, err)
	e.m.c.Actor = buyer
	e.m.refreshAll()
	e.key("3")
	for range 3 {
		e.key("v") // the fourth view: favourites, alerts and notifications
	}
	e.mustContain("● 11-01 12:00  buy order #" + itoa(o.ID) + " bought Oak Log ×64 from Sprzedawca for 160.00")
}

// TestOrdersPaneWhileDisabled: with the service disabled the pane says
// the contract's not-ready text, and placing is the market's refusal,
// kept in the dialog; enabled again, the book is back.
func TestOrdersPaneWhileDisabled(t *testing.T) {
	e, _, buyer := orderEnv(t, 120, 40)
	_, err := e.svc.PlaceOrder(buyer, "DIAMOND", 1, 5, 0)
	must(t, err)
	e.key("7")
	e.key("D")
	e.mustContain("\n" + notReadyText)
	e.key("o")
	e.typeText("DIAMOND")
	e.key("enter")
	if _, ok := e.m.dialog.(*orderDialog); !ok {
		t.Fatalf("the refusal closed the dialog (status %q)", e.status())
	}
	e.mustContain(notReadyText)
	e.key("esc")
	e.key("D")
	e.mustContain("Order book · Diamond (DIAMOND)")
}

// TestOrdersPaneCursorStaysOnItsOrder: a better order arriving above the
// selected one leaves the cursor on the order it was on.
func TestOrdersPaneCursorStaysOnItsOrder(t *testing.T) {
	e, _, buyer := orderEnv(t, 160, 48)
	first, err := e.svc.PlaceOrder(buyer, "DIAMOND", 1, 5, 0)
	must(t, err)
	_, err = e.svc.PlaceOrder(buyer, "DIAMOND", 1, 4, 0)
	must(t, err)
	e.key("7")
	e.mustContain("▶ #" + itoa(first.ID) + " ")
	best, err := e.svc.PlaceOrder(buyer, "DIAMOND", 1, 6, 0) // above the cursor
	must(t, err)
	e.tick()
	e.mustContain("▶ #" + itoa(first.ID) + " ")
	e.key("c")
	e.typeText("STONE")
	e.key("enter")
	e.mustContain("Order book · Stone (STONE)")
	e.key(",") // back to the only material with orders: the cursor on its best
	e.mustContain("Order book · Diamond (DIAMOND)")
	e.mustContain("▶ #" + itoa(best.ID) + " ")
}

// TestClosedOrderRowFits80: a closed order's row, its closing time last,
// fits 80 columns whole.
func TestClosedOrderRowFits80(t *testing.T) {
	e, seller, _ := orderEnv(t, 80, 24)
	o, err := e.svc.PlaceOrder(seller, "DIAMOND", 2304, 0.01, 0)
	must(t, err)
	must(t, e.svc.CancelOrder(o.ID, seller))
	e.key("7")
	e.mustContain("▶ #" + itoa(o.ID) + "      Diamond           0.01 each     0/2304  cancelled  closed 11-01 12:00 ")
}

// TestSellerPaneShowsWhatOrdersHold: the money a player's open orders
// hold is beside the balance on the Seller pane, which it left.
func TestSellerPaneShowsWhatOrdersHold(t *testing.T) {
	e, _, buyer := orderEnv(t, 160, 48)
	_, err := e.svc.PlaceOrder(buyer, "DIAMOND", 4, 100, 0)
	must(t, err)
	_, err = e.svc.PlaceOrder(buyer, "STONE", 10, 0.5, 0)
	must(t, err)
	e.m.c.Actor = buyer
	e.m.refreshAll()
	e.key("3")
	e.mustContain("balance 595.00 (405.00 in 2 buy orders)")
}

// TestOrderDialogCountsStacks: the amount's hint counts full stacks of the
// material and what is left over, as typed (100 Oak Logs are one stack and
// 36, not two stacks; Ender Pearls stack by 16).
func TestOrderDialogCountsStacks(t *testing.T) {
	e, _, buyer := orderEnv(t, 160, 48)
	e.m.c.Actor = buyer
	e.key("7")
	e.key("o")
	e.typeText("oak log")
	e.mustContain("amount   64")
	e.mustContain("1 to 2 304 · 1 stack of 64")
	e.key("tab")
	for _, c := range []struct{ typed, hint string }{
		{"100", "1 to 2 304 · 1 stack of 64 and 36"},
		{"128", "1 to 2 304 · 2 stacks of 64"},
		{"2304", "1 to 2 304 · 36 stacks of 64"},
		{"63", "1 to 2 304"},
	} {
		for range 4 {
			e.key("backspace")
		}
		e.typeText(c.typed)
		line := screenLine(e, "amount   "+c.typed)
		if !strings.HasSuffix(strings.TrimRight(line, " │"), c.hint) {
			t.Fatalf("%s: the amount's line is %q, want it to end %q", c.typed, line, c.hint)
		}
	}
	for range 3 { // amount → price → lasts → material
		e.key("tab")
	}
	for range 7 {
		e.key("backspace")
	}
	e.typeText("ender pearl")
	e.key("tab")
	for range 4 {
		e.key("backspace")
	}
	e.typeText("100")
	if line := screenLine(e, "amount   100"); !strings.Contains(line, "1 to 2 304 · 6 stacks of 16 and 4") {
		t.Fatalf("ender pearls: %q", line)
	}
}

// screenLine is the screen's line that holds text.
func screenLine(e *testEnv, text string) string {
	e.t.Helper()
	for _, l := range strings.Split(e.view(), "\n") {
		if strings.Contains(l, text) {
			return l
		}
	}
	e.t.Fatalf("no line holds %q:\n%s", text, e.view())
	return ""
}

// TestMaterialPromptTakesSearchWords: the book's material prompt (c) and
// the order dialog's material take the words search finds a material by,
// Polish too, as the market resolves them: "diament" is Diamond, which the
// prompt refused while search found it; words that find several are
// refused with the first few.
func TestMaterialPromptTakesSearchWords(t *testing.T) {
	e, _, buyer := orderEnv(t, 160, 48, market.ItemStack{Material: "DIAMOND", Amount: 8})
	st, err := e.svc.GetPlayer(e.m.c.Actor.ID)
	must(t, err)
	_, err = e.svc.SellItem(e.m.c.Actor, *st.Inventory[0], 80)
	must(t, err)
	e.m.c.Actor = buyer
	e.key("2")
	e.key("/")
	e.typeText("diament")
	e.mustContain(`1 match for "diament"`)
	e.mustContain("Diamond")
	e.key("esc")

	e.key("7")
	e.key("c")
	e.typeText("diament")
	e.key("enter")
	e.mustContain("Order book · Diamond (DIAMOND)")
	e.mustContain("10.00       8  1 listing")
	e.key("c")
	e.typeText("kilof diamentowy")
	e.key("enter")
	e.mustContain("Order book · Diamond Pickaxe (DIAMOND_PICKAXE)")
	e.key("c")
	e.typeText("miecz")
	e.key("enter")
	e.mustContain(`✗ "miecz" is more than one material (Wooden Sword, Copper Sword, Stone Sword, Golden Sword, Iron Sword and 2 more): type more of its name [INVALID_QUERY]`)
	e.mustContain("Order book · Diamond Pickaxe (DIAMOND_PICKAXE)")

	e.key("o")
	for range 3 { // amount → price → lasts → material
		e.key("tab")
	}
	for range len("DIAMOND_PICKAXE") {
		e.key("backspace")
	}
	e.typeText("miecz")
	e.mustContain(`✗ "miecz" is more than one material`)
	e.typeText(" diamentowy")
	e.mustContain("material miecz diamentowy")
	e.mustContain("Diamond Sword")
	e.mustContain("book: no buy order · no listing")
}

// TestOrdersPaneSaysWhyTheBookLooksCrossed: an order above its own
// buyer's listing rests (own listings never fill their orders), and the
// book shows a buy above a sell: the level is marked ⇅ own and a line
// under the book says why, the reason first, whole at 80 columns. A
// crossing the purchase cap keeps says that instead.
func TestOrdersPaneSaysWhyTheBookLooksCrossed(t *testing.T) {
	e, seller, buyer := orderEnv(t, 160, 48, market.ItemStack{Material: "OAK_LOG", Amount: 64})
	st, err := e.svc.GetPlayer(seller.ID)
	must(t, err)
	l, err := e.svc.SellItem(seller, *st.Inventory[0], 32) // 0.50 each
	must(t, err)
	_, err = e.svc.PlaceOrder(buyer, "OAK_LOG", 10, 0.4, 0) // below: no mark
	must(t, err)
	own, err := e.svc.PlaceOrder(seller, "OAK_LOG", 10, 0.6, 0)
	must(t, err)
	if own.Filled != 0 {
		t.Fatalf("the order filled %d from its buyer's own listing", own.Filled)
	}
	e.key("7")
	e.mustContain("Order book · Oak Log (OAK_LOG)")
	e.mustContain("0.60      10  1 order ⇅ own")
	if line := screenLine(e, "0.40      10  1 order"); strings.Contains(line, "⇅") {
		t.Fatalf("the level below the listing is marked: %q", line)
	}
	note := "⇅ own listings never fill own orders: #" + itoa(own.ID) + " by Sprzedawca at 0.60 each is at or above their listing #" + itoa(l.ID) + " at 0.50"
	e.mustContain(note)
	e.mustContain("▶ #" + itoa(own.ID) + " ") // the lists start under the note
	e.send(tea.WindowSizeMsg{Width: 80, Height: 24})
	e.mustContain("⇅ own listings never fill own orders: #" + itoa(own.ID) + " by Sprzedawca at 0.60 each")
	checkScreen(t, e.m.View().Content, 80, 24)

	// The purchase cap: Kupiec bought from the seller once, which a cap
	// of one a day allows, and his order above her listing rests.
	capped := envWith(t, emptyStore(t), market.Config{ListingCooldown: -1, PurchaseCap: market.PurchaseCap{Max: 1, Window: 24 * time.Hour}}, 160, 48)
	s2, err := capped.svc.AddPlayer(market.NewPlayer{Name: "Sprzedawca", Balance: 10, Items: []market.ItemStack{{Material: "OAK_LOG", Amount: 64}, {Material: "OAK_LOG", Amount: 64}}})
	must(t, err)
	b2, err := capped.svc.AddPlayer(market.NewPlayer{Name: "Kupiec", Balance: 1000})
	must(t, err)
	st, err = capped.svc.GetPlayer(s2.ID)
	must(t, err)
	first, err := capped.svc.SellItem(s2, *st.Inventory[0], 32)
	must(t, err)
	_, err = capped.svc.Buy(b2, first.ID)
	must(t, err)
	_, err = capped.svc.SellItem(s2, *st.Inventory[1], 32)
	must(t, err)
	o, err := capped.svc.PlaceOrder(b2, "OAK_LOG", 10, 0.6, 0)
	must(t, err)
	if o.Filled != 0 {
		t.Fatalf("the cap let the order fill %d", o.Filled)
	}
	capped.m.c.Actor = b2
	capped.key("7")
	if line := screenLine(capped, "0.60      10  1 order ⇅"); strings.Contains(line, "own") {
		t.Fatalf("the capped crossing is marked own: %q", line)
	}
	capped.mustContain("⇅ crossed where the market may not fill: a fill the purchase cap refuses, or a share under a cent")
}

// TestOrderDialogLeavesOwnListingsOut: the order dialog's "crosses the
// book" counts what the order buys at once, which is never the acting
// player's own listings; those it names apart.
func TestOrderDialogLeavesOwnListingsOut(t *testing.T) {
	e, seller, _ := orderEnv(t, 160, 48, market.ItemStack{Material: "OAK_LOG", Amount: 64})
	st, err := e.svc.GetPlayer(seller.ID)
	must(t, err)
	l, err := e.svc.SellItem(seller, *st.Inventory[0], 32) // 0.50 each
	must(t, err)
	e.key("7")
	e.key("o")
	e.typeText("oak log")
	e.key("tab")
	e.typeText("10")
	e.key("tab")
	e.typeText("0.6")
	e.mustContain("book: no buy order · cheapest listing 0.50 each (64 on sale)")
	e.mustContain("64 of the acting player's own on sale at or below it: own listings never fill own orders")
	if strings.Contains(e.view(), "crosses the book") {
		t.Fatalf("the order crosses its own listing:\n%s", e.view())
	}
	e.key("esc")

	// Another player's stack at 0.55 is what it buys.
	other, err := e.svc.AddPlayer(market.NewPlayer{Name: "Drwal", Items: []market.ItemStack{{Material: "OAK_LOG", Amount: 32}}})
	must(t, err)
	ost, err := e.svc.GetPlayer(other.ID)
	must(t, err)
	_, err = e.svc.SellItem(other, *ost.Inventory[0], 17.6) // 0.55 each
	must(t, err)
	e.key("o")
	e.typeText("oak log")
	e.key("tab")
	e.typeText("10")
	e.key("tab")
	e.typeText("0.6")
	e.mustContain("crosses the book: buys at once from the 32 on sale at 0.55 to 0.55 each")
	e.mustContain("64 of the acting player's own on sale at or below it: own listings never fill own orders")
	e.key("enter")
	page, err := e.svc.Orders(market.OrderQuery{Buyer: seller.ID, All: true})
	must(t, err)
	mine, err := e.svc.GetListing(l.ID)
	must(t, err)
	if len(page.Orders) != 1 || page.Orders[0].Filled != 10 || mine.Item.Amount != 64 {
		t.Fatalf("orders %+v (status %q)", page.Orders, e.status())
	}
}

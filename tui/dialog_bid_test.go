package tui

import (
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/rynek/rynek/market"
)

// TestBidOnAnAuction: b on an auction opens the bid dialog at the minimum;
// an amount below it is refused as typed, one above it is placed and the
// table shows the auction's mark, bids and current bid; the seller's own
// bid is the market's refusal, in the dialog; ) ends the auction on the QA
// clock and the winner holds the stack.
func TestBidOnAnAuction(t *testing.T) {
	e, a := auctionOfEight(t, 0)
	seller := e.m.c.Actor
	bidder, err := e.svc.AddPlayer(market.NewPlayer{Name: "Licytant", Balance: 500})
	must(t, err)
	e.m.c.Actor = bidder
	e.m.refreshAll()
	e.key("1")
	e.mustContain("⚑ Diamond · 0 bids")

	e.key("b")
	if _, ok := e.m.dialog.(*bidDialog); !ok {
		t.Fatalf("b opened %T (status %q)", e.m.dialog, e.status())
	}
	e.mustContain("Bid as Licytant")
	e.mustContain("no bid yet: the starting bid is 10.00")
	e.mustContain("balance 500.00 → after 490.00 (held until outbid or the end)")
	e.typeText("9")
	e.mustContain("✗ the lowest bid is 10.00")
	e.key("enter")
	if _, ok := e.m.dialog.(*bidDialog); !ok {
		t.Fatalf("enter on a bid below the minimum closed the dialog (status %q)", e.status())
	}
	e.key("backspace")
	e.typeText("12.5")
	e.mustContain("balance 500.00 → after 487.50")
	e.key("enter")
	if e.m.dialog != nil || e.status() != "bid 12.50 on #"+itoa(a.ID)+" as Licytant: leads after 1 bid, ends in 1h 0m → BidPlacedEvent" {
		t.Fatalf("dialog %T, status %q", e.m.dialog, e.status())
	}
	e.mustContain("⚑ Diamond · 1 bid")
	e.mustContain("12.50")

	e.m.c.Actor = seller
	e.key("b")
	e.mustContain("this is the acting player's own auction")
	e.key("enter")
	if _, ok := e.m.dialog.(*bidDialog); !ok {
		t.Fatalf("the market's refusal closed the dialog (status %q)", e.status())
	}
	e.mustContain("Sprzedawca cannot bid on their own auction #" + itoa(a.ID) + " [OWN_AUCTION]")
	e.key("esc")

	e.key(")")
	if !strings.Contains(e.status(), "to the auction's end: 1 auction ended, each AuctionEndedEvent") {
		t.Fatalf("status %q", e.status())
	}
	won, err := e.svc.GetPlayer(bidder.ID)
	must(t, err)
	if won.Balance != 487.5 || won.Inventory[0] == nil || won.Inventory[0].Material != "DIAMOND" {
		t.Fatalf("the winner: %.2f, %+v", won.Balance, won.Inventory[0])
	}
	e.tick()
	e.key("6")
	e.mustContain("bids 1 · auctions ended 1")
	e.mustContain("#" + itoa(a.ID) + " Diamond ×8  Licytant bids 12.50")
	e.mustContain("#" + itoa(a.ID) + " won by Licytant for 12.50 · transaction ")
}

// TestStartAnAuctionFromTheSellDialog: ctrl+t in the sell dialog makes the
// price the starting bid of an auction for the rules' default duration.
func TestStartAnAuctionFromTheSellDialog(t *testing.T) {
	e := envWithSeller(t, 160, 48, market.ItemStack{Material: "DIAMOND", Amount: 8})
	e.key("s")
	e.send(tea.KeyPressMsg{Code: 't', Mod: tea.ModCtrl})
	e.mustContain("Auction as Sprzedawca")
	e.mustContain("starting bid")
	e.typeText("25")
	e.mustContain("ok · an auction for 1d from 25.00: the highest bid at its end buys it, less the sale fee")
	e.key("enter")
	if e.m.dialog != nil || e.status() != "auction #1: Diamond ×8 from 25.00, ends in 1d 0h → ListingCreatedEvent" {
		t.Fatalf("dialog %T, status %q", e.m.dialog, e.status())
	}
	l, err := e.svc.GetListing(1)
	must(t, err)
	if l.Auction == nil || l.Auction.StartingBid != 25 || !l.ExpiresAt.Equal(fixedNow.Add(24*time.Hour)) {
		t.Fatalf("the auction: %+v, ends %v", l.Auction, l.ExpiresAt)
	}
}

// TestAuctionTermsFromTheSellDialog: an auction from the sell dialog takes
// a buy-now price and a length, within the market's rules, which the
// dialog says; out-of-bounds input is refused with why, and nothing is
// listed; the market refuses it again.
func TestAuctionTermsFromTheSellDialog(t *testing.T) {
	e := envWithSeller(t, 160, 48, market.ItemStack{Material: "DIAMOND", Amount: 8})
	e.key("s")
	e.send(tea.KeyPressMsg{Code: 't', Mod: tea.ModCtrl})
	e.mustContain("buy now: empty for none, else above the starting bid · lasts 1m to 7d")
	e.mustContain("lasts 1d")
	e.typeText("25")
	e.key("tab") // buy now
	refused := func(typed, why string) {
		t.Helper()
		e.typeText(typed)
		e.mustContain(why)
		e.key("enter")
		if _, ok := e.m.dialog.(*sellDialog); !ok {
			t.Fatalf("%q: the dialog closed (status %q)", typed, e.status())
		}
		if n, _ := e.svc.GetActiveListingsCount(); n != 0 {
			t.Fatalf("%q: %d listings", typed, n)
		}
		for range len(typed) {
			e.key("backspace")
		}
	}
	refused("20", "the buy-now price must be above the starting bid 25.00, not 20.00 (empty: none)")
	refused("1.005", "buy now: price 1.005 has more than 2 decimals")
	e.typeText("100")
	e.key("tab") // lasts: "1d", selected, which typing replaces
	refused("8d", "an auction lasts 1m to 7d, not 8d")
	refused("30s", "an auction lasts 1m to 7d, not 30s")
	refused("soon", `the duration is like 7d, 12h, 30m or 1d12h, not "soon"`)
	e.typeText("2d12h")
	e.mustContain("ok · an auction for 2d12h from 25.00: the highest bid at its end buys it, less the sale fee")
	e.mustContain("     or anyone buys it now for 100.00, less the sale fee")
	e.key("enter")
	if want := "auction #1: Diamond ×8 from 25.00, buy now 100.00, ends in 2d 12h → ListingCreatedEvent"; e.m.dialog != nil || e.status() != want {
		t.Fatalf("dialog %T, status %q, want %q", e.m.dialog, e.status(), want)
	}
	l, err := e.svc.GetListing(1)
	must(t, err)
	if l.Auction == nil || l.Auction.StartingBid != 25 || l.Auction.BuyNow != 100 || !l.ExpiresAt.Equal(fixedNow.Add(60*time.Hour)) {
		t.Fatalf("the auction: %+v, ends %v", l.Auction, l.ExpiresAt)
	}
	// The market checks the length again.
	if _, err := e.svc.StartAuction(e.m.c.Actor, market.ItemStack{Material: "DIAMOND", Amount: 1}, 5, 0, 8*24*time.Hour); err == nil {
		t.Fatal("the market started an auction of 8 days")
	}
}

// TestAuctionTermsFollowTheRules: the bounds the dialog says and checks
// are the market's rules, here an auction of 1 hour to 2 days, 6 hours by
// default; ctrl+t back to a fixed price leaves the terms.
func TestAuctionTermsFollowTheRules(t *testing.T) {
	cfg := market.Config{ListingCooldown: -1, Auctions: market.AuctionRules{MinDuration: time.Hour, MaxDuration: 48 * time.Hour,
		DefaultDuration: 6 * time.Hour}}
	e := envWith(t, emptyStore(t), cfg, 160, 48)
	p, err := e.svc.AddPlayer(market.NewPlayer{Name: "Sprzedawca", Balance: 1000, Items: []market.ItemStack{{Material: "DIAMOND", Amount: 8}}})
	must(t, err)
	e.m.c.Actor = p
	e.key("s")
	e.send(tea.KeyPressMsg{Code: 't', Mod: tea.ModCtrl})
	e.mustContain("lasts 6h")
	e.mustContain("· lasts 1h to 2d")
	e.key("tab")
	e.key("tab") // lasts
	e.typeText("30m")
	e.mustContain("an auction lasts 1h to 2d, not 30m")
	e.send(tea.KeyPressMsg{Code: 't', Mod: tea.ModCtrl}) // a fixed price after all
	e.mustContain("Sell as Sprzedawca")
	if strings.Contains(e.view(), "lasts") {
		t.Fatalf("a fixed price shows an auction's terms:\n%s", e.view())
	}
	e.key("enter")
	l, err := e.svc.GetListing(1)
	must(t, err)
	if l.Auction != nil {
		t.Fatalf("listed an auction: %+v", l.Auction)
	}
}

// TestBuyNowAsksFirst: ctrl+b in the bid dialog asks y/enter before it
// buys, as b on a fixed-price listing does: the buy-now price, the
// leader's bid going back, the balance after. n leaves the auction as it
// was; y buys it.
func TestBuyNowAsksFirst(t *testing.T) {
	e, a := auctionOfEight(t, 40)
	leader, err := e.svc.AddPlayer(market.NewPlayer{Name: "Licytant", Balance: 500})
	must(t, err)
	_, err = e.svc.Bid(leader, a.ID, 12)
	must(t, err)
	buyer, err := e.svc.AddPlayer(market.NewPlayer{Name: "Kupiec", Balance: 100})
	must(t, err)
	e.m.c.Actor = buyer
	e.m.refreshAll()
	e.key("1")
	e.key("b")
	e.mustContain("buy it now for 40.00")
	ctrlB := tea.KeyPressMsg{Code: 'b', Mod: tea.ModCtrl}
	e.send(ctrlB)
	if _, ok := e.m.dialog.(*confirmDialog); !ok {
		t.Fatalf("ctrl+b opened %T (status %q)", e.m.dialog, e.status())
	}
	e.mustContain("Buy it now as Kupiec?")
	e.mustContain("#" + itoa(a.ID) + " Diamond ×8 by Sprzedawca now for 40.00")
	e.mustContain("Licytant's leading bid of 12.00 goes back to them")
	e.mustContain("balance 100.00 → after 60.00")
	e.mustContain("ends the auction: TransactionCompletedEvent, AuctionEndedEvent")
	e.mustContain("y/enter confirm · n/esc cancel")
	e.key("n")
	if l, err := e.svc.GetListing(a.ID); err != nil || l.Auction.Bids != 1 || e.m.dialog != nil {
		t.Fatalf("after n: %+v, %v, dialog %T", l, err, e.m.dialog)
	}
	e.key("b")
	e.send(ctrlB)
	e.confirm()
	want := "bought #" + itoa(a.ID) + " now: transaction "
	if e.m.dialog != nil || !strings.HasPrefix(e.status(), want) || !strings.HasSuffix(e.status(), "COMPLETED, paid 40.00 → TransactionCompletedEvent, AuctionEndedEvent") {
		t.Fatalf("dialog %T, status %q", e.m.dialog, e.status())
	}
	if e.balance(buyer) != 60 || e.balance(leader) != 500 {
		t.Fatalf("balances: buyer %.2f, leader %.2f", e.balance(buyer), e.balance(leader))
	}

	// The leader buying it now: their bid comes back first.
	e, a = auctionOfEight(t, 40)
	leader, err = e.svc.AddPlayer(market.NewPlayer{Name: "Licytant", Balance: 50})
	must(t, err)
	_, err = e.svc.Bid(leader, a.ID, 12) // 38.00 left
	must(t, err)
	e.m.c.Actor = leader
	e.m.refreshAll()
	e.key("1")
	e.key("b")
	e.send(ctrlB)
	e.mustContain("Licytant's leading bid of 12.00 comes back first")
	e.mustContain("balance 38.00 → after 10.00")
	e.confirm()
	if e.balance(leader) != 10 {
		t.Fatalf("the leader has %.2f after buying now (status %q)", e.balance(leader), e.status())
	}
}

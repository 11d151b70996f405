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

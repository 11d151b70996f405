package market_test

import (
	"testing"

	"github.com/rynek/rynek/market"
)

// TestFeeQuotesAreWhatIsCharged: the quotes equal the fees a sale into an
// order and a placing charge.
func TestFeeQuotesAreWhatIsCharged(t *testing.T) {
	w := newWorld(t, func(c *market.Config) { c.Orders.FeeBasisPoints = 150; c.MinFee = 3 })
	cfg := w.svc.Config()
	before, _ := w.svc.FeeBalance()
	o := w.order(w.alice, "OAK_LOG", 7, 1.23) // 8.61, 1.5% = 0.12915
	if o.Fee != cfg.OrderFee(861).Float() || o.Fee != 0.13 {
		t.Fatalf("placing fee %.2f, quote %.2f", o.Fee, cfg.OrderFee(861).Float())
	}
	st, err := w.svc.GetPlayer(w.bob.ID)
	must(t, err)
	stack := *st.Inventory[2]
	stack.Amount = 3
	tx, err := w.svc.SellToOrder(w.bob, stack, o.ID) // 3.69, 5% = 0.1845
	must(t, err)
	if tx.Fee != cfg.SaleFee(369).Float() || tx.Fee != 0.18 {
		t.Fatalf("sale fee %.2f, quote %.2f", tx.Fee, cfg.SaleFee(369).Float())
	}
	after, _ := w.svc.FeeBalance()
	if got := market.Money(after*100 + 0.5 - before*100); got != cfg.OrderFee(861)+cfg.SaleFee(369) {
		t.Fatalf("fee account grew by %d cents", got)
	}
	w2 := newWorld(t)
	if f := w2.svc.Config().OrderFee(861); f != 0 {
		t.Fatalf("no placement fee in the rules, quote %d", f)
	}
}

package market_test

import (
	"strings"
	"testing"

	"github.com/rynek/rynek/market"
)

// TestTransactionsFilteredByStateAndID: TxQuery's State and IDPart filters
// against a plain scan of every transaction, with the player filter and
// paging; an unknown state is refused.
func TestTransactionsFilteredByStateAndID(t *testing.T) {
	w := newWorld(t)
	var all []market.Transaction
	for i, failAt := range []market.State{"", market.StateCreated, market.StateSellerPaid, "", market.StateItemDelivered, ""} {
		log := w.stack(w.alice, 2)
		log.Amount = 1 // one of Alice's 32 logs each time
		l, err := w.svc.SellItem(w.alice, log, float64(10+i))
		must(t, err)
		if failAt != "" {
			must(t, w.svc.ArmFailure(failAt))
		}
		tx, _ := w.svc.Buy(w.bob, l.ID)
		all = append(all, tx)
	}
	count := func(keep func(market.Transaction) bool) int {
		n := 0
		for _, tx := range all {
			if keep(tx) {
				n++
			}
		}
		return n
	}
	for _, st := range []market.State{market.StateCompleted, market.StateFailed, market.StateRolledBack} {
		for _, q := range []market.TxQuery{{State: st}, {State: st, Player: w.bob.ID}, {State: st, Limit: 1, Offset: 1}} {
			page, err := w.svc.Transactions(q)
			must(t, err)
			want := count(func(tx market.Transaction) bool { return tx.State == st })
			if page.Total != want {
				t.Fatalf("%+v: total %d, want %d", q, page.Total, want)
			}
			for _, tx := range page.Transactions {
				if tx.State != st {
					t.Fatalf("%+v: %s is %s", q, tx.ID, tx.State)
				}
			}
			limit := q.Limit
			if limit == 0 {
				limit = market.DefaultPageSize
			}
			if wantLen := min(max(want-q.Offset, 0), limit); len(page.Transactions) != wantLen {
				t.Fatalf("%+v: %d on the page, want %d", q, len(page.Transactions), wantLen)
			}
		}
	}
	one := all[2]
	tail := strings.ToUpper(one.ID[len(one.ID)-8:])
	page, err := w.svc.Transactions(market.TxQuery{AllStates: true, IDPart: tail})
	must(t, err)
	if page.Total != 1 || page.Transactions[0].ID != one.ID {
		t.Fatalf("IDPart %s: %+v", tail, page)
	}
	page, err = w.svc.Transactions(market.TxQuery{IDPart: one.ID})
	must(t, err)
	if one.State != market.StateCompleted && page.Total != 0 {
		t.Fatalf("a %s transaction in the completed list: %+v", one.State, page)
	}
	if _, err := w.svc.Transactions(market.TxQuery{State: "DONE"}); err == nil || !strings.Contains(err.Error(), `"DONE" is not a transaction state`) {
		t.Fatalf("unknown state: %v", err)
	}
}

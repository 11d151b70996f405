package market_test

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/rynek/rynek/internal/traffic"
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

func TestPlayerCompletedPageIsInCompletionOrder(t *testing.T) {
	w := newWorld(t)
	svc, cs, stuck := stuckPurchase(t, w, market.StateCompleted) // A: stuck at ITEM_DELIVERED
	cs.fail = nil
	alice, err := svc.GetPlayer(w.alice.ID) // w.svc is closed; svc is the service now
	must(t, err)
	d := *alice.Inventory[0]
	d.Amount = 1
	l, err := svc.SellItem(w.alice, d, 5)
	must(t, err)
	w.clock.Advance(time.Minute)
	b, err := svc.Buy(w.bob, l.ID) // B completes
	must(t, err)
	w.clock.Advance(time.Minute)
	must(t, svc.Recover()) // A completes now, after B
	global, _ := svc.Transactions(market.TxQuery{})
	bob, _ := svc.Transactions(market.TxQuery{Player: w.bob.ID})
	if len(global.Transactions) != 2 || len(bob.Transactions) != 2 {
		t.Fatalf("pages %d and %d", len(global.Transactions), len(bob.Transactions))
	}
	for i := range global.Transactions {
		if global.Transactions[i].ID != bob.Transactions[i].ID {
			t.Fatalf("global order %s,%s but Bob's %s,%s", global.Transactions[0].ID, global.Transactions[1].ID,
				bob.Transactions[0].ID, bob.Transactions[1].ID)
		}
	}
	if global.Transactions[0].ID != stuck || global.Transactions[1].ID != b.ID {
		t.Fatal("newest completion is not first")
	}
}

func TestTransactionsPages(t *testing.T) {
	w := newWorld(t)
	var ids []string
	for i := 0; i < 3; i++ {
		d := w.stack(w.alice, 0)
		d.Amount = 1
		l, err := w.svc.SellItem(w.alice, d, 5)
		must(t, err)
		if i == 1 {
			must(t, w.svc.ArmFailure(market.StateSellerPaid))
		}
		w.clock.Advance(time.Minute)
		tx, _ := w.svc.Buy(w.bob, l.ID)
		ids = append(ids, tx.ID)
	}
	done, err := w.svc.Transactions(market.TxQuery{})
	must(t, err)
	if done.Total != 2 || done.Transactions[0].ID != ids[2] || done.Transactions[1].ID != ids[0] {
		t.Fatalf("completed page %+v", done)
	}
	all, err := w.svc.Transactions(market.TxQuery{AllStates: true})
	must(t, err)
	if all.Total != 3 || all.Transactions[1].ID != ids[1] || all.Transactions[1].State != market.StateRolledBack {
		t.Fatalf("all page %+v", all)
	}
	bob, err := w.svc.Transactions(market.TxQuery{Player: w.bob.ID, AllStates: true, Offset: 1, Limit: 1})
	must(t, err)
	if bob.Total != 3 || len(bob.Transactions) != 1 || bob.Transactions[0].ID != ids[1] {
		t.Fatalf("bob page %+v", bob)
	}
	admin, err := w.svc.Transactions(market.TxQuery{Player: w.admin.ID})
	must(t, err)
	if admin.Total != 0 {
		t.Fatalf("admin page %+v", admin)
	}
	w.reopen()
	again, _ := w.svc.Transactions(market.TxQuery{Player: w.bob.ID, AllStates: true})
	if again.Total != 3 || again.Transactions[0].ID != ids[2] {
		t.Fatalf("after reopen %+v", again)
	}
}

// TestHistoryPositionsStayPut: paging back through the completed
// transactions by position while new ones complete repeats and skips none.
func TestHistoryPositionsStayPut(t *testing.T) {
	svc := seeded(t, 3_000)
	players, err := svc.Players()
	must(t, err)
	gen := traffic.New(3)
	first, err := svc.Transactions(market.TxQuery{Limit: -1})
	must(t, err)
	q := market.TxQuery{Limit: 50}
	var ids []string
	for {
		p, err := svc.Transactions(q)
		must(t, err)
		for _, tx := range p.Transactions {
			ids = append(ids, tx.ID)
		}
		if p.Next == 0 {
			break
		}
		q.Before = p.Next
		for range 30 {
			gen.One(svc, players)
		}
	}
	// The first page starts at the newest then; every older one follows once.
	want := make([]string, 0, first.Total)
	all, err := svc.Transactions(market.TxQuery{Limit: 1 << 30})
	must(t, err)
	for _, tx := range all.Transactions[all.Total-first.Total:] {
		want = append(want, tx.ID)
	}
	if !slices.Equal(ids, want) {
		t.Fatalf("paged %d transactions, want %d (first difference at %d)", len(ids), len(want), firstDiffS(ids, want))
	}
	if _, err := svc.Transactions(market.TxQuery{Before: all.Total + 1}); err == nil {
		t.Fatal("a position beyond the history was accepted")
	}
	if _, err := svc.Transactions(market.TxQuery{Before: 1, AllStates: true}); err == nil {
		t.Fatal("a position with AllStates was accepted")
	}
}

func firstDiffS(a, b []string) int {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return i
		}
	}
	return min(len(a), len(b))
}

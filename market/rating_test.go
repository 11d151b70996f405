package market_test

import (
	"errors"
	"testing"

	"github.com/rynek/rynek/market"
)

// TestRate: the buyer rates a completed purchase once; the seller's profile
// shows the mean and the count, after a restart too, and a refund takes the
// rating back out.
func TestRate(t *testing.T) {
	w := newWorld(t)
	first := buyOne(t, w)
	second := func() market.Transaction {
		l := w.sell(w.alice, 1, 40)
		tx, err := w.svc.Buy(w.bob, l.ID)
		must(t, err)
		return tx
	}()
	rated, err := w.svc.Rate(w.bob.ID, first.ID, 5)
	must(t, err)
	if rated.Rating != 5 {
		t.Fatalf("rating %d", rated.Rating)
	}
	_, err = w.svc.Rate(w.bob.ID, second.ID, 2)
	must(t, err)
	profile := func(when string, rating float64, ratings int64) {
		t.Helper()
		p, err := w.svc.Profile(w.alice.ID)
		must(t, err)
		if p.Rating != rating || p.Ratings != ratings {
			t.Fatalf("%s: Alice's rating %v of %d, want %v of %d", when, p.Rating, p.Ratings, rating, ratings)
		}
	}
	profile("live", 3.5, 2)
	w.reopen()
	profile("after a restart", 3.5, 2)
	if got, _ := w.svc.GetTransaction(first.ID); got.Rating != 5 {
		t.Fatalf("after a restart the purchase has %d stars", got.Rating)
	}
	_, err = w.svc.Refund(second.ID, w.admin, market.RefundMoneyOnly)
	must(t, err)
	profile("after the 2-star sale was refunded", 5, 1)

	third := func() market.Transaction {
		l := w.sell(w.alice, 0, 10)
		tx, err := w.svc.Buy(w.bob, l.ID)
		must(t, err)
		return tx
	}()
	for _, c := range []struct {
		name  string
		buyer market.Player
		tx    string
		stars int
		code  market.Code
		msg   string
	}{
		{"twice", w.bob, first.ID, 4, market.CodeNotRatable, "Bob rated transaction " + first.ID + " already (5 stars)"},
		{"not the buyer", w.alice, third.ID, 4, market.CodeNotRatable, "Alice did not buy in transaction " + third.ID + ": only its buyer rates it"},
		{"refunded", w.bob, second.ID, 3, market.CodeNotRatable, "transaction " + second.ID + " is ROLLED_BACK; only a COMPLETED purchase can be rated"},
		{"six stars", w.bob, third.ID, 6, market.CodeNotRatable, "a rating is 1 to 5 stars, not 6"},
		{"no stars", w.bob, third.ID, 0, market.CodeNotRatable, "a rating is 1 to 5 stars, not 0"},
		{"no such purchase", w.bob, "nope", 3, market.CodeUnknownTransaction, `transaction "nope" does not exist`},
	} {
		version := w.svc.Version()
		_, err := w.svc.Rate(c.buyer.ID, c.tx, c.stars)
		var me *market.Error
		if !errors.As(err, &me) || me.Code != c.code || me.Msg != c.msg {
			t.Errorf("%s: got %v, want %s %q", c.name, err, c.code, c.msg)
		}
		if w.svc.Version() != version {
			t.Errorf("%s: a refusal changed the log", c.name)
		}
	}
}

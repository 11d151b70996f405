package market

import (
	"strings"

	"github.com/google/uuid"
	"github.com/rynek/rynek/market/playertext"
)

// Rate records the buyer's rating of a COMPLETED purchase: 1 to 5 stars,
// once. A refunded purchase cannot be rated, and a refund takes a rating
// back out of the seller's figures (Profile). The write is conditional on
// the record as this instance knows it, so two servers cannot both rate the
// same purchase.
func (s *Service) Rate(buyer uuid.UUID, txID string, stars int) (Transaction, error) {
	if err := s.mutGuard(); err != nil {
		return Transaction{}, err
	}
	p, err := s.player(buyer)
	if err != nil {
		return Transaction{}, err
	}
	if stars < 1 || stars > 5 {
		return Transaction{}, errf(CodeNotRatable, "a rating is 1 to 5 stars, not %d", stars)
	}
	id, err := uuid.Parse(strings.TrimSpace(txID))
	if err != nil {
		return Transaction{}, errf(CodeUnknownTransaction, "transaction %q does not exist", playertext.Excerpt(txID))
	}
	if err := s.requireHistory(); err != nil {
		return Transaction{}, err
	}
	t := s.txRecord(id)
	switch {
	case t == nil:
		return Transaction{}, errf(CodeUnknownTransaction, "transaction %q does not exist", playertext.Excerpt(txID))
	case t.buyer != p.idx:
		return Transaction{}, errf(CodeNotRatable, "%s did not buy in transaction %s: only its buyer rates it", p.name, id)
	case t.State() != StateCompleted:
		return Transaction{}, errf(CodeNotRatable, "transaction %s is %s; only a COMPLETED purchase can be rated", id, t.State())
	case t.rating != 0:
		return Transaction{}, errf(CodeNotRatable, "%s rated transaction %s already (%d stars)", p.name, id, t.rating)
	}
	was := s.txRow(t, StateCompleted, t.tl, t.errCode, t.toMailbox)
	rated := *t
	rated.rating = uint8(stars)
	row := s.txRow(&rated, StateCompleted, t.tl, t.errCode, t.toMailbox)
	b := &s.batch
	b.Reset()
	b.add(Op{Kind: OpTxState, Tx: row, ExpectState: StateCompleted, Expect: was.Rec})
	b.log(EventRow{Kind: KindTransactionRated, At: s.nowMs(), Body: s.transactionBody(&rated, t.tl, t.errCode, t.toMailbox, nil, nil, uuid.Nil)})
	if err := s.submit(b, func() {
		t.rating = uint8(stars)
	}, func() { s.stats.rated(t) }); err != nil {
		return Transaction{}, err
	}
	return s.txOf(t), nil
}

// requireHistory refuses, while the history loads at start, what needs all
// of it: a change to a finished purchase (a refund, a rating), which the
// load reads off the lock, and a purchase under a cap, which is counted from
// it. The main thread must not wait seconds for the load; the refusal
// changes nothing, once per start: try again.
func (s *Service) requireHistory() error {
	if !s.HistoryLoaded() {
		return errf(CodeBusy, "the market is still loading its history of purchases; try again in a moment")
	}
	return nil
}

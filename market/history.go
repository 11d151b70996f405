package market

import (
	"bytes"

	"github.com/google/uuid"
)

// indexTxPlayers records t in its buyer's and seller's history.
func (s *Service) indexTxPlayers(t *txrec) {
	s.players[t.buyer].txs = append(s.players[t.buyer].txs, t)
	if t.seller != t.buyer {
		s.players[t.seller].txs = append(s.players[t.seller].txs, t)
	}
}

// cmpTxCreated orders transactions by creation time, then id.
func cmpTxCreated(a, b *txrec) int {
	x, y := a.tl[0].at, b.tl[0].at
	switch {
	case x < y:
		return -1
	case x > y:
		return 1
	}
	return bytes.Compare(a.id[:], b.id[:])
}

// TxQuery selects a page of transactions, newest first.
type TxQuery struct {
	AllStates bool      // false: COMPLETED only (the contract's getCompletedTransactions)
	Player    uuid.UUID // uuid.Nil: everyone; otherwise transactions where the player bought or sold
	Offset    int
	Limit     int // 0 = 200
}

// TxPage is one page of transactions.
type TxPage struct {
	Transactions []Transaction
	Total        int
}

// Transactions returns a page of transactions, newest first: completed ones
// by completion time, all states by creation time. Cost is O(page) without a
// player, O(the player's transactions) with one.
func (s *Service) Transactions(q TxQuery) (TxPage, error) {
	if err := s.readGuard(); err != nil {
		return TxPage{}, err
	}
	if q.Limit <= 0 {
		q.Limit = DefaultPageSize
	}
	q.Offset = max(q.Offset, 0)
	s.mu.RLock()
	defer s.mu.RUnlock()
	var src []*txrec
	switch {
	case q.Player != uuid.Nil:
		p := s.playerByID[q.Player]
		if p == nil {
			return TxPage{}, errf(CodeUnknownPlayer, "player %s does not exist", q.Player)
		}
		src = p.txs
		if !q.AllStates {
			var done []*txrec
			for _, t := range src {
				if t.State() == StateCompleted {
					done = append(done, t)
				}
			}
			sortTx(done) // completion order, like the global list
			src = done
		}
	case q.AllStates:
		src = s.allTx
	default:
		src = s.completed
	}
	page := TxPage{Total: len(src)}
	for i := len(src) - 1 - q.Offset; i >= 0 && len(page.Transactions) < q.Limit; i-- {
		page.Transactions = append(page.Transactions, s.txOf(src[i]))
	}
	return page, nil
}

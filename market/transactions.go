package market

import (
	"bytes"
	"encoding/hex"
	"fmt"
	"slices"
	"strings"

	"github.com/google/uuid"
	"github.com/rynek/rynek/market/playertext"
)

// GetCompletedTransactions is the contract's getCompletedTransactions():
// every COMPLETED transaction, oldest first.
func (s *Service) GetCompletedTransactions() ([]Transaction, error) {
	if err := s.readGuard(); err != nil {
		return nil, err
	}
	s.waitHistory()
	s.mu.RLock()
	defer s.mu.RUnlock()
	out := make([]Transaction, len(s.completed))
	for i, t := range s.completed {
		out[i] = s.txOf(t)
	}
	return out, nil
}

// txRecord is the transaction with id, if memory has it. The history's
// background load adds to the map under the write lock, so even the main
// thread reads it under the read lock.
func (s *Service) txRecord(id uuid.UUID) *transactionRecord {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.txByID[id]
}

// GetTransaction is the contract's getTransaction(String), in any state.
func (s *Service) GetTransaction(id string) (Transaction, error) {
	if err := s.readGuard(); err != nil {
		return Transaction{}, err
	}
	u, err := uuid.Parse(strings.TrimSpace(id))
	if err != nil {
		return Transaction{}, errf(CodeUnknownTransaction, "transaction %q does not exist", playertext.Excerpt(id))
	}
	if s.txRecord(u) == nil && !s.HistoryLoaded() {
		s.waitHistory() // it may be a finished transaction not loaded yet
	}
	s.mu.RLock()
	defer s.mu.RUnlock()
	t := s.txByID[u]
	if t == nil {
		return Transaction{}, errf(CodeUnknownTransaction, "transaction %q does not exist", playertext.Excerpt(id))
	}
	return s.txOf(t), nil
}

func (s *Service) txOf(t *transactionRecord) Transaction {
	return publicTransaction(t, s.players[t.buyer].person(), s.players[t.seller].person())
}

// publicTransaction is the public form of t. Live reads and the event log's
// decoder both build transactions here.
func publicTransaction(t *transactionRecord, buyer, seller person) Transaction {
	return Transaction{
		ID: t.id.String(), ListingID: int(t.listing), Buyer: buyer.id, BuyerName: buyer.name,
		Seller: seller.id, SellerName: seller.name, Item: stackOf(t.it), Price: t.price.Float(),
		Fee: t.fee.Float(), SellerNet: t.net.Float(), State: t.State(), ErrorCode: t.errCode,
		Timeline: publicTimeline(t.tl), DeliveredToMailbox: t.toMailbox, Rating: int(t.rating), BuyOrder: int(t.order),
		Pending: t.unsettled > 0,
	}
}

// indexTxPlayers records t in its buyer's and seller's history.
func (s *Service) indexTxPlayers(t *transactionRecord) {
	s.players[t.buyer].txs = append(s.players[t.buyer].txs, t)
	if t.seller != t.buyer {
		s.players[t.seller].txs = append(s.players[t.seller].txs, t)
	}
}

// cmpTxCreated orders transactions by creation time, then id.
func cmpTxCreated(a, b *transactionRecord) int {
	x, y := a.created, b.created
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
	// State, when set, keeps the transactions in that state, out of all
	// states. IDPart keeps those whose id contains it, in any letter case
	// ("2f1c0a9e", the tail the console shows). Either makes a page cost
	// O(the transactions listed before filtering).
	State  State
	IDPart string
	Offset int
	Limit  int // 0 = 200
	// Before continues a page of everyone's completed transactions (not
	// with AllStates, Player, State or IDPart): the page starts below this
	// position of the completion order (TxPage.Next). Positions count from
	// the oldest, and new completions only add positions at the end, so a
	// client paging back through the history never skips or repeats one.
	Before int
}

// TxPage is one page of transactions.
type TxPage struct {
	Transactions []Transaction
	Total        int
	// Next is the Before of the page that follows, for everyone's completed
	// transactions; 0 at the end.
	Next int
	// Version is the market's version the page was read at.
	Version uint64
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
	if q.Before < 0 || (q.Before > 0 && (q.AllStates || q.Player != uuid.Nil || q.State != "" || q.IDPart != "")) {
		return TxPage{}, errf(CodeInvalidQuery, "a position %d is only for everyone's completed transactions", q.Before)
	}
	if q.State != "" {
		q.AllStates = true
	}
	s.waitHistory()
	s.mu.RLock()
	defer s.mu.RUnlock()
	var src []*transactionRecord
	switch {
	case q.Player != uuid.Nil:
		p, err := s.player(q.Player)
		if err != nil {
			return TxPage{}, err
		}
		src = p.txs
		if !q.AllStates {
			var done []*transactionRecord
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
	if q.State != "" || q.IDPart != "" {
		return s.filteredTx(src, q)
	}
	page := TxPage{Total: len(src), Version: s.log.head}
	top := len(src)
	if q.Before > 0 {
		if q.Before > len(src) {
			return TxPage{}, errf(CodeInvalidQuery, "position %d is beyond the %d completed transactions", q.Before, len(src))
		}
		top = q.Before
	}
	i := top - 1 - q.Offset
	for ; i >= 0 && len(page.Transactions) < q.Limit; i-- {
		page.Transactions = append(page.Transactions, s.txOf(src[i]))
	}
	if i >= 0 && !q.AllStates && q.Player == uuid.Nil {
		page.Next = i + 1
	}
	return page, nil
}

// filteredTx is Transactions' page of src with a State or IDPart filter:
// one pass, newest first, counting every match. Called with s.mu held.
func (s *Service) filteredTx(src []*transactionRecord, q TxQuery) (TxPage, error) {
	state := -1
	if q.State != "" {
		state = slices.Index(States(), q.State)
		if state < 0 {
			return TxPage{}, errf(CodeInvalidQuery, "%q is not a transaction state", playertext.Excerpt(string(q.State)))
		}
	}
	part := []byte(strings.ToLower(q.IDPart))
	page := TxPage{Version: s.log.head}
	var id [36]byte
	for i := len(src) - 1; i >= 0; i-- {
		t := src[i]
		if state >= 0 && int(t.state) != state {
			continue
		}
		if len(part) > 0 {
			encodeID(&id, t.id)
			if !bytes.Contains(id[:], part) {
				continue
			}
		}
		if page.Total >= q.Offset && len(page.Transactions) < q.Limit {
			page.Transactions = append(page.Transactions, s.txOf(t))
		}
		page.Total++
	}
	return page, nil
}

// encodeID writes id in its canonical text form (lower-case hex with
// dashes) without allocating.
func encodeID(dst *[36]byte, id uuid.UUID) {
	hex.Encode(dst[0:8], id[0:4])
	dst[8] = '-'
	hex.Encode(dst[9:13], id[4:6])
	dst[13] = '-'
	hex.Encode(dst[14:18], id[6:8])
	dst[18] = '-'
	hex.Encode(dst[19:23], id[8:10])
	dst[23] = '-'
	hex.Encode(dst[24:], id[10:])
}

// txFromRow decodes a stored transaction, at load and when following the
// log (under the lock: the follower may add players).
func (s *Service) txFromRow(row TxRow) (*transactionRecord, error) {
	t, buyer, seller, err := decodeTxRow(row)
	if err != nil {
		return nil, err
	}
	return t, s.resolveTx(t, buyer, seller)
}

// decodeTxRow decodes a stored transaction but for its players, which need
// the lock to look up: the background history load decodes off it.
func decodeTxRow(row TxRow) (t *transactionRecord, buyer, seller uuid.UUID, err error) {
	si := stateIndex(row.State)
	if si < 0 {
		return nil, buyer, seller, fmt.Errorf("transaction %s has unknown state %q", row.ID, row.State)
	}
	t = &transactionRecord{id: row.ID, state: uint8(si)}
	buyer, seller, err = decodeTx(row.Rec, t)
	if err != nil {
		return nil, buyer, seller, fmt.Errorf("transaction %s: %w", row.ID, err)
	}
	return t, buyer, seller, nil
}

// resolveTx gives t its buyer and seller (under the lock).
func (s *Service) resolveTx(t *transactionRecord, buyer, seller uuid.UUID) error {
	b, sl := s.playerByID[buyer], s.playerByID[seller]
	if b == nil || sl == nil {
		return fmt.Errorf("transaction %s refers to an unknown player", t.id)
	}
	t.buyer, t.seller = b.idx, sl.idx
	return nil
}

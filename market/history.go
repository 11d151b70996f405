package market

import (
	"bytes"
	"encoding/hex"
	"fmt"
	"slices"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/google/uuid"
)

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
		p := s.playerByID[q.Player]
		if p == nil {
			return TxPage{}, errf(CodeUnknownPlayer, "player %s does not exist", q.Player)
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
			return TxPage{}, errf(CodeInvalidQuery, "%q is not a transaction state", truncateForMsg(string(q.State)))
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

// historyChunk is how many finished transactions one background read takes:
// a few tens of milliseconds of store time, so commits are never held up
// for long.
const historyChunk = 20_000

// history is the background load of finished transactions. A market opens
// (becomes ready) with its listings and unfinished transactions; the history
// follows on its own goroutine, so a store with a million transactions is
// ready in the time its listings take. Reads that need the history wait for
// it (waitHistory); the lifetime volume and sales are persisted counters,
// exact from the start.
type history struct {
	done    chan struct{} // closed when every finished transaction is in memory
	stop    chan struct{}
	wg      sync.WaitGroup
	started atomic.Bool // written by the main thread, read by WaitHistory anywhere
	err     error
	// fresh holds the ids of the purchases this process is committing,
	// under the write lock, from before their commit until they are in
	// memory: the background load may read such a row from the store in
	// between (a purchase that meets no failure is inserted finished) and
	// must leave it to the main thread, or it would be counted twice.
	fresh map[uuid.UUID]bool
	// counting is set, under the write lock, while the load sorts and
	// counts its copy of the history off the lock: it reads the finished
	// purchases then, so nothing may write them. This server refuses its
	// own refunds and ratings until the load is done (requireHistory);
	// another server's, which the follower must take, wait in deferred and
	// the load applies them under the lock when it has counted.
	counting bool
	deferred []finishedEdit
}

// finishedEdit is another server's change to a finished purchase (a
// refund, a rating) that waits for the history load to count: was is the
// record in memory, now what the log says it became.
type finishedEdit struct {
	was, now *transactionRecord
}

// HistoryLoaded reports whether every finished transaction is in memory;
// until then, reads of transaction history wait.
func (s *Service) HistoryLoaded() bool {
	select {
	case <-s.hist.done:
		return true
	default:
		return false
	}
}

// WaitHistory blocks until the history is loaded (or the load stopped):
// for embedders and tests that need every transaction in memory. Before the
// first Enable there is no load to wait for, and it returns the not-ready
// error at once; a failed load is reported by HistoryErr.
func (s *Service) WaitHistory() error {
	if !s.hist.started.Load() && !s.HistoryLoaded() {
		return s.notReady()
	}
	s.waitHistory()
	return nil
}

// waitHistory blocks until the history is loaded (or loading stopped).
func (s *Service) waitHistory() {
	select {
	case <-s.hist.done:
	case <-s.hist.stop:
	}
}

// startHistory starts the background load, once.
func (s *Service) startHistory() {
	if s.hist.started.Load() || s.HistoryLoaded() {
		return
	}
	s.hist.started.Store(true)
	s.hist.wg.Add(1)
	go func() {
		defer s.hist.wg.Done()
		s.loadHistory()
	}()
}

// stopHistory stops the background load and waits for it.
func (s *Service) stopHistory() {
	if !s.hist.started.Load() {
		return
	}
	select {
	case <-s.hist.stop:
	default:
		close(s.hist.stop)
	}
	s.hist.wg.Wait()
}

func (s *Service) loadHistory() {
	var after [16]byte
	for {
		select {
		case <-s.hist.stop:
			return
		default:
		}
		var batch []*transactionRecord
		n, err := s.store.LoadHistory(after, historyChunk, func(row TxRow) error {
			after = row.ID
			s.mu.RLock() // the follower may be adding players
			t, err := s.txFromRow(row)
			s.mu.RUnlock()
			if err != nil {
				return err
			}
			batch = append(batch, t)
			return nil
		})
		if err != nil {
			s.mu.Lock()
			s.hist.err = fmt.Errorf("load history: %w", err)
			s.mu.Unlock()
			close(s.hist.done) // readers must not wait forever; HistoryErr says why
			return
		}
		s.mu.Lock()
		for _, t := range batch {
			if s.txByID[t.id] != nil || s.hist.fresh[t.id] {
				continue // finished by this process after the market opened: here, or about to be
			}
			s.txByID[t.id] = t
			s.allTx = append(s.allTx, t)
			s.indexTxPlayers(t)
			if t.State() == StateCompleted {
				s.completed = append(s.completed, t)
			}
		}
		s.mu.Unlock()
		if n < historyChunk {
			break
		}
	}
	// Sort the history and rebuild the derived figures (top lists, price
	// history) from all of it. On a million transactions that is a fraction
	// of a second, too long to hold the main thread up: the work is done on
	// copies, off the lock, and what the main thread added meanwhile (only
	// ever appended) is put after them under the lock.
	s.mu.Lock()
	all := slices.Clone(s.allTx)
	perPlayer := make([][]*transactionRecord, len(s.players))
	for i, p := range s.players {
		perPlayer[i] = slices.Clone(p.txs)
	}
	done := slices.Clone(s.completed)
	s.hist.counting = true
	s.mu.Unlock()
	if s.whileCountingHistory != nil {
		s.whileCountingHistory()
	}
	slices.SortFunc(all, cmpTxCreated)
	for _, txs := range perPlayer {
		slices.SortFunc(txs, cmpTxCreated)
	}
	figures := newStats()
	sortTx(done)
	for _, t := range done {
		figures.record(s, t) // a finished transaction no longer changes
	}
	s.mu.Lock()
	s.allTx = append(all, s.allTx[len(all):]...)
	for i, txs := range perPlayer {
		p := s.players[i]
		p.txs = append(txs, p.txs[len(txs):]...)
	}
	s.hist.counting = false
	if len(s.hist.deferred) == 0 {
		// Only appended meanwhile: the new ones follow the sorted copy.
		for _, t := range s.completed[len(done):] {
			figures.record(s, t)
		}
		s.completed = append(done, s.completed[len(done):]...)
	} else {
		// Another server refunded or rated a purchase while the copy
		// was counted: the rare case pays for a count under the lock
		// rather than keep a wrong one.
		for _, e := range s.hist.deferred {
			s.editFinishedLocked(e.was, e.now)
		}
		s.hist.deferred = nil
		sortTx(s.completed)
		figures = newStats()
		for _, t := range s.completed {
			figures.record(s, t)
		}
	}
	s.stats = figures
	// The contract's counters belong to the main thread and are only
	// compared: the persisted ones stay authoritative.
	if s.stats.volume != s.volume || s.stats.sales != s.sales {
		s.hist.err = fmt.Errorf("history holds %d sales worth %s, the counters say %d worth %s",
			s.stats.sales, FormatMoney(s.stats.volume), s.sales, FormatMoney(s.volume))
	}
	s.mu.Unlock()
	close(s.hist.done)
}

// HistoryErr reports a failure of the background history load, if any.
func (s *Service) HistoryErr() error {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.hist.err
}

// txFromRow decodes a stored transaction, at load, in the background
// history load (under the read lock: the follower may add players) and when
// following the log.
func (s *Service) txFromRow(row TxRow) (*transactionRecord, error) {
	si := stateIndex(row.State)
	if si < 0 {
		return nil, fmt.Errorf("transaction %s has unknown state %q", row.ID, row.State)
	}
	t := &transactionRecord{id: row.ID, state: uint8(si)}
	buyer, seller, err := decodeTx(row.Rec, t)
	if err != nil {
		return nil, fmt.Errorf("transaction %s: %w", row.ID, err)
	}
	b, sl := s.playerByID[buyer], s.playerByID[seller]
	if b == nil || sl == nil {
		return nil, fmt.Errorf("transaction %s refers to an unknown player", row.ID)
	}
	t.buyer, t.seller = b.idx, sl.idx
	return t, nil
}

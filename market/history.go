package market

import (
	"fmt"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/google/uuid"
)

// historyChunk is how many finished transactions one background read takes:
// a few tens of milliseconds of store time, so commits are never held up
// for long.
const historyChunk = 20_000

// historyInsert is how many of a chunk's transactions go into memory under
// one taking of the write lock, at most: on a million transactions 20,000
// at once held it a median 5.8 ms, 1,000 a median 0.25 ms. A stretch ends
// sooner when the main thread asks for the lock.
const historyInsert = 256

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
	// counting is set, under the write lock, while the load sorts and
	// counts its copy of the history off the lock: it reads the finished
	// purchases then, so nothing may write them. This server refuses its
	// own refunds and ratings until the load is done (requireHistory);
	// another server's, which the follower must take, wait in deferred and
	// the load applies them under the lock when it has counted.
	counting bool
	deferred []finishedEdit
	// forgotten holds the purchases whose batch the store refused while
	// the load counted: the load's copies hold them, so it takes them out
	// when it puts its copies back (forgetTxLocked).
	forgotten []*transactionRecord
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

// loadedTx is a finished transaction read by the background load, with
// the ids of its players, not yet looked up.
type loadedTx struct {
	t             *transactionRecord
	buyer, seller uuid.UUID
}

// insertHistory puts a batch of the background load into memory, under
// the write lock taken for historyInsert transactions at a time.
func (s *Service) insertHistory(batch []loadedTx) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	for i, l := range batch {
		if i > 0 && (i%historyInsert == 0 || s.mu.writerWaits()) {
			s.mu.pass() // the main thread and the readers between two stretches
		}
		t := l.t
		if s.txByID[t.id] != nil {
			// Made by this process after the market opened: memory
			// has a purchase before its commit (submit).
			continue
		}
		if err := s.resolveTx(t, l.buyer, l.seller); err != nil {
			return err
		}
		s.txByID[t.id] = t
		s.allTx = append(s.allTx, t)
		s.indexTxPlayers(t)
		if t.State() == StateCompleted {
			s.completed = append(s.completed, t)
		}
	}
	return nil
}

func (s *Service) loadHistory() {
	var lowerCollector func() // raised once the history proves large
	defer func() {
		if lowerCollector != nil {
			lowerCollector()
		}
	}()
	var after [16]byte
	for {
		select {
		case <-s.hist.stop:
			return
		default:
		}
		// Decoded off the lock; the players, which the follower may be
		// adding, are looked up under it as the batch goes in. A reader
		// taking the lock for each row held the main thread up to 16 ms
		// when the scheduler stopped it holding the lock.
		var batch []loadedTx
		n, err := s.store.LoadHistory(after, historyChunk, func(row TxRow) error {
			after = row.ID
			t, buyer, seller, err := decodeTxRow(row)
			if err != nil {
				return err
			}
			batch = append(batch, loadedTx{t, buyer, seller})
			return nil
		})
		if err == nil {
			err = s.insertHistory(batch)
		}
		if err != nil {
			s.mu.Lock()
			s.hist.err = fmt.Errorf("load history: %w", err)
			s.mu.Unlock()
			close(s.hist.done) // readers must not wait forever; HistoryErr says why
			return
		}
		if n < historyChunk {
			break
		}
		if lowerCollector == nil {
			lowerCollector = raiseCollectorGrowth()
		}
	}
	// Sort the history and rebuild the derived figures (top lists, price
	// history) from all of it. On a million transactions that is a fraction
	// of a second, too long to hold the main thread up: the work is done on
	// copies, off the lock, and what the main thread added meanwhile (only
	// ever appended) is put after them under the lock.
	//
	// The copies are made off the lock too. While the load counts, the
	// main thread only appends to these lists (a refused purchase is
	// forgotten and an edit of a finished one deferred until the count
	// ends), so the stretch each list had when counting began stays as it
	// is: the lock is held to start counting and take the lists' ends,
	// not to copy them. Copying under it held the main thread 8-92 ms on
	// a million transactions (each pointer copied while the garbage
	// collector marks is shaded).
	s.mu.RLock()
	nPlayers := len(s.players)
	s.mu.RUnlock()
	// By player, not by index: a player the main thread adds meanwhile
	// may be undone (its commit refused) before the copies go back.
	perPlayer := make(map[*playerRecord][]*transactionRecord, nPlayers+nPlayers/8+64)
	s.mu.Lock()
	s.hist.counting = true
	all, done := s.allTx[:len(s.allTx):len(s.allTx)], s.completed[:len(s.completed):len(s.completed)]
	for _, p := range s.players {
		perPlayer[p] = p.txs[:len(p.txs):len(p.txs)]
	}
	s.mu.Unlock()
	// With room for what comes meanwhile, so that putting the copies
	// back under the lock does not copy them again.
	room := func(l []*transactionRecord) []*transactionRecord {
		return append(make([]*transactionRecord, 0, len(l)+len(l)/8+1024), l...)
	}
	all, done = room(all), room(done)
	for p, txs := range perPlayer {
		perPlayer[p] = slices.Clone(txs)
	}
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
	for p, txs := range perPlayer {
		if s.playerByID[p.id] == p {
			p.txs = append(txs, p.txs[len(txs):]...)
		}
	}
	s.hist.counting = false
	for _, t := range s.hist.forgotten {
		s.forgetTxLocked(t)
	}
	s.hist.forgotten = nil
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

package market

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/google/uuid"
	"github.com/rynek/rynek/market/internal/item"
	"github.com/rynek/rynek/market/internal/record"
)

// Following the log: several instances on one SharedStore.
//
// Each instance writes its own changes as before (one commit, rows and log
// entries) and follows everybody's entries in seq order: a goroutine reads
// the log after the newest entry it has seen, reads again the rows that the
// other instances' entries name (one snapshot, which includes at least those
// entries), and hands both to the main thread, which installs the rows and
// appends the entries to the service's log. Entries reach memory's log and
// the listeners in seq order on every instance, the instance's own included:
// an own commit that lands after entries not yet read waits for them.
//
// A row read in a snapshot is older than this instance's own commit of it
// when the commit's seq is above the snapshot's newest seq; such a row is
// not installed (memory already has the newer one). A player row read is
// also installed only when its version is not below memory's.
//
// Memory thus converges on the store row by row rather than replaying each
// entry's change; what every instance sees in the same order is the log,
// and through it the listeners' events.

// followChunk is how many log entries the follower reads at a time.
const followChunk = 1000

// catchUpWait bounds how long a mutation that met a conflict waits for the
// follower to bring memory up to the store.
const catchUpWait = 2 * time.Second

// rowKey names a row of memory for the follower's bookkeeping: a player
// (with its mailbox), a listing, a transaction, or the counters.
type rowKey struct {
	kind byte // 'p', 'l', 't', 'c', 'i'
	id   uuid.UUID
	n    int64
}

var (
	countersKey = rowKey{kind: 'c'}
	issuanceKey = rowKey{kind: 'i'}
)

// follower is the service's side of following a SharedStore.
type follower struct {
	store SharedStore
	out   chan followed
	bell  chan struct{} // rung after each send on out (Followed)
	kick  chan struct{}
	// stale names the players whose rows the main thread wants read again
	// (refresh), with or without new entries.
	staleMu sync.Mutex
	stale   []uuid.UUID
	// wanted counts the catch-up requests of the main thread; the goroutine
	// answers one once it has read the whole log after it was made.
	wanted atomic.Uint64
	stop   context.CancelFunc
	done   chan struct{}
	// landed are commits of this instance that it was told failed but the
	// store saved (probe.go): their entries are read again, and their rows
	// as if another instance had written them.
	landedMu sync.Mutex
	landed   []Landed

	// The main thread's: the rows its own commits changed, with the seq
	// of the newest entry of each commit, until a snapshot is newer.
	own      map[rowKey]uint64
	answered uint64
	// adopted is the end of the newest landed commit (probe.go) whose
	// entries and rows the main thread has applied; the probe waits for it.
	adopted  atomic.Uint64
	err      error     // the last batch's failure, until a batch succeeds
	tookOver time.Time // when takeOver last ran
}

// followed is what the goroutine hands to the main thread: entries in seq
// order (the instance's own included, which the log then skips) and the rows
// the others' entries changed.
type followed struct {
	entries []EventRow
	rows    *rowSet // nil: no entry of another instance
	answers uint64  // the catch-up requests this answers
	adopts  uint64  // the end of the newest landed commit it holds whole
	err     error
	began   time.Time // when its reads began (the wall clock)
}

// startFollowing starts the goroutine after the newest entry memory holds,
// when the store is shared.
func (s *Service) startFollowing() {
	shared, ok := s.store.(SharedStore)
	if !ok || s.follow != nil {
		return
	}
	ctx, cancel := context.WithCancel(context.Background())
	f := &follower{store: shared, out: make(chan followed, 4), bell: make(chan struct{}, 1), kick: make(chan struct{}, 1), stop: cancel,
		done: make(chan struct{}), own: map[rowKey]uint64{}}
	s.follow = f
	go s.followLog(ctx, f, s.loadedMeta.LastSeq)
}

// refresh asks the goroutine to read the players' rows again in its next
// cycle, and wakes it. Any goroutine.
func (f *follower) refresh(ids ...uuid.UUID) {
	if len(ids) == 0 {
		return
	}
	f.staleMu.Lock()
	f.stale = append(f.stale, ids...)
	f.staleMu.Unlock()
	select {
	case f.kick <- struct{}{}:
	default:
	}
}

// takeStale returns and forgets what refresh asked for.
func (f *follower) takeStale() []uuid.UUID {
	f.staleMu.Lock()
	defer f.staleMu.Unlock()
	ids := f.stale
	f.stale = nil
	return ids
}

// stopFollowing stops the goroutine and waits for it.
func (s *Service) stopFollowing() {
	if f := s.follow; f != nil {
		f.stop()
		<-f.done
		s.follow = nil
	}
}

// followLog is the follower's goroutine.
func (s *Service) followLog(ctx context.Context, f *follower, fetched uint64) {
	defer close(f.done)
	self := f.store.Instance()
	sent := uint64(0) // the newest catch-up request answered
	failing := false  // the last cycle failed: say when reading works again
	for ctx.Err() == nil {
		want := f.wanted.Load()
		landed := f.takeLanded()
		for _, l := range landed {
			fetched = min(fetched, l.After) // read its entries (again)
		}
		var entries []EventRow
		began := time.Now()
		_, err := f.store.ReadEvents(fetched, followChunk, func(e EventRow) error {
			e.Body = slices.Clone(e.Body)
			entries = append(entries, e)
			return nil
		})
		batch := followed{entries: entries, err: err, began: began}
		if err == nil {
			var q RowQuery
			stale := f.takeStale()
			if q, err = s.touched(entries, self, landed); err == nil {
				for _, id := range stale {
					if !slices.Contains(q.Players, id) {
						q.Players = append(q.Players, id)
					}
				}
			}
			if err == nil && !q.empty() {
				batch.rows = &rowSet{q: q}
				err = f.store.ReadRows(q, batch.rows)
			}
			if err != nil {
				f.refresh(stale...) // for the next cycle
			}
			batch.err = err
		}
		batch.adopts = f.readAgain(landed, batch)
		if batch.err != nil {
			batch.entries, batch.rows = nil, nil
		}
		caughtUp := batch.err == nil && len(entries) < followChunk
		if caughtUp {
			batch.answers = want
		}
		if batch.err != nil || failing || len(batch.entries) > 0 || batch.rows != nil || batch.answers > sent {
			select {
			case f.out <- batch:
			case <-ctx.Done():
				return
			}
			select {
			case f.bell <- struct{}{}:
			default: // rung already
			}
			sent = max(sent, batch.answers)
		}
		failing = batch.err != nil
		if batch.err == nil && len(entries) > 0 {
			fetched = entries[len(entries)-1].Seq
		}
		if !caughtUp && batch.err == nil {
			continue
		}
		// Wait for a notification, the poll interval, or a catch-up
		// request (which a failed read waits out too, to retry gently).
		wait, cancel := context.WithCancel(ctx)
		go func() {
			select {
			case <-f.kick:
				if batch.err == nil {
					cancel()
				}
			case <-wait.Done():
			}
		}()
		f.store.WaitEvents(wait)
		cancel()
		s.peers.refresh(f.store)
	}
}

func (q RowQuery) empty() bool {
	return len(q.Players) == 0 && len(q.Listings) == 0 && len(q.Transactions) == 0 && len(q.Orders) == 0
}

// touched names the rows that the entries of other instances changed, and
// those of this instance's commits that landed though it was told they
// failed (follower.adopt).
func (s *Service) touched(entries []EventRow, self string, landed []Landed) (RowQuery, error) {
	var q RowQuery
	players, listings, txs, orders := map[uuid.UUID]bool{}, map[int64]bool{}, map[uuid.UUID]bool{}, map[int64]bool{}
	player := func(id uuid.UUID) {
		if id != uuid.Nil && !players[id] {
			players[id] = true
			q.Players = append(q.Players, id)
		}
	}
	listing := func(id int64) {
		if id > 0 && !listings[id] {
			listings[id] = true
			q.Listings = append(q.Listings, id)
		}
	}
	order := func(id uint32, buyer uuid.UUID) {
		if !orders[int64(id)] {
			orders[int64(id)] = true
			q.Orders = append(q.Orders, int64(id))
		}
		player(buyer) // whose money went into the escrow or came back
	}
	own := func(e EventRow) bool {
		if e.Origin != self {
			return false
		}
		for _, l := range landed {
			if e.Seq > l.After && e.Seq <= l.After+uint64(l.Entries) {
				return false
			}
		}
		return true
	}
	for _, e := range entries {
		if own(e) {
			continue
		}
		if len(e.Body) < 1 || e.Body[0] != record.EntryVersion {
			return q, fmt.Errorf("log entry %d (%s) from %s: unknown body version", e.Seq, e.Kind, e.Origin)
		}
		switch e.Kind {
		case KindListingCreated, KindListingRemoved:
			ev, err := decodeEvent(e)
			if err != nil {
				return q, err
			}
			var l Listing
			switch ev := ev.(type) {
			case ListingCreatedEvent:
				l = ev.listing
			case ListingRemovedEvent:
				l = ev.listing
			}
			listing(int64(l.ID))
			player(l.Seller)
			if a := l.Auction; a != nil {
				player(a.Leader) // an auction taken down: the leader's bid went back
			}
		case KindBidPlaced:
			x, err := record.DecodeBidPlaced(e.Body)
			if err != nil {
				return q, fmt.Errorf("log entry %d (%s) from %s: %w", e.Seq, e.Kind, e.Origin, err)
			}
			listing(int64(x.Listing.ID))
			player(x.Listing.Auction.Leader) // the bidder, whose money went into the escrow
			player(x.Previous)               // the leader outbid, whose came back
		case KindAuctionEnded:
			x, err := record.DecodeAuctionEnded(e.Body)
			if err != nil {
				return q, fmt.Errorf("log entry %d (%s) from %s: %w", e.Seq, e.Kind, e.Origin, err)
			}
			listing(int64(x.ID))
			s.mu.RLock() // the seller, whose mailbox got an unsold stack
			if l := s.listings.Get(x.ID); l != nil {
				player(s.players[l.seller].id)
			}
			s.mu.RUnlock()
		case KindTransactionCompleted, KindTransactionStep, KindTransactionRated:
			x, err := record.DecodeTransactionEntry(e.Body)
			if err != nil {
				return q, fmt.Errorf("log entry %d (%s) from %s: %w", e.Seq, e.Kind, e.Origin, err)
			}
			t := storedTransaction(&x)
			id, err := uuid.Parse(t.ID)
			if err != nil {
				return q, fmt.Errorf("log entry %d: transaction id: %w", e.Seq, err)
			}
			if !txs[id] {
				txs[id] = true
				q.Transactions = append(q.Transactions, id)
			}
			listing(int64(t.ListingID))
			player(t.Buyer)
			player(t.Seller)
			player(x.Refunded) // a buy-now's reservation gave the leader their bid back
		case KindListingExpired:
			x, err := record.DecodeListingExpired(e.Body)
			if err != nil {
				return q, fmt.Errorf("log entry %d (%s) from %s: %w", e.Seq, e.Kind, e.Origin, err)
			}
			id := int64(x.ID)
			listing(id)
			s.mu.RLock() // the seller, whose mailbox got the item
			if l := s.listings.Get(uint32(id)); l != nil {
				player(s.players[l.seller].id)
			}
			s.mu.RUnlock()
		case KindOrderPlaced, KindOrderFilled, KindOrderClosed:
			o, err := orderOfEntry(e)
			if err != nil {
				return q, fmt.Errorf("log entry %d (%s) from %s: %w", e.Seq, e.Kind, e.Origin, err)
			}
			order(o.ID, o.Buyer)
		case KindMailClaimed, KindPlayerAdded, KindPlayerChanged, KindIssued, KindPlayerData:
			id, err := record.DecodeEntryPlayer(e.Body)
			if err != nil {
				return q, fmt.Errorf("log entry %d (%s) from %s: %w", e.Seq, e.Kind, e.Origin, err)
			}
			player(id)
		}
	}
	return q, nil
}

// Follow applies what the other instances of a shared market committed
// since the last call: their rows into memory, their entries into the log
// (and so their events to this instance's listeners), in seq order. It never
// waits for the network. Main thread only; the console and the headless
// loop call it every tick. It reports how many entries it applied, and the
// follower's last failure (the store unreachable, say: the follower goes on
// trying, and a later call that applies entries again returns no error).
// Without a shared store it does nothing.
func (s *Service) Follow() (applied int, err error) {
	if !s.onMain() {
		return 0, ErrNotMainThread
	}
	f := s.follow
	if f == nil {
		return 0, nil
	}
	if len(s.inflight) > 0 {
		// Another server's rows must not land on rows this one changed
		// and has not committed yet: they come once the outcomes are in.
		return 0, f.err
	}
	for {
		select {
		case b := <-f.out:
			f.err = s.applyFollowed(b)
			if f.err == nil {
				applied += len(b.entries)
			} else if errors.Is(f.err, ErrUnreachable) && s.health.reachedBefore(b.began) {
				// The server is away for the writer too: refuse changes
				// at once rather than let the next one find out. (A read
				// that began before the probe last reached it says
				// nothing new.)
				s.lostStore(s.now(), b.err)
			}
		default:
			if f.err == nil && time.Since(f.tookOver) >= takeOverEvery && s.hasDuty() {
				f.tookOver = time.Now()
				s.takeOver()
			}
			return applied, f.err
		}
	}
}

// Followed receives when the follower has read something for Follow, so
// that a main loop can call Follow at once instead of at its next tick (a
// console's tick is 100 ms). It is nil, which never receives, when the store
// is not shared or the service is not enabled yet.
func (s *Service) Followed() <-chan struct{} {
	if s.follow == nil {
		return nil
	}
	return s.follow.bell
}

// catchUp waits, after a conflict, until the follower has brought memory up
// to everything committed before it: the caller's retry then sees what the
// other instance did.
func (s *Service) catchUp() {
	f := s.follow
	if f == nil {
		return
	}
	want := f.wanted.Add(1)
	select {
	case f.kick <- struct{}{}:
	default:
	}
	if s.committer != nil {
		return // the main thread waits for nothing: Follow applies it at the next tick
	}
	deadline := time.After(catchUpWait)
	for f.answered < want {
		select {
		case b := <-f.out:
			s.applyFollowed(b)
		case <-deadline:
			return
		}
	}
}

func (s *Service) applyFollowed(b followed) error {
	f := s.follow
	if b.err != nil {
		return &Error{Code: CodeStore, Msg: "the changes of the other instances could not be read", Err: b.err}
	}
	f.answered = max(f.answered, b.answers)
	if len(b.entries) == 0 && b.rows == nil {
		f.markAdopted(b.adopts)
		return nil
	}
	s.mu.Lock()
	if b.rows != nil {
		if err := s.installLocked(b.rows); err != nil {
			s.mu.Unlock()
			return &Error{Code: CodeStore, Msg: "a change of another instance could not be read", Err: err}
		}
	}
	s.log.committed = append(s.log.committed, b.entries...)
	s.appendLogLocked()
	s.mu.Unlock()
	f.markAdopted(b.adopts)
	s.deliver()
	return nil
}

// markAdopted records that memory holds the landed commits through seq
// (main thread; the probe reads it).
func (f *follower) markAdopted(seq uint64) {
	if seq > f.adopted.Load() {
		f.adopted.Store(seq)
	}
}

// idTaken moves the next listing id past id when id is of this instance's
// own block: a listing or an order of a commit that landed though the
// instance was told it failed (adopt), whose id memory would hand out again.
// Main thread.
func (s *Service) idTaken(id int64) {
	if id >= s.nextID && id < s.idCeil {
		s.nextID = id + 1
	}
}

// ownCommit records the rows a committed batch of this instance changed.
func (f *follower) ownCommit(b *Batch, seq uint64) {
	for i := range b.Ops {
		op := &b.Ops[i]
		var k rowKey
		switch op.Kind {
		case OpAddPlayer, OpPlayerState, OpPlayerProfile:
			k = rowKey{kind: 'p', id: op.Player.ID}
		case OpPutMail:
			k = rowKey{kind: 'p', id: op.Mail.Player}
		case OpDelMail:
			continue // the claim's or compensation's player op names the player
		case OpAddListing, OpListingState:
			k = rowKey{kind: 'l', n: op.Listing.ID}
		case OpDelListing:
			k = rowKey{kind: 'l', n: op.Int}
		case OpPutTx, OpTxState:
			k = rowKey{kind: 't', id: op.Tx.ID}
		case OpAddOrder, OpOrderState:
			k = rowKey{kind: 'o', n: op.Order.ID}
		case OpCounters:
			k = countersKey
		case OpIssuance:
			k = issuanceKey
		default:
			continue
		}
		f.own[k] = seq
	}
}

// installLocked puts rows read from the store into memory, except those this
// instance changed after the snapshot was taken.
func (s *Service) installLocked(rs *rowSet) error {
	f := s.follow
	readAt := rs.meta.LastSeq
	current := func(k rowKey) bool { return f.own[k] <= readAt }
	if current(countersKey) {
		s.feeBalance, s.volume, s.sales = rs.meta.FeeBalance, rs.meta.Volume, rs.meta.Sales
	}
	if current(issuanceKey) {
		s.issuance = rs.meta.Issuance
	}
	mailOf := map[uuid.UUID][]mailEntry{}
	for _, m := range rs.mail {
		it, err := item.Decode(m.Item)
		if err != nil {
			return fmt.Errorf("mail %s: %w", m.ID, err)
		}
		mailOf[m.Player] = append(mailOf[m.Player], mailEntry{id: m.ID, it: it, reason: m.Reason, created: m.Created, prev: m.PrevPrice})
	}
	for i, row := range rs.players {
		if !current(rowKey{kind: 'p', id: row.ID}) {
			continue
		}
		d := rs.decoded[i]
		inv, err := d.inv, d.invErr
		if err != nil {
			return fmt.Errorf("inventory of player %s: %w", row.ID, err)
		}
		p := s.playerByID[row.ID]
		if p == nil {
			p = &playerRecord{idx: int32(len(s.players)), id: row.ID, name: row.Name, perms: splitPerms(row.Perms), version: -1}
			s.players = append(s.players, p)
			s.playerByID[p.id] = p
		}
		if row.Version >= p.version {
			p.balance, p.lastSell, p.inv, p.stored, p.version = row.Balance, row.LastSell, inv, storedBlob(row.Inventory), row.Version
			p.mail = mailOf[row.ID]
			if perms := splitPerms(row.Perms); row.Name != p.name || !slices.Equal(perms, p.perms) {
				s.setProfileLocked(p, row.Name, perms)
			}
			if !bytes.Equal(row.Extra, p.storedExtra.bytes()) {
				x, err := d.extra, d.extraErr
				if err != nil {
					return fmt.Errorf("market data of player %s: %w", row.ID, err)
				}
				s.setExtraLocked(p, x, storedBlob(row.Extra))
			}
		}
	}
	found := map[int64]bool{}
	for _, row := range rs.listings {
		found[row.ID] = true
		if !current(rowKey{kind: 'l', n: row.ID}) {
			continue
		}
		var rec listingRecord
		seller, err := decodeListing(row.Rec, &rec)
		if err != nil {
			return fmt.Errorf("listing #%d: %w", row.ID, err)
		}
		if r := s.listings.Get(uint32(row.ID)); r != nil {
			// A listing's record changes by its reservation and, for an
			// auction, by bids: the leading bid and perhaps the end, which
			// the search index keys.
			rec.id, rec.seller = r.id, r.seller
			s.replaceListingLocked(r, &rec)
			continue
		}
		p := s.playerByID[seller]
		if p == nil {
			return fmt.Errorf("listing #%d of unknown player %s", row.ID, seller)
		}
		r := &rec
		r.id, r.seller = uint32(row.ID), p.idx
		s.addListingLocked(r)
		s.idTaken(row.ID)
	}
	for _, id := range rs.q.Listings {
		if !found[id] && current(rowKey{kind: 'l', n: id}) {
			if r := s.listings.Get(uint32(id)); r != nil {
				s.removeListingLocked(r)
			}
		}
	}
	for _, row := range rs.orders {
		if current(rowKey{kind: 'o', n: row.ID}) {
			if err := s.loadOrderLocked(row); err != nil {
				return err
			}
			s.idTaken(row.ID)
		}
	}
	for _, row := range rs.txs {
		if !current(rowKey{kind: 't', id: row.ID}) {
			continue
		}
		t, err := s.txFromRow(row)
		if err != nil {
			return err
		}
		was := s.txByID[row.ID]
		switch {
		case was == nil:
			s.txByID[t.id] = t
			s.allTx = append(s.allTx, t)
			s.indexTxPlayers(t)
			if !t.State().Terminal() {
				s.mayBeOpen = append(s.mayBeOpen, t)
			}
		case was.State() == StateCompleted:
			// A refund or a rating made elsewhere.
			if s.hist.counting {
				s.hist.deferred = append(s.hist.deferred, finishedEdit{was: was, now: t})
			} else {
				s.editFinishedLocked(was, t)
			}
			continue
		default:
			was.takeState(t)
			t = was
		}
		if t.State() == StateCompleted {
			s.completed = append(s.completed, t)
			s.stats.record(s, t)
		}
	}
	for k, seq := range f.own {
		if seq <= readAt {
			delete(f.own, k)
		}
	}
	return nil
}

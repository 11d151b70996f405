package market

import (
	"sync"
	"sync/atomic"
	"time"

	"github.com/google/uuid"
	"github.com/rynek/rynek/market/catalog"
	"github.com/rynek/rynek/market/internal/search"
)

// Service is the marketplace. Create it with New, bind the main thread with
// BindMainThread, then Enable it.
//
// Concurrency: one goroutine, the main thread, performs every mutation; it
// reads the in-memory state without locking (no one else writes it) and takes
// mu for writing only while it applies a change that is already durable.
// Reads from other goroutines take mu for reading and return copies.
type Service struct {
	cfg   Config
	store Store
	bus   bus

	ready  atomic.Bool
	loaded bool
	mainT  atomic.Int64 // the main thread (thread_linux.go / thread_other.go); 0 = none
	bindMu sync.Mutex   // serializes BindMainThread and ReleaseMainThread

	mu serviceLock // guards everything below against concurrent readers (lock.go)

	// volume and sales are the contract's lifetime counters (persisted in
	// meta). Only the main thread writes them, like the rest of the state;
	// the background history load leaves them alone.
	volume Money
	sales  int64

	nextID     int64 // the next listing id to hand out
	idCeil     int64 // ids below this may have been handed out (persisted)
	nextBlock  int64 // the first id of a block reserved ahead (committing behind); 0: none
	feeBalance Money
	issuance   Issuance // money and items that entered or left the market

	players    []*playerRecord
	playerByID map[uuid.UUID]*playerRecord
	// favoredBy lists, for each listing, the players who favour it, so a
	// listing that leaves the market leaves their lists without a scan.
	favoredBy map[uint32][]int32
	alerts    search.Alerts[*alertRecord] // the price alerts, by letter pair (main thread only)
	// bidOn files the live auctions under each bidder their histories
	// hold (PlayerBids); bidScratch is refileBidsLocked's.
	bidOn      map[uuid.UUID]map[uint32]struct{}
	bidScratch map[uuid.UUID]uint8

	listings search.Table[listingRecord]
	ix       *search.Index

	orders      orderBook      // every buy order, the open ones by material
	commodities commodityIndex // listings orders may buy, by material and unit price
	uncrossedAt int64          // when the sweep last looked for a crossed book (unix ms)
	crossed     bool           // a call left fills to the sweep (fillBatch)
	uncrossing  uncrossPass    // the sweep's look at the book, over ticks
	sweepSize   int            // the next batch of expired listings (sizeSweep); 0: sweepFirst

	txByID    map[uuid.UUID]*transactionRecord
	completed []*transactionRecord // in completion order
	allTx     []*transactionRecord // in creation order
	// mayBeOpen holds every transaction that entered memory unfinished and
	// has not been seen finished since (openTxLocked).
	mayBeOpen []*transactionRecord
	stats     stats

	listingRules *ListingRules // what may be listed: the blacklist (SellItem, RelistMail)
	tokenScratch []uint32      // token id scratch of the main thread
	armed        armedFailure  // the QA failure armed for the next purchase
	hist         history
	keeper       gramKeeper   // brings the index's gram bitmaps up to date (grams.go)
	loadedMeta   MetaRow      // the meta row as loaded
	batch        Batch        // reused by the main thread
	spare        spareImages  // undo images to reuse (undo.go)
	committer    *committer   // commits behind the tick (Config.CommitBehind); nil: submit commits
	inflight     []*pending   // submitted, awaiting their outcome, in order (main thread)
	outcomes     []outcome    // taken from the committer, not yet settled (main thread)
	waiting      atomic.Int64 // len(inflight), for readers
	follow       *follower    // following a shared store; nil otherwise
	peers        peerList     // the other instances, as the follower last read them
	log          eventLog
	health       storeHealth // whether the store takes changes (health.go)
	ticks        tickMeter   // the main thread's work per tick (tickwork.go)
	observers    observers   // told each tick's and commit's duration (observe.go)

	// beforeDelivery, set by tests only, runs before each event reaches
	// the listeners: the crash test kills the process there.
	beforeDelivery func(Event)
	// whileCountingHistory, set by tests only, runs in the history load as
	// it starts to count its copy off the lock.
	whileCountingHistory func()
}

// New returns a service over store. It is not ready until Enable.
func New(store Store, cfg Config) *Service {
	cfg = cfg.withDefaults()
	s := &Service{cfg: cfg, store: store, listingRules: NewListingRules(cfg)}
	s.reset()
	return s
}

func (s *Service) reset() {
	s.players = nil
	s.playerByID = map[uuid.UUID]*playerRecord{}
	s.favoredBy = map[uint32][]int32{}
	s.bidOn = map[uuid.UUID]map[uint32]struct{}{}
	s.bidScratch = map[uuid.UUID]uint8{}
	s.alerts = search.Alerts[*alertRecord]{}
	s.listings = search.Table[listingRecord]{}
	s.ix = search.New()
	s.orders = newOrderBook()
	s.commodities = commodityIndex{}
	s.txByID = map[uuid.UUID]*transactionRecord{}
	s.completed = nil
	s.allTx = nil
	s.mayBeOpen = nil
	s.stats = newStats()
	s.nextID = 1
	s.feeBalance = 0
	s.issuance = Issuance{}
	s.hist = history{done: make(chan struct{}), stop: make(chan struct{})}
	s.log = eventLog{}
}

// Name is the service's own name, as used in the not-ready error.
func (s *Service) Name() string { return s.cfg.Name }

// Config returns the service's configuration, its rules as they are now
// (SetRules changes them). Any goroutine.
func (s *Service) Config() Config {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.cfg
}

// IsReady is the contract's isReady().
func (s *Service) IsReady() bool { return s.ready.Load() }

func (s *Service) notReady() error { return &notReadyError{name: s.cfg.Name} }

// readGuard is the check every read except IsReady and GetCategories makes.
func (s *Service) readGuard() error {
	if !s.ready.Load() {
		return s.notReady()
	}
	return nil
}

// mutGuard is the check every mutation makes: readiness first (as the
// contract orders them), then the thread, then whether the store can be
// reached at all (probe.go), so that a change never waits for a dead link.
func (s *Service) mutGuard() error {
	if !s.ready.Load() {
		return s.notReady()
	}
	if !s.onMain() {
		return ErrNotMainThread
	}
	if s.health.away.Load() {
		return s.refuseAway()
	}
	return nil
}

func (s *Service) now() time.Time { return s.cfg.Clock.Now() }
func (s *Service) nowMs() int64   { return s.cfg.Clock.Now().UnixMilli() }

// Enable loads the store (first time only), recovers every transaction left
// unfinished by a crash, and makes the service ready. It must be called on the
// main thread, because recovery mutates and publishes events.
func (s *Service) Enable() error {
	if !s.onMain() {
		return ErrNotMainThread
	}
	if s.ready.Load() {
		return nil
	}
	if !s.loaded {
		if err := s.load(); err != nil {
			return err
		}
	}
	// Events committed before the market is ready (the undelivered backlog,
	// what recovery completes) reach the listeners once it is, in log order.
	s.log.held = true
	defer func() { s.log.held = false }()
	if !s.loaded {
		if err := s.loadBacklog(s.loadedMeta.PublishedSeq); err != nil {
			return err
		}
		s.loaded = true
		s.startFollowing()
		s.startKeepingGrams()
	}
	if _, err := s.recover(); err != nil {
		return err
	}
	if !s.loadedMeta.HasOpening {
		if err := s.recordOpening(); err != nil {
			return err
		}
	}
	s.ready.Store(true)
	s.log.held = false
	s.deliver()
	if err := s.recordDelivery(); err != nil {
		return err
	}
	s.startHistory()
	if s.cfg.CommitBehind && s.committer == nil {
		// Recovery above committed as it went: what it finished is
		// durable before the market takes changes. The first block of
		// listing ids is taken now, while waiting is still allowed; a
		// failure leaves it to the committer.
		if s.nextID >= s.idCeil {
			s.takeListingID()
		}
		s.committer = newCommitter(s.store, &s.observers)
	}
	return nil
}

// Disable makes the service not ready, like a disabled plugin: every
// operation except IsReady and GetCategories returns the not-ready error. The
// state stays loaded so that Enable is instant.
func (s *Service) Disable() { s.ready.Store(false) }

// Close disables the service and closes its store. It records the exact
// next listing id first, so that a clean restart leaves no gap in ids (only a
// crash skips the unused rest of a reserved block).
func (s *Service) Close() error {
	s.ready.Store(false)
	var err error
	if c := s.committer; c != nil {
		s.Flush() // on the main thread: every change in flight is decided
		c.close()
		if ids := c.take().ids; ids != nil && ids.err == nil {
			s.nextBlock = ids.first // reserved as it closed: given back below
		}
		s.committer = nil
	}
	s.stopHistory()
	s.stopFollowing()
	s.stopKeepingGrams()
	if s.loaded && (s.idCeil != s.nextID || s.nextBlock != 0 || s.log.delivered > s.log.recorded) {
		b := &s.batch
		b.Reset()
		// What is given back runs from the store's counter down to the
		// first id not handed out, and only over ids of this instance: a
		// block reserved ahead gives back the current block's rest with
		// it only when the two follow each other (no other server took
		// the ids between them); otherwise the rest is a gap.
		ceil, next := s.idCeil, s.nextID
		if s.nextBlock != 0 {
			ceil = s.nextBlock + idBlock
			if s.nextBlock != s.idCeil {
				next = s.nextBlock
			}
		}
		if next < ceil {
			b.add(Op{Kind: OpListingIDs, Int: ceil, Meta: MetaRow{NextListingID: next}})
		}
		if err = s.commit(b); err == nil {
			s.idCeil, s.nextBlock = s.nextID, 0
		}
	}
	if cerr := s.store.Close(); err == nil {
		err = cerr
	}
	return err
}

// GetMarketVolume is the contract's getMarketVolume(): the lifetime sum of
// completed prices. O(1), exact (kept in cents).
func (s *Service) GetMarketVolume() (float64, error) {
	if err := s.readGuard(); err != nil {
		return 0, err
	}
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.volume.Float(), nil
}

// GetCategories is the contract's getCategories(); it works even when the
// service is not ready, as the contract's readiness rule allows.
func (s *Service) GetCategories() []catalog.Category { return catalog.AllCategories() }

// FeeBalance is the fee account's balance: every fee taken so far.
func (s *Service) FeeBalance() (float64, error) {
	if err := s.readGuard(); err != nil {
		return 0, err
	}
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.feeBalance.Float(), nil
}

// Now returns the service clock's time.
func (s *Service) Now() time.Time { return s.now() }

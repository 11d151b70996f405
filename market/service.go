package market

import (
	"fmt"
	"runtime/debug"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/google/uuid"
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

	mu sync.RWMutex // guards everything below against concurrent readers

	// volume and sales are the contract's lifetime counters (persisted in
	// meta). Only the main thread writes them, like the rest of the state;
	// the background history load leaves them alone.
	volume Money
	sales  int64

	nextID     int64 // the next listing id to hand out
	idCeil     int64 // ids below this may have been handed out (persisted)
	feeBalance Money
	issuance   Issuance // money and items that entered or left the market

	players    []*playerRecord
	playerByID map[uuid.UUID]*playerRecord
	// favoredBy lists, for each listing, the players who favour it, so a
	// listing that leaves the market leaves their lists without a scan.
	favoredBy map[uint32][]int32
	alerts    alertIndex // the price alerts, by letter pair (main thread only)

	listings listingTable
	ix       *index

	txByID    map[uuid.UUID]*transactionRecord
	completed []*transactionRecord // in completion order
	allTx     []*transactionRecord // in creation order
	stats     stats

	listingRules *ListingRules // what may be listed: the blacklist (SellItem, RelistMail)
	tokenScratch []uint32      // token id scratch of the main thread
	armed        armedFailure  // the QA failure armed for the next purchase
	hist         history
	loadedMeta   MetaRow   // the meta row as loaded
	batch        Batch     // reused by the main thread
	settle       *Batch    // committed, its reported rows not yet in memory
	follow       *follower // following a shared store; nil otherwise
	log          eventLog
	health       storeHealth // whether the store takes changes (health.go)

	// beforeDelivery, set by tests only, runs before each event reaches
	// the listeners: the crash test kills the process there.
	beforeDelivery func(Event)
	// whileCountingHistory, set by tests only, runs in the history load as
	// it starts to count its copy off the lock.
	whileCountingHistory func()
}

// playerRecord is a player of the embedded world.
type playerRecord struct {
	idx      int32
	id       uuid.UUID
	name     string
	perms    []string
	balance  Money
	lastSell int64
	inv      inventory
	// stored is the inventory as the store holds it (encodeInventory), the
	// condition of the next write of it; version is the row's version as
	// this instance last saw it (PlayerRow.Version).
	stored  []byte
	version int64
	mail    []mailEntry
	// extra is the player's own data (nil: none) and storedExtra its blob
	// as the store holds it, the condition of the next write of it.
	extra       *playerExtra
	storedExtra []byte
	listings    int                  // active listings, for the per-player limit
	txs         []*transactionRecord // transactions as buyer or seller, in creation order
}

type mailEntry struct {
	id      uuid.UUID
	it      item
	reason  string
	created int64
	prev    Money
}

// listingRecord is an active listing.
type listingRecord struct {
	id       uint32
	seller   int32
	price    Money
	fee      Money // the listing fee paid, refunded when it leaves unsold if the rules say so
	created  int64
	expires  int64
	it       item
	reserved uuid.UUID
}

// transactionRecord is a transaction.
type transactionRecord struct {
	id        uuid.UUID
	listing   uint32
	buyer     int32
	seller    int32
	it        item
	price     Money
	fee       Money
	net       Money
	state     uint8 // index into States()
	toMailbox bool
	rating    uint8 // the buyer's stars, 1-5; 0 not rated
	errCode   string
	tl        timeline
	// created is tl[0].at, kept apart because the history load sorts by it
	// off the lock while the main thread appends to tl.
	created int64
}

func (t *transactionRecord) State() State { return States()[t.state] }

// takeState gives t what the store's newer record of it (now) says: all of
// a transaction that changes after it is made.
func (t *transactionRecord) takeState(now *transactionRecord) {
	t.state, t.tl, t.errCode, t.toMailbox, t.rating = now.state, now.tl, now.errCode, now.toMailbox, now.rating
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
	s.alerts = alertIndex{}
	s.listings = listingTable{}
	s.ix = newIndex()
	s.txByID = map[uuid.UUID]*transactionRecord{}
	s.completed = nil
	s.allTx = nil
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

// BindMainThread makes the calling goroutine the main server thread: the only
// goroutine allowed to mutate. The console calls it from the goroutine that
// runs the Bubble Tea event loop. On Linux it also locks that goroutine to
// its OS thread (see thread_linux.go for why).
//
// Binding is deliberate: calling it again from the bound goroutine changes
// nothing, and a call from any other goroutine while one is bound is refused
// with ErrMainThreadBound, so a stray goroutine cannot silently take over the
// main thread. To move the main thread on purpose, call ReleaseMainThread
// from the bound goroutine first, then BindMainThread from the new one.
func (s *Service) BindMainThread() error {
	s.bindMu.Lock()
	defer s.bindMu.Unlock()
	if t := s.mainT.Load(); t != 0 {
		if t == currentThread() {
			return nil
		}
		return ErrMainThreadBound
	}
	s.mainT.Store(bindThread())
	return nil
}

// ReleaseMainThread unbinds the main thread. Only the bound goroutine may
// release it; afterwards every mutation is refused with ErrNotMainThread
// until some goroutine calls BindMainThread.
func (s *Service) ReleaseMainThread() error {
	s.bindMu.Lock()
	defer s.bindMu.Unlock()
	if !s.onMain() {
		return ErrMainThreadNotHeld
	}
	s.mainT.Store(0)
	unbindThread()
	return nil
}

// IsMainThread reports whether the caller is the bound main thread.
func (s *Service) IsMainThread() bool { return s.onMain() }

func (s *Service) onMain() bool {
	t := s.mainT.Load()
	return t != 0 && t == currentThread()
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
// contract orders them), then the thread.
func (s *Service) mutGuard() error {
	if !s.ready.Load() {
		return s.notReady()
	}
	if !s.onMain() {
		return ErrNotMainThread
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
	s.stopHistory()
	s.stopFollowing()
	if s.loaded && (s.idCeil != s.nextID || s.log.delivered > s.log.recorded) {
		b := &s.batch
		b.Reset()
		if s.nextID < s.idCeil {
			b.add(Op{Kind: OpListingIDs, Int: s.idCeil, Meta: MetaRow{NextListingID: s.nextID}})
		}
		if err = s.commit(b); err == nil {
			s.idCeil = s.nextID
		}
	}
	if cerr := s.store.Close(); err == nil {
		err = cerr
	}
	return err
}

// loader receives the store's rows into a fresh in-memory state.
//
// Listings are loaded by two goroutines, one per core: the store's goroutine
// reads and decodes rows (SQLite's share of the work), and a worker indexes
// them, in batches passed over a channel. Records come from a slab so that a
// million listings are a few hundred allocations, not a million.
type loader struct {
	s       *Service
	rows    int
	total   int
	slab    []listingRecord
	batch   []*listingRecord
	work    chan []*listingRecord
	done    chan struct{}
	workErr error
}

const loadBatch = 2048

func (l *loader) startWorker() {
	l.work = make(chan []*listingRecord, 4)
	l.done = make(chan struct{})
	go func() {
		defer close(l.done)
		s := l.s
		var tokenScratch []uint32
		for batch := range l.work {
			for _, r := range batch {
				p := s.players[r.seller]
				s.listings.set(r)
				p.listings++
				tokenScratch = s.ix.tokenIDs(tokenScratch, r, p.name)
				s.ix.add(r, tokenScratch)
			}
		}
	}()
}

func (l *loader) progress() {
	l.rows++
	if f := l.s.cfg.LoadProgress; f != nil && l.rows&0xffff == 0 {
		f(l.rows, l.total)
	}
}

// flush hands the last batch to the worker and waits for it to finish.
func (l *loader) flush() {
	if l.work == nil {
		return
	}
	if len(l.batch) > 0 {
		l.work <- l.batch
		l.batch = nil
	}
	close(l.work)
	<-l.done
	l.work = nil
}

func (l *loader) Meta(m MetaRow) error {
	l.s.nextID = m.NextListingID
	if l.s.nextID < 1 {
		l.s.nextID = 1
	}
	l.s.feeBalance = m.FeeBalance
	l.s.issuance = m.Issuance
	l.s.loadedMeta = m
	l.s.log = eventLog{head: m.LastSeq, first: m.FirstSeq, delivered: m.PublishedSeq, recorded: m.PublishedSeq}
	l.total = m.Listings + m.Transactions
	// Size the tables once instead of growing them a million times.
	l.s.txByID = make(map[uuid.UUID]*transactionRecord, m.Transactions)
	for i := range l.s.ix.pending {
		l.s.ix.pending[i] = make([]sortKey, 0, m.Listings)
	}
	return nil
}

func (l *loader) Player(p PlayerRow) error {
	s := l.s
	inv, err := decodeInventory(p.Inventory)
	if err != nil {
		return fmt.Errorf("inventory of player %s: %w", p.ID, err)
	}
	x, err := decodeExtra(p.Extra)
	if err != nil {
		return fmt.Errorf("market data of player %s: %w", p.ID, err)
	}
	pr := &playerRecord{idx: int32(len(s.players)), id: p.ID, name: p.Name, balance: p.Balance, lastSell: p.LastSell, inv: inv,
		stored: append([]byte(nil), p.Inventory...), version: p.Version, perms: splitPerms(p.Perms)}
	s.players = append(s.players, pr)
	s.playerByID[p.ID] = pr
	s.setExtraLocked(pr, x, append([]byte(nil), p.Extra...))
	return nil
}

func (l *loader) Mail(r MailRow) error {
	p := l.s.playerByID[r.Player]
	if p == nil {
		return fmt.Errorf("mail %s of unknown player %s", r.ID, r.Player)
	}
	it, err := decodeItem(r.Item)
	if err != nil {
		return fmt.Errorf("mail %s: %w", r.ID, err)
	}
	p.mail = append(p.mail, mailEntry{id: r.ID, it: it, reason: r.Reason, created: r.Created, prev: r.PrevPrice})
	return nil
}

func (l *loader) Listing(row ListingRow) error {
	s := l.s
	if row.ID <= 0 || row.ID > 1<<31-1 {
		return fmt.Errorf("listing id %d out of range", row.ID)
	}
	l.progress()
	if len(l.slab) == 0 {
		l.slab = make([]listingRecord, loadBatch)
	}
	r := &l.slab[0]
	l.slab = l.slab[1:]
	r.id = uint32(row.ID)
	seller, err := decodeListing(row.Rec, r)
	if err != nil {
		return fmt.Errorf("listing #%d: %w", row.ID, err)
	}
	p := s.playerByID[seller]
	if p == nil {
		return fmt.Errorf("listing #%d of unknown player %s", row.ID, seller)
	}
	r.seller = p.idx
	if l.work == nil {
		l.startWorker()
	}
	l.batch = append(l.batch, r)
	if len(l.batch) == loadBatch {
		l.work <- l.batch
		l.batch = make([]*listingRecord, 0, loadBatch)
	}
	if row.ID >= s.nextID {
		s.nextID = row.ID + 1
	}
	return nil
}

func (l *loader) Transaction(row TxRow) error {
	l.flush() // listings come first; the worker must be done with them
	l.progress()
	s := l.s
	t, err := s.txFromRow(row)
	if err != nil {
		return err
	}
	s.txByID[t.id] = t
	s.allTx = append(s.allTx, t)
	if int64(t.listing) >= s.nextID {
		s.nextID = int64(t.listing) + 1
	}
	if t.State() == StateCompleted {
		s.completed = append(s.completed, t)
	}
	return nil
}

func (s *Service) load() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	// The load builds a large live heap in one go; collecting at the default
	// 100% growth would re-mark it several times over. GC runs at 400% growth
	// during the load and at the program's setting afterwards.
	defer debug.SetGCPercent(debug.SetGCPercent(400))
	s.reset()
	s.ix.loading = true
	l := &loader{s: s}
	err := s.store.Load(l)
	l.flush()
	if f := s.cfg.LoadProgress; f != nil && err == nil {
		f(l.total, l.total)
	}
	if err != nil {
		s.reset()
		return fmt.Errorf("load market: %w", err)
	}
	s.idCeil = s.nextID
	s.ix.finishLoad()
	slices.SortFunc(s.allTx, func(a, b *transactionRecord) int { return cmpTxCreated(a, b) })
	for _, t := range s.allTx {
		s.indexTxPlayers(t)
	}
	s.rebuildStats()
	if s.loadedMeta.HasCounters {
		// Only unfinished transactions are in memory yet; the history loads
		// in the background after Enable. The lifetime counters are persisted.
		s.volume, s.sales = s.loadedMeta.Volume, s.loadedMeta.Sales
	} else {
		s.volume, s.sales = s.stats.volume, s.stats.sales
		close(s.hist.done) // an older store: Load read every transaction
	}
	return nil
}

// ---- reads ----

func (s *Service) listingOf(r *listingRecord) Listing {
	return publicListing(r, s.players[r.seller].person())
}

// person is a player's identity as a read or an event shows it.
type person struct {
	id   uuid.UUID
	name string
}

func (p *playerRecord) person() person { return person{p.id, p.name} }

// publicListing is the public form of r, sold by seller. Live reads and the
// event log's decoder both build listings here.
func publicListing(r *listingRecord, seller person) Listing {
	return Listing{
		ID: int(r.id), Seller: seller.id, SellerName: seller.name, Item: r.it.stack(), Price: r.price.Float(),
		CreatedAt: unixMilli(r.created), ExpiresAt: unixMilli(r.expires),
		Reserved: r.reserved != uuid.Nil, Categories: r.it.categories().List(),
	}
}

func unixMilli(ms int64) time.Time { return time.UnixMilli(ms).UTC() }

// live reports whether r is on the market at nowMs: not expired. An expired
// listing is never listed or purchasable, even before the sweep removes it.
func (r *listingRecord) live(nowMs int64) bool { return nowMs < r.expires }

// GetListings is the contract's getListings(): every active listing, newest
// first.
func (s *Service) GetListings() ([]Listing, error) {
	if err := s.readGuard(); err != nil {
		return nil, err
	}
	p, err := s.Query(Query{Limit: -1})
	return p.Listings, err
}

// GetListing is the contract's getListing(int).
func (s *Service) GetListing(id int) (Listing, error) {
	if err := s.readGuard(); err != nil {
		return Listing{}, err
	}
	s.mu.RLock()
	defer s.mu.RUnlock()
	r, err := s.lookupListing(id)
	if err != nil {
		return Listing{}, err
	}
	return s.listingOf(r), nil
}

// lookupListing finds listing id. Every operation answers the same way: an
// id that is not on the market is UNKNOWN_LISTING, and a listing whose expiry
// has passed but that the sweep has not removed yet is LISTING_EXPIRED (r is
// returned with that error, so that its owner can still take it back).
func (s *Service) lookupListing(id int) (*listingRecord, error) {
	var r *listingRecord
	if id > 0 && id <= 1<<31-1 {
		r = s.listings.get(uint32(id))
	}
	if r == nil {
		return nil, errf(CodeUnknownListing, "listing #%d does not exist", id)
	}
	if !r.live(s.nowMs()) {
		return r, errf(CodeListingExpired, "listing #%d has expired", id)
	}
	return r, nil
}

// GetListingsBySeller is the contract's getListingsBySeller(UUID), newest first.
func (s *Service) GetListingsBySeller(seller uuid.UUID) ([]Listing, error) {
	if err := s.readGuard(); err != nil {
		return nil, err
	}
	if seller == uuid.Nil {
		return nil, nil // no player has the nil UUID; Query reads it as "any seller"
	}
	p, err := s.Query(Query{Seller: seller, Limit: -1})
	return p.Listings, err
}

// Search is the contract's search(String): every active listing matching the
// text, newest first. See Query for paging and sorting.
func (s *Service) Search(text string) ([]Listing, error) {
	if err := s.readGuard(); err != nil {
		return nil, err
	}
	p, err := s.Query(Query{Text: text, Limit: -1})
	return p.Listings, err
}

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
		return Transaction{}, errf(CodeUnknownTransaction, "transaction %q does not exist", truncateForMsg(id))
	}
	if s.txRecord(u) == nil && !s.HistoryLoaded() {
		s.waitHistory() // it may be a finished transaction not loaded yet
	}
	s.mu.RLock()
	defer s.mu.RUnlock()
	t := s.txByID[u]
	if t == nil {
		return Transaction{}, errf(CodeUnknownTransaction, "transaction %q does not exist", truncateForMsg(id))
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
		Seller: seller.id, SellerName: seller.name, Item: t.it.stack(), Price: t.price.Float(),
		Fee: t.fee.Float(), SellerNet: t.net.Float(), State: t.State(), ErrorCode: t.errCode,
		Timeline: t.tl.public(), DeliveredToMailbox: t.toMailbox, Rating: int(t.rating),
	}
}

// GetActiveListingsCount is the contract's getActiveListingsCount(). O(1).
// Listings past their expiry that the sweep has not removed yet are not
// counted.
func (s *Service) GetActiveListingsCount() (int, error) {
	if err := s.readGuard(); err != nil {
		return 0, err
	}
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.listings.len() - s.expiredUnswept(s.nowMs()), nil
}

// expiredUnswept counts listings whose expiry has passed but that the sweep
// has not removed yet: normally none, so this is O(1) in practice (it walks
// only the expired prefix of the expiry order).
func (s *Service) expiredUnswept(nowMs int64) int {
	n := 0
	s.ix.byExpiry.ascend(func(k sortKey) bool {
		if k.k > nowMs {
			return false
		}
		n++
		return true
	})
	return n
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
func (s *Service) GetCategories() []Category { return allCategories() }

// Players returns every player of the world, in load order.
func (s *Service) Players() ([]Player, error) {
	if err := s.readGuard(); err != nil {
		return nil, err
	}
	s.mu.RLock()
	defer s.mu.RUnlock()
	out := make([]Player, len(s.players))
	for i, p := range s.players {
		out[i] = p.public()
	}
	return out, nil
}

func (p *playerRecord) public() Player {
	return Player{ID: p.id, Name: p.name, Permissions: append([]string(nil), p.perms...)}
}

// GetPlayer returns a snapshot of a player's state.
func (s *Service) GetPlayer(id uuid.UUID) (PlayerState, error) {
	if err := s.readGuard(); err != nil {
		return PlayerState{}, err
	}
	s.mu.RLock()
	defer s.mu.RUnlock()
	p := s.playerByID[id]
	if p == nil {
		return PlayerState{}, errf(CodeUnknownPlayer, "player %s does not exist", id)
	}
	st := PlayerState{Player: p.public(), Balance: p.balance.Float()}
	for i, it := range p.inv {
		if it.mat != 0 {
			stack := it.stack()
			st.Inventory[i] = &stack
		}
	}
	for _, m := range p.mail {
		st.Mailbox = append(st.Mailbox, MailboxEntry{ID: m.id, Item: m.it.stack(), Reason: m.reason,
			CreatedAt: time.UnixMilli(m.created).UTC(), PreviousPrice: m.prev.Float()})
	}
	return st, nil
}

// FeeBalance is the fee account's balance: every fee taken so far.
func (s *Service) FeeBalance() (float64, error) {
	if err := s.readGuard(); err != nil {
		return 0, err
	}
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.feeBalance.Float(), nil
}

package market

import (
	"fmt"
	"slices"

	"github.com/google/uuid"
	"github.com/rynek/rynek/market/internal/item"
)

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
	// lowerCollector ends a large load's raised collector growth.
	lowerCollector func()
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
				s.listings.Set(r.id, r)
				p.listings++
				e := r.entry()
				tokenScratch = s.ix.TokenIDs(tokenScratch, e, p.name)
				s.ix.Add(e, tokenScratch)
				if a := r.auction; a != nil {
					for _, b := range a.History {
						fileBid(s.bidOn, b.Bidder, r.id)
					}
				}
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
	if l.total >= largeLoad && l.lowerCollector == nil {
		l.lowerCollector = raiseCollectorGrowth()
	}
	// Size the tables once instead of growing them a million times. The
	// history's lists too: the background load appends to them under the
	// write lock, where growing a list of a million copies it whole, and
	// growing the table splits it. Either touched fresh memory, whose page
	// faults held the main thread up to 52 ms on PostgreSQL. Where the
	// store keeps counters it does not count the transactions, and the
	// sales (most of them) with some room stand in for them.
	txs := m.Transactions
	if m.HasCounters {
		txs = max(txs, int(m.Sales)+int(m.Sales)/8+1024)
	}
	l.s.txByID = make(map[uuid.UUID]*transactionRecord, txs)
	l.s.allTx = make([]*transactionRecord, 0, txs)
	l.s.completed = make([]*transactionRecord, 0, txs)
	l.s.ix.StartLoad(int(m.Listings))
	return nil
}

func (l *loader) Player(p PlayerRow) error {
	s := l.s
	inv, err := item.DecodeInventory(p.Inventory)
	if err != nil {
		return fmt.Errorf("inventory of player %s: %w", p.ID, err)
	}
	x, err := decodeExtra(p.Extra)
	if err != nil {
		return fmt.Errorf("market data of player %s: %w", p.ID, err)
	}
	pr := &playerRecord{idx: int32(len(s.players)), id: p.ID, name: p.Name, balance: p.Balance, lastSell: p.LastSell, inv: inv,
		stored: storedBlob(append([]byte(nil), p.Inventory...)), version: p.Version, perms: splitPerms(p.Perms)}
	s.players = append(s.players, pr)
	s.playerByID[p.ID] = pr
	s.setExtraLocked(pr, x, storedBlob(append([]byte(nil), p.Extra...)))
	return nil
}

func (l *loader) Mail(r MailRow) error {
	p := l.s.playerByID[r.Player]
	if p == nil {
		return fmt.Errorf("mail %s of unknown player %s", r.ID, r.Player)
	}
	it, err := item.Decode(r.Item)
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

func (l *loader) Order(row OrderRow) error {
	l.flush() // listings come first; an open order's material is indexed from them
	if err := l.s.loadOrderLocked(row); err != nil {
		return err
	}
	l.s.nextID = max(l.s.nextID, row.ID+1) // order ids are listing ids
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
	if !t.State().Terminal() {
		s.mayBeOpen = append(s.mayBeOpen, t)
	}
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
	s.reset()
	s.ix.StartLoad(0)
	l := &loader{s: s}
	err := s.store.Load(l)
	l.flush()
	if l.lowerCollector != nil {
		defer l.lowerCollector()
	}
	if f := s.cfg.LoadProgress; f != nil && err == nil {
		f(l.total, l.total)
	}
	if err != nil {
		s.reset()
		return fmt.Errorf("load market: %w", err)
	}
	s.idCeil = s.nextID
	s.ix.FinishLoad()
	s.fileCommoditiesLocked()
	// What expired while the market was closed (a week's worth after a
	// week away), filed once here rather than a chunk a tick.
	s.ix.AdvanceExpiry(s.nowMs(), -1)
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

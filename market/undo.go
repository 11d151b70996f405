package market

import (
	"slices"

	"github.com/google/uuid"
)

// undo is what a batch's change to memory replaced: a copy of each row its
// ops name as memory held it before (or that memory held none), and the
// service's counters. A mutation changes memory before its batch is
// durable (docs/commit-path.md); when the store refuses the
// batch, undoLocked puts every one of them back through the setters that
// keep the indexes, so memory is again what the store holds. No mutation
// has undo code of its own: naming a row in its batch, which it must do for
// the row to be written, is what makes its change undoable.
type undo struct {
	players  []playerImage
	listings []listingImage
	orders   []orderImage
	txs      []txImage
	added    int // players before the batch: those after it are its own
	// after is what the change left (expectedOf): a balance or an account
	// goes back by what the change added, keeping what settling added
	// since (a batch before this one, committed meanwhile).
	after expected

	feeBalance Money
	issuance   Issuance
	// The listing ids as they were: a sell may have begun the block
	// reserved ahead, which an undo must not leave half taken.
	nextID, idCeil, nextBlock int64
	hasOpening                bool
}

type playerImage struct {
	p   *playerRecord
	was playerRecord // perms and mail copied: a change may edit them in place
}

// listingImage is a listing as it was (nil: there was none), with the
// favourites that its leaving the market would drop (forgetFavoritesLocked
// edits those players' lists in place).
type listingImage struct {
	id        uint32
	was       *listingRecord
	favoredBy []int32
	favorites [][]uint32 // favoredBy[i]'s list
}

type orderImage struct {
	id  uint32
	was *orderRecord
}

type txImage struct {
	id  uuid.UUID
	was *transactionRecord
}

// undoOf copies what b's ops name, before their change reaches memory.
// The caller holds s.mu.
func (s *Service) undoOf(b *Batch) *undo {
	u := &undo{added: len(s.players), feeBalance: s.feeBalance, issuance: s.issuance, nextID: s.nextID, idCeil: s.idCeil,
		nextBlock: s.nextBlock, hasOpening: s.loadedMeta.HasOpening}
	// A player's image holds the record whole, inventory included (over a
	// kilobyte): the list is sized once rather than grown and copied,
	// which was a fortieth of a tick's CPU in the serve loop, and taken
	// from those of the batches settled before (spareImages).
	if n := b.playerOps(); n > 0 {
		u.players = s.spare.take(n)
	}
	for i := range b.Ops {
		op := &b.Ops[i]
		switch op.Kind {
		case OpPlayerState, OpPlayerProfile:
			u.player(s.playerByID[op.Player.ID])
		case OpPutMail, OpDelMail:
			u.player(s.playerByID[op.Mail.Player])
		case OpAddListing, OpListingState:
			u.listing(s, uint32(op.Listing.ID))
		case OpDelListing:
			u.listing(s, uint32(op.Int))
		case OpAddOrder, OpOrderState:
			u.order(s, op.Order.ID)
		case OpPutTx, OpTxState:
			u.tx(s, op.Tx.ID)
		}
	}
	return u
}

// spareImages keeps the player images of undos no longer needed (their
// batches settled or undone), for the next batches' undos. Why: a sell
// that fires alerts copies each owner's record (over a kilobyte each), a
// purchase its buyer's and seller's; allocated afresh, in memory the heap
// had not touched yet, those copies were the largest of the main thread's
// allocations in the serve loop and a share of its page faults (perf,
// memory profile of BenchmarkServerTick). Main thread, under Service.mu.
type spareImages struct{ lists [][]playerImage }

// maxSpareImages bounds the lists spareImages keeps: as many as a tick's
// batches in flight need, not what a burst once did.
const maxSpareImages = 64

// take returns an empty list with room for n images.
func (sp *spareImages) take(n int) []playerImage {
	for i := len(sp.lists) - 1; i >= 0; i-- {
		if l := sp.lists[i]; cap(l) >= n {
			sp.lists = slices.Delete(sp.lists, i, i+1)
			return l
		}
	}
	return make([]playerImage, 0, max(n, 4))
}

// keep takes back u's images, now that nothing will undo u: they are
// cleared first, so that the records they copied can be collected.
func (sp *spareImages) keep(u *undo) {
	l := u.players
	u.players = nil
	if cap(l) == 0 || len(sp.lists) >= maxSpareImages {
		return
	}
	clear(l)
	sp.lists = append(sp.lists, l[:0])
}

// playerOps is how many of b's ops name a player: at most the players
// undoOf copies.
func (b *Batch) playerOps() int {
	n := 0
	for i := range b.Ops {
		switch b.Ops[i].Kind {
		case OpPlayerState, OpPlayerProfile, OpPutMail, OpDelMail:
			n++
		}
	}
	return n
}

func (u *undo) player(p *playerRecord) {
	if p == nil || slices.ContainsFunc(u.players, func(x playerImage) bool { return x.p == p }) {
		return
	}
	was := *p
	was.perms = slices.Clone(p.perms)
	was.mail = slices.Clone(p.mail)
	u.players = append(u.players, playerImage{p: p, was: was})
}

// balance is p's balance before the change.
func (u *undo) balance(p *playerRecord) Money {
	for _, img := range u.players {
		if img.p == p {
			return img.was.balance
		}
	}
	return p.balance
}

func (u *undo) listing(s *Service, id uint32) {
	if slices.ContainsFunc(u.listings, func(x listingImage) bool { return x.id == id }) {
		return
	}
	img := listingImage{id: id}
	if r := s.listings.Get(id); r != nil {
		was := *r
		img.was = &was
		if a := r.auction; a != nil {
			c := *a
			c.History = slices.Clone(a.History)
			was.auction = &c
		}
	}
	img.favoredBy = slices.Clone(s.favoredBy[id])
	for _, idx := range img.favoredBy {
		var list []uint32
		if x := s.players[idx].extra; x != nil {
			list = slices.Clone(x.favorites)
		}
		img.favorites = append(img.favorites, list)
	}
	u.listings = append(u.listings, img)
}

func (u *undo) order(s *Service, id int64) {
	if slices.ContainsFunc(u.orders, func(x orderImage) bool { return int64(x.id) == id }) {
		return
	}
	img := orderImage{id: uint32(id)}
	if o := s.orders.byID[uint32(id)]; o != nil {
		was := *o
		img.was = &was
	}
	u.orders = append(u.orders, img)
}

func (u *undo) tx(s *Service, id uuid.UUID) {
	if slices.ContainsFunc(u.txs, func(x txImage) bool { return x.id == id }) {
		return
	}
	img := txImage{id: id}
	if t := s.txByID[id]; t != nil {
		was := *t
		img.was = &was
	}
	u.txs = append(u.txs, img)
}

// undoLocked puts back what u copied: memory is again what it was before
// the batch's change. Transactions and orders first, then listings (which
// count on their sellers), then the players whole, then the counters. The
// caller holds s.mu.
func (s *Service) undoLocked(u *undo) {
	for _, img := range slices.Backward(u.txs) {
		t := s.txByID[img.id]
		switch {
		case img.was == nil && t != nil:
			s.forgetTxLocked(t)
		case img.was != nil && t != nil:
			// Earlier batches may have settled since the copy: only this
			// one's writes come off the count.
			unsettled := t.unsettled - u.after.own.txs[t]
			*t = *img.was
			t.unsettled = unsettled
			if !t.State().Terminal() && !slices.Contains(s.mayBeOpen, t) {
				s.mayBeOpen = append(s.mayBeOpen, t) // unfinished again
			}
		}
	}
	for _, img := range slices.Backward(u.orders) {
		o := s.orders.byID[img.id]
		switch {
		case img.was == nil && o != nil:
			s.orders.remove(o)
		case img.was != nil:
			was := *img.was
			s.setOrderLocked(&was)
		}
	}
	for _, img := range slices.Backward(u.listings) {
		r := s.listings.Get(img.id)
		switch {
		case img.was == nil && r != nil:
			s.removeListingLocked(r)
		case img.was != nil && r == nil:
			was := *img.was
			s.addListingLocked(&was)
		case img.was != nil:
			was := *img.was
			s.replaceListingLocked(r, &was)
		}
		if len(img.favoredBy) > 0 {
			s.favoredBy[img.id] = img.favoredBy
			for i, idx := range img.favoredBy {
				if x := s.players[idx].extra; x != nil {
					x.favorites = img.favorites[i]
				}
			}
		}
	}
	for _, img := range slices.Backward(u.players) {
		p, was := img.p, img.was
		if p.extra != was.extra {
			s.setExtraLocked(p, was.extra, was.storedExtra)
		}
		if p.name != was.name {
			s.setProfileLocked(p, was.name, was.perms)
		}
		// What the transactions index holds of the player is put back by
		// forgetTxLocked, not from the copy: the history load may have
		// added older ones meanwhile. The listings count is the listings'.
		// The version is the store's, which settling keeps.
		was.txs, was.listings, was.version = p.txs, p.listings, p.version
		was.balance = p.balance - u.after.own.balances[p]
		was.unsettled = p.unsettled - u.after.own.writes[p]
		*p = was
	}
	for _, p := range s.players[u.added:] {
		delete(s.playerByID, p.id)
	}
	clear(s.players[u.added:])
	s.players = s.players[:u.added]
	s.feeBalance -= u.after.own.feeBalance
	s.issuance = s.issuance.sub(u.after.own.issuance)
	s.nextID, s.idCeil, s.nextBlock, s.loadedMeta.HasOpening = u.nextID, u.idCeil, u.nextBlock, u.hasOpening
}

// forgetTxLocked takes t, which a refused batch made, out of memory again.
// While the history load counts its copies of the lists, which it then
// puts back with what was appended meanwhile, t leaves the lists when the
// load is done.
func (s *Service) forgetTxLocked(t *transactionRecord) {
	delete(s.txByID, t.id)
	if s.hist.counting {
		s.hist.forgotten = append(s.hist.forgotten, t)
		return
	}
	// t is among the newest: look from the end.
	drop := func(list []*transactionRecord) []*transactionRecord {
		for i := len(list) - 1; i >= 0; i-- {
			if list[i] == t {
				return slices.Delete(list, i, i+1)
			}
		}
		return list
	}
	s.allTx = drop(s.allTx)
	for _, idx := range []int32{t.buyer, t.seller} {
		// A player made by the same refused changes may be gone already.
		if int(idx) < len(s.players) {
			s.players[idx].txs = drop(s.players[idx].txs)
		}
	}
}

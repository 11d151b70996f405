package market

import (
	"cmp"
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strings"

	"github.com/google/uuid"
	"github.com/rynek/rynek/market/internal/item"
	"github.com/rynek/rynek/market/internal/record"
	"github.com/rynek/rynek/market/internal/search"
)

// MemoryDump writes out what memory holds that a batch's change may touch,
// the indexes included, in a stable order: two dumps are equal when memory
// is. A mutation whose commit the store refuses must leave it as it found
// it (undo.go); the property test compares dumps around such a refusal.
// What only the store's side moves (the reserved block of listing ids, the
// store's health) is left out.
func MemoryDump(s *Service) string {
	s.mu.RLock()
	defer s.mu.RUnlock()
	var b strings.Builder
	w := func(format string, args ...any) { fmt.Fprintf(&b, format+"\n", args...) }
	w("volume %d sales %d fee %d issuance %+v next id %d opening %v counters %v", s.volume, s.sales, s.feeBalance, s.issuance,
		s.nextID, s.loadedMeta.HasOpening, s.loadedMeta.HasCounters)
	for _, p := range s.players {
		w("player %d %s %q %v balance %d last sell %d version %d listings %d", p.idx, p.id, p.name, p.perms, p.balance, p.lastSell,
			p.version, p.listings)
		w("  inventory %x stored %x", item.EncodeInventory(nil, &p.inv), p.stored.bytes())
		for _, m := range p.mail {
			w("  mail %s %x %s %d %d", m.id, item.Encode(nil, m.it), m.reason, m.created, m.prev)
		}
		if x := p.extra; x != nil {
			w("  extra %x favourites %v alerts %d hits %d read %d outbids %d", p.storedExtra.bytes(), x.favorites, len(x.alerts), len(x.hits),
				x.readAt, len(x.outbids))
		}
		txs := make([]string, len(p.txs))
		for i, t := range p.txs {
			txs[i] = t.id.String()
		}
		w("  transactions %v", txs)
	}
	var ls []*listingRecord
	s.listings.Each(func(r *listingRecord) { ls = append(ls, r) })
	slices.SortFunc(ls, func(a, b *listingRecord) int { return cmp.Compare(a.id, b.id) })
	for _, r := range ls {
		w("listing %d seller %d price %d fee %d created %d expires %d item %x reserved %s", r.id, r.seller, r.price, r.fee,
			r.created, r.expires, item.Encode(nil, r.it), r.reserved)
		if a := r.auction; a != nil {
			w("  auction %+v", *a)
		}
	}
	for id := range 1 << 16 { // every material, those learnt at run time too
		m := struct{ ID uint16 }{uint16(id)}
		if bm := s.ix.Material(m.ID); bm != nil && !bm.IsEmpty() {
			w("index material %d %v", m.ID, bm.ToArray())
		}
		if t := s.commodities[m.ID]; t != nil && s.orders.best(m.ID) != nil { // a tree serves open orders
			var ids []uint32
			t.Ascend(func(r *listingRecord) bool { ids = append(ids, r.id); return true })
			w("commodities %d %v", m.ID, ids)
		}
		var open []uint32
		s.orders.each(m.ID, func(o *orderRecord) bool { open = append(open, o.id); return true })
		if len(open) > 0 {
			w("open orders %d %v", m.ID, open)
		}
	}
	for i := range s.players {
		if bm := s.ix.Seller(int32(i)); bm != nil && !bm.IsEmpty() {
			w("index seller %d %v", i, bm.ToArray())
		}
	}
	var expiry []search.Key
	s.ix.AscendExpiry(func(k search.Key) bool { expiry = append(expiry, k); return true })
	w("index expiry %v", expiry)
	for _, id := range slices.Sorted(maps.Keys(s.orders.byID)) {
		o := s.orders.byID[id]
		w("order %+v", *o)
	}
	for _, buyer := range slices.Sorted(maps.Keys(s.orders.mine)) {
		w("orders of %d %v", buyer, slices.Sorted(maps.Keys(s.orders.mine[buyer])))
	}
	for _, id := range slices.SortedFunc(maps.Keys(s.txByID), func(a, b uuid.UUID) int { return strings.Compare(a.String(), b.String()) }) {
		t := s.txByID[id]
		w("transaction %s state %d tl %v code %q mailbox %v rating %d", id, t.state, t.tl, t.errCode, t.toMailbox, t.rating)
	}
	ids := func(ts []*transactionRecord) []string {
		out := make([]string, len(ts))
		for i, t := range ts {
			out[i] = t.id.String()
		}
		return out
	}
	w("all %v", ids(s.allTx))
	w("completed %v", ids(s.completed))
	w("figures volume %d sales %d top %v", s.stats.volume, s.stats.sales, ids(s.stats.top))
	for _, id := range slices.Sorted(maps.Keys(s.stats.seller)) {
		w("  seller %d %+v", id, *s.stats.seller[id])
	}
	for _, id := range slices.Sorted(maps.Keys(s.stats.items)) {
		w("  item %d %+v %v", id, *s.stats.items[id], s.stats.hist[id])
	}
	for _, id := range slices.Sorted(maps.Keys(s.favoredBy)) {
		w("favoured %d by %v", id, s.favoredBy[id])
	}
	for _, p := range slices.SortedFunc(maps.Keys(s.bidOn), func(a, b uuid.UUID) int { return strings.Compare(a.String(), b.String()) }) {
		w("bids of %s on %v", p, slices.Sorted(maps.Keys(s.bidOn[p])))
	}
	return b.String()
}

// StoredDataDiffers returns the first player whose stored data blob does
// not hold what memory has of their alerts, hits, read mark and outbid
// notices (the favourites of listings gone since may differ until the next
// write), or "" when none does. Each change of a player's data sets
// memory's value and the blob together, and an undo puts both back.
func StoredDataDiffers(s *Service) string {
	s.mu.RLock()
	defer s.mu.RUnlock()
	for _, p := range s.players {
		if p.extra == nil {
			continue
		}
		d, err := record.DecodePlayerData(p.storedExtra.bytes())
		want := p.extra.stored()
		if err != nil || d == nil {
			if err != nil || len(want.Alerts)+len(want.Hits)+len(want.Outbids) > 0 || want.ReadAt != 0 {
				return fmt.Sprintf("%s: stored %x (%v), memory %+v", p.name, p.storedExtra.bytes(), err, want)
			}
			continue
		}
		d.Favorites, want.Favorites = nil, nil
		if len(want.Alerts) == 0 {
			want.Alerts = nil
		}
		if len(want.Outbids) == 0 {
			want.Outbids = nil
		}
		if !reflect.DeepEqual(d, want) {
			return fmt.Sprintf("%s: stored %+v, memory %+v", p.name, d, want)
		}
	}
	return ""
}

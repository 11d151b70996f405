package market

import (
	"bytes"
	"slices"
	"strings"

	"github.com/google/uuid"
	"github.com/rynek/rynek/market/catalog"
	"github.com/rynek/rynek/market/internal/record"
)

// stats is maintained incrementally on every completed transaction, so every
// figure is O(1) or O(answer) to read.
type stats struct {
	volume Money
	sales  int64
	seller map[int32]*sellerStat
	items  map[uint16]*itemStat
	top    []*transactionRecord // most expensive completed, price descending, at most topKeep
	hist   map[uint16][]pricePoint
}

const topKeep = 100

type sellerStat struct {
	sales  int64
	earned Money // net, after fees
	// The buyers' ratings of these sales: how many, and their stars.
	ratings, stars int64
}

type itemStat struct {
	sales  int64
	amount int64
	volume Money
}

// addTop puts t in the list of the most expensive if it belongs there.
func (st *stats) addTop(t *transactionRecord) {
	if len(st.top) < topKeep || t.price > st.top[len(st.top)-1].price {
		i, _ := slices.BinarySearchFunc(st.top, t.price, func(x *transactionRecord, p Money) int {
			if x.price > p {
				return -1
			}
			return 1
		})
		st.top = slices.Insert(st.top, i, t)
		if len(st.top) > topKeep {
			st.top = st.top[:topKeep]
		}
	}
}

func newStats() stats {
	return stats{seller: map[int32]*sellerStat{}, items: map[uint16]*itemStat{}, hist: map[uint16][]pricePoint{}}
}

// record adds a completed sale to the figures, with its rating.
func (st *stats) record(s *Service, t *transactionRecord) { st.recordRated(s, t, t.rating) }

// recordRated adds a completed sale counting rating (0: none) as its
// rating: a sale whose completion has just become durable counts none,
// even if a rating already made of it (still in flight) shows on the
// record, since that rating counts itself once durable (stats.rated).
func (st *stats) recordRated(s *Service, t *transactionRecord, rating uint8) {
	st.volume += t.price
	st.sales++
	ss := st.seller[t.seller]
	if ss == nil {
		ss = &sellerStat{}
		st.seller[t.seller] = ss
	}
	ss.sales++
	ss.earned += t.net
	if rating > 0 {
		ss.ratings++
		ss.stars += int64(rating)
	}
	is := st.items[t.it.Mat]
	if is == nil {
		is = &itemStat{}
		st.items[t.it.Mat] = is
	}
	is.sales++
	is.amount += int64(t.it.Amount)
	is.volume += t.price
	st.addTop(t)
	at := t.tl[len(t.tl)-1].At
	pts := st.hist[t.it.Mat]
	pp := pricePoint{at: at, price: t.price, amount: t.it.Amount}
	// Completions arrive in time order except after recovery; keep it sorted.
	i := len(pts)
	for i > 0 && pts[i-1].at > at {
		i--
	}
	st.hist[t.it.Mat] = slices.Insert(pts, i, pp)
}

func (s *Service) rebuildStats() {
	s.stats = newStats()
	sortTx(s.completed)
	for _, t := range s.completed {
		s.stats.record(s, t)
	}
}

// sortTx orders transactions by the time of their last state, then id (the
// id's bytes: the order of its text, without making the text of a million
// ids twice per comparison).
func sortTx(ts []*transactionRecord) {
	slices.SortFunc(ts, func(a, b *transactionRecord) int {
		x, y := a.tl[len(a.tl)-1].At, b.tl[len(b.tl)-1].At
		if x != y {
			if x < y {
				return -1
			}
			return 1
		}
		return bytes.Compare(a.id[:], b.id[:])
	})
}

// SellerRank is one row of the top sellers.
type SellerRank struct {
	Seller uuid.UUID
	Name   string
	Sales  int64
	Earned float64 // net of fees
}

// ItemRank is one row of the top items.
type ItemRank struct {
	Material string
	Name     string
	Sales    int64
	Amount   int64
	Volume   float64
}

// Stats is a snapshot of the market's figures.
type Stats struct {
	ActiveListings int
	MarketVolume   float64 // lifetime sum of completed prices
	TotalSales     int64
	FeeBalance     float64
	Issued         Issuance // the issuance account: money and items from outside, and out
	TopSellers     []SellerRank
	TopItems       []ItemRank
	MostExpensive  []Transaction
}

// Stats returns the market's figures with the top n of each list.
func (s *Service) Stats(n int) (Stats, error) {
	if err := s.readGuard(); err != nil {
		return Stats{}, err
	}
	if n <= 0 {
		n = 10
	}
	s.waitHistory()
	s.mu.RLock()
	defer s.mu.RUnlock()
	st := Stats{
		ActiveListings: s.listings.Len() - s.expiredUnswept(s.nowMs()),
		MarketVolume:   s.volume.Float(),
		TotalSales:     s.sales,
		FeeBalance:     s.feeBalance.Float(),
		Issued:         s.issuance,
	}
	for idx, ss := range s.stats.seller {
		p := s.players[idx]
		st.TopSellers = append(st.TopSellers, SellerRank{Seller: p.id, Name: p.name, Sales: ss.sales, Earned: ss.earned.Float()})
	}
	slices.SortFunc(st.TopSellers, func(a, b SellerRank) int {
		if a.Earned != b.Earned {
			if a.Earned > b.Earned {
				return -1
			}
			return 1
		}
		return strings.Compare(a.Name, b.Name)
	})
	st.TopSellers = st.TopSellers[:min(n, len(st.TopSellers))]
	for mat, is := range s.stats.items {
		info := catalog.Material(mat)
		st.TopItems = append(st.TopItems, ItemRank{Material: info.Key, Name: info.Name, Sales: is.sales, Amount: is.amount, Volume: is.volume.Float()})
	}
	slices.SortFunc(st.TopItems, func(a, b ItemRank) int {
		if a.Amount != b.Amount {
			if a.Amount > b.Amount {
				return -1
			}
			return 1
		}
		return strings.Compare(a.Material, b.Material)
	})
	st.TopItems = st.TopItems[:min(n, len(st.TopItems))]
	for _, t := range s.stats.top[:min(n, len(s.stats.top))] {
		st.MostExpensive = append(st.MostExpensive, s.txOf(t))
	}
	return st, nil
}

// Profile is what anyone may see of a player: never balances, inventories
// or mail.
type Profile struct {
	ID             uuid.UUID
	Name           string
	ActiveListings int
	Sales          int64   // completed transactions as the seller
	Purchases      int64   // completed transactions as the buyer
	Earned         float64 // from sales, net of fees
	// Rating is the mean of the buyers' ratings of the player's sales (1 to
	// 5 stars, unweighted, as the original plugin), 0 without any; Ratings
	// counts them.
	Rating  float64
	Ratings int64
	Version uint64 // the market's version it was read at
}

// Profile returns the public figures of player id. Cost is O(the player's
// transactions).
func (s *Service) Profile(id uuid.UUID) (Profile, error) {
	if err := s.readGuard(); err != nil {
		return Profile{}, err
	}
	s.waitHistory()
	s.mu.RLock()
	defer s.mu.RUnlock()
	p, err := s.player(id)
	if err != nil {
		return Profile{}, err
	}
	pr := Profile{ID: p.id, Name: p.name, Version: s.log.head}
	if b := s.ix.Seller(p.idx); b != nil {
		pr.ActiveListings = int(b.GetCardinality())
	}
	if ss := s.stats.seller[p.idx]; ss != nil {
		pr.Sales, pr.Earned = ss.sales, ss.earned.Float()
		if ss.ratings > 0 {
			pr.Rating, pr.Ratings = float64(ss.stars)/float64(ss.ratings), ss.ratings
		}
	}
	for _, t := range p.txs {
		if t.buyer == p.idx && t.State() == StateCompleted {
			pr.Purchases++
		}
	}
	return pr, nil
}

// CategoryCount is a category and how many active listings it holds.
type CategoryCount struct {
	Category catalog.Category
	Active   int
}

// CategoryCounts returns every category with its active listings, read at
// one version (returned too). Listings past their expiry that the sweep has
// not removed yet are not counted.
func (s *Service) CategoryCounts() ([]CategoryCount, uint64, error) {
	if err := s.readGuard(); err != nil {
		return nil, 0, err
	}
	s.mu.RLock()
	defer s.mu.RUnlock()
	nowMs := s.nowMs()
	out := make([]CategoryCount, 0, catalog.NumCategories)
	for _, c := range catalog.AllCategories() {
		n := s.listings.Len()
		if c != catalog.CategoryAll {
			n = int(s.ix.Category(c).GetCardinality())
		}
		out = append(out, CategoryCount{Category: c, Active: n})
	}
	expired := s.ix.Expired(nowMs)
	out[0].Active -= int(expired.GetCardinality())
	for i := 1; i < len(out); i++ {
		out[i].Active -= int(s.ix.Category(out[i].Category).AndCardinality(expired))
	}
	return out, s.log.head, nil
}

// unrecord undoes record for t.
func (st *stats) unrecord(s *Service, t *transactionRecord) {
	st.volume -= t.price
	st.sales--
	if ss := st.seller[t.seller]; ss != nil {
		ss.sales--
		ss.earned -= t.net
		if t.rating > 0 {
			ss.ratings--
			ss.stars -= int64(t.rating)
		}
		if ss.sales == 0 {
			delete(st.seller, t.seller)
		}
	}
	if is := st.items[t.it.Mat]; is != nil {
		is.sales--
		is.amount -= int64(t.it.Amount)
		is.volume -= t.price
		if is.sales == 0 {
			delete(st.items, t.it.Mat)
		}
	}
	if i := slices.Index(st.top, t); i >= 0 {
		// The list keeps the topKeep most expensive: the next one in line
		// may be anywhere in the history.
		st.top = st.top[:0]
		for _, c := range s.completed {
			st.addTop(c)
		}
	}
	at := t.tl[slices.IndexFunc(t.tl, func(x record.Stamp) bool { return x.State == uint8(stateIndex(StateCompleted)) })].At
	pts := st.hist[t.it.Mat]
	for i := range pts {
		if p := pts[i]; p.at == at && p.price == t.price && p.amount == t.it.Amount {
			st.hist[t.it.Mat] = slices.Delete(pts, i, i+1)
			break
		}
	}
}

// rated adds t's rating to its seller's figures.
func (st *stats) rated(t *transactionRecord) {
	if ss := st.seller[t.seller]; ss != nil && t.rating > 0 {
		ss.ratings++
		ss.stars += int64(t.rating)
	}
}

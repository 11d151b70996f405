package market

import (
	"bytes"
	"slices"
	"strings"
	"time"

	"github.com/google/uuid"
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

// pricePoint is one completed sale of a material, for price history. It
// keeps the sale's price, not its unit price: volumes are sums of prices,
// exact to the cent, where a sum of rounded unit prices times amounts fell
// short (a stack of 3 sold for 10.00 counted 9.99).
type pricePoint struct {
	at     int64 // unix ms
	price  Money
	amount uint8
}

// unit is the sale's unit price in 1/1000 cent (unitKey).
func (p pricePoint) unit() int64 { return unitKey(p.price, p.amount) }

func newStats() stats {
	return stats{seller: map[int32]*sellerStat{}, items: map[uint16]*itemStat{}, hist: map[uint16][]pricePoint{}}
}

func (st *stats) record(s *Service, t *transactionRecord) {
	st.volume += t.price
	st.sales++
	ss := st.seller[t.seller]
	if ss == nil {
		ss = &sellerStat{}
		st.seller[t.seller] = ss
	}
	ss.sales++
	ss.earned += t.net
	if t.rating > 0 {
		ss.ratings++
		ss.stars += int64(t.rating)
	}
	is := st.items[t.it.mat]
	if is == nil {
		is = &itemStat{}
		st.items[t.it.mat] = is
	}
	is.sales++
	is.amount += int64(t.it.amount)
	is.volume += t.price
	st.addTop(t)
	at := t.tl[len(t.tl)-1].at
	pts := st.hist[t.it.mat]
	pp := pricePoint{at: at, price: t.price, amount: t.it.amount}
	// Completions arrive in time order except after recovery; keep it sorted.
	i := len(pts)
	for i > 0 && pts[i-1].at > at {
		i--
	}
	st.hist[t.it.mat] = slices.Insert(pts, i, pp)
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
		x, y := a.tl[len(a.tl)-1].at, b.tl[len(b.tl)-1].at
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
		ActiveListings: s.listings.len() - s.expiredUnswept(s.nowMs()),
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
		info := materials[mat]
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

// PriceWindow summarizes sales of one material over a window.
type PriceWindow struct {
	Window             time.Duration
	Sales              int
	Amount             int64   // items sold
	Volume             Money   // the sum of the sales' prices, exact
	Min, Median, Max   float64 // unit prices; 0 when no sales
	MeanWeightedByUnit float64 // volume / amount
}

// PricePoint is one bucket of a price chart.
type PricePoint struct {
	Start            time.Time // UTC, a multiple of the bucket width since the Unix epoch
	Sales            int
	Amount           int64   // items sold in the bucket
	Volume           Money   // the sum of the bucket's prices, exact
	Min, Median, Max float64 // unit prices; 0 when no sales in the bucket
}

// PriceHistory is the price history of one material.
type PriceHistory struct {
	Material string
	Windows  []PriceWindow // 24h, 7d, 30d, each ending now
	Width    time.Duration // of one bucket of Points
	Points   []PricePoint  // buckets over the chosen span, oldest first
}

// The price chart's defaults, when PriceHistory is given 0 for them.
const (
	DefaultPriceSpan  = 30 * 24 * time.Hour
	DefaultPriceWidth = 24 * time.Hour
	// MaxPriceBuckets bounds the buckets of one chart.
	MaxPriceBuckets = 1000
)

// PriceHistory returns min/median/max unit prices and volumes of material
// over the last 24 h, 7 d and 30 d, and a chart of it: buckets `width` wide
// that cover `span` up to now. Buckets are aligned to UTC: each starts at a
// multiple of width since the Unix epoch (whole hours for 1 h, 00:00, 06:00,
// 12:00 and 18:00 for 6 h, midnights for a day), the last one is the bucket
// now falls in, so a bucket holds the same sales in every answer while it
// lasts and two charts of one width line up. width must divide a day or be
// a whole number of days, and at most MaxPriceBuckets buckets fit the span.
// 0 asks for the default span (30 days) or width (a day).
func (s *Service) PriceHistory(material string, span, width time.Duration) (PriceHistory, error) {
	if err := s.readGuard(); err != nil {
		return PriceHistory{}, err
	}
	mat, ok := materialID(strings.ToUpper(strings.TrimSpace(material)))
	if !ok {
		return PriceHistory{}, errf(CodeInvalidQuery, "unknown material %q", truncateForMsg(material))
	}
	if span == 0 {
		span = DefaultPriceSpan
	}
	if width == 0 {
		width = DefaultPriceWidth
	}
	if err := checkPriceBuckets(span, width); err != nil {
		return PriceHistory{}, err
	}
	n := int64((span + width - 1) / width)
	now := s.nowMs()
	w := width.Milliseconds()
	last := now - mod(now, w) // the bucket now falls in
	first := last - (n-1)*w
	recent := s.salesSince(mat, min(now-DefaultPriceSpan.Milliseconds(), first))

	ph := PriceHistory{Material: materials[mat].Key, Width: width}
	ph.Windows = windows(recent, now)
	for lo := first; lo <= last; lo += w {
		pw := summarize(recent, lo, lo+w, 0)
		ph.Points = append(ph.Points, PricePoint{Start: time.UnixMilli(lo).UTC(), Sales: pw.Sales, Amount: pw.Amount,
			Volume: pw.Volume, Min: pw.Min, Median: pw.Median, Max: pw.Max})
	}
	return ph, nil
}

// checkPriceBuckets refuses a chart whose buckets would not meet UTC
// boundaries or would be too many.
func checkPriceBuckets(span, width time.Duration) error {
	const day = 24 * time.Hour
	switch {
	case span < 0 || width < 0:
		return errf(CodeInvalidQuery, "a price chart's span and bucket width are positive, not %s and %s", span, width)
	case width%time.Millisecond != 0 || day%width != 0 && width%day != 0:
		return errf(CodeInvalidQuery, "a price chart's bucket width divides a day or is whole days (1h, 6h, 24h…), not %s", width)
	case (span+width-1)/width > MaxPriceBuckets:
		return errf(CodeInvalidQuery, "%s in buckets of %s is more than %d buckets", span, width, MaxPriceBuckets)
	}
	return nil
}

// mod is a mathematical modulo (never negative), for times before 1970.
func mod(a, b int64) int64 { return (a%b + b) % b }

// salesSince returns a copy of mat's sales from unix ms from on, oldest
// first.
func (s *Service) salesSince(mat uint16, from int64) []pricePoint {
	s.waitHistory()
	s.mu.RLock()
	defer s.mu.RUnlock()
	pts := s.stats.hist[mat]
	i, _ := slices.BinarySearchFunc(pts, from, func(p pricePoint, t int64) int {
		if p.at < t {
			return -1
		}
		return 1
	})
	return slices.Clone(pts[i:])
}

// windows are the 24 h, 7 d and 30 d windows ending at now. Each covers
// [now-w, now], both ends included, so a sale this very moment and one
// exactly w ago both count.
func windows(pts []pricePoint, now int64) []PriceWindow {
	var out []PriceWindow
	for _, w := range []time.Duration{24 * time.Hour, 7 * 24 * time.Hour, 30 * 24 * time.Hour} {
		out = append(out, summarize(pts, now-w.Milliseconds(), now+1, w))
	}
	return out
}

// summarize is the window [lo, hi) of pts.
func summarize(pts []pricePoint, lo, hi int64, w time.Duration) PriceWindow {
	pw := PriceWindow{Window: w}
	var units []int64
	for _, p := range pts {
		if p.at < lo || p.at >= hi {
			continue
		}
		units = append(units, p.unit())
		pw.Amount += int64(p.amount)
		pw.Volume += p.price
	}
	pw.Sales = len(units)
	if len(units) == 0 {
		return pw
	}
	slices.Sort(units)
	toF := func(u int64) float64 { return float64(u) / 100000 }
	pw.Min, pw.Max = toF(units[0]), toF(units[len(units)-1])
	mid := len(units) / 2
	if len(units)%2 == 1 {
		pw.Median = toF(units[mid])
	} else {
		pw.Median = toF((units[mid-1] + units[mid]) / 2)
	}
	if pw.Amount > 0 {
		pw.MeanWeightedByUnit = pw.Volume.Float() / float64(pw.Amount)
	}
	return pw
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
	p := s.playerByID[id]
	if p == nil {
		return Profile{}, errf(CodeUnknownPlayer, "player %s does not exist", id)
	}
	pr := Profile{ID: p.id, Name: p.name, Version: s.log.head}
	if b := s.ix.sellers[p.idx]; b != nil {
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
	Category Category
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
	out := make([]CategoryCount, 0, categoryCount)
	for _, c := range allCategories() {
		n := s.listings.len()
		if c != CategoryAll {
			n = int(s.ix.cats[c].GetCardinality())
		}
		out = append(out, CategoryCount{Category: c, Active: n})
	}
	s.ix.byExpiry.ascend(func(k sortKey) bool {
		if k.k > nowMs {
			return false
		}
		out[0].Active--
		for i := 1; i < len(out); i++ {
			if s.ix.cats[out[i].Category].Contains(k.id) {
				out[i].Active--
			}
		}
		return true
	})
	return out, s.log.head, nil
}

// PriceSummary is what a seller sees before typing a price: the unit prices
// the material sold at over the last 7 days, and the cheapest live listing
// of it by unit price.
type PriceSummary struct {
	Material string
	Week     PriceWindow // Sales, Min, Median, Max unit prices; zero when nothing sold
	Cheapest *Listing    // nil when none is on sale
}

// PriceSummary returns the price summary of material. It waits for the
// history's background load, like PriceHistory; any goroutine.
func (s *Service) PriceSummary(material string) (PriceSummary, error) {
	if err := s.readGuard(); err != nil {
		return PriceSummary{}, err
	}
	mat, ok := materialID(strings.ToUpper(strings.TrimSpace(material)))
	if !ok {
		return PriceSummary{}, errf(CodeInvalidQuery, "unknown material %q", truncateForMsg(material))
	}
	now := s.nowMs()
	week := 7 * 24 * time.Hour
	sum := PriceSummary{Material: materials[mat].Key,
		Week: summarize(s.salesSince(mat, now-week.Milliseconds()), now-week.Milliseconds(), now+1, week)}
	page, err := s.Query(Query{Material: sum.Material, Sort: SortUnitPrice, Limit: 1})
	if err != nil {
		return PriceSummary{}, err
	}
	if len(page.Listings) == 1 {
		sum.Cheapest = &page.Listings[0]
	}
	return sum, nil
}

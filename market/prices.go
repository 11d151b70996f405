package market

import (
	"slices"
	"time"

	"github.com/rynek/rynek/market/catalog"
	"github.com/rynek/rynek/market/internal/search"
)

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
func (p pricePoint) unit() int64 { return search.UnitKey(int64(p.price), p.amount) }

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
	mat, err := materialOf(material, CodeInvalidQuery)
	if err != nil {
		return PriceHistory{}, err
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

	ph := PriceHistory{Material: catalog.Material(mat).Key, Width: width}
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
	mat, err := materialOf(material, CodeInvalidQuery)
	if err != nil {
		return PriceSummary{}, err
	}
	now := s.nowMs()
	week := 7 * 24 * time.Hour
	sum := PriceSummary{Material: catalog.Material(mat).Key,
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

package wire

import (
	"time"

	"github.com/rynek/rynek/market"
	"github.com/rynek/rynek/market/catalog"
)

// The shapes of the HTTP read API's answers beyond single listings and
// transactions: collections, figures and the market's catalogue.

// ListingPage is one page of listings. Version is the market's version (the
// event log's seq) it was read at: a client can follow the event stream from
// it and miss nothing. NextCursor is absent on the last page.
type ListingPage struct {
	Items      []Listing `json:"items"`
	Total      int       `json:"total"` // listings matching the filters, on all pages
	NextCursor string    `json:"nextCursor,omitempty"`
	Version    uint64    `json:"version"`
}

// TransactionPage is one page of completed transactions, newest first.
type TransactionPage struct {
	Items      []Transaction `json:"items"`
	Total      int           `json:"total"`
	NextCursor string        `json:"nextCursor,omitempty"`
	Version    uint64        `json:"version"`
}

// BidPage is a page of an auction's bids, newest first. Total counts
// every bid placed; the market keeps the newest 100 of them.
type BidPage struct {
	Items      []Bid  `json:"items"`
	Total      int    `json:"total"`
	NextCursor string `json:"nextCursor,omitempty"`
	Version    uint64 `json:"version"`
}

// Category is a market category with its active listings.
type Category struct {
	Name        string `json:"name"`        // contract name, "TOOLS"
	DisplayName string `json:"displayName"` // what players read, in Polish
	Icon        string `json:"icon"`        // material key of its menu icon
	Active      int    `json:"active"`
}

// CategoryList is every category, read at one version.
type CategoryList struct {
	Items   []Category `json:"items"`
	Version uint64     `json:"version"`
}

// NewCategoryList is the wire form of the category counts.
func NewCategoryList(counts []market.CategoryCount, version uint64) CategoryList {
	out := CategoryList{Items: make([]Category, 0, len(counts)), Version: version}
	for _, c := range counts {
		out.Items = append(out.Items, Category{Name: c.Category.String(), DisplayName: c.Category.DisplayName(),
			Icon: c.Category.Icon(), Active: c.Active})
	}
	return out
}

// Profile is a player's public profile: never balances, inventories or mail.
type Profile struct {
	UUID           string `json:"uuid"`
	Name           string `json:"name"`
	ActiveListings int    `json:"activeListings"`
	Sales          int64  `json:"sales"`
	Purchases      int64  `json:"purchases"`
	Earned         string `json:"earned"` // from sales, net of fees
	// Rating is the mean of the buyers' 1-5 star ratings of the sales, null
	// without any (0 would read as the worst mark); Ratings counts them.
	Rating  *float64 `json:"rating"`
	Ratings int64    `json:"ratings"`
	Version uint64   `json:"version"`
}

// NewProfile is the wire form of a profile.
func NewProfile(p market.Profile) Profile {
	out := Profile{UUID: p.ID.String(), Name: p.Name, ActiveListings: p.ActiveListings, Sales: p.Sales,
		Purchases: p.Purchases, Earned: Money(p.Earned), Ratings: p.Ratings, Version: p.Version}
	if p.Ratings > 0 {
		out.Rating = &p.Rating
	}
	return out
}

// SellerRank is one row of the top sellers.
type SellerRank struct {
	Seller Player `json:"seller"`
	Sales  int64  `json:"sales"`
	Earned string `json:"earned"`
}

// ItemRank is one row of the top items.
type ItemRank struct {
	Material string `json:"material"`
	Name     string `json:"name"`
	Sales    int64  `json:"sales"`
	Amount   int64  `json:"amount"`
	Volume   string `json:"volume"`
}

// Stats is the market's figures.
type Stats struct {
	ActiveListings int           `json:"activeListings"`
	MarketVolume   string        `json:"marketVolume"` // lifetime sum of completed prices
	TotalSales     int64         `json:"totalSales"`
	FeeBalance     string        `json:"feeBalance"` // every fee taken so far
	Issued         Issuance      `json:"issued"`
	TopSellers     []SellerRank  `json:"topSellers"`
	TopItems       []ItemRank    `json:"topItems"`
	MostExpensive  []Transaction `json:"mostExpensive"`
	Version        uint64        `json:"version"`
}

// Issuance is the issuance account: the money and items that came into the
// market from outside it (admins' deposits and gifts, new players' starting
// money and items) and that left it.
type Issuance struct {
	MoneyIn  string `json:"moneyIn"`
	MoneyOut string `json:"moneyOut"`
	ItemsIn  int64  `json:"itemsIn"`
	ItemsOut int64  `json:"itemsOut"`
}

// NewIssuance is the wire form of the issuance account.
func NewIssuance(i market.Issuance) Issuance {
	return Issuance{MoneyIn: market.FormatMoney(i.MoneyIn), MoneyOut: market.FormatMoney(i.MoneyOut), ItemsIn: i.ItemsIn, ItemsOut: i.ItemsOut}
}

// NewStats is the wire form of the market's figures.
func NewStats(st market.Stats, version uint64) Stats {
	out := Stats{ActiveListings: st.ActiveListings, MarketVolume: Money(st.MarketVolume), TotalSales: st.TotalSales,
		FeeBalance: Money(st.FeeBalance), Issued: NewIssuance(st.Issued), TopSellers: []SellerRank{}, TopItems: []ItemRank{},
		MostExpensive: []Transaction{}, Version: version}
	for _, s := range st.TopSellers {
		out.TopSellers = append(out.TopSellers, SellerRank{Seller: NewPlayer(market.Player{ID: s.Seller, Name: s.Name}),
			Sales: s.Sales, Earned: Money(s.Earned)})
	}
	for _, it := range st.TopItems {
		out.TopItems = append(out.TopItems, ItemRank{Material: it.Material, Name: it.Name, Sales: it.Sales,
			Amount: it.Amount, Volume: Money(it.Volume)})
	}
	for _, t := range st.MostExpensive {
		out.MostExpensive = append(out.MostExpensive, NewTransaction(t))
	}
	return out
}

// PriceBucket is one bucket of a price history: unit prices of the sales
// in [start, start+width), and their count and volume (the sum of their
// prices, exact). Prices are absent from a bucket without sales.
type PriceBucket struct {
	Start  Time   `json:"start"`
	Count  int    `json:"count"`  // sales
	Amount int64  `json:"amount"` // items sold
	Volume string `json:"volume"` // sum of prices
	Min    string `json:"min,omitempty"`
	Median string `json:"median,omitempty"`
	Max    string `json:"max,omitempty"`
}

// PriceHistory is the price history of one material over a span.
type PriceHistory struct {
	Material string        `json:"material"`
	Name     string        `json:"name"`         // the material's readable name, "Diamond Sword"
	Span     string        `json:"span"`         // "24h", "7d" or "30d"
	BucketMs int64         `json:"bucketMillis"` // one bucket's width in milliseconds: 1 h, 6 h or 1 d
	Buckets  []PriceBucket `json:"buckets"`
	Version  uint64        `json:"version"`
}

// PriceSummary is what a seller sees before typing a price: the unit prices
// of the item's sales over the last 7 days (absent without sales) and the
// cheapest listing of it on sale by unit price (absent when none is).
type PriceSummary struct {
	Material string   `json:"material"`
	Name     string   `json:"name"`  // the material's readable name, "Diamond Sword"
	Sales    int      `json:"sales"` // in the last 7 days
	Min      string   `json:"min,omitempty"`
	Median   string   `json:"median,omitempty"`
	Max      string   `json:"max,omitempty"`
	Cheapest *Listing `json:"cheapest,omitempty"`
	Version  uint64   `json:"version"`
}

// NewPriceSummary is the wire form of a price summary.
func NewPriceSummary(sum market.PriceSummary, version uint64) PriceSummary {
	out := PriceSummary{Material: sum.Material, Name: materialName(sum.Material), Sales: sum.Week.Sales, Version: version}
	if w := sum.Week; w.Sales > 0 {
		out.Min, out.Median, out.Max = Money(w.Min), Money(w.Median), Money(w.Max)
	}
	if sum.Cheapest != nil {
		l := NewListing(*sum.Cheapest)
		out.Cheapest = &l
	}
	return out
}

// NewPriceHistory is the wire form of a price history.
func NewPriceHistory(ph market.PriceHistory, span string, version uint64) PriceHistory {
	out := PriceHistory{Material: ph.Material, Name: materialName(ph.Material), Span: span, BucketMs: ph.Width.Milliseconds(), Buckets: make([]PriceBucket, 0, len(ph.Points)), Version: version}
	for _, p := range ph.Points {
		b := PriceBucket{Start: At(p.Start), Count: p.Sales, Amount: p.Amount, Volume: market.FormatMoney(p.Volume)}
		if p.Sales > 0 {
			b.Min, b.Median, b.Max = Money(p.Min), Money(p.Median), Money(p.Max)
		}
		out.Buckets = append(out.Buckets, b)
	}
	return out
}

// materialName is a material's readable name, its key when the catalogue
// lacks it.
func materialName(key string) string {
	if info, ok := catalog.LookupMaterial(key); ok {
		return info.Name
	}
	return key
}

// VolumeBucket is one bucket of the market's volume history: the sales of
// every item in [start, start+width).
type VolumeBucket struct {
	Start  Time   `json:"start"`
	Count  int    `json:"count"`  // sales
	Amount int64  `json:"amount"` // items sold
	Volume string `json:"volume"` // sum of prices
}

// VolumeHistory is the whole market's sales over a span, in the buckets of
// a price history of that span.
type VolumeHistory struct {
	Span     string         `json:"span"`         // "24h", "7d" or "30d"
	BucketMs int64          `json:"bucketMillis"` // one bucket's width in milliseconds
	Buckets  []VolumeBucket `json:"buckets"`
	Version  uint64         `json:"version"`
}

// NewVolumeHistory is the wire form of summed price-history buckets (their
// prices aside).
func NewVolumeHistory(span string, width time.Duration, points []market.PricePoint, version uint64) VolumeHistory {
	out := VolumeHistory{Span: span, BucketMs: width.Milliseconds(), Buckets: make([]VolumeBucket, len(points)), Version: version}
	for i, p := range points {
		out.Buckets[i] = VolumeBucket{Start: At(p.Start), Count: p.Sales, Amount: p.Amount, Volume: market.FormatMoney(p.Volume)}
	}
	return out
}
